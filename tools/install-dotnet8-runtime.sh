#!/usr/bin/env bash
# Installs the .NET 8 shared runtime next to the SDK's own runtime, from the NuGet runtime package, so that the
# net8.0 builds of the tests run on .NET 8 itself (the machines carry only the .NET 10 runtime, and reach no
# download site other than the package registries). Does nothing when a .NET 8 runtime is already there.
set -euo pipefail
version="${DOTNET8_RUNTIME_VERSION:-8.0.33}"
dotnet_root="${DOTNET_ROOT:-$(dirname "$(readlink -f "$(command -v dotnet)")")}"
if dotnet --list-runtimes | grep -q '^Microsoft.NETCore.App 8\.'; then
  echo "install-dotnet8-runtime: $(dotnet --list-runtimes | grep '^Microsoft.NETCore.App 8\.' | head -1) already present"
  exit 0
fi
target="$dotnet_root/shared/Microsoft.NETCore.App/$version"
if [ ! -w "$dotnet_root/shared/Microsoft.NETCore.App" ]; then
  echo "install-dotnet8-runtime: $dotnet_root is not writable; the net8.0 test runs will fail. Run as a user who can write there." >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
url="https://api.nuget.org/v3-flatcontainer/microsoft.netcore.app.runtime.linux-x64/$version/microsoft.netcore.app.runtime.linux-x64.$version.nupkg"
echo "install-dotnet8-runtime: fetching Microsoft.NETCore.App.Runtime.linux-x64 $version from NuGet"
curl -fsSL --retry 3 -o "$tmp/rt.nupkg" "$url"
(cd "$tmp" && python3 -c "import zipfile,sys; zipfile.ZipFile('rt.nupkg').extractall('x')")
mkdir -p "$target"
cp "$tmp"/x/runtimes/linux-x64/lib/net8.0/* "$target"/
cp "$tmp"/x/runtimes/linux-x64/native/* "$target"/
chmod +x "$target"/createdump 2>/dev/null || true
dotnet --list-runtimes | grep '^Microsoft.NETCore.App 8\.'

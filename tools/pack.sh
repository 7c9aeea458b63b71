#!/usr/bin/env bash
# Packs every library package (the projects that set IsPackable: src/Directory.Build.props) with its symbol
# package into artifacts/packages (or the folder given with -o). Extra arguments go to dotnet pack, e.g.
#   bash tools/pack.sh                       # version from the nearest git tag v<x.y.z> (MinVer)
#   bash tools/pack.sh -p:MinVerVersionOverride=1.2.3
set -euo pipefail
cd "$(dirname "$0")/.."
output=artifacts/packages
args=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        -o|--output) output=$2; shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
dotnet pack RapidFix.sln -c Release -o "$output" "${args[@]}"
ls -1 "$output"

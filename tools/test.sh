#!/usr/bin/env bash
# The test command of the README: every test project, on .NET 10 and on .NET 8, in Release.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-dotnet8-runtime.sh
dotnet test RapidFix.sln -c Release --logger "console;verbosity=normal" "$@"

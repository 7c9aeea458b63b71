#!/usr/bin/env bash
# The fuzzing campaign (docs/fuzzing.md). Not part of CI: the CI slices are ordinary tests
# (tests/RapidFix.Engine.Tests/Codec/FuzzCampaignTests.cs, tests/RapidFix.Fast.Tests/FuzzCampaignTests.cs).
#
#   tools/fuzz.sh fix|fast [--cases N] [--seconds S] [--seed K]   in-process mutation campaign (default 10^6 cases)
#   tools/fuzz.sh nightly                                          10^7 cases of each target
#   tools/fuzz.sh fix|fast --afl [--seconds S]                     coverage-guided: AFL++ over SharpFuzz-instrumented
#                                                                  engine assemblies (needs afl-fuzz on PATH and the
#                                                                  SharpFuzz.CommandLine 2.3.0 dotnet tool)
# Findings (inputs that broke an invariant, crashed or hung) go to artifacts/fuzz-findings (in-process) or
# artifacts/fuzz-afl/<target>/out/default/{crashes,hangs} (AFL); replay them with
#   dotnet run -c Release --project tools/Fuzz -- fix --replay FILE...
# Exit code: 0 nothing found, 1 findings, 2 usage, 3 a hang.
set -euo pipefail
cd "$(dirname "$0")/.."

project=tools/Fuzz/RapidFix.Fuzz.csproj
if [[ $# -lt 1 ]]; then
    sed -n '2,15p' "$0"
    exit 2
fi

target=$1
shift
if [[ $target == nightly ]]; then
    dotnet build "$project" -c Release -v q -nologo
    status=0
    for t in fix fast; do
        dotnet run -c Release --no-build --project "$project" -- "$t" --cases 10000000 "$@" || status=$?
    done
    exit $status
fi

if [[ ${1:-} != --afl ]]; then
    dotnet build "$project" -c Release -v q -nologo
    exec dotnet run -c Release --no-build --project "$project" -- "$target" "$@"
fi

shift
seconds=600
while [[ $# -gt 0 ]]; do
    case $1 in
        --seconds) seconds=$2; shift 2 ;;
        *) echo "unknown option $1 for --afl" >&2; exit 2 ;;
    esac
done

command -v afl-fuzz >/dev/null || { echo "afl-fuzz not found: install AFL++ (Debian: apt-get install afl++)" >&2; exit 2; }
sharpfuzz=$(command -v sharpfuzz || echo "${SHARPFUZZ:-$HOME/.dotnet/tools/sharpfuzz}")
[[ -x $sharpfuzz ]] || { echo "sharpfuzz not found: dotnet tool install --global SharpFuzz.CommandLine --version 2.3.0 (or set SHARPFUZZ)" >&2; exit 2; }

out=artifacts/fuzz-afl/$target
rm -rf "$out/bin" "$out/in"
# Seeds from the plain build (instrumented code runs only under AFL).
dotnet build "$project" -c Release -v q -nologo
dotnet run -c Release --no-build --project "$project" -- seeds "$target" "$out/in"
dotnet publish "$project" -c Release -o "$out/bin" -v q -nologo
# Coverage: SharpFuzz rewrites the assemblies under test with AFL's edge counters.
for assembly in RapidFix.Engine.dll RapidFix.Fast.dll; do
    "$sharpfuzz" "$out/bin/$assembly"
done

mkdir -p "$out/out"
export AFL_SKIP_BIN_CHECK=1 AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
set +e
afl-fuzz -i "$out/in" -o "$out/out" -t 5000 -m none -V "$seconds" -- dotnet "$out/bin/RapidFix.Fuzz.dll" afl "$target"
set -e
stats=$out/out/default/fuzzer_stats
grep -E '^(execs_done|execs_per_sec|corpus_count|edges_found|total_edges|saved_crashes|saved_hangs|bitmap_cvg)' "$stats" || true
crashes=$(find "$out/out/default/crashes" -type f ! -name README.txt 2>/dev/null | wc -l)
hangs=$(find "$out/out/default/hangs" -type f 2>/dev/null | wc -l)
echo "afl $target: $crashes crashes, $hangs hangs (in $out/out/default)"
[[ $crashes -eq 0 && $hangs -eq 0 ]]

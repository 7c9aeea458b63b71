#!/usr/bin/env bash
# The zero-GC check as one command: builds, runs the end-to-end load (samples/FixLoad: a RapidFix initiator sends
# NewOrderSingle to a RapidFix acceptor over loopback at a steady rate) for SECONDS of continuous phase under an
# EventPipe trace (the runtime's own environment variables: nothing to install, nothing attached), analyzes the
# trace with tools/EtwAnalyzer and prints its verdict as the last line.
#   usage: tools/zero-gc-check.sh [SECONDS] [FixLoad options...]      (default 60 seconds)
#   environment: ZERO_GC_FRAMEWORK (net10.0 | net8.0, default net10.0), ZERO_GC_RATE (orders/s, default 10000),
#                ZERO_GC_OUT (output folder, default artifacts/zero-gc)
# Exit code: the analyzer's: 0 clean, 1 a GC or an allocation in the continuous phase, 2 the trace cannot tell.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
if [[ $# -gt 0 ]]; then shift; fi
if ! [[ "$seconds" =~ ^[0-9]+([.][0-9]+)?$ ]] || [[ "$seconds" =~ ^0+([.]0+)?$ ]]; then
    echo "zero-gc-check: SECONDS must be a positive number (got '$seconds')" >&2
    echo "usage: tools/zero-gc-check.sh [SECONDS] [FixLoad options...]" >&2
    exit 2
fi

framework="${ZERO_GC_FRAMEWORK:-net10.0}"
rate="${ZERO_GC_RATE:-10000}"
out="${ZERO_GC_OUT:-artifacts/zero-gc}"
if [[ "$framework" == net8.0 ]]; then
    bash tools/install-dotnet8-runtime.sh
fi

echo "zero-gc-check: building (Release, $framework)"
dotnet build samples/FixLoad/FixLoad.csproj -c Release -f "$framework" --nologo -v q -clp:ErrorsOnly
dotnet build tools/EtwAnalyzer/RapidFix.EtwAnalyzer.csproj -c Release --nologo -v q -clp:ErrorsOnly

mkdir -p "$out"
trace="$out/fixload.nettrace"
analyzer="tools/EtwAnalyzer/bin/Release/net10.0/EtwAnalyzer.dll"
echo "zero-gc-check: load for ${seconds} s at ${rate} orders/s, traced to $trace"
set +e
# Bounded: a load that hangs (it should not) must not hang CI; the analyzer then reports a truncated trace.
timeout --kill-after=10 $(( seconds + 240 )) dotnet "$analyzer" collect --output "$trace" -- "samples/FixLoad/bin/Release/$framework/FixLoad.dll" \
    --seconds "$seconds" --rate "$rate" "$@"
load_status=$?
set -e
if [[ $load_status -ne 0 ]]; then
    echo "zero-gc-check: the load exited with code $load_status (its own check; the trace decides below)"
fi

set +e
dotnet "$analyzer" analyze "$trace" --out "$out/analysis"
status=$?
set -e
exit $status

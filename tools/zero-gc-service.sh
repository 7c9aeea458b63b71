#!/usr/bin/env bash
# The zero-GC check of the matching service: the service (src/MatchingService, demo settings; the static data of the
# generated trades, written by the driver's static-data command) runs
# under an EventPipe trace; the participants connect from the trade driver (another process) during startup
# (--wait-for-participants: connection set-up allocates), then offer good trades at a steady rate for SECONDS of
# continuous phase; tools/EtwAnalyzer analyzes the service's trace and prints its verdict as the last line.
#   usage: tools/zero-gc-service.sh [SECONDS]      (default 60 seconds)
#   environment: ZERO_GC_FRAMEWORK (net10.0 | net8.0, default net10.0), ZERO_GC_RATE (messages/s, default 2000),
#                ZERO_GC_OUT (output folder, default artifacts/zero-gc-service), ZERO_GC_PORT (default 5126)
# Exit code: the analyzer's: 0 clean, 1 a GC or an allocation in the continuous phase, 2 the trace cannot tell.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [[ "$seconds" -lt 5 ]]; then
    echo "zero-gc-service: SECONDS must be a whole number of at least 5 (got '$seconds')" >&2
    echo "usage: tools/zero-gc-service.sh [SECONDS]" >&2
    exit 2
fi

framework="${ZERO_GC_FRAMEWORK:-net10.0}"
rate="${ZERO_GC_RATE:-2000}"
out="${ZERO_GC_OUT:-artifacts/zero-gc-service}"
port="${ZERO_GC_PORT:-5126}"
if [[ "$framework" == net8.0 ]]; then
    bash tools/install-dotnet8-runtime.sh
fi

echo "zero-gc-service: building (Release, $framework)"
dotnet build src/MatchingService/RapidFix.MatchingService.csproj -c Release -f "$framework" --nologo -v q -clp:ErrorsOnly
dotnet build tools/TradeDriver/RapidFix.TradeDriver.csproj -c Release -f "$framework" --nologo -v q -clp:ErrorsOnly
dotnet build tools/EtwAnalyzer/RapidFix.EtwAnalyzer.csproj -c Release --nologo -v q -clp:ErrorsOnly

rm -rf "$out/data"
mkdir -p "$out"
# The static data of the trades the driver sends: the demo's with the generated securities.
dotnet "tools/TradeDriver/bin/Release/$framework/RapidFix.TradeDriver.dll" static-data --out "$out/static-data" > /dev/null
trace="$out/service.nettrace"
analyzer="tools/EtwAnalyzer/bin/Release/net10.0/EtwAnalyzer.dll"
# The service's continuous phase lasts SECONDS; the driver offers trades for longer, so that its participants are
# still connected when the service stops: their connections end in the service's shutdown phase, not in the
# continuous one (a connection's tear-down allocates, as its set-up does: --wait-for-participants).
service_seconds="$seconds"
driver_seconds=$(( seconds + 120 ))
echo "zero-gc-service: service for ${service_seconds} s on port $port, traced to $trace; trades at ${rate} messages/s"
set +e
timeout --kill-after=10 $(( service_seconds + 300 )) dotnet "$analyzer" collect --output "$trace" -- \
    "src/MatchingService/bin/Release/$framework/RapidFix.MatchingService.dll" --config src/MatchingService/demo/service.cfg --static-data "$out/static-data" \
    --data-dir "$out/data" --port "$port" --seconds "$service_seconds" --business-date 20261123 --wait-for-participants 120 \
    --log "$out/engine.log" &
service=$!
sleep 3
timeout --kill-after=10 $(( driver_seconds + 200 )) dotnet "tools/TradeDriver/bin/Release/$framework/RapidFix.TradeDriver.dll" throughput \
    --host 127.0.0.1 --port "$port" --rate "$rate" --seconds "$driver_seconds" > "$out/driver.txt" 2>&1 &
driver=$!
wait "$service"
service_status=$?
kill "$driver" 2>/dev/null
wait "$driver" 2>/dev/null
set -e
grep -E '^t=' "$out/driver.txt" | tail -2 || true
if [[ $service_status -ne 0 ]]; then
    echo "zero-gc-service: the service exited with code $service_status (its own check; the trace decides below)"
fi

set +e
dotnet "$analyzer" analyze "$trace" --out "$out/analysis"
status=$?
set -e
exit $status

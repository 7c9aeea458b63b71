#!/usr/bin/env bash
# The zero-GC check of the gateway (docs/scale-out.md): two matching services (partitions 2, one each; processes of
# their own), the gateway in front of them under an EventPipe trace, and the trade driver's participants through the
# gateway. The gateway's sessions to the services and the participants' sessions to the gateway all log on during
# its startup (--wait-for-services, --wait-for-participants: connection set-up allocates), the gateway warms up
# through a scratch gateway of its own (stand-in services and participants in its process, loopback, deleted after:
# the real services and the driver see none of it), then the driver offers good trades at a steady rate for SECONDS
# of the gateway's continuous phase; tools/EtwAnalyzer analyzes the gateway's trace and prints its verdict as the
# last line. Run by tools/test.sh (20 s) unless RAPIDFIX_SKIP_ZERO_GC_GATEWAY=1.
#   usage: tools/zero-gc-gateway.sh [SECONDS]      (default 60 seconds)
#   environment: ZERO_GC_FRAMEWORK (net10.0 | net8.0, default net10.0), ZERO_GC_RATE (messages/s, default 2000),
#                ZERO_GC_OUT (output folder, default artifacts/zero-gc-gateway), ZERO_GC_PORT (the gateway's port,
#                default 5136; the services take the next two)
# Exit code: the analyzer's: 0 clean, 1 a GC or an allocation in the continuous phase, 2 the trace cannot tell.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [[ "$seconds" -lt 5 ]]; then
    echo "zero-gc-gateway: SECONDS must be a whole number of at least 5 (got '$seconds')" >&2
    echo "usage: tools/zero-gc-gateway.sh [SECONDS]" >&2
    exit 2
fi

framework="${ZERO_GC_FRAMEWORK:-net10.0}"
rate="${ZERO_GC_RATE:-2000}"
out="${ZERO_GC_OUT:-artifacts/zero-gc-gateway}"
port="${ZERO_GC_PORT:-5136}"
if [[ "$framework" == net8.0 ]]; then
    bash tools/install-dotnet8-runtime.sh
fi

echo "zero-gc-gateway: building (Release, $framework)"
dotnet build src/Gateway/RapidFix.Gateway.csproj -c Release -f "$framework" --nologo -v q -clp:ErrorsOnly
dotnet build src/MatchingService/RapidFix.MatchingService.csproj -c Release -f "$framework" --nologo -v q -clp:ErrorsOnly
dotnet build tools/TradeDriver/RapidFix.TradeDriver.csproj -c Release -f "$framework" --nologo -v q -clp:ErrorsOnly
dotnet build tools/EtwAnalyzer/RapidFix.EtwAnalyzer.csproj -c Release --nologo -v q -clp:ErrorsOnly

rm -rf "$out/data"
mkdir -p "$out"
# The static data of the trades the driver sends: the demo's with the generated securities.
dotnet "tools/TradeDriver/bin/Release/$framework/RapidFix.TradeDriver.dll" static-data --out "$out/static-data" > /dev/null
trace="$out/gateway.nettrace"
analyzer="tools/EtwAnalyzer/bin/Release/net10.0/EtwAnalyzer.dll"
service="src/MatchingService/bin/Release/$framework/RapidFix.MatchingService.dll"
# Every process but the gateway outlasts its continuous phase: a connection's tear-down allocates as its set-up
# does, and belongs to the gateway's shutdown.
gateway_seconds="$seconds"
others_seconds=$(( seconds + 180 ))
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
set +e
for k in 0 1; do
    timeout --kill-after=10 $(( others_seconds + 120 )) dotnet "$service" --config src/MatchingService/demo/service.cfg --static-data "$out/static-data" \
        --data-dir "$out/data/service-$k" --port $(( port + 1 + k )) --partitions 2 --own "$k" --seconds "$others_seconds" \
        --business-date 20261123 --wait-for-participants 120 --log "$out/service-$k.log" > "$out/service-$k.txt" 2>&1 &
    pids+=($!)
done
sleep 2
echo "zero-gc-gateway: gateway for ${gateway_seconds} s on port $port, traced to $trace; trades at ${rate} messages/s"
timeout --kill-after=10 $(( gateway_seconds + 300 )) dotnet "$analyzer" collect --output "$trace" -- \
    "src/Gateway/bin/Release/$framework/RapidFix.Gateway.dll" --partitions 2 --port "$port" \
    --service "127.0.0.1:$(( port + 1 ))=0" --service "127.0.0.1:$(( port + 2 ))=1" --data-dir "$out/data/gateway" \
    --seconds "$gateway_seconds" --wait-for-services 120 --wait-for-participants 120 --log "$out/gateway.log" &
gateway=$!
sleep 3
timeout --kill-after=10 $(( others_seconds + 120 )) dotnet "tools/TradeDriver/bin/Release/$framework/RapidFix.TradeDriver.dll" throughput \
    --host 127.0.0.1 --port "$port" --rate "$rate" --seconds "$others_seconds" > "$out/driver.txt" 2>&1 &
pids+=($!)
wait "$gateway"
gateway_status=$?
set -e
cleanup
trap - EXIT
grep -E '^t=' "$out/driver.txt" | tail -2 || true
if [[ $gateway_status -ne 0 ]]; then
    echo "zero-gc-gateway: the gateway exited with code $gateway_status (its own check; the trace decides below)"
fi

set +e
dotnet "$analyzer" analyze "$trace" --out "$out/analysis"
status=$?
set -e
exit $status

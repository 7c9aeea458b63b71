#!/usr/bin/env bash
# User-mode instructions per message, counted with perf: the difference between 250 and 50 passes of a plain loop,
# divided by the messages between them, so start-up and warm-up cancel out. Counts barely move with other load on
# the machine, unlike times.
#   bash benchmarks/count-instructions.sh fast [net10.0|net8.0] [trivial|encode]
#       FAST decode of complex30000 (compiled templates); "trivial" decodes 30,001 two-byte messages of a
#       one-field template instead: the per-message path alone; "encode" decodes each message and encodes it again.
#   bash benchmarks/count-instructions.sh fix [net10.0|net8.0] [NewOrderSingle|ExecutionReport|MarketDataSnapshot10]
#       FIX frame+parse+validate against FIX 4.4, 100,000 messages a pass.
# Needs perf (linux-perf) and permission to count user-mode events (kernel.perf_event_paranoid <= 2).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?fast or fix}
framework=${2:-net10.0}
case "$what" in
  fast) mode=${3:-corpus}; per_pass=30001 ;;
  fix) mode=${3:-NewOrderSingle}; per_pass=100000 ;;
  *) echo "usage: $0 fast|fix [net10.0|net8.0] [mode]" >&2; exit 2 ;;
esac
dotnet build -c Release -f "$framework" benchmarks/RapidFix.Benchmarks >/dev/null
bin=benchmarks/RapidFix.Benchmarks/bin/Release/$framework/RapidFix.Benchmarks
count() {
  perf stat -x, -e instructions:u "$bin" "--$what-loop" "$1" "$mode" 2>&1 >/dev/null | awk -F, '/instructions/ { print $1 }'
}
low=$(count 50)
high=$(count 250)
echo "$what $framework $mode: $(( (high - low) / 200 / per_pass )) instructions per message"

#!/usr/bin/env bash
# User-mode instructions per decoded FAST message (complex30000, compiled templates), counted with perf: the
# difference between 250 and 50 passes of a plain decode loop, divided by the messages between them, so start-up
# and warm-up cancel out. Counts barely move with other load on the machine, unlike times.
#   bash benchmarks/count-fast-instructions.sh [net10.0|net8.0] [trivial]
# "trivial" decodes 30,001 two-byte messages of a one-field template instead: the per-message path alone.
# Needs perf (linux-perf) and permission to count user-mode events (kernel.perf_event_paranoid <= 2).
set -euo pipefail
cd "$(dirname "$0")/.."
framework=${1:-net10.0}
mode=${2:-corpus}
dotnet build -c Release -f "$framework" benchmarks/RapidFix.Benchmarks >/dev/null
bin=benchmarks/RapidFix.Benchmarks/bin/Release/$framework/RapidFix.Benchmarks
count() {
  perf stat -x, -e instructions:u "$bin" --fast-loop "$1" "$mode" 2>&1 >/dev/null | awk -F, '/instructions/ { print $1 }'
}
low=$(count 50)
high=$(count 250)
echo "$framework $mode: $(( (high - low) / 200 / 30001 )) instructions per message"

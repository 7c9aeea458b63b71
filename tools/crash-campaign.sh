#!/usr/bin/env bash
# The kill -9 crash campaign (docs/store.md): a RapidFix acceptor and initiator in two child processes with journal
# stores; one side, chosen at random, is killed with SIGKILL at a random moment and restarted, POINTS times; then
# every message a side was told was sent must have reached the other side, and no MsgSeqNum may have been reused.
#
#   tools/crash-campaign.sh [POINTS [SEED]]     default 100 points, a random seed (printed; pass it to replay a run)
#   FRAMEWORK=net8.0 tools/crash-campaign.sh    on .NET 8 (default net10.0)
#
# CI runs the same test with 6 points (RapidFix.Engine.Tests, CrashCampaignTests).
set -euo pipefail
cd "$(dirname "$0")/.."
export RAPIDFIX_CRASH_POINTS="${1:-100}"
if [ -n "${2:-}" ]; then
  export RAPIDFIX_CRASH_SEED="$2"
fi
dotnet test tests/RapidFix.Engine.Tests/RapidFix.Engine.Tests.csproj -c Release -f "${FRAMEWORK:-net10.0}" \
  --filter "FullyQualifiedName~CrashCampaignTests" --logger "console;verbosity=detailed"

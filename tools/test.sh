#!/usr/bin/env bash
# The test command of the README: every test project, on .NET 10 and on .NET 8, in Release.
# The whole output is kept in artifacts/test-output.log; on failure a digest of the failed tests is printed last,
# so that the end of a long CI log says what failed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-dotnet8-runtime.sh
mkdir -p artifacts
log=artifacts/test-output.log
set +e
dotnet test RapidFix.sln -c Release --logger "console;verbosity=normal" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
if [[ $status -eq 0 && "${RAPIDFIX_SKIP_ZERO_GC_SERVICE:-0}" != 1 ]]; then
    # A short slice of the matching service's zero-GC check (its own process, traced): a service regression turns CI red.
    set +e
    bash tools/zero-gc-service.sh 20 2>&1 | tee -a "$log"
    status=${PIPESTATUS[0]}
    set -e
fi
if [[ $status -eq 0 && "${RAPIDFIX_SKIP_ZERO_GC_GATEWAY:-0}" != 1 ]]; then
    # The same for the gateway in front of two services, under trades, after its warm-up through a scratch gateway
    # (docs/scale-out.md). RAPIDFIX_SKIP_ZERO_GC_GATEWAY=1 skips it (and the gateway's zero-GC process test).
    set +e
    bash tools/zero-gc-gateway.sh 20 2>&1 | tee -a "$log"
    status=${PIPESTATUS[0]}
    set -e
fi
if [[ $status -ne 0 ]]; then
    echo
    echo "==== tests failed (exit $status): digest of $log ===="
    grep -n -E -A15 '^\s+Failed [A-Za-z]|\[FAIL\]|verdict: FAIL|Test Run Aborted|aborted|error [A-Z]+[0-9]+|Failed!' "$log" | head -400
fi
exit $status

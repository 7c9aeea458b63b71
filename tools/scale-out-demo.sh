#!/usr/bin/env bash
# The scale-out demo (docs/scale-out.md), all on this machine: two throwaway PostgreSQL clusters (initdb in a
# temporary folder, free ports), two matching services owning one partition of two each, one persister per service
# writing that service's journals into its own database, and the gateway in front of the services. A generated set of
# trades of every kind goes through the gateway (tools/TradeDriver verify, which checks every trade's acks, CLS and
# exceptions against the generator's expected outcomes); the persisters' rows are then checked across both databases
# with the persister's `query` fan-out (CLS rows = the expected CLS messages / 2, each database holding its share,
# nothing quarantined). One summary line last; everything is stopped and removed on exit, Ctrl+C included.
#   usage: tools/scale-out-demo.sh [TRADES]      (default 2000)
#   environment: DEMO_FRAMEWORK (net10.0 | net8.0, default net10.0); DEMO_NO_BUILD=1 uses the binaries already built
#                (the test does; DEMO_CONFIGURATION names their configuration, default Release); DEMO_KEEP=1 keeps the
#                work folder (logs, stores, the set) and prints where it is; DEMO_PORTS="P ..." are tried first, in
#                order, for the clusters, the services and the gateway (one found bound is replaced by a free one)
# Exit code: 0 every check passed, 1 a check failed, 2 the environment is missing something (the message says what).
set -euo pipefail
cd "$(dirname "$0")/.."

trades="${1:-2000}"
if ! [[ "$trades" =~ ^[0-9]+$ ]] || [[ "$trades" -lt 10 ]]; then
    echo "scale-out-demo: TRADES must be a whole number of at least 10 (got '$trades')" >&2
    echo "usage: tools/scale-out-demo.sh [TRADES]" >&2
    exit 2
fi

framework="${DEMO_FRAMEWORK:-net10.0}"
configuration="${DEMO_CONFIGURATION:-Release}"
started=$SECONDS
say() { echo "scale-out-demo: $*"; }

# PostgreSQL's server binaries: on the PATH, or Debian's (what .ci/run installs).
pgbin=""
if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    pgbin="$(dirname "$(readlink -f "$(command -v initdb)")")"
else
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
        if [[ -x "$dir/initdb" ]]; then pgbin="$dir"; break; fi
    done
fi
if [[ -z "$pgbin" ]]; then
    echo "scale-out-demo: no PostgreSQL server binaries (initdb, pg_ctl on the PATH or under /usr/lib/postgresql/*/bin; .ci/run installs them)" >&2
    exit 2
fi
# PostgreSQL refuses to run as root: as root, the clusters run as postgres (or nobody), as the tests' clusters do.
runas=()
if [[ $(id -u) -eq 0 ]]; then
    if id postgres >/dev/null 2>&1; then runas=(runuser -u postgres --); elif id nobody >/dev/null 2>&1; then runas=(runuser -u nobody --); else
        echo "scale-out-demo: running as root, and neither the postgres nor the nobody user exists (PostgreSQL refuses root)" >&2
        exit 2
    fi
fi

if [[ "$framework" == net8.0 ]]; then
    bash tools/install-dotnet8-runtime.sh
fi
if [[ "${DEMO_NO_BUILD:-0}" != 1 ]]; then
    configuration=Release
    say "building (Release, $framework)"
    dotnet build src/Gateway/RapidFix.Gateway.csproj -c Release -f "$framework" --nologo -v q -clp:ErrorsOnly
    # The persister's output holds the matching service and the trade driver too (its fault runs start them).
    dotnet build tools/Persister/RapidFix.Persister.csproj -c Release -f "$framework" --nologo -v q -clp:ErrorsOnly
fi
gateway_dll="src/Gateway/bin/$configuration/$framework/RapidFix.Gateway.dll"
tools_dir="tools/Persister/bin/$configuration/$framework"
for f in "$gateway_dll" "$tools_dir/RapidFix.Persister.dll" "$tools_dir/RapidFix.MatchingService.dll" "$tools_dir/RapidFix.TradeDriver.dll"; do
    if [[ ! -f "$f" ]]; then
        echo "scale-out-demo: $f is missing (build it, or run without DEMO_NO_BUILD=1)" >&2
        exit 2
    fi
done
repo="$(pwd)"
gateway_dll="$repo/$gateway_dll"
tools_dir="$repo/$tools_dir"

work="$(mktemp -d /tmp/rapidfix-scale-out-XXXXXXXX)"
chmod 755 "$work"
pids=()
clusters=()
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    for data in "${clusters[@]}"; do
        "${runas[@]}" "$pgbin/pg_ctl" -D "$data" -m immediate -w -t 60 stop >/dev/null 2>&1 || true
    done
    if [[ "${DEMO_KEEP:-0}" == 1 ]]; then
        echo "scale-out-demo: work folder kept: $work"
    else
        rm -rf "$work"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'echo "scale-out-demo: interrupted" >&2; exit 130' INT
trap 'echo "scale-out-demo: terminated" >&2; exit 143' TERM

# A port nothing listens on and this run has not taken. Taken below the kernel's ephemeral range, so that no outgoing
# connection (of this machine's other tests, say) can hold it; a process that still finds it bound a moment later is
# started again on another port (in_use below).
read -r ephemeral_low ephemeral_high < /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || { ephemeral_low=32768; ephemeral_high=60999; }
if (( ephemeral_low - 10000 >= 2000 )); then port_low=10000; port_span=$(( ephemeral_low - 10000 ));
elif (( 65000 - ephemeral_high >= 2000 )); then port_low=$(( ephemeral_high + 1 )); port_span=$(( 65000 - ephemeral_high ));
else port_low=20000; port_span=40000; fi
taken=" "
first_ports=(${DEMO_PORTS:-})
# Sets $port (not echoed: a $(...) subshell would lose what it took). A process's first port comes from DEMO_PORTS
# while it has any; a second attempt ($1 = again) always takes a free one.
next_port() {
    if [[ ${#first_ports[@]} -gt 0 && "${1:-}" != again ]]; then
        port=${first_ports[0]}; first_ports=("${first_ports[@]:1}")
        return
    fi
    while true; do
        port=$(( port_low + (RANDOM * 32768 + RANDOM) % port_span ))
        if [[ "$taken" != *" $port "* ]] && ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            taken+="$port "
            return
        fi
    done
}
# Whether a process's output says its port was taken between next_port and its bind.
in_use() { grep -q 'Address already in use' "$1" 2>/dev/null; }
retrying() { say "$1: port $2 was taken meanwhile; starting it again on another"; }
attempts=5

# One password for the clusters' superuser and the persister's two roles (migrate sets theirs); Npgsql reads it from
# PGPASSWORD, never from a command line.
password="$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export PGPASSWORD="$password" RAPIDFIX_WRITER_PASSWORD="$password" RAPIDFIX_READER_PASSWORD="$password"
persister=(dotnet "$tools_dir/RapidFix.Persister.dll")
pg_ports=()
for k in 0 1; do
    root="$work/pg-$k"
    mkdir -p "$root"
    echo "$password" > "$root/pwfile"
    if [[ ${#runas[@]} -gt 0 ]]; then chown -R "${runas[2]}" "$root"; fi
    "${runas[@]}" "$pgbin/initdb" -D "$root/data" -U postgres --pwfile="$root/pwfile" --auth-host=scram-sha-256 --auth-local=trust \
        -E UTF8 --locale=C --no-sync > "$root/initdb.log" 2>&1 || { cat "$root/initdb.log" >&2; echo "scale-out-demo: initdb failed" >&2; exit 2; }
    rm -f "$root/pwfile"
    cat >> "$root/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$root'
max_connections = 50
shared_buffers = 128MB
max_locks_per_transaction = 1024
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
    clusters+=("$root/data")
    for attempt in $(seq 1 $attempts); do
        if [[ $attempt -eq 1 ]]; then next_port; else next_port again; fi
        echo "port = $port" >> "$root/data/postgresql.conf" # the last setting of a name wins
        rm -f "$root/server.log"
        if "${runas[@]}" "$pgbin/pg_ctl" -D "$root/data" -l "$root/server.log" -w -t 120 start > /dev/null; then break; fi
        if [[ $attempt -lt $attempts ]] && in_use "$root/server.log"; then retrying "PostgreSQL $k" "$port"; continue; fi
        cat "$root/server.log" >&2; echo "scale-out-demo: PostgreSQL $k did not start" >&2; exit 2
    done
    "${runas[@]}" "$pgbin/psql" -h "$root" -p "$port" -U postgres -d postgres -q -c "CREATE DATABASE rapidfix" > /dev/null
    "${persister[@]}" migrate --admin "Host=127.0.0.1;Port=$port;Database=rapidfix;Username=postgres" > "$root/migrate.log" 2>&1 \
        || { cat "$root/migrate.log" >&2; exit 2; }
    pg_ports+=("$port")
done
db() { echo "Host=127.0.0.1;Port=${pg_ports[$1]};Database=rapidfix;Username=$2"; }
say "PostgreSQL 0 on port ${pg_ports[0]}, PostgreSQL 1 on port ${pg_ports[1]} (throwaway clusters in $work)"

# The set: trades of every kind (duplicates, amendments, cancels, bad ones) with their expected outcomes, and the
# static data the services load for it (set/static-data: the demo's and the generated securities).
dotnet "$tools_dir/RapidFix.TradeDriver.dll" generate --trades "$trades" --seed 7 --duplicates 0.05 --amendments 0.05 --cancels 0.05 --bad 0.1 \
    --out "$work/set" > "$work/generate.txt"
messages=$(( $(wc -l < "$work/set/messages.fix") ))
expected_cls=$(awk -F, 'NR > 1 { s += $3 } END { print s + 0 }' "$work/set/expected.csv")
expected_rows=$(( expected_cls / 2 ))

# Two services, one partition of two each, sized for the set; each with its persister into its own database.
cat > "$work/service.cfg" <<EOF
[DEFAULT]
ConnectionType=acceptor
SocketAcceptHost=127.0.0.1
SocketAcceptPort=5010
StartTime=00:00:00
EndTime=00:00:00
HeartBtInt=30
FileStorePath=store
StoreFlushPolicy=OsOnly
StoreSyncBeforeSend=Y
ResetOnLogon=N
ResetOnLogout=N
ResetOnDisconnect=N
StoreMaxMessages=200000
StoreMaxBytes=100000000
OutboundQueueDepth=65536
EOF
for participant in IM1 IM2 EB1 EB2; do
    printf '[SESSION]\nBeginString=FIX.4.4\nSenderCompID=MATCH\nTargetCompID=%s\n' "$participant" >> "$work/service.cfg"
done
# Waits (tenths of a second, at most $3) for a process's "ready:" line. Returns 0 when it is ready, 1 when the
# process exited first or the time ran out.
wait_ready() {
    local output=$1 pid=$2 limit=$3 waited=0
    until grep -q '^ready:' "$output" 2>/dev/null; do
        if ! kill -0 "$pid" 2>/dev/null || [[ $waited -ge $limit ]]; then return 1; fi
        sleep 0.1; waited=$(( waited + 1 ))
    done
}
service_ports=()
service_pids=()
start_service() { # service k on a free port, in the background
    local k=$1
    next_port "${2:-}"
    service_ports[$k]=$port
    dotnet "$tools_dir/RapidFix.MatchingService.dll" --config "$work/service.cfg" --static-data "$work/set/static-data" \
        --data-dir "$work/service-$k" --port "$port" --partitions 2 --own "$k" --business-date 20261123 --no-warm-up --max-inputs $(( messages + 1000 )) \
        --journal-bytes $(( messages * 700 + (1 << 20) )) --log "$work/service-$k.log" > "$work/service-$k.txt" 2>&1 &
    service_pids[$k]=$!
    pids+=($!)
}
for k in 0 1; do start_service "$k"; done
for k in 0 1; do
    for attempt in $(seq 1 $attempts); do
        if wait_ready "$work/service-$k.txt" "${service_pids[$k]}" 1200; then break; fi
        if [[ $attempt -lt $attempts ]] && in_use "$work/service-$k.txt" && ! kill -0 "${service_pids[$k]}" 2>/dev/null; then
            retrying "matching service $k" "${service_ports[$k]}"; rm -rf "$work/service-$k" "$work/service-$k.log"; start_service "$k" again; continue
        fi
        cat "$work/service-$k.txt" >&2; echo "scale-out-demo: matching service $k did not start" >&2; exit 1
    done
done
say "matching services on ports ${service_ports[0]} (partition 0) and ${service_ports[1]} (partition 1)"
for k in 0 1; do
    # The service's journals, tailed as they grow, into database k (every row of service k's trades is partition k's).
    "${persister[@]}" run --data-dir "$work/service-$k" --db "$(db "$k" rapidfix_writer)" > "$work/persister-$k.txt" 2>&1 &
    pids+=($!)
    persister_pids[$k]=$!
done

for attempt in $(seq 1 $attempts); do
    if [[ $attempt -eq 1 ]]; then next_port; else next_port again; fi
    gateway_port=$port
    rm -rf "$work/gateway" "$work/gateway.log"
    dotnet "$gateway_dll" --partitions 2 --port "$gateway_port" --service "127.0.0.1:${service_ports[0]}=0" --service "127.0.0.1:${service_ports[1]}=1" \
        --data-dir "$work/gateway" --log "$work/gateway.log" --wait-for-services 120 > "$work/gateway.txt" 2>&1 &
    gateway_pid=$!
    pids+=("$gateway_pid")
    if wait_ready "$work/gateway.txt" "$gateway_pid" 1500; then break; fi
    if [[ $attempt -lt $attempts ]] && in_use "$work/gateway.txt" && ! kill -0 "$gateway_pid" 2>/dev/null; then retrying "the gateway" "$gateway_port"; continue; fi
    cat "$work/gateway.txt" >&2; echo "scale-out-demo: the gateway did not start (or its sessions to the services did not log on)" >&2; exit 1
done
say "gateway on port $gateway_port; sending $trades trades ($messages messages) through it"

# The participants through the gateway; verify checks every trade's answers against expected.csv.
set +e
# In the background and waited for, so that Ctrl+C or a TERM stops the demo at once (the trap runs during a wait).
(cd "$work" && exec dotnet "$tools_dir/RapidFix.TradeDriver.dll" verify --input "$work/set" --host 127.0.0.1 --port "$gateway_port" --timeout 300) \
    > "$work/verify.txt" 2>&1 &
verify_pid=$!
pids+=("$verify_pid")
wait "$verify_pid"
verify_status=$?
set -e
grep -E '^(sent|trades) ' "$work/verify.txt" | sed 's/^/  verify: /' || true
mismatches=$(grep -oE 'mismatches [0-9]+' "$work/verify.txt" | tail -1 | grep -oE '[0-9]+' || echo "?")

# The databases: wait (up to 120 s) until the persisters have written every CLS, then ask both through the fan-out.
cls_in() { # the CLS rows of the given servers, summed over the days
    "${persister[@]}" query cls-per-day "$@" 2>/dev/null | awk '{ s += $NF } END { print s + 0 }'
}
both=(--db "$(db 0 rapidfix_reader)" --db "$(db 1 rapidfix_reader)")
rows=0
for _ in $(seq 1 120); do
    rows=$(cls_in "${both[@]}")
    if [[ "$rows" -ge "$expected_rows" ]]; then break; fi
    sleep 1
done
rows0=$(cls_in --db "$(db 0 rapidfix_reader)")
rows1=$(cls_in --db "$(db 1 rapidfix_reader)")
open_exceptions=$("${persister[@]}" query open-exceptions "${both[@]}" 2>/dev/null | wc -l)
# The persisters stop on SIGTERM and print their counters (records, rows, quarantined) per server.
for k in 0 1; do kill -TERM "${persister_pids[$k]}" 2>/dev/null || true; done
persisted_ok=1
quarantined=0
for k in 0 1; do
    if ! wait "${persister_pids[$k]}"; then persisted_ok=0; fi
    q=$(grep -oE '[0-9]+ quarantined' "$work/persister-$k.txt" | grep -oE '[0-9]+' | tail -1 || true)
    if [[ -z "$q" ]]; then persisted_ok=0; else quarantined=$(( quarantined + q )); fi
done

verdict=PASS
why=()
if [[ $verify_status -ne 0 || "$mismatches" != 0 ]]; then verdict=FAIL; why+=("verify exited $verify_status with mismatches $mismatches"); fi
if [[ "$rows" -ne "$expected_rows" ]]; then verdict=FAIL; why+=("CLS rows $rows, expected $expected_rows"); fi
if [[ "$rows0" -eq 0 || "$rows1" -eq 0 || $(( rows0 + rows1 )) -ne "$rows" ]]; then verdict=FAIL; why+=("CLS rows per database $rows0 + $rows1 (each holds its partition's)"); fi
if [[ $persisted_ok -ne 1 || $quarantined -ne 0 ]]; then verdict=FAIL; why+=("a persister failed or quarantined rows ($quarantined): see $work/persister-*.txt"); fi
if [[ $verdict == FAIL ]]; then
    for k in 0 1; do tail -3 "$work/persister-$k.txt" | sed "s/^/  persister $k: /"; done
    tail -20 "$work/verify.txt" | sed 's/^/  verify: /'
    DEMO_KEEP=1
fi
echo "scale-out-demo: $verdict: $trades trades ($messages messages) through the gateway to 2 services, mismatches $mismatches;" \
    "CLS rows $rows of $expected_rows expected (database 0: $rows0, database 1: $rows1), open exceptions $open_exceptions," \
    "quarantined $quarantined; $(( SECONDS - started )) s${why[*]:+ (${why[*]})}"
[[ $verdict == PASS ]]

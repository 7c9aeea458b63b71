#!/usr/bin/env bash
# The host's page-cache writeback for soaks and latency runs (docs/measurement.md "The host's writeback"): with the
# kernel's defaults (background writeback once 10 % of memory is dirty) PostgreSQL's dirty pages go to the disk in
# bursts every 20-30 s, and the journal's fsyncs wait behind them (input-to-ack p99.99 192-292 ms in the 10-minute
# soaks at 14,400/s); with dirty_background_bytes at 32 MiB the same soaks measured 58-66 ms. The measuring commands
# never change the host; this script does, on request, and puts it back.
#   usage: tools/tune-host.sh            show the settings and whether they follow the recommendation (exit 0)
#          tools/tune-host.sh --apply [BYTES]   save the settings, then set dirty_background_bytes (default 33554432)
#          tools/tune-host.sh --restore         put back what --apply saved
#   environment: TUNE_HOST_VM (default /proc/sys/vm), TUNE_HOST_SAVED (default /var/tmp/rapidfix-tune-host.saved)
# Exit code: 0 done, 2 refused (not allowed to write the settings, nothing saved to restore, a bad argument).
set -euo pipefail

vm="${TUNE_HOST_VM:-/proc/sys/vm}"
saved="${TUNE_HOST_SAVED:-/var/tmp/rapidfix-tune-host.saved}"
recommended=33554432
keys=(dirty_background_bytes dirty_background_ratio dirty_bytes dirty_ratio dirty_expire_centisecs dirty_writeback_centisecs)

refuse() { echo "tune-host: $1" >&2; exit 2; }
value() { cat "$vm/$1" 2>/dev/null || echo "?"; }

show() {
    for k in "${keys[@]}"; do printf '  vm.%-26s %s\n' "$k" "$(value "$k")"; done
    local bytes; bytes="$(value dirty_background_bytes)"
    if [[ "$bytes" =~ ^[0-9]+$ ]] && ((bytes > 0 && bytes <= 2 * recommended)); then
        echo "tune-host: background writeback starts at $bytes bytes: as recommended (at most $((2 * recommended)))"
    else
        local at="$bytes bytes"
        [[ "$bytes" == 0 ]] && at="$(value dirty_background_ratio) % of memory"
        echo "tune-host: background writeback starts at $at; recommended for soaks beside PostgreSQL: tools/tune-host.sh --apply (sets $recommended bytes)"
    fi
}

case "${1:-}" in
    "")
        show
        ;;
    --apply)
        bytes="${2:-$recommended}"
        [[ "$bytes" =~ ^[0-9]+$ ]] && ((bytes >= 4096)) || refuse "BYTES must be a whole number of bytes, at least 4096 (got '$bytes')"
        [[ -w "$vm/dirty_background_bytes" ]] || refuse "cannot write $vm/dirty_background_bytes (run as root); nothing changed"
        if [[ ! -e "$saved" ]]; then
            # Only the first --apply saves: a second one must not overwrite the host's own settings with ours.
            { for k in dirty_background_bytes dirty_background_ratio; do echo "$k=$(value "$k")"; done; } > "$saved"
        fi
        echo "$bytes" > "$vm/dirty_background_bytes"
        echo "tune-host: vm.dirty_background_bytes set to $bytes (the previous settings are in $saved; --restore puts them back)"
        show
        ;;
    --restore)
        [[ -r "$saved" ]] || refuse "nothing to restore ($saved does not exist)"
        [[ -w "$vm/dirty_background_bytes" ]] || refuse "cannot write $vm/dirty_background_bytes (run as root); nothing changed"
        bytes="$(sed -n 's/^dirty_background_bytes=//p' "$saved")"
        ratio="$(sed -n 's/^dirty_background_ratio=//p' "$saved")"
        # The kernel keeps one of the two: writing the ratio zeroes the bytes and the other way round.
        if [[ "$bytes" =~ ^[0-9]+$ ]] && ((bytes > 0)); then
            echo "$bytes" > "$vm/dirty_background_bytes"
        elif [[ "$ratio" =~ ^[0-9]+$ ]]; then
            echo "$ratio" > "$vm/dirty_background_ratio"
        else
            refuse "$saved holds no setting to restore"
        fi
        rm -f "$saved"
        echo "tune-host: restored"
        show
        ;;
    *)
        refuse "unknown argument '$1' (usage: tools/tune-host.sh [--apply [BYTES] | --restore])"
        ;;
esac

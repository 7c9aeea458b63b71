#!/usr/bin/env bash
# Brings PublicAPI.Unshipped.txt of every packable library (src/*/PublicAPI.Shipped.txt marks one) up to date with
# its code: members added to the public API are appended (RS0016, the analyzer's own code fix through
# `dotnet format`), members no longer found are taken out of Unshipped.txt or, when they had shipped, recorded as
# `*REMOVED*` lines (RS0017). Review the diff of the PublicAPI files: it is the change of the public API.
#
#   bash tools/update-public-api.sh            # every packable library
#   bash tools/update-public-api.sh src/Engine # one (or several) project folders
#   bash tools/update-public-api.sh --ship     # at a release: Unshipped.txt moves into Shipped.txt
set -euo pipefail
cd "$(dirname "$0")/.."

ship=false
dirs=()
for arg in "$@"; do
    case "$arg" in
        --ship) ship=true ;;
        -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) dirs+=("${arg%/}") ;;
    esac
done
if [[ ${#dirs[@]} -eq 0 ]]; then
    for f in src/*/PublicAPI.Shipped.txt; do dirs+=("$(dirname "$f")"); done
fi

for dir in "${dirs[@]}"; do
    proj=$(ls "$dir"/*.csproj 2>/dev/null | head -1)
    if [[ -z "$proj" || ! -f "$dir/PublicAPI.Shipped.txt" ]]; then
        echo "update-public-api: $dir has no .csproj with PublicAPI.Shipped.txt beside it" >&2
        exit 2
    fi
    shipped="$dir/PublicAPI.Shipped.txt"
    unshipped="$dir/PublicAPI.Unshipped.txt"
    [[ -f "$unshipped" ]] || printf '#nullable enable\n' > "$unshipped"
    echo "== $proj"

    # Removed or no longer public (RS0017): the build lists them; warnings must not stop it here.
    log=$(mktemp)
    dotnet build "$proj" -c Release -m:1 -p:TreatWarningsAsErrors=false -nologo -clp:NoSummary > "$log" 2>&1 || true
    { grep -oE "warning RS0017: Symbol '.*' is part of the declared API, but is either not public or could not be found" "$log" || true; } \
        | sed -E "s/^warning RS0017: Symbol '(.*)' is part of the declared API.*/\1/" | sort -u \
        | while IFS= read -r symbol; do
            if grep -qxF -- "$symbol" "$unshipped"; then
                grep -vxF -- "$symbol" "$unshipped" > "$unshipped.tmp" || true
                mv "$unshipped.tmp" "$unshipped"
                echo "  dropped from Unshipped: $symbol"
            elif grep -qxF -- "$symbol" "$shipped" && ! grep -qxF -- "*REMOVED*$symbol" "$unshipped"; then
                echo "*REMOVED*$symbol" >> "$unshipped"
                echo "  removed (had shipped): $symbol"
            fi
        done
    rm -f "$log"

    # Added (RS0016) and the nullable header (RS0037): the analyzer's code fixes write Unshipped.txt.
    dotnet format analyzers "$proj" --diagnostics RS0016 RS0037 --severity info > /dev/null

    # Keep the files sorted (header first) so that merges of branches that each add members stay line-wise.
    for f in "$shipped" "$unshipped"; do
        { grep -xF '#nullable enable' "$f" || true; grep -vxF '#nullable enable' "$f" | grep -v '^$' | LC_ALL=C sort -u || true; } > "$f.tmp"
        mv "$f.tmp" "$f"
    done

    if $ship; then
        { grep -vxF '#nullable enable' "$unshipped" | grep -v '^\*REMOVED\*' || true; } >> "$shipped"
        { grep '^\*REMOVED\*' "$unshipped" || true; } | sed 's/^\*REMOVED\*//' | while IFS= read -r symbol; do
            grep -vxF -- "$symbol" "$shipped" > "$shipped.tmp" || true
            mv "$shipped.tmp" "$shipped"
        done
        { grep -xF '#nullable enable' "$shipped" || true; grep -vxF '#nullable enable' "$shipped" | LC_ALL=C sort -u || true; } > "$shipped.tmp"
        mv "$shipped.tmp" "$shipped"
        printf '#nullable enable\n' > "$unshipped"
    fi
    echo "  $(($(wc -l < "$unshipped") - 1)) unshipped, $(($(wc -l < "$shipped") - 1)) shipped"
done

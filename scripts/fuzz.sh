#!/usr/bin/env bash
# Fuzz every parser that sees outside bytes (fuzz/README.md) on the stable toolchain:
#   scripts/fuzz.sh [seconds-per-target] [idv-fuzz options, e.g. --target json_* --seed 42]
#   scripts/fuzz.sh --totals       executions and crashes per target over every recorded run
# Builds fuzz/ in release and runs each target for the given time (default 60 s). Prints
# one line per target ("target NAME: N execs, C crashes, S slow, R execs/s") and a total;
# crashing and slow inputs go to fuzz/crashes/ (with the panic's stack beside each).
# Each run's per-target lines are appended to fuzz/ledger.tsv (date, commit, target,
# execs, crashes, seconds), so the executions a target has had over its life can be
# counted (`--totals`). Exits 1 when anything crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
ledger=fuzz/ledger.tsv
if [ "${1:-}" = "--totals" ]; then
    awk -F'\t' 'NR > 1 { e[$3] += $4; c[$3] += $5; s[$3] += $6; t += $4 }
        END { for (k in e) printf "%-28s %14d execs %4d crashes %8d s\n", k, e[k], c[k], s[k] | "sort";
              close("sort"); printf "total %d execs\n", t }' "$ledger"
    exit 0
fi
seconds="${1:-60}"
shift || true
cargo build -q -p idv-fuzz --release --bin idv-fuzz
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
target/release/idv-fuzz --seconds "$seconds" "$@" | tee "$log" || status=$?
[ -f "$ledger" ] || printf 'date\tcommit\ttarget\texecs\tcrashes\tseconds\n' >"$ledger"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
# "target NAME: N execs, C crashes, S slow, R execs/s"
sed -n 's/^target \([^:]*\): \([0-9]*\) execs, \([0-9]*\) crashes.*/\1\t\2\t\3/p' "$log" |
    while IFS=$'\t' read -r name execs crashes; do
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%F)" "$commit" "$name" "$execs" "$crashes" "$seconds" >>"$ledger"
    done
exit "$status"

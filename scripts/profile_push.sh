#!/usr/bin/env bash
# Profiles the push phase of the behavior benchmark (benches/src/bin/behavior.rs) with
# perf: the benchmark runs, perf attaches when it says "pushing" (after the devices'
# RSA key generation, which would otherwise dominate) and samples for SECONDS.
# Writes OUT/perf.data, OUT/push.folded (collapsed stacks: one line per stack, samples at
# the end, the input of any flame graph tool) and OUT/push.svg when inferno is installed
# (`cargo install inferno`). Needs a release build:
#     cargo build --release -p idv-benches --bin behavior
#     scripts/profile_push.sh [OUT] [SECONDS]
set -euo pipefail
out=${1:-target/profile}
seconds=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/target/release/behavior"
[ -x "$bin" ] || { echo "build it first: cargo build --release -p idv-benches --bin behavior" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf is not installed (Debian: linux-perf)" >&2; exit 1; }
mkdir -p "$out"
log="$out/bench.log"
# The in-process bus only (no broker), 4000 batches from 16 devices: about 4 s of pushing.
IDV_TANSU_BIN=/nonexistent "$bin" 4000 16 >"$out/bench.txt" 2>"$log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
until grep -q "pushing" "$log" 2>/dev/null; do
    kill -0 $pid 2>/dev/null || { echo "the benchmark ended before pushing" >&2; cat "$log" >&2; exit 1; }
    sleep 0.05
done
sleep 0.3
# Samples until SECONDS have passed or the push phase ends ("pushed" on stderr), whichever
# comes first: the benchmark's after-baseline (2 s of RSA signing on every core) follows
# the pushes, and a window that ran into it counted those signatures as the push's (a
# profile of 2026-11-28 gave signing 63.6 % of the samples that way, 41 % without).
perf record -F ${PERF_FREQ:-999} --call-graph dwarf,16384 -o "$out/perf.data" -p $pid -- sleep "$seconds" 2>/dev/null &
perf_pid=$!
while kill -0 $perf_pid 2>/dev/null; do
    if grep -q "pushed" "$log" 2>/dev/null; then
        kill -INT $perf_pid 2>/dev/null || true
        echo "the push phase ended inside the window: profile cut there" >&2
        break
    fi
    sleep 0.02
done
wait $perf_pid 2>/dev/null || true
wait $pid || true
trap - EXIT
cat "$out/bench.txt"
perf script -i "$out/perf.data" 2>/dev/null | python3 "$root/scripts/collapse_perf.py" >"$out/push.folded"
if command -v inferno-flamegraph >/dev/null; then
    inferno-flamegraph <"$out/push.folded" >"$out/push.svg"
fi
echo "profile: $out/push.folded ($(wc -l <"$out/push.folded") stacks)"
python3 "$root/scripts/collapse_perf.py" --summary <"$out/push.folded"

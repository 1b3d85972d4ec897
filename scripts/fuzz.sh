#!/usr/bin/env bash
# Fuzz every parser that sees outside bytes (fuzz/README.md) on the stable toolchain:
#   scripts/fuzz.sh [seconds-per-target] [idv-fuzz options, e.g. --target json_* --seed 42]
# Builds fuzz/ in release and runs each target for the given time (default 60 s). Prints
# one line per target ("target NAME: N execs, C crashes, S slow, R execs/s") and a total;
# crashing and slow inputs go to fuzz/crashes/ (with the panic's stack beside each).
# Exits 1 when anything crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
exec cargo run -q -p idv-fuzz --release --bin idv-fuzz -- --seconds "$seconds" "$@"

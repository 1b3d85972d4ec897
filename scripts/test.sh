#!/usr/bin/env bash
# The one test command (README, .ci/run). Installs what the suite needs when missing.
# Tests start their own servers on loopback; nothing has to be running beforehand.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
cargo test --workspace "$@"

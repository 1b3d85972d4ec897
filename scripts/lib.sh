# Shared install steps for scripts/*.sh. Every step is idempotent and cached.
TOOLS_DIR="${IDV_TOOLS_DIR:-$HOME/.cache/idv/tools}"
TANSU_VERSION="0.6.0"
TANSU_BIN="$TOOLS_DIR/bin/tansu"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# cmake and the C libraries rdkafka's vendored librdkafka build links against.
ensure_build_tools() {
  local missing=()
  command -v cmake >/dev/null || missing+=(cmake)
  for pkg in libcurl4-openssl-dev libssl-dev zlib1g-dev libsasl2-dev; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing build tools: ${missing[*]}" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

# ffmpeg/ffprobe: decode uploaded video files (vision/src/video.rs runs them as child
# processes). Without them video files answer "not performed"; inline frames still work.
ensure_ffmpeg() {
  if command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null; then return; fi
  echo "installing ffmpeg (Debian) for video decoding" >&2
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends ffmpeg >/dev/null
}

# Tesseract OCR (Debian): the engine and its English data at run time, and for the build
# of idv-vision's `tesseract` feature the C headers (libtesseract-dev, which brings
# libleptonica-dev), pkg-config to find them, and libclang for bindgen. The OCR-B MRZ model is not a Debian
# package: scripts/models.sh installs it (models/manifest.json, `tesseract-mrz`). The
# MRZ tests render OCR-B with fonts-ocr-b and page text with fonts-dejavu-core.
ensure_tesseract() {
  local missing=()
  for pkg in tesseract-ocr tesseract-ocr-eng tesseract-ocr-vie tesseract-ocr-hin libtesseract-dev pkg-config libclang-dev fonts-ocr-b fonts-dejavu-core fonts-noto-core; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing Tesseract OCR (Debian): ${missing[*]}" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# The Kafka-protocol broker the Kafka tests run against (~15-20 min to build once).
# tansu's storage engines: `dynostore` for `memory://` (most tests), `libsql` for
# `sqlite://` (the broker-restart test: a broker that keeps its data). The stamp file
# names what the cached binary was built with; another version or feature set rebuilds it.
TANSU_FEATURES="dynostore,libsql"
ensure_tansu() {
  local stamp="$TOOLS_DIR/tansu.build"
  if [ -x "$TANSU_BIN" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$TANSU_VERSION $TANSU_FEATURES" ]; then return; fi
  echo "building tansu $TANSU_VERSION ($TANSU_FEATURES) into $TOOLS_DIR (once; cached)" >&2
  cargo install tansu --version "$TANSU_VERSION" --locked --force --features "$TANSU_FEATURES" --root "$TOOLS_DIR" >&2
  echo "$TANSU_VERSION $TANSU_FEATURES" > "$stamp"
}

# node and npm (Debian) and the published TrustVision JS SDK, pinned in
# tests/sdk/package-lock.json, for the SDK compatibility test (npm caches the tarball).
ensure_sdk() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "installing node and npm (Debian) for the SDK tests" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
  fi
  if [ ! -d tests/sdk/node_modules/@tsocial/trustvision-sdk ]; then
    echo "installing the TrustVision JS SDK (tests/sdk, pinned)" >&2
    (cd tests/sdk && npm ci --no-audit --no-fund --loglevel=error >&2)
  fi
}

# Chromium (Debian) for the browser test of the demo page (scripts/browser_test.sh), which
# drives the system's browser with playwright-core: Playwright's own browser downloads are
# not used.
ensure_chromium() {
  if [ -x /usr/bin/chromium ]; then return; fi
  echo "installing chromium (Debian) for the browser test" >&2
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends chromium >/dev/null
}

# node and npm (Debian), for scripts that run JavaScript tools without the SDK tests.
ensure_node() {
  if command -v node >/dev/null && command -v npm >/dev/null; then return; fi
  echo "installing node and npm (Debian)" >&2
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
}

# The Python tools of scripts/api_fuzz.sh (schemathesis, openapi-spec-validator), pinned in
# scripts/api_fuzz_requirements.txt, in a venv under $TOOLS_DIR (reinstalled when the pins
# change). Sets API_FUZZ_PY to the venv's python.
API_FUZZ_VENV="$TOOLS_DIR/venv"
API_FUZZ_PY="$API_FUZZ_VENV/bin/python"
ensure_api_fuzz_tools() {
  local req=scripts/api_fuzz_requirements.txt stamp="$API_FUZZ_VENV/.requirements.sha256" want
  want="$(sha256sum "$req" | cut -d' ' -f1)"
  if [ -x "$API_FUZZ_PY" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then return; fi
  command -v python3 >/dev/null || {
    echo "installing python3 (Debian) for the API fuzzer" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null
  }
  echo "installing the API fuzzer's tools into $API_FUZZ_VENV (pinned; cached)" >&2
  rm -rf "$API_FUZZ_VENV"
  if ! python3 -m venv "$API_FUZZ_VENV" >/dev/null 2>&1; then
    # Debian's python3 ships venv (and ensurepip) separately.
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
    rm -rf "$API_FUZZ_VENV"
    python3 -m venv "$API_FUZZ_VENV"
  fi
  "$API_FUZZ_PY" -m pip install -q --disable-pip-version-check -r "$req" >&2
  echo "$want" >"$stamp"
}

# Start `idv serve` (binary $1, data dir $2, log file $3, more flags after) on a free
# loopback port with none of the caller's deployment settings, and wait until /healthz
# answers (at most 2 minutes). Sets server_port and server_pid; returns 1 when it does not
# come up (the log says why). Needs node (the port probe and the health check).
start_idv_serve() {
  local bin="$1" data="$2" log="$3"
  shift 3
  server_port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  env -u IDV_CONFIG -u IDV_STORE -u IDV_BUS -u IDV_BLOBS \
    "$bin" serve --data-dir "$data" --listen "127.0.0.1:$server_port" "$@" >"$log" 2>&1 &
  server_pid=$!
  local healthy='fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))'
  for _ in $(seq 1 240); do
    node -e "$healthy" "http://127.0.0.1:$server_port/healthz" && return 0
    kill -0 "$server_pid" 2>/dev/null || return 1
    sleep 0.5
  done
  return 1
}

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

# The Kafka-protocol broker the Kafka tests run against (~15-20 min to build once).
ensure_tansu() {
  if [ -x "$TANSU_BIN" ]; then return; fi
  echo "building tansu $TANSU_VERSION into $TOOLS_DIR (once; cached)" >&2
  cargo install tansu --version "$TANSU_VERSION" --locked --features dynostore --root "$TOOLS_DIR" >&2
}

# node and npm (Debian) and the published TrustVision JS SDK, pinned in
# tests/sdk/package-lock.json, for the SDK compatibility test (npm caches the tarball).
ensure_sdk() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "installing node and npm (Debian) for the SDK compatibility test" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
  fi
  if [ ! -d tests/sdk/node_modules/@tsocial/trustvision-sdk ]; then
    echo "installing the TrustVision JS SDK (tests/sdk, pinned)" >&2
    (cd tests/sdk && npm ci --no-audit --no-fund --loglevel=error >&2)
  fi
}

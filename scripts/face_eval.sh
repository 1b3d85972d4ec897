#!/usr/bin/env bash
# Face evaluation (issue 9), one command: passive liveness (BPCER per real-image kind,
# APCER per synthetic attack species), portrait sanity (false refusals, sunglasses and
# white-background rates on labelled synthetic variants), the matcher (every labelled
# real pair, dlib beside the alternatives tried) and, with --peer, the face_recognition
# (dlib) peer on the photo set, latency included (benches/face_peer.sh).
#   scripts/face_eval.sh [--peer] [--frames N]
# Installs what it needs: the models and test media (scripts/models.sh), ffmpeg for the
# video frames (Debian). Prints figures; asserts nothing. docs/VISION.md explains them.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib.sh
. scripts/lib.sh
PEER=0
FRAMES=24
while [ $# -gt 0 ]; do
  case "$1" in
    --peer) PEER=1; shift ;;
    --frames) FRAMES="$2"; shift 2 ;;
    *) echo "usage: $0 [--peer] [--frames N]" >&2; exit 2 ;;
  esac
done
ensure_build_tools
ensure_ffmpeg
bash scripts/models.sh >/dev/null
cargo build -q --release -p idv-vision --bin liveness_eval --bin sanity_eval --bin matcher_eval
T="${CARGO_TARGET_DIR:-target}/release"
echo "== load average $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
echo "== passive liveness"
"$T/liveness_eval" --frames "$FRAMES"
echo "== portrait sanity"
"$T/sanity_eval" --frames "$((FRAMES / 2))"
echo "== matcher"
"$T/matcher_eval" --frames "$((FRAMES * 2 / 3))"
if [ "$PEER" = 1 ]; then
  echo "== peer (face_recognition / dlib) on the photo set"
  bash benches/face_peer.sh --repeats 3
fi

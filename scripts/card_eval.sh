#!/usr/bin/env bash
# Card reading evaluation (issue 8): every card type, clean and degraded synthetic
# captures, read by idv's pipeline beside the Tesseract CLI and ZXing on the same files.
#   scripts/card_eval.sh [SAMPLES]    (per type and degradation; default 3)
# Installs what it needs: Tesseract and its language data and fonts (Debian), the peers'
# python (zxing-cpp, pillow; pinned, cached in ~/.cache/idv/tools/card-peers).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib.sh
. scripts/lib.sh
ensure_build_tools
ensure_tesseract
bash scripts/models.sh >/dev/null
venv="${IDV_TOOLS_DIR:-$HOME/.cache/idv/tools}/card-peers"
req=scripts/card_peers_requirements.txt
want="$(sha256sum "$req" | cut -d' ' -f1)"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$want" ]; then
  echo "installing the card evaluation's peers into $venv (pinned; cached)" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >&2
  echo "$want" >"$venv/.requirements.sha256"
fi
export OMP_THREAD_LIMIT=1 IDV_CARD_PEERS_PY="$venv/bin/python"
cargo run -q --release -p idv-benches --features ocr --bin card_eval -- "${1:-3}"

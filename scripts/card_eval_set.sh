#!/usr/bin/env bash
# Card reading over a card set the service's own generator did not make (issue 8):
#   scripts/card_eval_set.sh [SEED [PER_TYPE_CAPTURE]]   generate benches/indep_cards' set, then read it
#   scripts/card_eval_set.sh --dir DIR                   read a set already on disk (DIR/manifest.jsonl)
# benches/indep_cards/ was written without reading the service's generator or reader
# (its README); its set goes to target/indep_cards/s<SEED>-n<N> (kept between runs).
# Installs what it needs: Tesseract, its language data and fonts (Debian), the models,
# the generator's fonts and python (benches/indep_cards/setup.sh, cached).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib.sh
. scripts/lib.sh
ensure_build_tools
ensure_tesseract
bash scripts/models.sh >/dev/null
if [ "${1:-}" = "--dir" ]; then
  dir="${2:?usage: card_eval_set.sh --dir DIR}"
else
  seed="${1:-1}" n="${2:-2}"
  dir="target/indep_cards/s${seed}-n${n}"
  if [ ! -f "$dir/manifest.jsonl" ]; then
    bash benches/indep_cards/setup.sh >&2
    "${HOME}/.cache/idv/tools/indep-venv/bin/python" benches/indep_cards/gen.py --out "$dir.tmp" --per-type-capture "$n" --seed "$seed" >&2
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
fi
export OMP_THREAD_LIMIT=1
cargo run -q --release -p idv-benches --features ocr --bin card_eval_set -- "$dir"

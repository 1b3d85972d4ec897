#!/usr/bin/env bash
# Sets up the independent card generator: Debian fonts (apt-get, only what is missing)
# and a virtual environment at ~/.cache/idv/tools/indep-venv with requirements.txt.
# Idempotent: a second run installs nothing that is already there.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${INDEP_VENV:-$HOME/.cache/idv/tools/indep-venv}"

# fonts-dejavu-core: DejaVu Sans/Serif; fonts-liberation2: Arial/Times-like Liberation;
# fonts-noto-core: Noto Sans/Serif and Noto Sans/Serif Devanagari; fonts-freefont-ttf:
# FreeSans; fonts-ocr-b: OCR-B for the machine-readable zones.
PKGS=(fonts-dejavu-core fonts-liberation2 fonts-noto-core fonts-freefont-ttf fonts-ocr-b)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  for attempt in 1 2 3 4 5 6; do
    # another apt run may hold the dpkg lock: wait and retry
    if $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"; then
      break
    fi
    echo "apt-get failed (attempt $attempt), retrying in 20 s" >&2
    sleep 20
    [ "$attempt" -eq 6 ] && { echo "could not install: ${missing[*]}" >&2; exit 1; }
  done
fi

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" - "$HERE/requirements.txt" <<'PY'
import sys
from importlib.metadata import version, PackageNotFoundError
ok = True
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, want = line.split("==")
    try:
        ok &= version(name) == want
    except PackageNotFoundError:
        ok = False
sys.exit(0 if ok else 1)
PY
then
  "$VENV/bin/pip" install -q --upgrade pip
  "$VENV/bin/pip" install -q -r "$HERE/requirements.txt"
fi
"$VENV/bin/python" -c "from PIL import features; assert features.check('raqm'), 'Pillow without libraqm: Devanagari would be shaped wrongly'; assert features.check('jpg_2000'), 'Pillow without OpenJPEG'"
echo "ready: $VENV/bin/python $HERE/gen.py --out DIR"

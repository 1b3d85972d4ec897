#!/usr/bin/env python3
"""Regenerates dlib_reference.json: what the real dlib (Python package dlib 20.0.1) computes
on the exact pixels idv-vision decodes, which tests/embed.rs compares the Rust port
(shape predictor, face chips) and the converted ONNX network against.

Maintenance tool, not part of the build or the tests. dlib has no wheel on PyPI; pip
builds it from the sdist (cmake from PyPI + the system's C++ compiler; ~15 min on 2
cores):

    python3 -m venv /tmp/dlibref && /tmp/dlibref/bin/pip install cmake numpy dlib==20.0.1
    scripts/models.sh
    IDV_DUMP_DECODED=/tmp/decoded cargo test -p idv-vision --test detect -- --ignored dump_decoded_photos
    IDV_MAP_COEFFS=-0.04,0.06,0.92 /tmp/dlibref/bin/python vision/tests/data/make_dlib_reference.py \
        /tmp/decoded > vision/tests/data/dlib_reference.json

IDV_MAP_COEFFS are MAP_DX, MAP_DY, MAP_SIDE of vision/src/embed.rs (without it, only the
"hog" faces and the fit are written: that is how the coefficients were chosen). Optional
second argument: a directory to write dlib's face chips to (PPM); `IDV_DUMP_CHIPS=DIR
cargo test -p idv-vision --test embed -- --ignored dump_chips` writes the Rust ones, to
compare pixel by pixel (they were identical: 57 chips, 0 differing values).

What it records, per photo (the 13 test photos):
- "hog": every face dlib's HOG detector finds (get_frontal_face_detector, upsampled
  once, as face_recognition does), with dlib's 5 landmarks on that rectangle and the
  128-d descriptor (compute_face_descriptor, padding 0.25, no jitter);
- "mtcnn": for every face in mtcnn_reference.json (min face 40; the MTCNN reference the
  Rust detector matches), the rectangle idv-vision derives from the MTCNN box
  (dlib_rect_from_mtcnn, reimplemented below with the same coefficients) and dlib's
  landmarks and descriptor on it;
- "mapping": the least-squares fit of dlib's HOG rectangles from the MTCNN boxes of the
  same faces, from which the coefficients of dlib_rect_from_mtcnn were taken.
"""
import glob
import json
import os
import sys

import dlib
import numpy as np

decoded = sys.argv[1]
chips_dir = sys.argv[2] if len(sys.argv) > 2 else None
models = os.environ.get("IDV_MODELS_DIR", os.path.expanduser("~/.cache/idv/models"))
here = os.path.dirname(os.path.abspath(__file__))
sp = dlib.shape_predictor(os.path.join(models, "dlib", "shape_predictor_5_face_landmarks.dat"))
rec = dlib.face_recognition_model_v1(os.path.join(models, "dlib", "dlib_face_recognition_resnet_model_v1.dat"))
hog = dlib.get_frontal_face_detector()
mtcnn = json.load(open(os.path.join(here, "mtcnn_reference.json")))["results"]["min_face_40"]

# dlib_rect_from_mtcnn (vision/src/embed.rs): keep in step with the Rust constants.
MAP_DX, MAP_DY, MAP_SIDE = None, None, None
coeffs = os.environ.get("IDV_MAP_COEFFS")
if coeffs:
    MAP_DX, MAP_DY, MAP_SIDE = (float(v) for v in coeffs.split(","))


def rect_from_mtcnn(b):
    x1, y1, x2, y2 = b
    w, h = x2 - x1, y2 - y1
    cx = (x1 + x2) / 2 + MAP_DX * w
    cy = (y1 + y2) / 2 + MAP_DY * h
    half = (MAP_SIDE * (w + h) / 2 - 1) / 2
    rnd = lambda v: int(np.floor(abs(v) + 0.5) * np.sign(v))  # Rust f64::round: half away from zero
    return [rnd(cx - half), rnd(cy - half), rnd(cx + half), rnd(cy + half)]


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    parts = data.split(b"\n", 3)
    assert parts[0] == b"P6" and parts[2] == b"255"
    w, h = (int(v) for v in parts[1].split())
    return np.frombuffer(parts[3], np.uint8).reshape(h, w, 3).copy()


def face(img, name, rect, source, extra=None):
    r = dlib.rectangle(*rect)
    shape = sp(img, r)
    pts = [[shape.part(i).x, shape.part(i).y] for i in range(shape.num_parts)]
    desc = rec.compute_face_descriptor(img, shape)
    out = {"image": name, "source": source, "rect": rect, "landmarks": pts,
           "descriptor": [float(np.float32(v)) for v in desc]}
    if extra:
        out.update(extra)
    if chips_dir:
        chip = dlib.get_face_chip(img, shape, 150, 0.25)
        os.makedirs(chips_dir, exist_ok=True)
        with open(os.path.join(chips_dir, f"{name}-{source}-{rect[0]}-{rect[1]}.ppm"), "wb") as f:
            f.write(b"P6\n150 150\n255\n" + np.ascontiguousarray(chip).tobytes())
    return out


faces, pairs = [], []
images = {}
for path in sorted(glob.glob(os.path.join(decoded, "*.ppm"))):
    images[os.path.basename(path)[:-4]] = read_ppm(path)

for name, img in images.items():
    for d in hog(img, 1):
        rect = [d.left(), d.top(), d.right(), d.bottom()]
        faces.append(face(img, name, rect, "hog"))
        # Pair with the MTCNN face whose box centre is nearest, if inside the HOG box.
        cx, cy = (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2
        best = None
        for m in mtcnn.get(name, []):
            mx, my = (m[0] + m[2]) / 2, (m[1] + m[3]) / 2
            if rect[0] <= mx <= rect[2] and rect[1] <= my <= rect[3]:
                dist = (mx - cx) ** 2 + (my - cy) ** 2
                if best is None or dist < best[0]:
                    best = (dist, m)
        if best:
            pairs.append((best[1][:4], rect))

# Fit: dlib centre = MTCNN centre + (dx·w, dy·h); dlib side (right-left+1) = s·(w+h)/2.
A = np.array([[m[2] - m[0], m[3] - m[1], (m[0] + m[2]) / 2, (m[1] + m[3]) / 2] for m, _ in pairs])
H = np.array([[(r[0] + r[2]) / 2, (r[1] + r[3]) / 2, r[2] - r[0] + 1] for _, r in pairs])
dx = float(np.mean((H[:, 0] - A[:, 2]) / A[:, 0]))
dy = float(np.mean((H[:, 1] - A[:, 3]) / A[:, 1]))
side = float(np.sum(H[:, 2] * (A[:, 0] + A[:, 1]) / 2) / np.sum(((A[:, 0] + A[:, 1]) / 2) ** 2))
resid = []
for (m, r) in pairs:
    w, h = m[2] - m[0], m[3] - m[1]
    pc = ((m[0] + m[2]) / 2 + dx * w, (m[1] + m[3]) / 2 + dy * h)
    ps = side * (w + h) / 2
    resid.append([(pc[0] - (r[0] + r[2]) / 2) / (r[2] - r[0] + 1), (pc[1] - (r[1] + r[3]) / 2) / (r[2] - r[0] + 1),
                  ps / (r[2] - r[0] + 1) - 1])
resid = np.abs(np.array(resid))
mapping = {"pairs": len(pairs), "dx": round(dx, 4), "dy": round(dy, 4), "side": round(side, 4),
           "max_abs_residual_relative_to_side": {"centre_x": round(float(resid[:, 0].max()), 4),
                                                 "centre_y": round(float(resid[:, 1].max()), 4),
                                                 "side": round(float(resid[:, 2].max()), 4)}}
print(f"mapping fit: {mapping}", file=sys.stderr)

if MAP_DX is not None:
    for name, img in images.items():
        for m in mtcnn.get(name, []):
            faces.append(face(img, name, rect_from_mtcnn(m[:4]), "mtcnn", {"mtcnn_box": m[:4]}))
else:
    print("IDV_MAP_COEFFS=dx,dy,side not set: no 'mtcnn' faces written", file=sys.stderr)

comment = (
    "What dlib 20.0.1 (Python package, built from the PyPI sdist) computes on the exact RGB pixels idv-vision's decode() "
    "gives for each test photo: face rectangles ([left, top, right, bottom], inclusive), the 5 landmarks of "
    "shape_predictor_5_face_landmarks.dat on them, and the 128-d descriptor of dlib_face_recognition_resnet_model_v1.dat "
    "(compute_face_descriptor: chip get_face_chip_details(shape, 150, 0.25), no jitter), both from PyPI face-recognition-models "
    "0.3.0. source 'hog': dlib's HOG detector (upsampled once); source 'mtcnn': the rectangle dlib_rect_from_mtcnn derives from "
    "the box in mtcnn_reference.json (min face 40). 'mapping': the least-squares fit of HOG rectangles from MTCNN boxes. "
    "Regenerate with vision/tests/data/make_dlib_reference.py (see its header)."
)
lines = ["{", f' "comment": {json.dumps(comment)},', f' "mapping": {json.dumps(mapping)},', ' "faces": [']
for i, f in enumerate(faces):
    desc = ", ".join(repr(v) for v in f["descriptor"])
    head = {k: v for k, v in f.items() if k != "descriptor"}
    body = json.dumps(head)[:-1] + f', "descriptor": [{desc}]}}'
    lines.append("  " + body + ("," if i < len(faces) - 1 else ""))
lines += [" ]", "}"]
print("\n".join(lines))

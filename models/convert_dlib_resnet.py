#!/usr/bin/env python3
"""Converts dlib's face recognition ResNet (`dlib_face_recognition_resnet_model_v1.dat`,
from PyPI face-recognition-models 0.3.0, CC0) to ONNX.

    convert_dlib_resnet.py IN.dat OUT.onnx

Run by scripts/models.sh (docs/VISION.md) with numpy and onnx from PyPI, pinned there.
The output is deterministic for a given input and pinned onnx/protobuf versions, so its
SHA-256 is recorded in models/manifest.json like any downloaded file.

How: the .dat is dlib's own serialization of the network type `anet_type` declared in
dlib's tools/python/src/face_recognition.cpp (dlib 19.x/20.x):

    loss_metric<fc_no_bias<128, avg_pool_everything<
      alevel0<alevel1<alevel2<alevel3<alevel4<
      max_pool<3,3,2,2, relu<affine<con<32,7,7,2,2, input_rgb_image_sized<150>>>>>>>>>>>>>

    ares<N>      = relu<add_prev1<block<N,1,tag1<SUBNET>>>>
    ares_down<N> = relu<add_prev2<avg_pool<2,2,2,2, skip1<tag2<block<N,2,tag1<SUBNET>>>>>>>
    block<N,s>   = affine<con<N,3,3,1,1, relu<affine<con<N,3,3,s,s, SUBNET>>>>>
    alevel4 = ares<32> x3; alevel3 = ares_down<64>, ares<64> x3; alevel2 = ares_down<128>,
    ares<128> x2; alevel1 = ares_down<256>, ares<256> x2; alevel0 = ares_down<256>

This script expands that type into its list of layers and reads the file exactly as
dlib's deserialize() does (dlib/serialize.h, dlib/dnn/core.h, layers.h, input.h, loss.h,
cuda/tensor.h): every version tag, shape and hyper-parameter is checked against the
expected type, so a file of another network is refused rather than mis-read. The graph
is then rebuilt with the same semantics:

- input: RGB pixels 0..255 as float, NCHW [N, 3, 150, 150]; dlib's input layer computes
  (pixel - avg_channel) / 256 with the averages stored in the file (done in the graph);
- con: Conv with the stored padding and stride (filters OIHW, as in dlib); affine:
  per-channel x * gamma + beta; relu; max_pool / avg_pool with the stored geometry;
- add_prev: dlib adds tensors of different sizes by treating what lies outside the
  smaller one as zero (top-left aligned, cpu_dlib.cpp tt::add); where the shapes differ
  (channels 32->64 etc., and 3x3 vs 4x4, 1x1 vs 2x2 at the two deepest levels) the
  smaller tensor is zero-padded at the end of each axis first;
- avg_pool_everything: GlobalAveragePool; fc_no_bias: x (N x 256) @ W (256 x 128);
  loss_metric: the descriptor is the fc output as is.

Output: `descriptor` [N, 128] float. Same person if the Euclidean distance < 0.6
(dlib's documented threshold; it is also the loss's stored distance_threshold).
"""
import hashlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INPUT_SIZE = 150


class Reader:
    """dlib's serialize.h formats."""

    def __init__(self, data):
        self.d = data
        self.p = 0

    def fail(self, msg):
        raise ValueError(f"offset {self.p}: {msg}")

    def byte(self):
        if self.p >= len(self.d):
            self.fail("unexpected end of file")
        b = self.d[self.p]
        self.p += 1
        return b

    def bytes(self, n):
        if self.p + n > len(self.d):
            self.fail("unexpected end of file")
        b = self.d[self.p:self.p + n]
        self.p += n
        return b

    def int(self, signed=True):
        ctrl = self.byte()
        neg = bool(ctrl & 0x80)
        size = ctrl & 0x0F if signed else ctrl & 0x8F
        if size == 0 or size > 8 or (neg and not signed):
            self.fail(f"bad integer control byte {ctrl:#x}")
        v = int.from_bytes(self.bytes(size), "little")
        return -v if neg else v

    def uint(self):
        return self.int(signed=False)

    def string(self):
        n = self.uint()
        return self.bytes(n).decode("latin-1")

    def float(self):
        # float_details: int64 mantissa, int16 exponent; value = mantissa * 2^exponent.
        if self.d[self.p] & 0x70:
            self.fail("old ASCII float format not supported")
        man = self.int()
        exp = self.int()
        if exp >= 32000:
            return {32000: float("inf"), 32001: float("-inf")}.get(exp, float("nan"))
        return float(np.ldexp(np.float64(man), exp))

    def bool(self):
        c = self.byte()
        if c not in (ord("0"), ord("1")):
            self.fail(f"bad bool {c}")
        return c == ord("1")

    def tensor(self):
        """resizable_tensor: version 2, num_samples, k, nr, nc, then little-endian float32."""
        if self.int() != 2:
            self.fail("resizable_tensor version is not 2")
        shape = [self.int() for _ in range(4)]
        if min(shape) < 0:
            self.fail(f"bad tensor shape {shape}")
        n = int(np.prod(shape))
        return np.frombuffer(self.bytes(4 * n), dtype="<f4").reshape(shape).astype(np.float32)

    def alias(self):
        if self.int() != 1:
            self.fail("alias_tensor version is not 1")
        return [self.int() for _ in range(4)]

    def expect_string(self, *allowed):
        s = self.string()
        if s not in allowed:
            self.fail(f"expected {allowed}, found {s!r}")
        return s


def architecture():
    """The layers of anet_type from the outermost (loss) to the innermost (input)."""
    def block(n, stride):
        # affine<con<N,3,3,1,1,relu<affine<con<N,3,3,s,s,SUBNET>>>>>
        return [("affine",), ("con", n, 3, 1), ("relu",), ("affine",), ("con", n, 3, stride)]

    def ares(n):
        return [("relu",), ("add_prev", 1)] + block(n, 1) + [("tag", 1)]

    def ares_down(n):
        return [("relu",), ("add_prev", 2), ("avg_pool", 2, 2), ("skip", 1), ("tag", 2)] + block(n, 2) + [("tag", 1)]

    layers = [("fc", 128), ("avg_pool", 0, 1)]  # avg_pool_everything: avg_pool<0,0,1,1>
    layers += ares_down(256)                                   # alevel0
    layers += ares(256) + ares(256) + ares_down(256)           # alevel1
    layers += ares(128) + ares(128) + ares_down(128)           # alevel2
    layers += ares(64) + ares(64) + ares(64) + ares_down(64)   # alevel3
    layers += ares(32) + ares(32) + ares(32)                   # alevel4
    layers += [("max_pool", 3, 2), ("relu",), ("affine",), ("con", 32, 7, 2)]
    return layers


def read_details(r, layer):
    kind = layer[0]
    if kind == "con":
        _, n, size, stride = layer
        version = r.expect_string("con_4", "con_5", "con_6")
        params = r.tensor().reshape(-1)
        num_filters = r.int()
        nr, nc, sy, sx, py, px = (r.int() for _ in range(6))
        filters = r.alias()
        biases = r.alias()
        for _ in range(4):  # learning-rate and weight-decay multipliers
            r.float()
        use_bias = r.bool() if version in ("con_5", "con_6") else True
        if version == "con_6" and r.bool():
            r.fail("con_ with a fused relu is not supported")
        if (num_filters, nr, nc, sy, sx) != (n, size, size, stride, stride) or filters[0] != n:
            r.fail(f"con_ geometry {(num_filters, nr, nc, sy, sx)} is not {(n, size, size, stride, stride)}")
        fsize = int(np.prod(filters))
        bsize = int(np.prod(biases)) if use_bias else 0
        if params.size != fsize + bsize:
            r.fail(f"con_ params hold {params.size} values, filters+biases need {fsize + bsize}")
        w = params[:fsize].reshape(filters)
        b = params[fsize:].copy() if use_bias else np.zeros(n, np.float32)
        return {"kind": "con", "w": w, "b": b, "stride": stride, "pad": (py, px)}
    if kind == "affine":
        version = r.expect_string("affine_", "affine_2")
        params = r.tensor().reshape(-1)
        gamma = r.alias()
        beta = r.alias()
        mode = r.int()
        disabled = r.bool() if version == "affine_2" else False
        k = gamma[1]
        if mode != 0 or gamma != [1, k, 1, 1] or beta != gamma or params.size != 2 * k or disabled:
            r.fail(f"affine_ not in conv mode with per-channel gamma/beta (mode {mode}, gamma {gamma})")
        return {"kind": "affine", "gamma": params[:k].copy(), "beta": params[k:].copy()}
    if kind == "relu":
        version = r.expect_string("relu_", "relu_2")
        if version == "relu_2" and r.bool():
            r.fail("disabled relu_ not supported")
        return {"kind": "relu"}
    if kind in ("max_pool", "avg_pool"):
        _, size, stride = layer
        r.expect_string(f"{kind}_2")
        nr, nc, sy, sx, py, px = (r.int() for _ in range(6))
        if (nr, nc, sy, sx, py, px) != (size, size, stride, stride, 0, 0):
            r.fail(f"{kind} geometry {(nr, nc, sy, sx, py, px)} unexpected")
        return {"kind": kind, "size": size, "stride": stride}
    if kind == "fc":
        r.expect_string("fc_2", "fc_3")
        num_outputs = r.uint()
        num_inputs = r.uint()
        params = r.tensor().reshape(-1)
        weights = r.alias()
        r.alias()  # biases: empty without bias
        bmode = r.int()
        for _ in range(4):
            r.float()
        if num_outputs != layer[1] or bmode != 1 or weights[:2] != [num_inputs, num_outputs] or params.size != num_inputs * num_outputs:
            r.fail(f"fc_ is not fc_no_bias<{layer[1]}> (outputs {num_outputs}, bias mode {bmode}, weights {weights})")
        return {"kind": "fc", "w": params.reshape(num_inputs, num_outputs)}
    if kind == "add_prev":
        r.expect_string("add_prev_")
        return {"kind": "add_prev", "tag": layer[1]}
    raise AssertionError(kind)


def skip_layer_state(r, on_input, version):
    """add_layer's fields after `details` (dlib/dnn/core.h): three flags, x_grad and
    cached_output, then params_grad (generic add_layer version 2) or grad_final and, in
    version 3, _sample_expansion_factor (the add_layer right on the input layer)."""
    for _ in range(3):  # this_layer_setup_called, gradient_input_is_stale, get_output_and_gradient_input_disabled
        r.bool()
    r.tensor()  # x_grad
    r.tensor()  # cached_output
    if on_input:
        r.tensor()  # grad_final
        if version == 3:
            r.uint()  # _sample_expansion_factor
    elif version == 2:
        r.tensor()  # params_grad


def parse(data):
    r = Reader(data)
    if r.int() != 1:
        r.fail("add_loss_layer version is not 1")
    r.expect_string("loss_metric_2")
    margin, dist_thresh = r.float(), r.float()
    arch = architecture()
    versions = []
    for i, layer in enumerate(arch):
        v = r.int()
        if layer[0] in ("tag", "skip"):
            if v != 1:
                r.fail(f"{layer[0]} layer version {v}")
        elif i == len(arch) - 1:
            if v not in (2, 3):
                r.fail(f"input add_layer version {v}")
        elif v not in (1, 2):
            r.fail(f"add_layer version {v}")
        versions.append(v)
    r.expect_string("input_rgb_image_sized")
    avg = [r.float() for _ in range(3)]
    if (r.uint(), r.uint()) != (INPUT_SIZE, INPUT_SIZE):
        r.fail("input is not 150x150")
    layers = []
    for i in range(len(arch) - 1, -1, -1):  # innermost first: the order of the file
        layer = arch[i]
        if layer[0] in ("tag", "skip"):
            layers.append({"kind": layer[0], "tag": layer[1]})
            continue
        layers.append(read_details(r, layer))
        skip_layer_state(r, i == len(arch) - 1, versions[i])
    if r.p != len(data):
        r.fail(f"{len(data) - r.p} bytes left after the network")
    return {"avg": avg, "layers": layers, "margin": margin, "dist_thresh": dist_thresh}


def build(net):
    nodes, inits = [], []
    counter = [0]

    def name(prefix):
        counter[0] += 1
        return f"{prefix}_{counter[0]}"

    def const(prefix, array):
        n = name(prefix)
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), n))
        return n

    def node(op, inputs, **attrs):
        out = name(op.lower())
        nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    avg = np.array(net["avg"], np.float32).reshape(1, 3, 1, 1)
    x = node("Sub", ["image", const("avg", avg)])
    x = node("Mul", [x, const("inv256", np.array(1.0 / 256.0, np.float32))])
    shape = [3, INPUT_SIZE, INPUT_SIZE]  # channels, rows, cols (batch is free)
    tags = {}
    for layer in net["layers"]:
        kind = layer["kind"]
        if kind == "con":
            w = layer["w"]
            (py, px), s = layer["pad"], layer["stride"]
            x = node("Conv", [x, const("w", w), const("b", layer["b"])], kernel_shape=list(w.shape[2:]),
                     strides=[s, s], pads=[py, px, py, px])
            shape = [w.shape[0]] + [1 + (d + 2 * p - k) // s for d, p, k in zip(shape[1:], (py, px), w.shape[2:])]
        elif kind == "affine":
            k = layer["gamma"].size
            x = node("Mul", [x, const("gamma", layer["gamma"].reshape(1, k, 1, 1))])
            x = node("Add", [x, const("beta", layer["beta"].reshape(1, k, 1, 1))])
        elif kind == "relu":
            x = node("Relu", [x])
        elif kind in ("max_pool", "avg_pool"):
            if layer["size"] == 0:
                x = node("GlobalAveragePool", [x])
                shape = [shape[0], 1, 1]
            else:
                k, s = layer["size"], layer["stride"]
                x = node("MaxPool" if kind == "max_pool" else "AveragePool", [x], kernel_shape=[k, k], strides=[s, s])
                shape = [shape[0]] + [1 + (d - k) // s for d in shape[1:]]
        elif kind == "tag":
            tags[layer["tag"]] = (x, list(shape))
        elif kind == "skip":
            x, shape = tags[layer["tag"]][0], list(tags[layer["tag"]][1])
        elif kind == "add_prev":
            y, yshape = tags[layer["tag"]]
            out = [max(a, b) for a, b in zip(shape, yshape)]

            def pad(t, tshape):
                if tshape == out:
                    return t
                # [N, C, H, W] begins, then ends: zeros after the last channel, row, column.
                pads = np.array([0, 0, 0, 0, 0] + [o - d for o, d in zip(out, tshape)], np.int64)
                return node("Pad", [t, const("pads", pads)], mode="constant")

            x = node("Add", [pad(x, shape), pad(y, yshape)])
            shape = out
        elif kind == "fc":
            x = node("Flatten", [x], axis=1)
            x = node("MatMul", [x, const("fc", layer["w"])])
        else:
            raise AssertionError(kind)
    nodes[-1].output[0] = "descriptor"
    nodes[-1].name = "descriptor"
    graph = helper.make_graph(
        nodes, "dlib_face_recognition_resnet_model_v1",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, INPUT_SIZE, INPUT_SIZE])],
        [helper.make_tensor_value_info("descriptor", TensorProto.FLOAT, ["N", 128])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="idv convert_dlib_resnet.py",
                              producer_version="1", ir_version=8)
    model.doc_string = ("dlib_face_recognition_resnet_model_v1 (face-recognition-models 0.3.0, CC0, by Davis King) converted "
                        "from dlib's serialization. Input: RGB 0..255, NCHW, 150x150 face chip from dlib's "
                        "get_face_chip_details(shape, 150, 0.25). Output: 128-d descriptor; same person if Euclidean distance < 0.6.")
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    try:
        net = parse(data)
    except ValueError as e:
        sys.exit(f"convert_dlib_resnet.py: {sys.argv[1]} is not dlib's face recognition ResNet v1: {e}")
    model = build(net)
    blob = model.SerializeToString()
    with open(sys.argv[2], "wb") as f:
        f.write(blob)
    convs = sum(1 for l in net["layers"] if l["kind"] == "con")
    print(f"convert_dlib_resnet.py: {convs} conv layers, input averages {[round(a, 3) for a in net['avg']]}, "
          f"loss distance threshold {net['dist_thresh']:.3f}; wrote {len(blob)} bytes, "
          f"sha256 {hashlib.sha256(blob).hexdigest()}", file=sys.stderr)


if __name__ == "__main__":
    main()

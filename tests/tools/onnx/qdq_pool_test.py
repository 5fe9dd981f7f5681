#!/usr/bin/python3
"""Pools between DequantizeLinear and QuantizeLinear through `treesim onnx run`: MaxPool,
AveragePool (whole windows, and padded with count_include_pad 1) and GlobalAveragePool fuse into the
machine's maxpool and avgpool, and the output equals a NumPy integer reference exactly (the window
sum of x − x_zero, then ONNX Runtime's float requant by fl32(x_scale / (y_scale · taps))). It also
counts how many codes differ from the float graph's meaning (DequantizeLinear, a float pool,
QuantizeLinear, in float64 here): at most one code each, as the requant's float32 rounds differently."""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# (name, op, attributes, y scale, y zero point, y type)
STAGES = [
    ("max", "MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, None, None, None),
    ("avg", "AveragePool", {"kernel_shape": [2, 2], "strides": [1, 1]}, 0.041, -3, np.int8),
    ("avgpad", "AveragePool", {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 1},
     0.023, 7, np.int8),
    ("gap", "GlobalAveragePool", {}, 0.017, 131, np.uint8),
]


SHAPES = [[2, 6, 5, 5], [2, 6, 4, 4], [2, 6, 4, 4], [2, 6, 1, 1]]


def model(x_scale, x_zero):
    nodes, inits = [], []
    current, scale, zero = "x", x_scale, x_zero
    for i, (name, op, attrs, y_scale, y_zero, y_type) in enumerate(STAGES):
        out = f"{name}_q"
        if y_scale is None:  # a max keeps its input's quantization
            y_scale, y_zero, y_type = scale, zero, type(zero)
        inits += [numpy_helper.from_array(np.array(scale, np.float32), f"{name}_xs"),
                  numpy_helper.from_array(np.array(zero), f"{name}_xz"),
                  numpy_helper.from_array(np.array(y_scale, np.float32), f"{name}_ys"),
                  numpy_helper.from_array(np.array(y_zero, y_type), f"{name}_yz")]
        nodes += [helper.make_node("DequantizeLinear", [current, f"{name}_xs", f"{name}_xz"], [f"{name}_f"]),
                  helper.make_node(op, [f"{name}_f"], [f"{name}_p"], name=name, **attrs),
                  helper.make_node("QuantizeLinear", [f"{name}_p", f"{name}_ys", f"{name}_yz"], [out])]
        current, scale, zero = out, y_scale, np.array(y_zero, y_type)[()]
    graph = helper.make_graph(nodes, "qdq_pools",
                              [helper.make_tensor_value_info("x", TensorProto.UINT8, [2, 6, 9, 9])],
                              [helper.make_tensor_value_info(f"{s[0]}_q", TensorProto.UINT8 if s[5] in (None, np.uint8)
                                                             else TensorProto.INT8, shape)
                               for s, shape in zip(STAGES, SHAPES)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def windows(x, kh, kw, stride, pad, fill):
    n, c, h, w = x.shape
    xp = np.full((n, c, h + 2 * pad, w + 2 * pad), fill, np.int64)
    xp[:, :, pad:pad + h, pad:pad + w] = x
    oh, ow = (h + 2 * pad - kh) // stride + 1, (w + 2 * pad - kw) // stride + 1
    out = np.empty((n, c, oh, ow, kh * kw), np.int64)
    for i in range(kh):
        for j in range(kw):
            out[..., i * kw + j] = xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
    return out


def reference(x, x_scale, x_zero, exact=True):
    v, scale, zero, outs = x.astype(np.int64), x_scale, int(x_zero), []
    for name, op, attrs, y_scale, y_zero, y_type in STAGES:
        k = attrs.get("kernel_shape", [v.shape[2], v.shape[3]])
        stride, pad = attrs.get("strides", [1, 1])[0], attrs.get("pads", [0, 0, 0, 0])[0]
        if op == "MaxPool":
            v = windows(v, k[0], k[1], stride, pad, -1 << 20).max(axis=-1)
            outs.append(v)
            continue
        s = (windows(v, k[0], k[1], stride, pad, zero) - zero).sum(axis=-1)
        info = np.iinfo(y_type)
        if exact:
            q = np.rint(s.astype(np.float32) * np.float32(scale / (y_scale * k[0] * k[1])))
        else:  # the float graph: the mean of the dequantized values, then QuantizeLinear
            q = np.rint((s * np.float64(np.float32(scale)) / (k[0] * k[1])) / np.float64(np.float32(y_scale)))
        v = np.clip(q.astype(np.int64) + y_zero, info.min, info.max)
        scale, zero = y_scale, y_zero
        outs.append(v)
    return outs


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--treesim", required=True)
    ap.add_argument("--machine", required=True)
    a = ap.parse_args()
    x_scale, x_zero = 0.05, np.uint8(121)
    x = np.random.default_rng(7).integers(0, 256, (2, 6, 9, 9), dtype=np.uint8)
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        m = model(x_scale, x_zero)
        onnx.checker.check_model(m)
        onnx.save(m, t / "model.onnx")
        np.save(t / "x.npy", x)
        r = subprocess.run([a.treesim, "onnx", "run", str(t / "model.onnx"), "--machine", a.machine, "--input",
                            f"x={t / 'x.npy'}", "--out", str(t / "out"), "--verify"], capture_output=True, text=True)
        print(r.stdout, r.stderr)
        if r.returncode != 0:
            return 1
        for kernel, count in (("maxpool", 1), ("avgpool", 3)):
            if r.stdout.count(f"machine  {kernel}") != count:
                print(f"expected {count} fused pools on the machine as {kernel}")
                return 1
        wants, floats = reference(x, x_scale, x_zero), reference(x, x_scale, x_zero, exact=False)
        for stage, want, fl in zip(STAGES, wants, floats):
            got = np.load(t / "out" / f"{stage[0]}_q.npy").astype(np.int64)
            if got.shape != want.shape or not np.array_equal(got, want):
                print(f"{stage[0]} differs from the integer reference:", got.ravel()[:8], want.ravel()[:8])
                return 1
            diff = np.abs(fl - got)
            print(f"{stage[0]}: equals the integer reference exactly; against the float graph "
                  f"{int((diff > 0).sum())} of {diff.size} codes differ, by at most {int(diff.max())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

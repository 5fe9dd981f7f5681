#!/usr/bin/python3
"""A chain of QLinearConv nodes, then a Flatten and a QLinearMatMul, through `treesim onnx run`: each
output is read only by the next node, so the planner may keep a convolution's output in the LMs for
the next one's windowed converts (or the dense layer's). Strides, padding, dilation, a 1×1 and a
depthwise convolution: the output must equal a NumPy integer reference (ONNX Runtime's float
requant) and the run with every node through DRAM (--via-dram), every node's --verify must pass (a
kept output as its reader gathered it in the LMs), and some output must have stayed in the LMs."""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# (name, output channels, kernel, stride, pad, dilation, group)
LAYERS = [
    ("c0", 8, 3, 1, 1, 1, 1),
    ("c1", 12, 3, 2, 1, 1, 1),
    ("c2", 12, 3, 1, 2, 2, 12),  # depthwise, dilated
    ("c3", 6, 1, 1, 0, 1, 1),
    ("c4", 5, 5, 1, 2, 1, 1),
]
X_SHAPE = [2, 3, 13, 11]
C4_SHAPE = [2, 5, 7, 6]  # the last convolution's output
DENSE = 9                # the dense layer's outputs


def model(rng):
    nodes, inits, params = [], [], []
    current, c, scale, zero = "x", X_SHAPE[1], 0.02, 128
    for name, k, r, stride, pad, dil, group in LAYERS:
        w = rng.integers(-100, 101, (k, c // group, r, r), dtype=np.int8)
        b = rng.integers(-2000, 2001, (k,), dtype=np.int32)
        w_scale = np.float32(0.004 + 0.002 * rng.random())
        y_scale, y_zero = np.float32(0.03 + 0.02 * rng.random()), np.uint8(rng.integers(60, 140))
        inits += [numpy_helper.from_array(np.array(scale, np.float32), f"{name}_xs"),
                  numpy_helper.from_array(np.array(zero, np.uint8), f"{name}_xz"),
                  numpy_helper.from_array(w, f"{name}_w"),
                  numpy_helper.from_array(np.array(w_scale, np.float32), f"{name}_ws"),
                  numpy_helper.from_array(np.array(0, np.int8), f"{name}_wz"),
                  numpy_helper.from_array(np.array(y_scale, np.float32), f"{name}_ys"),
                  numpy_helper.from_array(np.array(y_zero, np.uint8), f"{name}_yz"),
                  numpy_helper.from_array(b, f"{name}_b")]
        nodes.append(helper.make_node(
            "QLinearConv", [current, f"{name}_xs", f"{name}_xz", f"{name}_w", f"{name}_ws", f"{name}_wz",
                            f"{name}_ys", f"{name}_yz", f"{name}_b"], [name], name=name,
            kernel_shape=[r, r], strides=[stride, stride], pads=[pad] * 4, dilations=[dil, dil], group=group))
        params.append((w, b, scale, zero, w_scale, y_scale, y_zero))
        current, c, scale, zero = name, k, y_scale, y_zero
    # Flatten, then a dense layer on the flattened (NCHW) features.
    k = C4_SHAPE[1] * C4_SHAPE[2] * C4_SHAPE[3]
    w = rng.integers(-90, 91, (k, DENSE), dtype=np.int8)
    w_scale, y_scale, y_zero = np.float32(0.003), np.float32(0.05), np.uint8(100)
    inits += [numpy_helper.from_array(np.array(scale, np.float32), "d_xs"),
              numpy_helper.from_array(np.array(zero, np.uint8), "d_xz"),
              numpy_helper.from_array(w, "d_w"),
              numpy_helper.from_array(np.array(w_scale, np.float32), "d_ws"),
              numpy_helper.from_array(np.array(0, np.int8), "d_wz"),
              numpy_helper.from_array(np.array(y_scale, np.float32), "d_ys"),
              numpy_helper.from_array(np.array(y_zero, np.uint8), "d_yz")]
    nodes += [helper.make_node("Flatten", [current], ["flat"], name="flatten", axis=1),
              helper.make_node("QLinearMatMul", ["flat", "d_xs", "d_xz", "d_w", "d_ws", "d_wz", "d_ys", "d_yz"],
                               ["y"], name="dense")]
    params.append((w, None, scale, zero, w_scale, y_scale, y_zero))
    graph = helper.make_graph(nodes, "conv_chain", [helper.make_tensor_value_info("x", TensorProto.UINT8, X_SHAPE)],
                              [helper.make_tensor_value_info("y", TensorProto.UINT8, [X_SHAPE[0], DENSE])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), params


def conv(x, w, b, x_zero, stride, pad, dil, group):
    n, c, h, wd = x.shape
    k, cg, r, _ = w.shape
    xp = np.full((n, c, h + 2 * pad, wd + 2 * pad), x_zero, np.int64)
    xp[:, :, pad:pad + h, pad:pad + wd] = x
    span = dil * (r - 1) + 1
    oh, ow = (h + 2 * pad - span) // stride + 1, (wd + 2 * pad - span) // stride + 1
    out = np.zeros((n, k, oh, ow), np.int64)
    kg = k // group
    for o in range(k):
        g = o // kg
        for i in range(r):
            for j in range(r):
                win = xp[:, g * cg:(g + 1) * cg, i * dil:i * dil + stride * oh:stride, j * dil:j * dil + stride * ow:stride]
                out[:, o] += np.einsum("nchw,c->nhw", win - x_zero, w[o, :, i, j].astype(np.int64))
    return out + b[None, :, None, None]


def reference(x, params):
    v = x.astype(np.int64)
    for (name, k, r, stride, pad, dil, group), (w, b, xs, xz, ws, ys, yz) in zip(LAYERS, params):
        acc = conv(v, w, b, int(xz), stride, pad, dil, group)
        m = np.float32(np.float32(np.float32(xs) * ws) / ys)
        v = np.clip(np.rint(acc.astype(np.float32) * m).astype(np.int64) + int(yz), 0, 255)
    w, _, xs, xz, ws, ys, yz = params[-1]
    acc = (v.reshape(v.shape[0], -1) - int(xz)) @ w.astype(np.int64)
    m = np.float32(np.float32(np.float32(xs) * ws) / ys)
    return np.clip(np.rint(acc.astype(np.float32) * m).astype(np.int64) + int(yz), 0, 255)


def run(treesim, machine, t, extra):
    out = t / ("dram" if extra else "lm")
    r = subprocess.run([treesim, "onnx", "run", str(t / "model.onnx"), "--machine", machine, "--input",
                        f"x={t / 'x.npy'}", "--out", str(out), "--report", str(out) + ".json", "--verify"] + extra,
                       capture_output=True, text=True)
    print(r.stdout, r.stderr)
    if r.returncode != 0:
        return None, None
    return np.load(out / "y.npy"), json.loads(Path(str(out) + ".json").read_text())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--treesim", required=True)
    ap.add_argument("--machine", required=True)
    a = ap.parse_args()
    rng = np.random.default_rng(11)
    m, params = model(rng)
    onnx.checker.check_model(m)
    x = rng.integers(0, 256, X_SHAPE, dtype=np.uint8)
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        onnx.save(m, t / "model.onnx")
        np.save(t / "x.npy", x)
        lm, lm_report = run(a.treesim, a.machine, t, [])
        dram, _ = run(a.treesim, a.machine, t, ["--via-dram"])
        if lm is None or dram is None:
            return 1
        want = reference(x, params)
        if not np.array_equal(lm.astype(np.int64), want):
            print("one program differs from the integer reference")
            return 1
        if not np.array_equal(lm, dram):
            print("one program differs from the program per node")
            return 1
        kept = [n["node"] for n in lm_report["nodes"] if n.get("output_in_lm")]
        checked = [n["node"] for n in lm_report["nodes"] if n.get("verify", {}).get("ok")]
        print(f"outputs kept in the LMs: {kept}; verified: {checked}")
        if not kept or len(checked) != len(LAYERS) + 1:
            print("expected some outputs kept in the LMs and every node verified")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

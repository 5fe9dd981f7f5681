#!/usr/bin/python3
"""A quantized Add between DequantizeLinear and QuantizeLinear through `treesim onnx run`: with and
without a fused Relu, uint8 and int8 operands, it runs on the machine as qadd and equals a NumPy
float32 reference of ONNX Runtime's QLinearAdd exactly (fl32(a_scale / y_scale) · fl32(a − a_zero)
+ the same for b, nearbyint, + y_zero, saturated); against the float graph's meaning (float64) it
differs by at most one code. Operands of different shapes (broadcasting) are refused with one line."""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SHAPE = [4, 16, 33]
A = (0.031, np.uint8(119))
B = (0.017, np.int8(-4))
ADDS = [("sum", False, 0.045, np.int8(3)), ("sum_relu", True, 0.052, np.uint8(120))]


def model(b_shape):
    inits = [numpy_helper.from_array(np.array(A[0], np.float32), "as"), numpy_helper.from_array(np.array(A[1]), "az"),
             numpy_helper.from_array(np.array(B[0], np.float32), "bs"), numpy_helper.from_array(np.array(B[1]), "bz")]
    nodes = [helper.make_node("DequantizeLinear", ["a", "as", "az"], ["af"]),
             helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bf"])]
    outputs = []
    for name, relu, scale, zero in ADDS:
        inits += [numpy_helper.from_array(np.array(scale, np.float32), f"{name}_s"),
                  numpy_helper.from_array(np.array(zero), f"{name}_z")]
        nodes.append(helper.make_node("Add", ["af", "bf"], [f"{name}_f"], name=name))
        last = f"{name}_f"
        if relu:
            nodes.append(helper.make_node("Relu", [last], [f"{name}_r"]))
            last = f"{name}_r"
        nodes.append(helper.make_node("QuantizeLinear", [last, f"{name}_s", f"{name}_z"], [name]))
        kind = TensorProto.INT8 if zero.dtype == np.int8 else TensorProto.UINT8
        outputs.append(helper.make_tensor_value_info(name, kind, SHAPE))
    graph = helper.make_graph(nodes, "qdq_add", [helper.make_tensor_value_info("a", TensorProto.UINT8, SHAPE),
                                                 helper.make_tensor_value_info("b", TensorProto.INT8, b_shape)],
                              outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def reference(a, b, relu, y_scale, y_zero, exact=True):
    f32 = np.float32
    if exact:
        pa = f32(f32(A[0]) / f32(y_scale)) * (a.astype(np.int32) - int(A[1])).astype(f32)
        pb = f32(f32(B[0]) / f32(y_scale)) * (b.astype(np.int32) - int(B[1])).astype(f32)
        q = np.rint(pa + pb).astype(np.int64)
    else:
        v = (a.astype(np.float64) - int(A[1])) * float(f32(A[0])) + (b.astype(np.float64) - int(B[1])) * float(f32(B[0]))
        q = np.rint(v / float(f32(y_scale))).astype(np.int64)
    info = np.iinfo(y_zero.dtype)
    lo = max(info.min, int(y_zero)) if relu else info.min
    return np.clip(q + int(y_zero), lo, info.max).astype(y_zero.dtype)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--treesim", required=True)
    ap.add_argument("--machine", required=True)
    a_ = ap.parse_args()
    rng = np.random.default_rng(3)
    a = rng.integers(0, 256, SHAPE, dtype=np.uint8)
    b = rng.integers(-128, 128, SHAPE, dtype=np.int8)
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        m = model(SHAPE)
        onnx.checker.check_model(m)
        onnx.save(m, t / "model.onnx")
        np.save(t / "a.npy", a)
        np.save(t / "b.npy", b)
        r = subprocess.run([a_.treesim, "onnx", "run", str(t / "model.onnx"), "--machine", a_.machine, "--input",
                            f"a={t / 'a.npy'}", "--input", f"b={t / 'b.npy'}", "--out", str(t / "out"), "--verify"],
                           capture_output=True, text=True)
        print(r.stdout, r.stderr)
        if r.returncode != 0 or r.stdout.count("machine  qadd") != 2:
            print("expected both Adds on the machine as qadd")
            return 1
        for name, relu, scale, zero in ADDS:
            got = np.load(t / "out" / f"{name}.npy")
            want = reference(a, b, relu, scale, zero)
            if got.dtype != want.dtype or not np.array_equal(got, want):
                print(f"{name} differs from the float32 reference:", np.argwhere(got != want)[:5])
                return 1
            diff = np.abs(reference(a, b, relu, scale, zero, exact=False).astype(np.int64) - got.astype(np.int64))
            print(f"{name}: equals the float32 reference exactly; against the float graph {int((diff > 0).sum())} "
                  f"of {diff.size} codes differ, by at most {int(diff.max())}")
            if diff.max() > 1:
                return 1
        # b broadcast along a's first axis: refused with one line naming the node.
        onnx.save(model([1] + SHAPE[1:]), t / "broadcast.onnx")
        np.save(t / "b1.npy", b[:1])
        r = subprocess.run([a_.treesim, "onnx", "run", str(t / "broadcast.onnx"), "--machine", a_.machine, "--input",
                            f"a={t / 'a.npy'}", "--input", f"b={t / 'b1.npy'}"], capture_output=True, text=True)
        if r.returncode != 2 or r.stderr.count("\n") != 1 or "broadcasting is not supported" not in r.stderr:
            print("broadcast:", r.returncode, r.stderr)
            return 1
        print("a broadcast b is refused:", r.stderr.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())

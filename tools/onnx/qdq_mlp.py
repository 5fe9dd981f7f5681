#!/usr/bin/python3
"""A small quantized MLP in ONNX's QDQ form, and its integer reference in NumPy.

    x (float32 [rows, 16]) → QuantizeLinear → DequantizeLinear
      → MatMul(DequantizeLinear(int8 W1 [16, 12], per-column scales)) → Add(DequantizeLinear(int32 b1))
      → Relu → QuantizeLinear → DequantizeLinear
      → Gemm(transB=1, DequantizeLinear(int8 W2 [5, 12]), DequantizeLinear(int32 b2))
      → QuantizeLinear → DequantizeLinear → y (float32 [rows, 5])

`treesim onnx run` fuses each Q/DQ GEMM into one quantized GEMM on the machine (docs/onnx.md). The
reference computes what ONNX Runtime's fused QLinearMatMul / QGemm compute: int32 accumulators of
(a − Za)(w − Zw) plus the int32 bias, times m = fl32(fl32(Sa·Sw)/Sy), rounded to nearest even, plus
Zy, clamped (at Zy with ReLU). Usage: qdq_mlp.py OUT_DIR [--rows N] [--seed S] writes model.onnx,
x.npy and the reference y_ref.npy.
"""
import argparse
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32 = np.float32


def build(seed: int = 7, clip: bool = False):
    """The model and its parameters; with `clip`, layer 1's Relu is Clip(0, 6) (ReLU6)."""
    rng = np.random.default_rng(seed)
    p = {
        "sx": F32(0.05), "zx": np.uint8(120),
        "w1": rng.integers(-127, 128, size=(16, 12), dtype=np.int8),
        "sw1": (rng.uniform(0.002, 0.01, size=12)).astype(F32),
        "sh": F32(0.04), "zh": np.uint8(0),
        "w2": rng.integers(-127, 128, size=(5, 12), dtype=np.int8),
        "sw2": F32(0.006),
        "sy": F32(0.1), "zy": np.int8(3),
    }
    p["b1"] = rng.integers(-2000, 2000, size=12, dtype=np.int32)
    p["sb1"] = (F32(p["sx"]) * p["sw1"]).astype(F32)
    p["b2"] = rng.integers(-2000, 2000, size=5, dtype=np.int32)
    p["sb2"] = F32(p["sh"] * p["sw2"])
    inits = [
        numpy_helper.from_array(np.array(p["sx"], F32), "sx"),
        numpy_helper.from_array(np.array(p["zx"], np.uint8), "zx"),
        numpy_helper.from_array(p["w1"], "w1"),
        numpy_helper.from_array(p["sw1"], "sw1"),
        numpy_helper.from_array(np.zeros(12, np.int8), "zw1"),
        numpy_helper.from_array(p["b1"], "b1"),
        numpy_helper.from_array(p["sb1"], "sb1"),
        numpy_helper.from_array(np.zeros(12, np.int32), "zb1"),
        numpy_helper.from_array(np.array(p["sh"], F32), "sh"),
        numpy_helper.from_array(np.array(p["zh"], np.uint8), "zh"),
        numpy_helper.from_array(p["w2"], "w2"),
        numpy_helper.from_array(np.array(p["sw2"], F32), "sw2"),
        numpy_helper.from_array(np.array(0, np.int8), "zw2"),
        numpy_helper.from_array(p["b2"], "b2"),
        numpy_helper.from_array(np.array(p["sb2"], F32), "sb2"),
        numpy_helper.from_array(np.array(p["sy"], F32), "sy"),
        numpy_helper.from_array(np.array(p["zy"], np.int8), "zy"),
    ]
    if clip:
        inits += [numpy_helper.from_array(np.array(0, F32), "clip_lo"),
                  numpy_helper.from_array(np.array(6, F32), "clip_hi")]
    p["clip"] = clip
    N = helper.make_node
    nodes = [
        N("QuantizeLinear", ["x", "sx", "zx"], ["xq"], name="quant_x"),
        N("DequantizeLinear", ["xq", "sx", "zx"], ["xd"], name="dq_x"),
        N("DequantizeLinear", ["w1", "sw1", "zw1"], ["w1d"], name="dq_w1", axis=1),
        N("DequantizeLinear", ["b1", "sb1", "zb1"], ["b1d"], name="dq_b1", axis=0),
        N("MatMul", ["xd", "w1d"], ["h0"], name="fc1"),
        N("Add", ["h0", "b1d"], ["h1"], name="fc1_bias"),
        N("Clip", ["h1", "clip_lo", "clip_hi"], ["h2"], name="relu6") if clip else N("Relu", ["h1"], ["h2"], name="relu1"),
        N("QuantizeLinear", ["h2", "sh", "zh"], ["hq"], name="quant_h"),
        N("DequantizeLinear", ["hq", "sh", "zh"], ["hd"], name="dq_h"),
        N("DequantizeLinear", ["w2", "sw2", "zw2"], ["w2d"], name="dq_w2"),
        N("DequantizeLinear", ["b2", "sb2"], ["b2d"], name="dq_b2"),
        N("Gemm", ["hd", "w2d", "b2d"], ["y0"], name="fc2", transB=1),
        N("QuantizeLinear", ["y0", "sy", "zy"], ["yq"], name="quant_y"),
        N("DequantizeLinear", ["yq", "sy", "zy"], ["y"], name="dq_y"),
    ]
    graph = helper.make_graph(
        nodes, "qdq_mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["rows", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["rows", 5])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="treesim")
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model, p


def requant(acc, m, zero, lo, hi):
    y = np.rint(acc.astype(F32) * m.astype(F32)).astype(np.int64) + int(zero)
    return np.clip(y, lo, hi)


def reference(p, x):
    """The fused integer network: y float32 [rows, 5]."""
    xq = np.clip(np.rint(x.astype(F32) / p["sx"]) + int(p["zx"]), 0, 255).astype(np.int64)
    acc1 = (xq - int(p["zx"])) @ p["w1"].astype(np.int64) + p["b1"]
    m1 = (np.float32(p["sx"]) * p["sw1"]).astype(F32) / F32(p["sh"])
    hi = 255
    if p.get("clip"):  # ReLU6: the clamp's top is Q(6) = rint(6 / sh) + zh
        hi = min(255, int(np.rint(F32(6) / F32(p["sh"]))) + int(p["zh"]))
    hq = requant(acc1, m1.astype(F32), p["zh"], int(p["zh"]), hi)  # ReLU: clamp at the zero point
    acc2 = (hq - int(p["zh"])) @ p["w2"].T.astype(np.int64) + p["b2"]
    m2 = F32(F32(p["sh"] * p["sw2"]) / p["sy"])
    yq = requant(acc2, np.array(m2, F32), p["zy"], -128, 127)
    return ((yq - int(p["zy"])).astype(F32) * p["sy"]).astype(F32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--rows", type=int, default=6)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--clip", action="store_true", help="layer 1's activation is Clip(0, 6), not Relu")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    model, p = build(a.seed, a.clip)
    onnx.save(model, out / "model.onnx")
    x = np.random.default_rng(a.seed + 1).uniform(-4, 8, size=(a.rows, 16)).astype(F32)
    np.save(out / "x.npy", x)
    np.save(out / "y_ref.npy", reference(p, x))


if __name__ == "__main__":
    main()

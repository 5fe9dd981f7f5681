#!/usr/bin/python3
"""Exports a quantized MLP model folder (tools/mlp/train.py's: model.yaml, int8 weights, f32 per-channel
weight scales, int32 biases) as an ONNX model in QDQ form, as a quantizer would write it:

    x (uint8 pixels [rows, 784]) → DequantizeLinear → MatMul(DequantizeLinear(W1, per-column scales))
      → Add(DequantizeLinear(int32 b1)) → Relu → QuantizeLinear → DequantizeLinear → ... → logits

The last layer's output is left quantized (int8 logits codes) and dequantized to float32 `logits`.
`treesim onnx run` fuses each layer into one quantized GEMM with ONNX Runtime's float requant, so
its logits may differ from `treesim run mlp` (fixed-point requant) by an LSB. Int8 layers only.

Usage: mlp_to_onnx.py MODEL_DIR OUT.onnx
"""
import sys
from pathlib import Path

import numpy as np
import onnx
import yaml
from onnx import TensorProto, helper, numpy_helper

F32 = np.float32


def export(model_dir: Path):
    spec = yaml.safe_load((model_dir / "model.yaml").read_text())
    inp = spec["input"]
    if inp["dtype"] != "uint8":
        raise SystemExit(f"{model_dir}/model.yaml: input dtype must be uint8")
    inits, nodes = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(array, name))
        return name

    N = helper.make_node
    act, scale, zero = "x", F32(inp["scale"]), np.uint8(inp["zero_point"])
    const("x_scale", np.array(scale, F32))
    const("x_zero", np.array(zero, np.uint8))
    a_scale_name, a_zero_name = "x_scale", "x_zero"
    for i, layer in enumerate(spec["layers"]):
        if layer["kind"] != "int8":
            raise SystemExit(f"{model_dir}/model.yaml: layer {layer['name']} is {layer['kind']}; only int8 exports")
        name = layer["name"]
        w = np.load(model_dir / layer["weights"])
        ws = np.load(model_dir / layer["weight_scale"]).astype(F32)
        b = np.load(model_dir / layer["bias"]).astype(np.int32)
        out = layer["out"]
        const(f"{name}_w", w)
        const(f"{name}_ws", ws)
        const(f"{name}_wz", np.zeros(w.shape[1], np.int8))
        const(f"{name}_b", b)
        const(f"{name}_bs", (scale * ws).astype(F32))
        const(f"{name}_bz", np.zeros(w.shape[1], np.int32))
        out_scale, out_zero = F32(out["scale"]), np.int8(out["zero_point"])
        const(f"{name}_ys", np.array(out_scale, F32))
        const(f"{name}_yz", np.array(out_zero, np.int8))
        nodes += [
            N("DequantizeLinear", [act, a_scale_name, a_zero_name], [f"{name}_in"], name=f"{name}_dq_in"),
            N("DequantizeLinear", [f"{name}_w", f"{name}_ws", f"{name}_wz"], [f"{name}_wd"], name=f"{name}_dq_w",
              axis=1),
            N("DequantizeLinear", [f"{name}_b", f"{name}_bs", f"{name}_bz"], [f"{name}_bd"], name=f"{name}_dq_b",
              axis=0),
            N("MatMul", [f"{name}_in", f"{name}_wd"], [f"{name}_mm"], name=name),
            N("Add", [f"{name}_mm", f"{name}_bd"], [f"{name}_add"], name=f"{name}_bias"),
        ]
        pre_q = f"{name}_add"
        if out.get("relu"):
            nodes.append(N("Relu", [pre_q], [f"{name}_relu"], name=f"{name}_relu"))
            pre_q = f"{name}_relu"
        nodes.append(N("QuantizeLinear", [pre_q, f"{name}_ys", f"{name}_yz"], [f"{name}_q"], name=f"{name}_q"))
        act, scale, zero = f"{name}_q", out_scale, out_zero
        a_scale_name, a_zero_name = f"{name}_ys", f"{name}_yz"
    nodes.append(N("DequantizeLinear", [act, a_scale_name, a_zero_name], ["logits"], name="dq_logits"))
    graph = helper.make_graph(
        nodes, spec["name"], [helper.make_tensor_value_info("x", TensorProto.UINT8, ["rows", 784])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["rows", spec["layers"][-1]["out"].get("n", None) or 10])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="treesim")
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    onnx.save(export(Path(sys.argv[1])), sys.argv[2])


if __name__ == "__main__":
    main()

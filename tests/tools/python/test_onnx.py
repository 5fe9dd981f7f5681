"""run_onnx: an ONNX model in a worker, NumPy arrays in, outputs by name and the report out."""

import importlib.util
import os

import numpy as np
import onnx
import pytest

import treesim


def qdq_mlp(root):
    spec = importlib.util.spec_from_file_location("qdq_mlp", os.path.join(root, "tools/onnx/qdq_mlp.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_qdq_mlp_equals_its_integer_reference(root, tmp_path):
    m = qdq_mlp(root)
    model, params = m.build(seed=11)
    onnx.save(model, tmp_path / "model.onnx")
    x = np.random.default_rng(3).uniform(-4, 8, size=(9, 16)).astype(np.float32)
    r = treesim.run_onnx(tmp_path / "model.onnx", {"x": x}, machine=os.path.join(root, "configs/mini.yaml"))
    assert np.array_equal(r.outputs["y"], m.reference(params, x))
    machine_nodes = [n for n in r.report["nodes"] if n["runs_on"] == "machine"]
    assert len(machine_nodes) == 2 and machine_nodes[-1]["verify"]["ok"]  # the chain's output
    # The two GEMMs are one program, the activation between them in the LMs.
    assert all(n["program"] == {"first": "QGemm 'fc1'", "nodes": 2} for n in machine_nodes)
    assert machine_nodes[0]["chain_length"] == 2 and r.report["programs"] == 1
    assert r.report["cycles"] > 0


def test_a_missing_input_is_an_error_naming_it(root, tmp_path):
    model, _ = qdq_mlp(root).build()
    onnx.save(model, tmp_path / "model.onnx")
    with pytest.raises(treesim.Error, match="the graph's input 'x'"):
        treesim.run_onnx(tmp_path / "model.onnx", {}, machine=os.path.join(root, "configs/mini.yaml"))


def qlinear_conv(x_shape, w_shape, **attributes):
    """A one-node QLinearConv model (uint8 x, int8 w, per-tensor scales) with the given attributes."""
    from onnx import TensorProto, helper, numpy_helper
    inits = [numpy_helper.from_array(np.array(v, dtype), name) for name, v, dtype in [
        ("xs", 0.1, np.float32), ("xz", 3, np.uint8), ("ws", 0.05, np.float32), ("wz", 0, np.int8),
        ("ys", 0.2, np.float32), ("yz", 5, np.uint8)]]
    inits.append(numpy_helper.from_array(
        np.random.default_rng(1).integers(-5, 6, size=w_shape).astype(np.int8), "w"))
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"], ["y"], name="c",
                            **attributes)
    graph = helper.make_graph([node], "conv", [helper.make_tensor_value_info("x", TensorProto.UINT8, x_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.UINT8, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_a_strided_grouped_qlinearconv_verifies_on_the_machine(root, tmp_path):
    onnx.save(qlinear_conv([2, 4, 9, 7], [6, 2, 3, 3], group=2, strides=[2, 1], pads=[1, 0, 1, 2]),
              tmp_path / "conv.onnx")
    x = np.random.default_rng(2).integers(0, 256, size=(2, 4, 9, 7)).astype(np.uint8)
    r = treesim.run_onnx(tmp_path / "conv.onnx", {"x": x}, machine=os.path.join(root, "configs/mini.yaml"))
    assert r.outputs["y"].shape == (2, 6, 5, 7)
    assert r.report["nodes"][0]["verify"]["ok"]


@pytest.mark.parametrize("x_shape, w_shape, attributes, message", [
    ([1, 2, 9], [3, 2, 3], {}, "only 2-D convolutions run"),
    ([1, 2, 5, 5], [3, 2, 3, 3], {"auto_pad": "FANCY"}, "auto_pad 'FANCY'"),
    ([1, 4, 5, 5], [3, 2, 3, 3], {"group": 3}, "groups"),
    ([1, 2, 5, 5], [3, 2, 3, 3], {"pads": [1, 1]}, "pads must have 4 values"),
])
def test_a_convolution_treesim_cannot_run_is_one_error_naming_the_node(root, tmp_path, x_shape, w_shape, attributes,
                                                                         message):
    onnx.save(qlinear_conv(x_shape, w_shape, **attributes), tmp_path / "conv.onnx")
    x = np.zeros(x_shape, np.uint8)
    with pytest.raises(treesim.Error, match=message) as e:
        treesim.run_onnx(tmp_path / "conv.onnx", {"x": x}, machine=os.path.join(root, "configs/mini.yaml"))
    assert "QLinearConv 'c'" in str(e.value)

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
    assert all(n["chain"] == {"first": "QGemm 'fc1'", "length": 2} for n in machine_nodes)
    assert r.report["cycles"] > 0


def test_a_missing_input_is_an_error_naming_it(root, tmp_path):
    model, _ = qdq_mlp(root).build()
    onnx.save(model, tmp_path / "model.onnx")
    with pytest.raises(treesim.Error, match="the graph's input 'x'"):
        treesim.run_onnx(tmp_path / "model.onnx", {}, machine=os.path.join(root, "configs/mini.yaml"))

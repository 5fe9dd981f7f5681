"""Machine.run: kernels in worker processes, NumPy arrays in and out, the report as a dict."""

import os

import numpy as np
import pytest

import treesim
from conftest import mini_dict


@pytest.fixture
def mini(root):
    return treesim.Machine(os.path.join(root, "configs/mini.yaml"))


def test_seeded_qgemm_returns_c_and_the_report(mini):
    r = mini.run("qgemm", m=16, n=24, k=40, seed=3, verify=True)
    assert r.output.shape == (16, 24) and r.output.dtype == np.int8
    assert r.report["cycles"] > 0
    assert r.report["verify"]["ok"] is True


def test_float_operands_equal_their_codes_quantized_by_hand(mini):
    # Scale 0.5, zero point 3: v / 0.5 + 3 with ties to even (3.5 → 4, 1.5 → 2), 203 → 127.
    a = np.array([[0.25, -1.0, 2.0], [-0.75, 100.0, 0.0]], dtype=np.float32)
    a_codes = np.array([[4, 1, 7], [2, 127, 3]], dtype=np.int8)
    b = np.array([[1, 2], [3, -4], [5, 6]], dtype=np.int8)
    quant = {"a_zero_point": 3, "a_scale": 0.5, "b_scale": 0.25, "out_scale": 0.05}
    got = mini.run("qgemm", a=a, b=b, quant=quant, verify=True).output
    want = mini.run("qgemm", a=a_codes, b=b, quant=quant, verify=True).output
    np.testing.assert_array_equal(got, want)
    f32 = mini.run("qgemm", a=a, b=b, quant=quant, out_dtype="f32").output
    assert f32.dtype == np.float32
    np.testing.assert_array_equal(f32, (np.float64(np.float32(0.05)) * want.astype(np.float64)).astype(np.float32))


def test_tgemm_runs_ternary_weights(mini):
    rng = np.random.default_rng(1)
    a = rng.integers(-128, 128, (4, 12)).astype(np.int8)
    w = rng.integers(-1, 2, (12, 6)).astype(np.int8)
    r = mini.run("tgemm", a=a, w=w, quant={"a_scale": 0.05, "b_scale": 0.02, "out_scale": 0.1}, verify=True)
    assert r.output.shape == (4, 6)
    assert r.report["verify"]["ok"] is True


def test_mlp_returns_predictions_and_accuracy(mini, root):
    r = mini.run("mlp", model=os.path.join(root, "tests/data/mlp/int8"),
                 data=os.path.join(root, "tests/data/mlp/t10k-16"), images=16)
    assert r.output.shape == (16,) and r.output.dtype == np.uint8
    assert r.report["images"] == 16
    assert r.report["reference_agrees"] == 16
    assert 0 <= r.report["accuracy"] <= 1


def test_a_session_simulates_several_machines(mini):
    wide = treesim.Machine(mini_dict(l1b_fanout=4))
    cycles = [machine.run("qgemm", m=64, n=64, k=64).report["cycles"] for machine in (mini, wide, mini)]
    assert cycles[0] == cycles[2]
    assert cycles[1] != cycles[0]


def test_bad_option_is_the_workers_one_line_error(mini):
    with pytest.raises(treesim.Error, match="--m"):
        mini.run("qgemm", m=0, n=4, k=4)


def test_timing_only_gives_a_report_without_output(mini):
    r = mini.run("qgemm", m=16, n=16, k=16, timing_only=True)
    assert r.output is None
    assert r.report["cycles"] == mini.run("qgemm", m=16, n=16, k=16).report["cycles"]

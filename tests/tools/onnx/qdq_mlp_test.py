#!/usr/bin/python3
"""A QDQ MLP (tools/onnx/qdq_mlp.py) through `treesim onnx run`: both Q/DQ GEMMs fuse into quantized
GEMMs on the machine, run as one program (and with --via-dram, one each), and the outputs equal the
NumPy integer reference exactly."""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--treesim", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--machine", required=True)
    a = ap.parse_args()
    for variant in ([], ["--clip"]):
        if run(a, variant) != 0:
            return 1
    print("y equals the NumPy reference exactly, with Relu and with Clip(0, 6)")
    return 0


def run(a, variant) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        subprocess.run([sys.executable, f"{a.root}/tools/onnx/qdq_mlp.py", str(t), "--rows", "37"] + variant,
                       check=True)
        show = subprocess.run([a.treesim, "onnx", "show", str(t / "model.onnx")], capture_output=True, text=True)
        if show.returncode != 0 or "after fusing 2 Q/DQ patterns" not in show.stdout:
            print("show:", show.returncode, show.stdout, show.stderr)
            return 1
        r = subprocess.run([a.treesim, "onnx", "run", str(t / "model.onnx"), "--machine", a.machine, "--input",
                            f"x={t / 'x.npy'}", "--out", str(t / "out"), "--verify"], capture_output=True, text=True)
        print(r.stdout, r.stderr)
        if r.returncode != 0:
            return 1
        got, want = np.load(t / "out" / "y.npy"), np.load(t / "y_ref.npy")
        if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
            print("y differs from the reference:", np.argwhere(got != want)[:5], got.ravel()[:8], want.ravel()[:8])
            return 1
        if r.stdout.count("machine  qgemm") != 2 or "one program for the next 2 machine nodes" not in r.stdout:
            print("expected two fused GEMMs on the machine, in one program")
            return 1
        # Every node its own program, through DRAM: the same outputs.
        d = subprocess.run([a.treesim, "onnx", "run", str(t / "model.onnx"), "--machine", a.machine, "--input",
                            f"x={t / 'x.npy'}", "--out", str(t / "dram"), "--verify", "--via-dram"],
                           capture_output=True, text=True)
        if d.returncode != 0 or not np.array_equal(np.load(t / "dram" / "y.npy"), want):
            print("--via-dram:", d.returncode, d.stdout, d.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

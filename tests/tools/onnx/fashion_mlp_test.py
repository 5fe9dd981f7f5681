#!/usr/bin/python3
"""The trained Fashion-MNIST MLP (tests/data/mlp/int8) exported as a QDQ ONNX model
(tools/onnx/mlp_to_onnx.py) and run by tools/onnx/fashion_eval.py on the 16 test images of
tests/data/mlp/t10k-16: every batch verified against the host reference, and the predictions those
of `treesim run mlp` on the same images (its fixed-point requant and ONNX's float one agree here)."""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--treesim", required=True)
    ap.add_argument("--root", required=True)
    a = ap.parse_args()
    root = Path(a.root)
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "mlp.onnx"
        subprocess.run([sys.executable, root / "tools/onnx/mlp_to_onnx.py", root / "tests/data/mlp/int8", model],
                       check=True)
        r = subprocess.run([sys.executable, root / "tools/onnx/fashion_eval.py", model, "--machine",
                            root / "configs/mini.yaml", "--treesim", a.treesim, "--data",
                            root / "tests/data/mlp/t10k-16", "--batch", "8", "--json"],
                           capture_output=True, text=True)
        print(r.stdout, r.stderr)
        if r.returncode != 0:
            return 1
        onnx_run = json.loads(r.stdout)
        mlp = subprocess.run([a.treesim, "run", "mlp", "--model", root / "tests/data/mlp/int8", "--machine",
                              root / "configs/mini.yaml", "--data", root / "tests/data/mlp/t10k-16", "--images",
                              "16", "--batch", "8", "--report", Path(tmp) / "mlp.json"],
                             capture_output=True, text=True)
        print(mlp.stdout, mlp.stderr)
        if mlp.returncode != 0:
            return 1
        accuracy = json.loads((Path(tmp) / "mlp.json").read_text())["accuracy"]
        if onnx_run["images"] != 16 or abs(onnx_run["accuracy"] - accuracy) > 1e-9:
            print(f"ONNX accuracy {onnx_run['accuracy']} against run mlp's {accuracy}")
            return 1
    print("the ONNX export classifies the 16 images as run mlp does")
    return 0


if __name__ == "__main__":
    sys.exit(main())

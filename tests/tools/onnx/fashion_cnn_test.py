#!/usr/bin/python3
"""The trained Fashion-MNIST CNN (tests/data/onnx/fashion_cnn/model.onnx, from tools/onnx/cnn_train.py:
two 3×3 convolutions, one strided, ReLU, a dense layer, in QDQ form) run by tools/onnx/fashion_eval.py
on the 16 test images of tests/data/mlp/t10k-16: every machine node verified against its kernel's host
reference, and every image's logits equal to cnn_train.py's independent NumPy integer reference."""
import argparse
import json
import subprocess
import sys
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--treesim", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--machine", required=True)
    a = ap.parse_args()
    root = Path(a.root)
    r = subprocess.run([sys.executable, root / "tools/onnx/fashion_eval.py", root / "tests/data/onnx/fashion_cnn/model.onnx",
                        "--machine", a.machine, "--treesim", a.treesim, "--data", root / "tests/data/mlp/t10k-16",
                        "--batch", "8", "--reference", root / "tools/onnx/cnn_train.py", "--json"],
                       capture_output=True, text=True)
    print(r.stdout, r.stderr)
    if r.returncode != 0:
        return 1
    figures = json.loads(r.stdout)
    if figures["images"] != 16 or figures["reference_agrees"] != 16:
        print(f"{figures['reference_agrees']} of {figures['images']} images' logits equal the integer reference")
        return 1
    print(f"16 of 16 images' logits equal the integer reference; accuracy {figures['accuracy']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

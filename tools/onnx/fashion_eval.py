#!/usr/bin/python3
"""Runs an ONNX classifier on Fashion-MNIST's test images through `treesim onnx run` and prints its
accuracy and cycles per image. The model takes `x`, uint8 pixels [rows, 784], and gives float32
`logits` [rows, classes] (tools/onnx/mlp_to_onnx.py writes such models). Every batch runs with
--verify: each machine node's (or GEMM chain's) output must equal its host reference, so the
predictions are the host reference's.

With --reference SCRIPT (a Python file defining load_quantized(model) and reference_logits(q, pixels),
as tools/onnx/cnn_train.py does), the logits are also compared with that independent integer
reference: `reference_agrees` counts the images whose logits equal it exactly.

Usage: fashion_eval.py MODEL.onnx --machine M [--images N] [--batch B] [--treesim BIN]
       [--data DIR] [--reference SCRIPT] [--json]
"""
import argparse
import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np


def idx(path: Path) -> np.ndarray:
    """An IDX file, PATH or PATH.gz (Debian's dataset-fashion-mnist gzips them)."""
    if not path.exists() and path.with_name(path.name + ".gz").exists():
        path = path.with_name(path.name + ".gz")
    raw = gzip.open(path).read() if path.suffix == ".gz" else path.read_bytes()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * dims).reshape(shape)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--machine", required=True)
    ap.add_argument("--images", type=int, default=10000)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--treesim", default="treesim")
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    ap.add_argument("--reference", help="a script with load_quantized and reference_logits")
    a = ap.parse_args()
    data = Path(a.data)
    images = idx(data / "t10k-images-idx3-ubyte").reshape(-1, 784)[: a.images]
    labels = idx(data / "t10k-labels-idx1-ubyte")[: a.images]
    predicted, cycles, agrees = [], 0, 0
    reference = None
    if a.reference:
        import importlib.util
        spec = importlib.util.spec_from_file_location("reference", a.reference)
        reference = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(reference)
        q = reference.load_quantized(a.model)
    with tempfile.TemporaryDirectory(prefix="fashion-eval-") as tmp:
        t = Path(tmp)
        for first in range(0, len(images), a.batch):
            np.save(t / "x.npy", images[first:first + a.batch])
            r = subprocess.run([a.treesim, "onnx", "run", a.model, "--machine", a.machine, "--input",
                                f"x={t / 'x.npy'}", "--out", str(t / "out"), "--report", str(t / "r.json"),
                                "--verify"], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"images {first}..: {r.stderr.strip()}", file=sys.stderr)
                return r.returncode
            report = json.loads((t / "r.json").read_text())
            cycles += report["cycles"]
            logits = np.load(t / "out" / "logits.npy")
            predicted.append(np.argmax(logits, axis=1))
            if reference:
                expected = reference.reference_logits(q, images[first:first + a.batch])
                agrees += int(np.sum(np.all(logits == expected, axis=1)))
    predicted = np.concatenate(predicted)
    accuracy = float(np.mean(predicted == labels))
    figures = {"images": len(images), "accuracy": accuracy, "cycles": cycles,
               "cycles_per_image": cycles / len(images), "machine": report["machine"]}
    if reference:
        figures["reference_agrees"] = agrees
    if a.json:
        print(json.dumps(figures))
    else:
        print(f"{a.model} on {figures['machine']}: {len(images)} images, accuracy {accuracy:.4f}, "
              f"{cycles} cycles ({cycles / len(images):.1f} per image), every batch verified"
              + (f", {agrees} of {len(images)} logits equal to the integer reference" if reference else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

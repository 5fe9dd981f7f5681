#!/usr/bin/python3
"""Trains a small MLP on Fashion-MNIST with NumPy, quantizes it after training and writes the models
`treesim run mlp` runs: an int8 one (per-channel int8 weights) and a ternary one (weights -1/0/+1
with per-channel absmean scales, for tgemm).

Quantization follows the integer-only scheme (Jacob et al. 2018): the input is the pixel itself
(uint8, scale 1/255, zero point 0); each layer's output range is calibrated (min/max over the
calibration images, in the float model) and quantized to int8; ReLU layers take the range [0, max]
(zero point -128), the logits [min, max]. Weights are symmetric (zero point 0), one scale per output
channel; the bias is int32 in the accumulator's scale (input scale x weight scale). The multipliers
are derived by treesim from these scales (QuantizeMultiplier), not here.

The ternary model is the float model fine-tuned for --ternary-epochs with ternary weights in the
forward pass (straight-through estimator: the gradient updates the float shadow weights), then
ternarized: w_t = clip(round(w / g), -1, 1) with g = mean |w| of the output channel (absmean).

Usage: tools/mlp/train.py --data /usr/share/datasets/fashion-mnist --out DIR [--epochs 4] ...
Writes DIR/int8/ and DIR/ternary/, each with model.yaml and its .npy files. Deterministic for a seed.
"""
import argparse
import gzip
import os
import struct
import sys

import numpy as np


def read_idx(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] != 8:
        sys.exit(f"{path}: not an IDX file of unsigned bytes")
    rank = data[3]
    dims = struct.unpack(">" + "I" * rank, data[4 : 4 + 4 * rank])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank).reshape(dims)


def load(data_dir, kind):
    images = read_idx(os.path.join(data_dir, f"{kind}-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(data_dir, f"{kind}-labels-idx1-ubyte.gz"))
    return images.reshape(len(images), -1), labels.astype(np.int64)


def ternarize(w):
    g = np.mean(np.abs(w), axis=0, keepdims=True) + 1e-8
    return np.clip(np.round(w / g), -1, 1), g


def forward(params, x, ternary=False):
    """Activations of every layer (inputs scaled to [0, 1]); the last is the logits."""
    acts = [x]
    for i, (w, b) in enumerate(params):
        if ternary:
            t, g = ternarize(w)
            w = t * g
        z = acts[-1] @ w + b
        acts.append(np.maximum(z, 0) if i + 1 < len(params) else z)
    return acts


def train(params, x, y, epochs, lr, batch, rng, ternary):
    """Adam on the cross-entropy; with `ternary`, the forward pass uses ternary weights (STE)."""
    m = [[np.zeros_like(p) for p in layer] for layer in params]
    v = [[np.zeros_like(p) for p in layer] for layer in params]
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        for s in range(0, len(x), batch):
            idx = order[s : s + batch]
            acts = forward(params, x[idx], ternary)
            logits = acts[-1]
            p = np.exp(logits - logits.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(idx)), y[idx]] -= 1
            grad = p / len(idx)
            step += 1
            for i in reversed(range(len(params))):
                w, b = params[i]
                weff = ternarize(w)[0] * ternarize(w)[1] if ternary else w
                gw = acts[i].T @ grad
                gb = grad.sum(axis=0)
                if i > 0:
                    grad = (grad @ weff.T) * (acts[i] > 0)
                for j, g in enumerate((gw, gb)):
                    m[i][j] = 0.9 * m[i][j] + 0.1 * g
                    v[i][j] = 0.999 * v[i][j] + 0.001 * g * g
                    mh = m[i][j] / (1 - 0.9**step)
                    vh = v[i][j] / (1 - 0.999**step)
                    params[i][j] -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        print(f"  epoch {epoch + 1}/{epochs} done", file=sys.stderr)


def accuracy(params, x, y, ternary=False):
    return float(np.mean(np.argmax(forward(params, x, ternary)[-1], axis=1) == y))


def f32(v):
    """A scale as the f32 treesim reads, printed so that it reads back exactly."""
    return repr(float(np.float32(v)))


def write_model(out_dir, name, params, calib, ternary, float_acc, note):
    os.makedirs(out_dir, exist_ok=True)
    acts = forward(params, calib, ternary)
    in_scale = np.float32(1 / 255)
    lines = [
        f"# {note}",
        f"name: {name}",
        f"float_accuracy: {float_acc:.4f}   # the float model on the 10,000 test images (train.py)",
        "input: { features: %d, dtype: uint8, scale: %s, zero_point: 0 }   # the pixel, 0..255"
        % (params[0][0].shape[0], f32(in_scale)),
        "layers:",
    ]
    for i, (w, b) in enumerate(params):
        layer = f"fc{i + 1}"
        last = i + 1 == len(params)
        if ternary:
            q, g = ternarize(w)
            q = q.astype(np.int8)
            w_scale = g.reshape(-1).astype(np.float32)
        else:
            w_scale = (np.abs(w).max(axis=0) / 127).astype(np.float32)
            w_scale = np.maximum(w_scale, np.float32(1e-8))
            q = np.clip(np.round(w / w_scale), -127, 127).astype(np.int8)
        bias = np.round(b / (np.float64(in_scale) * w_scale.astype(np.float64))).astype(np.int32)
        out = acts[i + 1]
        if last:
            lo, hi = min(float(out.min()), 0.0), max(float(out.max()), 0.0)
            out_scale = np.float32((hi - lo) / 255)
            zero = int(np.clip(np.round(-128 - lo / out_scale), -128, 127))
        else:
            out_scale = np.float32(max(float(out.max()), 1e-6) / 255)
            zero = -128
        np.save(os.path.join(out_dir, f"{layer}_w.npy"), q)
        np.save(os.path.join(out_dir, f"{layer}_b.npy"), bias)
        np.save(os.path.join(out_dir, f"{layer}_ws.npy"), w_scale)
        lines += [
            f"  - name: {layer}",
            f"    kind: {'ternary' if ternary else 'int8'}",
            f"    weights: {layer}_w.npy      # {q.shape[0]}x{q.shape[1]} int8"
            + (" (-1, 0, +1)" if ternary else ""),
            f"    weight_scale: {layer}_ws.npy  # f32, one per output channel",
            f"    bias: {layer}_b.npy         # int32, in the accumulator's scale",
            "    out: { scale: %s, zero_point: %d, relu: %s }"
            % (f32(out_scale), zero, "false" if last else "true"),
        ]
        in_scale = out_scale
    with open(os.path.join(out_dir, "model.yaml"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--out", required=True)
    ap.add_argument("--hidden", default="256,128", help="hidden layer widths")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--ternary-epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--calibration", type=int, default=2000, help="training images for the ranges")
    ap.add_argument("--train-images", type=int, default=60000)
    ap.add_argument("--seed", type=int, default=18)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    xtr, ytr = load(a.data, "train")
    xte, yte = load(a.data, "t10k")
    xtr, ytr = xtr[: a.train_images], ytr[: a.train_images]
    xtr = xtr.astype(np.float32) / 255
    xte = xte.astype(np.float32) / 255
    sizes = [xtr.shape[1]] + [int(h) for h in a.hidden.split(",")] + [10]
    params = []
    for k, n in zip(sizes[:-1], sizes[1:]):
        params.append([(rng.standard_normal((k, n)) * np.sqrt(2 / k)).astype(np.float32), np.zeros(n, np.float32)])
    train(params, xtr, ytr, a.epochs, a.lr, a.batch, rng, ternary=False)
    float_acc = accuracy(params, xte, yte)
    print(f"float test accuracy {float_acc:.4f}", file=sys.stderr)
    calib = xtr[rng.choice(len(xtr), min(a.calibration, len(xtr)), replace=False)]
    arch = "-".join(map(str, sizes))
    seed_note = (f"written by tools/mlp/train.py --epochs {a.epochs} --ternary-epochs {a.ternary_epochs} "
                 f"--seed {a.seed} --hidden {a.hidden} --train-images {a.train_images} from Fashion-MNIST")
    write_model(os.path.join(a.out, "int8"), f"fmnist-{arch}-int8", params, calib, False, float_acc, seed_note)
    tparams = [[w.copy(), b.copy()] for w, b in params]
    train(tparams, xtr, ytr, a.ternary_epochs, a.lr / 2, a.batch, rng, ternary=True)
    tern_acc = accuracy(tparams, xte, yte, ternary=True)
    print(f"ternary (float activations) test accuracy {tern_acc:.4f}", file=sys.stderr)
    write_model(os.path.join(a.out, "ternary"), f"fmnist-{arch}-ternary", tparams, calib, True, float_acc, seed_note)


if __name__ == "__main__":
    main()

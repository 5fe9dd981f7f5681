#!/usr/bin/python3
"""Trains a small convolutional network on Fashion-MNIST with NumPy, quantizes it after training
and exports it as an ONNX model in QDQ form (as a quantizer writes one):

    x (uint8 pixels [rows, 784]) → Reshape [rows, 1, 28, 28] → DequantizeLinear
      → Conv 3×3, 1→8, pad 1, with DequantizeLinear'd int8 weights (per filter) and int32 bias
      → Relu → QuantizeLinear (uint8) → DequantizeLinear
      → Conv 3×3, 8→16, stride 2, pads (0, 0, 1, 1) (SAME_UPPER) → Relu → QuantizeLinear (uint8)
      → Reshape [rows, 3136] → DequantizeLinear → MatMul (int8 weights per column) → Add (int32 bias)
      → QuantizeLinear (int8 logits) → DequantizeLinear → logits (float32 [rows, 10])

Quantization follows the integer-only scheme (Jacob et al. 2018), with ONNX Runtime's float requant
(m = fl32(fl32(s_in·s_w)/s_out), y = saturate(nearbyint(fl32(acc)·m) + zero point)): the input is the
pixel (scale 1/255, zero point 0); weights are symmetric int8, one scale per output channel; biases
int32 in the accumulator's scale; activations after ReLU uint8 with zero point 0 and the calibrated
maximum (over the calibration images, in the float model) as 255; the logits int8, symmetric.

`integer_forward` is the quantized network in NumPy integers (the host reference of the predictions,
independent of treesim); tools/onnx/fashion_eval.py --reference compares treesim's logits with
`reference_logits`.

Usage: cnn_train.py --data /usr/share/datasets/fashion-mnist --out MODEL.onnx [--epochs 3] [--seed 1]
Prints the float and the quantized (integer_forward) test accuracy. Deterministic for a seed.
"""
import argparse
import gzip
import struct
import sys
from pathlib import Path

import numpy as np

F32 = np.float32
CONV = [  # (in channels, out channels, stride, pads top, left, bottom, right)
    (1, 8, 1, (1, 1, 1, 1)),
    (8, 16, 2, (0, 0, 1, 1)),
]


def idx(path: Path) -> np.ndarray:
    raw = gzip.open(path).read() if path.suffix == ".gz" else path.read_bytes()
    dims = raw[3]
    shape = struct.unpack(">" + "I" * dims, raw[4:4 + 4 * dims])
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * dims).reshape(shape)


def im2col(x, stride, pads, r=3, s=3):
    """x N×C×H×W → (N·OH·OW)×(C·R·S), columns channel-major (ONNX's weight order)."""
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (h + pads[0] + pads[2] - r) // stride + 1
    ow = (w + pads[1] + pads[3] - s) // stride + 1
    win = np.lib.stride_tricks.sliding_window_view(xp, (r, s), axis=(2, 3))[:, :, ::stride, ::stride][:, :, :oh, :ow]
    return win.transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, c * r * s), oh, ow


def col2im(cols, shape, stride, pads, oh, ow, r=3, s=3):
    n, c, h, w = shape
    dxp = np.zeros((n, c, h + pads[0] + pads[2], w + pads[1] + pads[3]), cols.dtype)
    d = cols.reshape(n, oh, ow, c, r, s)
    for i in range(r):
        for j in range(s):
            dxp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride] += d[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return dxp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + w]


def forward(p, x):
    """Float forward: x N×1×28×28 in [0, 1]; returns the logits and what backward needs."""
    cache, a = [], x
    for i, (_, cout, stride, pads) in enumerate(CONV):
        cols, oh, ow = im2col(a, stride, pads)
        z = cols @ p[f"w{i}"].reshape(cout, -1).T + p[f"b{i}"]
        y = np.maximum(z, 0)
        cache.append((a.shape, cols, z, oh, ow))
        a = y.reshape(a.shape[0], oh, ow, cout).transpose(0, 3, 1, 2)
    flat = a.reshape(a.shape[0], -1)
    return flat @ p["w2"] + p["b2"], cache, flat


def train(images, labels, epochs, seed):
    rng = np.random.default_rng(seed)
    p = {}
    for i, (cin, cout, _, _) in enumerate(CONV):
        p[f"w{i}"] = (rng.standard_normal((cout, cin, 3, 3)) * np.sqrt(2 / (cin * 9))).astype(F32)
        p[f"b{i}"] = np.zeros(cout, F32)
    p["w2"] = (rng.standard_normal((16 * 14 * 14, 10)) * np.sqrt(1 / (16 * 14 * 14))).astype(F32)
    p["b2"] = np.zeros(10, F32)
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    t, lr, batch = 0, 2e-3, 64
    x_all = images.reshape(-1, 1, 28, 28).astype(F32) / 255
    for epoch in range(epochs):
        order = rng.permutation(len(x_all))
        for first in range(0, len(order), batch):
            sel = order[first:first + batch]
            x, y = x_all[sel], labels[sel]
            logits, cache, flat = forward(p, x)
            e = np.exp(logits - logits.max(1, keepdims=True))
            prob = e / e.sum(1, keepdims=True)
            loss = -np.log(np.maximum(prob[np.arange(len(y)), y], 1e-9)).mean()
            prob[np.arange(len(y)), y] -= 1
            dz = prob / len(y)
            g = {"w2": flat.T @ dz, "b2": dz.sum(0)}
            da = (dz @ p["w2"].T).reshape(len(y), 16, 14, 14)
            for i in reversed(range(len(CONV))):
                cin, cout, stride, pads = CONV[i]
                shape, cols, z, oh, ow = cache[i]
                dzi = da.transpose(0, 2, 3, 1).reshape(-1, cout) * (z > 0)
                g[f"w{i}"] = (dzi.T @ cols).reshape(cout, cin, 3, 3)
                g[f"b{i}"] = dzi.sum(0)
                if i > 0:
                    da = col2im(dzi @ p[f"w{i}"].reshape(cout, -1), shape, stride, pads, oh, ow)
            t += 1
            for k in p:  # Adam
                m[k] = 0.9 * m[k] + 0.1 * g[k]
                v[k] = 0.999 * v[k] + 0.001 * g[k] ** 2
                p[k] -= (lr * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)).astype(F32)
        print(f"epoch {epoch + 1}: last batch's loss {loss:.3f}", file=sys.stderr)
    return p


def float_predict(p, images):
    out = []
    for first in range(0, len(images), 1000):
        x = images[first:first + 1000].reshape(-1, 1, 28, 28).astype(F32) / 255
        out.append(forward(p, x)[0].argmax(1))
    return np.concatenate(out)


def quantize(p, calibration):
    """The quantized network: per layer int8 weights (conv: M×C×R×S; dense: K×N), per-channel weight
    scales, int32 bias, output scale and zero point."""
    x = calibration.reshape(-1, 1, 28, 28).astype(F32) / 255
    _, cache, flat = forward(p, x)
    q = {"x_scale": F32(1 / 255)}
    s_in = q["x_scale"]
    # The ReLU outputs' maxima: conv0's are in conv1's input columns, conv1's are the dense input.
    maxima = [max(cache[1][1].max(), 1e-6), max(flat.max(), 1e-6)]
    for i in range(len(CONV)):
        w = p[f"w{i}"]
        ws = (np.abs(w).reshape(w.shape[0], -1).max(1) / 127).astype(F32)
        q[f"w{i}"] = np.clip(np.round(w / ws[:, None, None, None]), -127, 127).astype(np.int8)
        q[f"ws{i}"] = ws
        q[f"b{i}"] = np.round(p[f"b{i}"] / (s_in * ws)).astype(np.int32)
        q[f"ys{i}"] = F32(maxima[i] / 255)
        s_in = q[f"ys{i}"]
    w = p["w2"]
    ws = (np.abs(w).max(0) / 127).astype(F32)
    q["w2"] = np.clip(np.round(w / ws), -127, 127).astype(np.int8)
    q["ws2"] = ws
    q["b2"] = np.round(p["b2"] / (s_in * ws)).astype(np.int32)
    logits = flat @ p["w2"] + p["b2"]
    q["ys2"] = F32(np.abs(logits).max() / 127)
    return q


def requant(acc, s_in, ws, s_out, zero, lo, hi):
    """ONNX Runtime's: saturate(nearbyint(fl32(acc)·fl32(fl32(s_in·ws)/s_out)) + zero)."""
    m = ((F32(s_in) * ws.astype(F32)).astype(F32) / F32(s_out)).astype(F32)
    y = np.rint(acc.astype(F32) * m).astype(np.int64) + zero
    return np.clip(y, lo, hi)


def integer_forward(q, pixels):
    """The quantized network in integers: uint8 pixels [rows, 784] → int8 logit codes [rows, 10]."""
    a = pixels.reshape(-1, 1, 28, 28).astype(np.int64)
    s_in = q["x_scale"]
    for i, (_, cout, stride, pads) in enumerate(CONV):
        cols, oh, ow = im2col(a, stride, pads)
        acc = cols @ q[f"w{i}"].reshape(cout, -1).astype(np.int64).T + q[f"b{i}"]
        y = requant(acc, s_in, q[f"ws{i}"], q[f"ys{i}"], 0, 0, 255)  # ReLU: clamp at the zero point 0
        a = y.reshape(a.shape[0], oh, ow, cout).transpose(0, 3, 1, 2)
        s_in = q[f"ys{i}"]
    acc = a.reshape(a.shape[0], -1) @ q["w2"].astype(np.int64) + q["b2"]
    return requant(acc, s_in, q["ws2"], q["ys2"], 0, -128, 127)


def reference_logits(q, pixels):
    """The float32 logits the model's last DequantizeLinear gives (zero point 0)."""
    return integer_forward(q, pixels).astype(F32) * F32(q["ys2"])


def load_quantized(model_path):
    """The quantized parameters back from an exported model (by initializer name)."""
    import onnx
    from onnx import numpy_helper
    inits = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(model_path)).graph.initializer}
    q = {"x_scale": F32(inits["x_scale"])}
    for i in range(3):
        q[f"w{i}"], q[f"ws{i}"], q[f"b{i}"] = inits[f"l{i}_w"], inits[f"l{i}_ws"], inits[f"l{i}_b"]
        q[f"ys{i}"] = F32(inits[f"l{i}_ys"])
    return q


def export(q, path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    inits, nodes, N = [], [], helper.make_node

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    const("x_scale", np.array(q["x_scale"], F32))
    const("x_zero", np.array(0, np.uint8))
    const("image_shape", np.array([-1, 1, 28, 28], np.int64))
    const("flat_shape", np.array([-1, 16 * 14 * 14], np.int64))
    nodes.append(N("Reshape", ["x", "image_shape"], ["image"], name="to_image"))
    act, s_name, z_name = "image", "x_scale", "x_zero"
    for i in range(3):
        name = f"l{i}"
        w = q[f"w{i}"]
        conv = i < len(CONV)
        channels = w.shape[0] if conv else w.shape[1]
        const(f"{name}_w", w)
        const(f"{name}_ws", q[f"ws{i}"])
        const(f"{name}_wz", np.zeros(channels, np.int8))
        const(f"{name}_b", q[f"b{i}"])
        in_scale = q["x_scale"] if i == 0 else q[f"ys{i - 1}"]
        const(f"{name}_bs", (F32(in_scale) * q[f"ws{i}"]).astype(F32))
        const(f"{name}_bz", np.zeros(channels, np.int32))
        const(f"{name}_ys", np.array(q[f"ys{i}"], F32))
        const(f"{name}_yz", np.array(0, np.uint8 if conv else np.int8))
        if i == len(CONV):  # flatten the quantized activation (shape only) before the dense layer
            nodes.append(N("Reshape", [act, "flat_shape"], ["flat"], name="flatten"))
            act = "flat"
        nodes += [
            N("DequantizeLinear", [act, s_name, z_name], [f"{name}_in"], name=f"{name}_dq_in"),
            N("DequantizeLinear", [f"{name}_w", f"{name}_ws", f"{name}_wz"], [f"{name}_wd"], name=f"{name}_dq_w",
              axis=0 if conv else 1),
            N("DequantizeLinear", [f"{name}_b", f"{name}_bs", f"{name}_bz"], [f"{name}_bd"], name=f"{name}_dq_b",
              axis=0),
        ]
        if conv:
            _, _, stride, pads = CONV[i]
            nodes.append(N("Conv", [f"{name}_in", f"{name}_wd", f"{name}_bd"], [f"{name}_conv"], name=name,
                           kernel_shape=[3, 3], strides=[stride, stride], pads=[pads[0], pads[1], pads[2], pads[3]]))
            nodes.append(N("Relu", [f"{name}_conv"], [f"{name}_relu"], name=f"{name}_relu"))
            pre_q = f"{name}_relu"
        else:
            nodes.append(N("MatMul", [f"{name}_in", f"{name}_wd"], [f"{name}_mm"], name=name))
            nodes.append(N("Add", [f"{name}_mm", f"{name}_bd"], [f"{name}_add"], name=f"{name}_bias"))
            pre_q = f"{name}_add"
        nodes.append(N("QuantizeLinear", [pre_q, f"{name}_ys", f"{name}_yz"], [f"{name}_q"], name=f"{name}_q"))
        act, s_name, z_name = f"{name}_q", f"{name}_ys", f"{name}_yz"
    nodes.append(N("DequantizeLinear", [act, s_name, z_name], ["logits"], name="dq_logits"))
    graph = helper.make_graph(nodes, "fashion_cnn",
                              [helper.make_tensor_value_info("x", TensorProto.UINT8, ["rows", 784])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["rows", 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="treesim")
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    d = Path(a.data)
    train_x = idx(d / "train-images-idx3-ubyte.gz").reshape(-1, 784)
    train_y = idx(d / "train-labels-idx1-ubyte.gz").astype(np.int64)
    test_x = idx(d / "t10k-images-idx3-ubyte.gz").reshape(-1, 784)
    test_y = idx(d / "t10k-labels-idx1-ubyte.gz")
    p = train(train_x, train_y, a.epochs, a.seed)
    q = quantize(p, train_x[:2000])
    export(q, a.out)
    float_acc = (float_predict(p, test_x) == test_y).mean()
    int_acc = (np.concatenate([integer_forward(q, test_x[f:f + 1000]).argmax(1) for f in range(0, 10000, 1000)])
               == test_y).mean()
    print(f"float accuracy {float_acc:.4f}, quantized (integer reference) {int_acc:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

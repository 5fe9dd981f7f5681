#!/usr/bin/python3
"""Packs an ONNX backend-test folder into one input of the backend_test fuzz harness
(tests/fuzz/backend_test_fuzz.cpp says the format): model.onnx's length and bytes, then a record per
input_N.pb / output_N.pb of test_data_set_0..3.

Usage: pack_backend_test.py FOLDER OUT (the corpus seeds: Debian's libonnx-testdata 1.12.0,
/usr/share/libonnx-testdata/data/node/test_qlinearmatmul_2D and test_relu)."""
import os
import re
import struct
import sys


def pack(folder):
    model = open(os.path.join(folder, "model.onnx"), "rb").read()
    out = struct.pack("<I", len(model)) + model
    for s in range(4):
        d = os.path.join(folder, f"test_data_set_{s}")
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            m = re.fullmatch(r"(input|output)_(\d+)\.pb", f)
            if not m or int(m.group(2)) > 15:
                continue
            code = int(m.group(2)) + (16 if m.group(1) == "output" else 0)
            data = open(os.path.join(d, f), "rb").read()
            out += struct.pack("<BBI", s, code, len(data)) + data
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[2], "wb") as f:
        f.write(pack(sys.argv[1]))

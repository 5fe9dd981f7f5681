#!/usr/bin/python3
"""Writes a sparse matrix with a skewed, power-law row distribution as a Matrix Market pattern file.

Row i (in a shuffled order) holds about NNZ * w_i / sum(w) entries, w_i = (i + 1) ** -ALPHA, at
least one and at most COLS, in distinct random columns: a few very long rows and a long tail of
short ones, as web and social graphs have. The values are left to the reader (`treesim run spmv`
draws them from its --seed). Deterministic for a given --seed.

  /usr/bin/python3 tools/sparse/powerlaw_matrix.py --rows 1000000 --cols 1000000 --nnz 10000000 \
      --out power.mtx
"""
import argparse
import os
import sys

import numpy as np


def degrees(rows, cols, nnz, alpha, rng):
    w = (np.arange(rows, dtype=np.float64) + 1.0) ** -alpha
    d = np.maximum(1, np.floor(w * (nnz / w.sum()))).astype(np.int64)
    d = np.minimum(d, cols)
    # Hand the shortfall of the rounding to the rows that still have room, the heaviest first.
    short = nnz - int(d.sum())
    for i in range(rows):
        if short <= 0:
            break
        add = min(short, cols - int(d[i]))
        d[i] += add
        short -= add
    rng.shuffle(d)
    return d


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, required=True)
    p.add_argument("--cols", type=int, required=True)
    p.add_argument("--nnz", type=int, required=True, help="entries in all (at least one per row)")
    p.add_argument("--alpha", type=float, default=1.0, help="the power law's exponent (default 1)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True, help="the .mtx file to write")
    a = p.parse_args()
    if a.rows < 1 or a.cols < 1:
        sys.exit("powerlaw_matrix.py: --rows and --cols: expected at least 1")
    if not a.rows <= a.nnz <= a.rows * a.cols:
        sys.exit(f"powerlaw_matrix.py: --nnz: expected {a.rows}..{a.rows * a.cols} (a row needs an entry), got {a.nnz}")
    if a.alpha < 0:
        sys.exit(f"powerlaw_matrix.py: --alpha: expected a non-negative number, got {a.alpha}")
    rng = np.random.default_rng(a.seed)
    d = degrees(a.rows, a.cols, a.nnz, a.alpha, rng)
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        f.write("%%MatrixMarket matrix coordinate pattern general\n")
        f.write(f"% power-law rows: alpha {a.alpha}, seed {a.seed} (tools/sparse/powerlaw_matrix.py)\n")
        f.write(f"{a.rows} {a.cols} {int(d.sum())}\n")
        chunk, held = [], 0
        for i in range(a.rows):
            k = int(d[i])
            # Distinct columns: a permutation's prefix for long rows, rejection for short ones.
            if 4 * k > a.cols:
                c = rng.permutation(a.cols)[:k]
            else:
                c = np.unique(rng.integers(0, a.cols, size=k + 8))
                while c.size < k:
                    c = np.unique(np.concatenate([c, rng.integers(0, a.cols, size=k)]))
                c = rng.permutation(c)[:k]
            c.sort()
            chunk.append(np.column_stack([np.full(k, i + 1), c + 1]))
            held += k
            if held > 1 << 20 or i + 1 == a.rows:
                np.savetxt(f, np.concatenate(chunk), fmt="%d")
                chunk, held = [], 0
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()

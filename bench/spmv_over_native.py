#!/usr/bin/python3
"""Whole-process wall time of a sparse run over a native one, as ratios measured in this one process.

The native process (bench/spmv_native.cpp) reads the matrix file, builds CSR and runs one SpMV; the
treesim process runs `treesim run spmv` on mncore-board. Runs alternate (native, treesim, native,
...) so that both see the same machine, and each side's median is taken. Prints the table and
  spmv_mdual_timing_only_over_native=RATIO   (METIS's mdual.graph, 1,026,264 nonzeros, --timing-only)
With --large, also a generated power-law matrix of 10^7 nonzeros (tools/sparse/powerlaw_matrix.py)
run in full (--verify), median of 3 alternating pairs: spmv_10m_full_over_native=RATIO.

Usage: bench/spmv_over_native.py TREESIM SPMV_NATIVE [--repeats N] [--large]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MDUAL = "/usr/share/doc/libmetis-dev/examples/graphs/mdual.graph"


def wall(cmd):
    start = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"spmv_over_native: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return time.monotonic() - start


def ratio(name, native_cmd, treesim_cmd, repeats):
    native, sim = [], []
    for _ in range(repeats):
        native.append(wall(native_cmd))
        sim.append(wall(treesim_cmd))
    n, s = statistics.median(native), statistics.median(sim)
    print(f"{name:<28} native {n:8.3f} s  treesim {s:8.3f} s  ratio {s / n:6.2f}")
    return s / n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("treesim")
    ap.add_argument("native")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--large", action="store_true", help="also the 10^7-nonzero matrix (minutes, GBs)")
    a = ap.parse_args()
    board = os.path.join(ROOT, "configs", "mncore-board.yaml")
    run = [a.treesim, "run", "spmv", "--machine", board, "-q"]
    print("whole processes, median of", a.repeats, "alternating runs each")
    r = ratio("mdual timing-only", [a.native, MDUAL], run + ["--matrix", MDUAL, "--timing-only"], a.repeats)
    print(f"spmv_mdual_timing_only_over_native={r:.2f}")
    if a.large:
        with tempfile.TemporaryDirectory() as d:
            m = os.path.join(d, "power10m.mtx")
            subprocess.run([sys.executable, os.path.join(ROOT, "tools", "sparse", "powerlaw_matrix.py"), "--rows",
                            "1000000", "--cols", "1000000", "--nnz", "10000000", "--out", m], check=True)
            r = ratio("10^7 power-law full --verify", [a.native, m], run + ["--matrix", m, "--verify"], 3)
            print(f"spmv_10m_full_over_native={r:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

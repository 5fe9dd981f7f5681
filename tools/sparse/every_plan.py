#!/usr/bin/python3
"""Runs a matrix through every encoding and partition, SpMV and SpMM, bit-exact, and prints a table.

Each run is `treesim run spmv|spmm --verify` on the given machine, in its own process; the table
gives the passes and cycles from its report, its wall time and peak memory, and whether --verify
held. A run that fails prints its one-line error in the table. The exit status is 1 when any run
did not verify. The 10^7-nonzero check of docs/sparse.md:

  tools/sparse/powerlaw_matrix.py --rows 1000000 --cols 1000000 --nnz 10000000 --out power10m.mtx
  tools/sparse/every_plan.py power10m.mtx --machine configs/mncore-board.yaml

Usage: every_plan.py MATRIX [--treesim PATH] [--machine FILE] [--n N] [--encodings LIST]
                     [--partitions LIST] [--kernels LIST] [--no-times]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The encodings that store any matrix (ELL's K slots per row would take the longest row's length
# for every row); 2:4 keeps the two largest of every four columns (--prune).
ENCODINGS = "csr,coo,dcsr,csc,dcsc,bsr2x2,2:4"


def run(cmd):
    """(exit code, seconds, peak RSS in MB, stderr) of one process."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, time.monotonic() - start, usage.ru_maxrss / 1024, err.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("matrix")
    ap.add_argument("--treesim", default="treesim", help="the binary (default: treesim on PATH)")
    ap.add_argument("--machine", default=os.path.join(ROOT, "configs", "mncore-board.yaml"))
    ap.add_argument("--n", type=int, default=16, help="SpMM's columns of B (default 16)")
    ap.add_argument("--encodings", default=ENCODINGS)
    ap.add_argument("--partitions", default="rows,nnz,2d")
    ap.add_argument("--kernels", default="spmv,spmm")
    ap.add_argument("--no-times", action="store_true", help="leave out wall time and peak memory")
    a = ap.parse_args()
    times = "" if a.no_times else f" {'wall s':>7} {'peak MB':>8}"
    print(f"{'kernel':<6} {'encoding':<8} {'partition':<9} {'passes':>7} {'cycles':>10}{times}  verify", flush=True)
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        report = os.path.join(d, "report.json")
        for kernel in a.kernels.split(","):
            for encoding in a.encodings.split(","):
                for partition in a.partitions.split(","):
                    cmd = [a.treesim, "run", kernel, "--machine", a.machine, "--matrix", a.matrix, "--encoding",
                           encoding, "--partition", partition, "--verify", "-q", "--report", report]
                    if ":" in encoding:
                        cmd.append("--prune")
                    if kernel == "spmm":
                        cmd += ["--n", str(a.n)]
                    code, seconds, mb, err = run(cmd)
                    passes = cycles = "-"
                    ok = "error: " + (err.splitlines()[-1] if err else f"exit {code}")
                    if code == 0 and os.path.exists(report):
                        with open(report) as f:
                            r = json.load(f)
                        passes, cycles = r.get("passes", 1), r["cycles"]
                        ok = "ok" if r.get("verify", {}).get("ok") else "MISMATCH"
                    if os.path.exists(report):
                        os.remove(report)
                    bad += ok != "ok"
                    times = "" if a.no_times else f" {seconds:7.1f} {mb:8.0f}"
                    print(f"{kernel:<6} {encoding:<8} {partition:<9} {passes:>7} {cycles:>10}{times}  {ok}",
                          flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Whole-process wall time and peak RSS of `treesim run qgemm` over square GEMMs, full and
--timing-only, printed as a markdown table (make bench writes it into docs/generated/bench_wall_time.md).

Usage (from the repository root, after building treesim):
    python3 bench/wall_time_table.py [--treesim build/tools/treesim]
        [--machine configs/mncore-board.yaml] [--sizes 256 512 1024 2048 4096] [--repeat 3]

Each point runs the binary as its own process (elaboration, planning and teardown included) and
keeps the best wall time of --repeat runs and the largest peak RSS. `make bench` runs it as
build/bench/bench_wall_time. The figures are for notes, never for pass/fail.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def run_once(cmd):
    """Runs cmd; returns (wall seconds, peak RSS in MiB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"wall_time_table: {' '.join(cmd)} failed: {err.strip()}")
    return wall, usage.ru_maxrss / 1024.0


def measure(treesim, machine, size, timing_only, repeat):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        cmd = [treesim, "run", "qgemm", "--machine", machine, "--m", str(size), "--n", str(size),
               "--k", str(size), "-q", "--report", report]
        if timing_only:
            cmd.append("--timing-only")
        runs = [run_once(cmd) for _ in range(repeat)]
        with open(report) as f:
            r = json.load(f)
    instructions = sum(v["count"] for v in r["instructions"].values())
    return {"wall": min(w for w, _ in runs), "rss": max(m for _, m in runs), "cycles": r["cycles"],
            "instructions": instructions}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--treesim", default="build/tools/treesim")
    ap.add_argument("--machine", default="configs/mncore-board.yaml")
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024, 2048, 4096])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    rows = []
    for s in a.sizes:
        full = measure(a.treesim, a.machine, s, False, a.repeat)
        timing = measure(a.treesim, a.machine, s, True, a.repeat)
        if timing["cycles"] != full["cycles"]:
            sys.exit(f"wall_time_table: {s}³ gives {full['cycles']} cycles full, {timing['cycles']} timing-only")
        rows.append((s, full, timing))
    print(f"`treesim run qgemm` on `{os.path.basename(a.machine)}`, whole process, best of {a.repeat}:")
    print()
    print("| M = N = K | MACs | instructions | cycles | full: wall | full: peak RSS | full: ns per MAC "
          "| timing-only: wall | timing-only: peak RSS |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for s, full, timing in rows:
        macs = s ** 3
        print(f"| {s} | {macs:.3g} | {full['instructions']} | {full['cycles']} | {full['wall'] * 1e3:.0f} ms "
              f"| {full['rss']:.0f} MiB | {full['wall'] * 1e9 / macs:.2f} | {timing['wall'] * 1e3:.0f} ms "
              f"| {timing['rss']:.0f} MiB |")

if __name__ == "__main__":
    main()

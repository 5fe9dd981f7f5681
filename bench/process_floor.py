#!/usr/bin/python3
"""The timing-only floor of a whole process: `treesim run qgemm` of 256³ on mncore-board with
--timing-only against `treesim --version` (start-up alone), run in turn so that a change in the
machine's speed affects both alike. Prints the median ratio of the pairs as
`timing_only_256_process_over_version=VALUE`, with both medians.

Usage: bench/process_floor.py TREESIM MACHINE [--pairs N]
"""
import argparse
import statistics
import subprocess
import sys
import time


def wall(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("treesim")
    ap.add_argument("machine")
    ap.add_argument("--pairs", type=int, default=21)
    a = ap.parse_args()
    run = [a.treesim, "run", "qgemm", "--machine", a.machine, "--m", "256", "--n", "256", "--k", "256",
           "--timing-only", "-q"]
    version = [a.treesim, "--version"]
    wall(run), wall(version)  # warm the page cache
    runs, versions, ratios = [], [], []
    for _ in range(a.pairs):
        r, v = wall(run), wall(version)
        runs.append(r), versions.append(v), ratios.append(r / v)
    print(f"timing_only_256_process_ms={statistics.median(runs) * 1e3:.1f}")
    print(f"version_process_ms={statistics.median(versions) * 1e3:.1f}")
    print(f"timing_only_256_process_over_version={statistics.median(ratios):.2f}")


if __name__ == "__main__":
    sys.exit(main())

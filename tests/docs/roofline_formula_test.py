#!/usr/bin/python3
"""The roofline of every kernel kind, derived from docs/timing.md §8.6 alone: a run's report gives its
work and each level's busiest-port bytes; this test applies the page's formula to them with the
machine file's rates and checks every bound the report gives (and that the run is no faster). The
machine has every optional PE section, at rates unlike the int8 MAC's, so that a kernel bounded by
the wrong path would show."""
import argparse
import json
import subprocess
import sys
import tempfile
from math import ceil
from pathlib import Path

import yaml

MACHINE = """name: roofline-mini
clock_ghz: 1.0
dram: { bytes: 1GiB, bytes_per_cycle: 64, latency_cycles: 100 }
levels:
  - { name: L2B, fanout: 1, memory_bytes: 4MiB,  down_bytes_per_cycle: 64, up_bytes_per_cycle: 64, latency_cycles: 8, reduce: true }
  - { name: L1B, fanout: 2, memory_bytes: 1MiB,  down_bytes_per_cycle: 32, up_bytes_per_cycle: 32, latency_cycles: 4, reduce: true }
  - { name: MAB, fanout: 4, memory_bytes: 0,     down_bytes_per_cycle: 16, up_bytes_per_cycle: 16, latency_cycles: 2, reduce: false }
  - { name: PE,  fanout: 4, memory_bytes: 64KiB, down_bytes_per_cycle: 8,  up_bytes_per_cycle: 8,  latency_cycles: 1, reduce: false }
pe:
  mac:           { int8_macs_per_cycle: 64, latency_cycles: 4 }
  ternary_mac:   { macs_per_cycle: 256, latency_cycles: 2 }
  sparse_mac:    { items_per_cycle: 3, latency_cycles: 4 }
  dpt_decoder:   { bytes_per_cycle: 4, latency_cycles: 2 }
  base3_decoder: { bytes_per_cycle: 1, latency_cycles: 6 }
  requant:       { values_per_cycle: 8, latency_cycles: 3 }
  copy:          { bytes_per_cycle: 16, latency_cycles: 1 }
"""

# Every kernel kind, with the bound its work must come from.
RUNS = [
    ("qgemm", ["--m", "40", "--n", "24", "--k", "96"]),
    ("tgemm", ["--m", "40", "--n", "24", "--k", "100", "--weight-encoding", "dpt"]),
    ("tgemm", ["--m", "40", "--n", "24", "--k", "100", "--weight-encoding", "base3"]),
    ("spmv", ["--rows", "300", "--nnz-per-row", "5"]),
    ("spmm", ["--rows", "200", "--nnz-per-row", "3", "--n", "8"]),
    ("conv2d", ["--h", "9", "--w", "8", "--c", "3", "--k", "5", "--pad", "same"]),
    ("maxpool", ["--h", "9", "--w", "8", "--c", "4"]),
    ("qadd", ["--n", "1000"]),
    ("avgpool", ["--h", "9", "--w", "8", "--c", "4"]),
    ("chain", ["--m", "32", "--widths", "64,48,16"]),
]


def roofline(report, m):
    """docs/timing.md §8.6, as the page states it."""
    pe = m["pe"]
    pes = 1
    for level in m["levels"]:
        pes *= level["fanout"]
    w = report["work"]
    int8 = w["macs"] - w["ternary_macs"] - w["sparse_macs"]
    bounds = {
        "mac": ceil(int8 / (pes * pe["mac"]["int8_macs_per_cycle"]))
        + ceil(w["ternary_macs"] / (pes * pe["ternary_mac"]["macs_per_cycle"]))
        + ceil(w["sparse_items"] / (pes * pe["sparse_mac"]["items_per_cycle"])),
        "dpt_decoder": ceil((w["dpt_bytes"] - w["base3_bytes"]) / (pes * pe["dpt_decoder"]["bytes_per_cycle"]))
        + ceil(w["base3_bytes"] / (pes * pe["base3_decoder"]["bytes_per_cycle"])),
        "requant": ceil(w["requant_values"] / (pes * pe["requant"]["values_per_cycle"])),
        "copy": ceil(w["copy_bytes"] / (pes * pe["copy"]["bytes_per_cycle"])),
        "dram": ceil((report["dram"]["read_bytes"] + report["dram"]["write_bytes"]) / m["dram"]["bytes_per_cycle"]),
    }
    for level in m["levels"]:
        t = report["levels"][level["name"]]
        bounds[level["name"] + ".down"] = ceil(t["busiest_down_port_bytes"] / level["down_bytes_per_cycle"])
        bounds[level["name"] + ".up"] = ceil(t["busiest_up_port_bytes"] / level["up_bytes_per_cycle"])
    return bounds


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--treesim", required=True)
    a = ap.parse_args()
    m = yaml.safe_load(MACHINE)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        (t / "m.yaml").write_text(MACHINE)
        for kernel, options in RUNS:
            r = subprocess.run([a.treesim, "run", kernel, "--machine", str(t / "m.yaml"), "--timing-only",
                                "--report", str(t / "r.json"), "--quiet"] + options, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{kernel} {' '.join(options)}: {r.stderr.strip()}")
                failed += 1
                continue
            report = json.loads((t / "r.json").read_text())
            want = roofline(report, m)
            got = report["roofline"]["bounds"]
            differ = {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
            top = max(want, key=lambda k: want[k])
            print(f"{kernel} {' '.join(options)}: bound {want[top]} cycles by {top}, "
                  f"run {report['cycles']} cycles{'; differs: ' + str(differ) if differ else ''}")
            if differ or report["cycles"] < want[top] or set(got) != set(want):
                failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

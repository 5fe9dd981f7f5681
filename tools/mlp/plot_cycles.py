#!/usr/bin/python3
"""Per-layer cycles per image of `treesim run mlp --report` JSON files, int8 against ternary, one
panel per machine: the figure of docs/tour.md.

Usage: tools/mlp/plot_cycles.py --out docs/images/mlp-cycles.png REPORT.json...
"""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("reports", nargs="+")
    a = ap.parse_args()
    runs = [json.load(open(p)) for p in a.reports]
    machines = list(dict.fromkeys(r["machine"] for r in runs))
    fig, axes = plt.subplots(1, len(machines), figsize=(5 * len(machines), 3.6), squeeze=False)
    for ax, machine in zip(axes[0], machines):
        mine = [r for r in runs if r["machine"] == machine]
        names = [layer["name"] for layer in mine[0]["layers"]]
        width = 0.8 / len(mine)
        for i, r in enumerate(mine):
            kind = r["layers"][0]["kind"]
            values = [layer["cycles"] / r["images"] for layer in r["layers"]]
            xs = [j + (i - (len(mine) - 1) / 2) * width for j in range(len(names))]
            bars = ax.bar(xs, values, width, label=f"{kind}: {r['cycles_per_image']:.1f} cycles/image")
            ax.bar_label(bars, fmt="%.1f", fontsize=8)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels([f"{layer['name']}\n{layer['k']}x{layer['n']}" for layer in mine[0]["layers"]])
        ax.set_ylabel("cycles per image")
        ax.set_title(f"{machine}, batches of {mine[0]['batch']}")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


if __name__ == "__main__":
    main()

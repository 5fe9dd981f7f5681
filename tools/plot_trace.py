#!/usr/bin/python3
"""Draws a --trace-json trace as a timeline PNG (what ui.perfetto.dev shows, for the docs).

One row per track: the board's instruction lanes first, then each unit's resources in the order
the trace lists them; each slice is a bar coloured by instruction kind and labelled when wide
enough. Time is in machine cycles, as in the trace.

Usage: plot_trace.py TRACE.json OUT.png [--title TEXT] [--max-rows N]
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

KIND_COLOURS = {
    "load": "#4e79a7", "store": "#f28e2b", "mac": "#e15759", "ternary_mac": "#b07aa1",
    "dpt_decode": "#76b7b2", "requant": "#59a14f", "copy": "#edc948", "broadcast": "#ff9da7",
    "scatter": "#9c755f", "gather": "#bab0ac", "reduce": "#8cd17d", "vector": "#499894",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--title", default=None)
    ap.add_argument("--max-rows", type=int, default=40)
    a = ap.parse_args()
    try:
        with open(a.trace) as f:
            doc = json.load(f)
        events = doc["traceEvents"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"plot_trace.py: {a.trace}: expected trace-event JSON written by --trace-json ({e})")
    names, order = {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_sort_index":
            order[(e["pid"], e["tid"])] = e["args"]["sort_index"]
    rows = sorted(names, key=lambda k: (k[0], order.get(k, 0), k[1]))
    used = {(e["pid"], e["tid"]) for e in events if e.get("ph") == "X"}
    rows = [r for r in rows if r in used][: a.max_rows]
    index = {r: i for i, r in enumerate(rows)}
    end = max((e["ts"] + e["dur"] for e in events if e.get("ph") == "X"), default=1)
    fig, ax = plt.subplots(figsize=(14, 0.42 * len(rows) + 1.4), dpi=100)
    for e in events:
        key = (e.get("pid"), e.get("tid"))
        if e.get("ph") != "X" or key not in index:
            continue
        y = len(rows) - 1 - index[key]
        colour = KIND_COLOURS.get(e.get("cat"), "#999999")
        ax.broken_barh([(e["ts"], max(e["dur"], end / 2000))], (y - 0.4, 0.8), facecolors=colour,
                       edgecolor="black", linewidth=0.3)
        if e["dur"] > end / 14:
            ax.text(e["ts"] + e["dur"] / 2, y, e["name"], ha="center", va="center", fontsize=7, clip_on=True)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([names[r] for r in reversed(rows)], fontsize=8)
    ax.set_xlim(0, end)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlabel("cycle")
    other = doc.get("otherData", {})
    ax.set_title(a.title or f"{other.get('kernel', '')} on {other.get('machine', '')}: {end} cycles")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for k, c in KIND_COLOURS.items()
               if any(e.get("cat") == k for e in events if e.get("ph") == "X")]
    labels = [k for k in KIND_COLOURS if any(e.get("cat") == k for e in events if e.get("ph") == "X")]
    ax.legend(handles, labels, loc="upper right", fontsize=7, ncol=len(labels))
    ax.grid(axis="x", linewidth=0.3)
    fig.tight_layout()
    fig.savefig(a.out)


if __name__ == "__main__":
    main()

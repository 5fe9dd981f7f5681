#!/usr/bin/python3
"""treesim plot: charts of a sweep's results.csv or of one run's JSON report, as PNG or SVG.

  roofline RESULTS.csv --out F     each run as a point: ops per byte against ops per second, under
                                   every ceiling of its machine (MACs, DRAM, each level's links)
  line RESULTS.csv --x COL --out F [--y COL]   a column (default cycles) against a varied field,
                                   one line per combination of the other varied fields
  heatmap RESULTS.csv --x COL --y COL --out F [--value COL]   a column over two varied fields
  traffic REPORT.json --out F      per level, bytes sent and delivered, down and up
  layers REPORT.json --out F       a network's layers (a `run chain` or `run mlp` report): each
                                   layer's cycles, its output's conversion on the tree, and its
                                   output's spill through DRAM (hatched)

--where COL=VALUE (repeatable) keeps only the rows where a column has that value. Run by
`treesim plot ...` or directly; needs Debian's python3-matplotlib. Errors are one line on stderr
with exit status 2, and no file is written. Inputs are checked before they are drawn: UTF-8 text,
a CSV with the sweep's columns and a number where one is plotted, a report whose counts are
numbers; what they hold is echoed escaped (as treesim's messages do), never raw.
"""
import argparse
import csv
import io
import json
import math
import os
import sys
import tempfile
import textwrap

FIXED_COLUMNS = ("index",)
MAX_INPUT_BYTES = 256 << 20  # a results.csv or a report larger than this is not one treesim wrote
SIZE_SUFFIXES = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


class PlotError(Exception):
    pass


def echo(text, limit=80):
    """Text from an input as a message may show it (sim/core/echo.h's rule): newline, tab, carriage
    return and backslash escaped, every byte outside printable ASCII as \\xNN, cut at `limit`
    characters with "..." so that no cell can forge a line of output or a terminal escape."""
    out = []
    length = 0
    for b in str(text).encode("utf-8", "surrogateescape"):
        piece = {10: "\\n", 13: "\\r", 9: "\\t", 92: "\\\\"}.get(b) or (chr(b) if 0x20 <= b < 0x7F else f"\\x{b:02X}")
        if limit and length + len(piece) > limit:
            out.append("...")
            break
        out.append(piece)
        length += len(piece)
    return "".join(out)


def read_text(path):
    """An input file's text: readable, at most MAX_INPUT_BYTES, UTF-8."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_INPUT_BYTES + 1)
    except OSError as e:
        raise PlotError(f"{echo(path)}: cannot read ({e.strerror})")
    if len(data) > MAX_INPUT_BYTES:
        raise PlotError(f"{echo(path)}: larger than {MAX_INPUT_BYTES >> 20} MiB: not a file treesim wrote")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise PlotError(f"{echo(path)}: not UTF-8 text (byte 0x{data[e.start]:02X} at offset {e.start})")


def number(text):
    """A value of a varied field as a number for ordering: 64, 1.5, 16KiB (bytes); None if not one."""
    t = text.strip()
    for suffix, scale in SIZE_SUFFIXES.items():
        if t.endswith(suffix) and t[: -len(suffix)].strip().isdigit():
            return int(t[: -len(suffix)]) * scale
    try:
        return float(t)
    except ValueError:
        return None


def ordered(values):
    """Distinct values in numeric order when all are numbers, else in the order first seen."""
    distinct = list(dict.fromkeys(values))
    if all(number(v) is not None for v in distinct):
        distinct.sort(key=number)
    return distinct


def read_results(path, where):
    text = read_text(path)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        rows = list(reader)
        columns = reader.fieldnames or []
    except csv.Error as e:
        raise PlotError(f"{echo(path)}: line {reader.line_num + 1}: not a CSV a sweep writes ({echo(e)})")
    if "index" not in columns or "status" not in columns:
        raise PlotError(f"{echo(path)}: not a sweep's results.csv (no 'index' and 'status' columns)")
    for r in rows:  # DictReader pads a short row with None and keeps a long row's rest under None
        if None in r or None in r.values():
            raise PlotError(f"{echo(path)}: point {echo(r.get('index'))}: expected {len(columns)} cells, as the "
                            f"header has")
    varied = columns[columns.index("index") + 1 : columns.index("status")]
    for condition in where:
        name, sep, value = condition.partition("=")
        if not sep:
            raise PlotError(f"--where: expected COLUMN=VALUE, got '{echo(condition)}'")
        need_column(path, columns, name, "--where")
        rows = [r for r in rows if r[name] == value]
    rows = [r for r in rows if r["status"] == "ok"]
    if not rows:
        raise PlotError(f"{echo(path)}: no finished ('ok') run{' matches --where' if where else ''}")
    return rows, columns, varied


def need_column(path, columns, name, option):
    if name not in columns:
        shown = ", ".join(echo(c, 40) for c in columns[:40]) + (", ..." if len(columns) > 40 else "")
        raise PlotError(f"{option}: {echo(path)} has no column '{echo(name)}' (columns: {shown})")


def value(row, column, path, positive=False):
    """A cell as a finite number (a positive one where the chart divides by it)."""
    try:
        v = float(row[column])
    except (TypeError, ValueError):
        v = math.nan
    if not math.isfinite(v) or (positive and v <= 0):
        raise PlotError(f"{echo(path)}: point {echo(row['index'])}: column '{echo(column)}' is not a "
                        f"{'positive ' if positive else ''}number ('{echo(row[column])}')")
    return v


def count(path, where, obj, key):
    """A report's count: a non-negative finite number (absent: 0)."""
    v = obj.get(key, 0)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise PlotError(f"{echo(path)}: {echo(where)}.{key}: expected a non-negative number, got "
                        f"{echo(json.dumps(v), 40)}")
    return v


def member(path, where, obj, key, kind, default):
    """A report's object or list member of the expected type (absent: `default`)."""
    v = obj.get(key, default)
    if not isinstance(v, kind):
        raise PlotError(f"{echo(path)}: {echo(where)}: expected {'an object' if kind is dict else 'a list'}, got "
                        f"{echo(json.dumps(v), 40)}")
    return v


MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*", "p")


def level_ceilings(columns):
    """(resource, bytes column, rate column) of every level link a results.csv describes."""
    out = []
    for c in columns:
        if c.endswith("_busiest_down_port_bytes") or c.endswith("_busiest_up_port_bytes"):
            level, _, rest = c.partition("_busiest_")
            direction = rest.split("_")[0]
            rate = f"{level}_{direction}_port_bytes_per_second"
            if rate in columns:
                out.append((f"{level}.{direction}", c, rate))
    return out


def si(v, unit):
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= scale:
            return f"{v / scale:.3g} {prefix}{unit}"
    return f"{v:.3g} {unit}"


def plot_roofline(args, plt):
    """A hierarchical roofline: ops per byte against ops per second. Every resource that can bind is
    a ceiling: the MAC array (flat), DRAM, and each level's links down and up (one port's rate,
    against the bytes of its busiest port, as the report's bound counts them). Each run is a filled
    point at its DRAM intensity and, when a level's link binds it (the `bound` column), a hollow
    point of its series at that level's intensity, under that level's ceiling."""
    rows, columns, varied = read_results(args.input, args.where)
    for c in ("macs", "seconds", "dram_read_bytes", "dram_write_bytes", "peak_ops_per_second", "dram_bytes_per_second"):
        need_column(args.input, columns, c, "roofline")
    color_by = args.color or (varied[-1] if varied else None)
    if color_by:
        need_column(args.input, columns, color_by, "--color")
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)

    def ops(r):
        # The problem's own MACs (reports.md: useful_macs), not those the PEs issue on padding;
        # results of a kernel or a version without them fall back to the MACs issued.
        useful = r.get("useful_macs", "")
        return 2 * value(r, "useful_macs" if useful else "macs", args.input)

    levels = level_ceilings(columns)
    by_name = {name: (b, rate) for name, b, rate in levels}
    points = []  # (row, DRAM intensity, ops/s, binding level's intensity or None)
    for r in rows:
        o = ops(r)
        dram = max(1.0, value(r, "dram_read_bytes", args.input) + value(r, "dram_write_bytes", args.input))
        level_x = None
        bound = r.get("bound", "")
        if bound in by_name and r[by_name[bound][0]] not in ("", "0"):
            level_x = o / value(r, by_name[bound][0], args.input, positive=True)
        points.append((r, o / dram, o / value(r, "seconds", args.input, positive=True), level_x))
    xs = [p[1] for p in points] + [p[3] for p in points if p[3]]
    lo, hi = min(xs) / 4, max(xs) * 4
    # Ceilings: one line per distinct rate of each resource (machines of a sweep may differ).
    ceilings = {}  # (name, rate) -> kind
    for r, *_ in points:
        ceilings[("MAC", value(r, "peak_ops_per_second", args.input))] = "flat"
        ceilings[("DRAM", value(r, "dram_bytes_per_second", args.input))] = "slope"
        for name, _, rate in levels:
            if r[rate]:
                ceilings[(name, value(r, rate, args.input))] = "slope"
    peak = max(rate for (name, rate), kind in ceilings.items() if kind == "flat")
    if not math.isfinite(peak) or peak <= 0:
        raise PlotError(f"{args.input}: column 'peak_ops_per_second' has no positive value")
    # Ceilings of equal rate are one line, labelled with every name.
    lines = {}
    for (name, rate), kind in ceilings.items():
        lines.setdefault((kind, rate), []).append(name)
    styles = ["-", "--", "-.", ":", (0, (5, 1)), (0, (1, 3)), (0, (3, 1, 1, 1, 1, 1))]
    handles = []
    slopes = 0
    for (kind, rate), names in sorted(lines.items(), key=lambda kv: (kv[0][0], -kv[0][1])):
        label = textwrap.fill(", ".join(names) + " " + (si(rate, "B/s") if kind == "slope" else si(rate, "ops/s")),
                              22, subsequent_indent="  ")
        if kind == "flat":
            h, = ax.plot([lo, hi], [rate, rate], color="0.15", linewidth=1.4, zorder=1, label=label)
        else:
            end = min(hi, peak / rate) if rate else hi
            h, = ax.plot([lo, end], [rate * lo, rate * end], color="0.25" if "DRAM" in names else "0.55",
                         linestyle=styles[slopes % len(styles)], linewidth=1.1, zorder=1, label=label)
            slopes += 1
        handles.append(h)
    # The legends stand right of the axes: the ceilings' above the series'.
    fig.subplots_adjust(left=0.1, right=0.62, top=0.92, bottom=0.12)
    fig.treesim_legends_outside = True
    ceiling_legend = ax.legend(handles=handles, title="ceilings", fontsize=6.5, title_fontsize=7,
                               loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    groups = ordered([r[color_by] for r, *_ in points]) if color_by else [None]
    cmap = plt.get_cmap("viridis")
    series = []
    for i, g in enumerate(groups):
        chosen = [p for p in points if g is None or p[0][color_by] == g]
        color = cmap(i / max(1, len(groups) - 1))
        marker = MARKERS[i % len(MARKERS)]
        series.append(ax.scatter([p[1] for p in chosen], [p[2] for p in chosen], color=color, marker=marker,
                                 label=None if g is None else g, zorder=3, s=30))
        bound = [p for p in chosen if p[3]]
        if bound:
            ax.scatter([p[3] for p in bound], [p[2] for p in bound], facecolors="none", edgecolors=color,
                       marker=marker, zorder=3, s=30)
            for p in bound:
                ax.plot([p[1], p[3]], [p[2], p[2]], color=color, linewidth=0.5, alpha=0.5, zorder=2)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    top = max(peak, max(p[2] for p in points))
    bottom = min(p[2] for p in points)
    ax.set_ylim(bottom / 4, top * 2.5)
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    # Ticks at 1, 2 and 5 of each decade, in SI prefixes; x in powers of two, as plain numbers.
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5), numticks=30))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: si(v, "")))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.tick_params(labelsize=8)
    ax.set_xlabel("ops per byte (2 × useful MACs / bytes)")
    ax.set_ylabel("ops per second")
    ax.set_title(args.title or "roofline: filled at DRAM, hollow at the binding level", fontsize=10)
    if color_by:
        ax.add_artist(ceiling_legend)
        ax.legend(handles=series, title=color_by, fontsize=7, title_fontsize=6.5,
                  loc="lower left", bbox_to_anchor=(1.02, 0.0), borderaxespad=0)
    ax.grid(True, which="major", alpha=0.3)
    return fig


def series_label(row, others):
    return ", ".join(f"{c}={row[c]}" for c in others)


def plot_line(args, plt):
    rows, columns, varied = read_results(args.input, args.where)
    need_column(args.input, columns, args.x, "--x")
    y = args.y or "cycles"
    need_column(args.input, columns, y, "--y")
    others = [c for c in varied if c != args.x and len({r[c] for r in rows}) > 1]
    xs = ordered([r[args.x] for r in rows])
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    labels = ordered([series_label(r, others) for r in rows]) if others else [""]
    for label in labels:
        chosen = {r[args.x]: value(r, y, args.input) for r in rows if series_label(r, others) == label}
        at = [i for i, x in enumerate(xs) if x in chosen]
        ax.plot(at, [chosen[xs[i]] for i in at], marker="o", label=label or None)
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels(xs)
    ax.set_xlabel(args.x)
    ax.set_ylabel(y)
    ax.set_title(args.title or f"{y} against {args.x}")
    if others:
        ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    return fig


def plot_heatmap(args, plt):
    rows, columns, varied = read_results(args.input, args.where)
    need_column(args.input, columns, args.x, "--x")
    need_column(args.input, columns, args.y, "--y")
    z = args.value or "cycles"
    need_column(args.input, columns, z, "--value")
    others = [c for c in varied if c not in (args.x, args.y) and len({r[c] for r in rows}) > 1]
    if others:
        raise PlotError(f"heatmap: {', '.join(echo(o, 40) for o in others)} also var{'y' if len(others) > 1 else 'ies'}: "
                        f"fix {'them' if len(others) > 1 else 'it'} with --where COLUMN=VALUE")
    xs, ys = ordered([r[args.x] for r in rows]), ordered([r[args.y] for r in rows])
    grid = [[math.nan] * len(xs) for _ in ys]
    for r in rows:
        grid[ys.index(r[args.y])][xs.index(r[args.x])] = value(r, z, args.input)
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    image = ax.imshow(grid, cmap="viridis_r", aspect="auto", origin="lower")
    finite = [v for line in grid for v in line if not math.isnan(v)]
    middle = (min(finite) + max(finite)) / 2
    for j, line in enumerate(grid):
        for i, v in enumerate(line):
            if not math.isnan(v):
                ax.text(i, j, f"{v:,.0f}" if v.is_integer() and abs(v) < 1e9 else f"{v:.4g}", ha="center", va="center", fontsize=8,
                        color="white" if v > middle else "black")
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels(xs)
    ax.set_yticks(range(len(ys)))
    ax.set_yticklabels(ys)
    ax.set_xlabel(args.x)
    ax.set_ylabel(args.y)
    fig.colorbar(image, ax=ax, label=z)
    fixed = "; ".join(args.where)
    ax.set_title(args.title or f"{z}" + (f" ({fixed})" if fixed else ""))
    return fig


def read_report(path):
    text = read_text(path)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:
        raise PlotError(f"{echo(path)}: not JSON ({echo(e)})")


def plot_traffic(args, plt):
    report = read_report(args.input)
    levels = report.get("levels") if isinstance(report, dict) else None
    if not isinstance(levels, dict) or not levels:
        raise PlotError(f"{echo(args.input)}: not a treesim report (no 'levels')")
    names = list(levels)
    keys = ["down_sent_bytes", "down_delivered_bytes", "up_sent_bytes", "up_delivered_bytes"]
    for n in names:
        if not isinstance(levels[n], dict):
            raise PlotError(f"{echo(args.input)}: levels.{echo(n)}: expected an object, got "
                            f"{echo(json.dumps(levels[n]), 40)}")
        for key in keys:
            count(args.input, f"levels.{n}", levels[n], key)
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    width = 0.2
    colors = ["#1f77b4", "#aec7e8", "#d62728", "#ff9896"]
    for k, key in enumerate(keys):
        heights = [levels[n].get(key, 0) for n in names]
        ax.bar([i + (k - 1.5) * width for i in range(len(names))], heights, width,
               label=key.replace("_bytes", "").replace("_", " "), color=colors[k])
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([echo(n, 20) for n in names])
    positive = [levels[n].get(k, 0) for n in names for k in keys if levels[n].get(k, 0) > 0]
    ax.set_yscale("log")
    if positive:
        ax.set_ylim(min(positive) / 3, max(positive) * 3)
    ax.set_ylabel("bytes")
    ax.set_title(args.title or f"{echo(report.get('kernel', '?'), 40)} on {echo(report.get('machine', '?'), 40)}: "
                 f"traffic per level (sent vs delivered)")
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    return fig


def network_layers(report, path):
    """(name, cycles, conversion cycles, spilled) per layer, from a run chain or a run mlp report."""
    if isinstance(report, dict) and isinstance(report.get("phases"), dict):
        phases = report["phases"]
        names = [k for k in phases if "." not in k and k.startswith("layer") and k[5:].isdigit()]
        names.sort(key=lambda k: int(k[5:]))
        out = []
        for i, name in enumerate(names):
            phase = member(path, "phases", phases, name, dict, {})
            convert = count(path, f"phases.{name}.convert", member(path, "phases", phases, name + ".convert", dict, {}),
                            "cycles")
            dram = member(path, f"phases.{name}", phase, "dram", dict, {})
            spilled = i + 1 < len(names) and count(path, f"phases.{name}.dram", dram, "write_bytes") > 0
            out.append((name, count(path, f"phases.{name}", phase, "cycles"), convert, spilled))
        if out:
            return out
    if isinstance(report, dict) and isinstance(report.get("layers"), list) and report["layers"] and \
            isinstance(report["layers"][0], dict) and "convert_cycles" in report["layers"][0]:
        layers = report["layers"]
        out = []
        for i, l in enumerate(layers):
            if not isinstance(l, dict):
                raise PlotError(f"{echo(path)}: layers[{i}]: expected an object, got {echo(json.dumps(l), 40)}")
            out.append((echo(l.get("name", str(i)), 20), count(path, f"layers[{i}]", l, "cycles"),
                        count(path, f"layers[{i}]", l, "convert_cycles"),
                        i + 1 < len(layers) and count(path, f"layers[{i}]", l, "dram_write_bytes") > 0))
        return out
    raise PlotError(f"{echo(path)}: not a network report (a run chain report with 'phases' or a run mlp report)")


def plot_layers(args, plt):
    report = read_report(args.input)
    layers = network_layers(report, args.input)
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    x = range(len(layers))
    width = 0.38
    from matplotlib.patches import Patch
    compute = ax.bar([i - width / 2 for i in x], [l[1] for l in layers], width, color="#1f77b4")
    for bar, layer in zip(compute, layers):
        if layer[3]:
            bar.set_hatch("//")
            bar.set_edgecolor("#d62728")
    ax.bar([i + width / 2 for i in x], [l[2] for l in layers], width, color="#2ca02c")
    handles = [Patch(color="#1f77b4", label="layer (its span)"), Patch(color="#2ca02c", label="conversion of its output")]
    if any(l[3] for l in layers):
        handles.append(Patch(facecolor="#1f77b4", hatch="//", edgecolor="#d62728", label="output spilled through DRAM"))
    ax.set_xticks(list(x))
    ax.set_xticklabels([l[0] for l in layers])
    ax.set_ylabel("cycles")
    kernel = report.get("kernel") or report.get("model", "?")
    ax.set_title(args.title or f"{echo(kernel, 40)} on {echo(report.get('machine', '?'), 40)}: "
                 f"{echo(report.get('cycles', '?'), 20)} cycles, per layer")
    ax.legend(handles=handles, fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    return fig


class Parser(argparse.ArgumentParser):
    """Usage errors as one line, like every treesim error."""

    def error(self, message):
        raise PlotError(echo(message, 300))  # argparse quotes the arguments as they were given


KINDS = {"roofline": plot_roofline, "line": plot_line, "heatmap": plot_heatmap, "traffic": plot_traffic,
         "layers": plot_layers}


def main(argv):
    parser = Parser(prog="treesim plot", description=__doc__.split("\n\n")[0],
                    # a fixed width: the help is the same in every terminal (and in docs/cli.md)
                    formatter_class=lambda prog: argparse.RawDescriptionHelpFormatter(prog, width=100))
    parser.add_argument("kind", choices=sorted(KINDS))
    parser.add_argument("input", help="a sweep's results.csv (roofline, line, heatmap) or a JSON report (traffic, "
                                      "layers)")
    parser.add_argument("--out", required=True, help="the chart: FILE.png or FILE.svg")
    parser.add_argument("--x", help="line, heatmap: the column along x")
    parser.add_argument("--y", help="line: the column plotted (default cycles); heatmap: the column along y")
    parser.add_argument("--value", help="heatmap: the column shown (default cycles)")
    parser.add_argument("--color", help="roofline: the column that colours the points (default: the last varied)")
    parser.add_argument("--where", action="append", default=[], metavar="COL=VALUE",
                        help="keep only rows where COL is VALUE (repeatable)")
    parser.add_argument("--title", help="the chart's title")
    try:
        args = parser.parse_args(argv)
    except PlotError as e:
        print(f"treesim: plot: {e} (see treesim plot --help)", file=sys.stderr)
        return 2
    ext = os.path.splitext(args.out)[1].lower()
    try:
        if ext not in (".png", ".svg"):
            raise PlotError(f"--out: expected a .png or .svg file, got '{echo(args.out)}'")
        if args.kind in ("line", "heatmap") and not args.x:
            raise PlotError(f"{args.kind}: --x COLUMN is required")
        if args.kind == "heatmap" and not args.y:
            raise PlotError("heatmap: --y COLUMN is required")
        try:
            import matplotlib
        except ImportError:
            raise PlotError("needs matplotlib for this python3 (Debian: apt-get install python3-matplotlib)")
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.hashsalt"] = "treesim"  # the same SVG for the same input
        matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: searchable, and smaller
        import matplotlib.pyplot as plt
        fig = KINDS[args.kind](args, plt)
        if not getattr(fig, "treesim_legends_outside", False):  # those place the axes themselves
            fig.tight_layout()
        # Whole or not at all: a temporary beside the target, renamed into place.
        folder = os.path.dirname(os.path.abspath(args.out))
        try:
            fd, tmp = tempfile.mkstemp(prefix=".plot-", suffix=ext, dir=folder)
        except OSError as e:
            raise PlotError(f"--out: cannot write in {echo(folder)} ({e.strerror})")
        try:
            with os.fdopen(fd, "wb") as f:
                fig.savefig(f, format=ext[1:], metadata={"Software": None} if ext == ".png" else {"Date": None})
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # as a plain open() would make it, not mkstemp's 0600
            os.replace(tmp, args.out)
        except BaseException:
            os.unlink(tmp)
            raise
    except PlotError as e:
        print(f"treesim: plot: {e}", file=sys.stderr)  # every input's text in it is echoed
        return 2
    except Exception as e:  # a bug, not bad input: one line as treesim's own internal errors, no traceback
        print(f"treesim: plot: internal error: {type(e).__name__}: {echo(e, 200)}", file=sys.stderr)
        return 1
    print(f"plot: wrote {echo(args.out, 0)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

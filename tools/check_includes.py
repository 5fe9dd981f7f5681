#!/usr/bin/python3
"""Checks that every #include runs the way docs/architecture.md says dependencies point.

docs/architecture.md holds the order as a ```layers block: one line per folder (a component),
then the components its files may include besides its own, e.g.

    kernels/qgemm   kernels/gemm
    models          models/host sim/*

A file belongs to the component of the longest folder that is a prefix of its path; what a
component may include is the closure of the components it names (`sim/*`: every component under
sim/). The block also names the top level (`top: sim models ...`): a folder at the top that is
not named, or a named one that is missing, is an error. tests/ and bench/ sit above everything
and may include anything of treesim's.

Usage: check_includes.py [--root DIR]. Prints one line per violation (file:line: what and why)
and exits 1 when there is any, 2 when the layers block itself is wrong.
"""
import argparse
import os
import re
import subprocess
import sys

SOURCE_SUFFIXES = (".h", ".cpp")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


class LayersError(Exception):
    pass


def read_layers(doc_path):
    """The layers block of docs/architecture.md: (top-level names, {component: [named deps]})."""
    try:
        text = open(doc_path, encoding="utf-8").read()
    except OSError as e:
        raise LayersError(f"{doc_path}: cannot read: {e.strerror}")
    m = re.search(r"^```layers\n(.*?)^```", text, re.S | re.M)
    if not m:
        raise LayersError(f"{doc_path}: no ```layers block")
    top, deps = None, {}
    first_line = text[: m.start(1)].count("\n") + 1
    for offset, raw in enumerate(m.group(1).splitlines()):
        line = raw.split("#", 1)[0].split()
        if not line:
            continue
        where = f"{doc_path}:{first_line + offset}"
        if line[0] == "top:":
            top = line[1:]
            continue
        name = line[0].rstrip("/")
        if name in deps:
            raise LayersError(f"{where}: component '{name}' is listed twice")
        deps[name] = line[1:]
    if top is None:
        raise LayersError(f"{doc_path}: the layers block names no top level (a 'top:' line)")
    for comp, named in deps.items():
        for d in named:
            if not expand(d, deps):
                raise LayersError(f"{doc_path}: component '{comp}' names '{d}', which is no component")
    return top, deps


def expand(name, deps):
    """The components a dependency name stands for."""
    if name.endswith("/*"):
        prefix = name[:-1]
        return [c for c in deps if c.startswith(prefix)]
    return [name] if name in deps else []


def closure(deps):
    """Each component's allowed components (itself and everything it reaches); refuses a cycle."""
    direct = {c: sorted({x for d in named for x in expand(d, deps)}) for c, named in deps.items()}
    state, order = {}, []

    def visit(c, path):
        if state.get(c) == "done":
            return
        if state.get(c) == "open":
            cycle = path[path.index(c):] + [c]
            raise LayersError("the layers block has a cycle: " + " → ".join(cycle))
        state[c] = "open"
        for d in direct[c]:
            visit(d, path + [c])
        state[c] = "done"
        order.append(c)

    for c in deps:
        visit(c, [])
    reach = {}
    for c in order:  # dependencies first
        r = {c}
        for d in direct[c]:
            r |= reach[d]
        reach[c] = r
    return reach


def component_of(path, deps):
    best = None
    for c in deps:
        if path == c or path.startswith(c + "/"):
            if best is None or len(c) > len(best):
                best = c
    return best


def source_files(root, folders):
    for folder in folders:
        base = os.path.join(root, folder)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def top_level_folders(root):
    """The tree's top-level folders: git's tracked ones in a checkout (build folders and other
    untracked ones are not the tree's), else every folder but hidden and build ones."""
    try:
        p = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True)
        tracked = {f.split("/", 1)[0] for f in p.stdout.decode("utf-8", "replace").split("\0") if "/" in f}
        if tracked:
            return sorted(e for e in tracked if not e.startswith("."))
    except (OSError, subprocess.CalledProcessError):
        pass
    return sorted(
        e for e in os.listdir(root)
        if os.path.isdir(os.path.join(root, e)) and not e.startswith(".") and not e.startswith("build"))


def check(root):
    """Violations as lines; raises LayersError for a bad layers block."""
    doc = os.path.join(root, "docs", "architecture.md")
    top, deps = read_layers(doc)
    reach = closure(deps)
    problems = []
    present = top_level_folders(root)
    for e in present:
        if e not in top:
            problems.append(f"{e}/: a top-level folder docs/architecture.md's layers block does not name")
    for e in top:
        if e not in present:
            problems.append(f"{e}/: named by docs/architecture.md's top level but missing")
    code_top = sorted({c.split("/")[0] for c in deps})
    free = ("tests", "bench")  # above everything
    for path in source_files(root, code_top):
        comp = component_of(path, deps)
        if comp is None:
            problems.append(f"{path}: in no component of docs/architecture.md's layers block")
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                first = inc.split("/")[0]
                if first in free:
                    problems.append(f"{path}:{lineno}: includes {inc}: only tests/ and bench/ may include them")
                    continue
                if first not in code_top:
                    continue  # a library's header, or a path relative to the file
                target = component_of(inc, deps)
                if target is None:
                    problems.append(f"{path}:{lineno}: includes {inc}, which is in no component")
                elif target not in reach[comp]:
                    problems.append(
                        f"{path}:{lineno}: includes {inc}: {comp} may not depend on {target} "
                        f"(docs/architecture.md: {comp} → {' '.join(deps[comp]) or 'nothing'})")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = ap.parse_args()
    try:
        problems = check(args.root)
    except LayersError as e:
        print(f"check_includes: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    if problems:
        print(f"check_includes: {len(problems)} problem(s) with the stated order", file=sys.stderr)
        return 1
    print("check_includes: every #include follows docs/architecture.md's layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())

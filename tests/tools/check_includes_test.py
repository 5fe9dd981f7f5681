#!/usr/bin/python3
"""tools/check_includes.py fails on an order broken on purpose, in a scratch copy of the tree:
an include against the stated order (gemm → qgemm, sim → models, kernels/graph → the session),
a top-level folder the design card does not name, a source file in no component, a cycle in the
layers block. The copy as it is passes."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")
    else:
        print(f"ok: {what}")


def copy_tree(root, dest):
    for entry in os.listdir(root):
        src = os.path.join(root, entry)
        if entry.startswith(".") or entry.startswith("build") or not os.path.isdir(src):
            continue
        os.makedirs(os.path.join(dest, entry))
    for folder in ("sim", "models", "kernels", "tools"):
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for f in files:
                if f.endswith((".h", ".cpp")):
                    rel = os.path.relpath(os.path.join(dirpath, f), root)
                    os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
                    shutil.copy(os.path.join(root, rel), os.path.join(dest, rel))
    shutil.copy(os.path.join(root, "docs", "architecture.md"), os.path.join(dest, "docs", "architecture.md"))


def run(checker, root):
    p = subprocess.run(["/usr/bin/python3", checker, "--root", root], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def add_include(root, path, include):
    full = os.path.join(root, path)
    with open(full, encoding="utf-8") as f:
        lines = f.readlines()
    at = next(i for i, l in enumerate(lines) if l.startswith("#include"))
    lines.insert(at, f'#include "{include}"\n')
    with open(full, "w", encoding="utf-8") as f:
        f.writelines(lines)
    return at + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    checker = os.path.join(args.root, "tools", "check_includes.py")
    with tempfile.TemporaryDirectory() as scratch:
        base = os.path.join(scratch, "base")
        copy_tree(args.root, base)
        code, out = run(checker, base)
        expect(code == 0, f"the tree as it is passes (exit {code}: {out.strip()})")

        def case(name, change, want_code, *want):
            tree = os.path.join(scratch, name)
            shutil.copytree(base, tree)
            change(tree)
            code, out = run(checker, tree)
            ok = code == want_code and all(w in out for w in want)
            expect(ok, f"{name}: exit {want_code} naming {want} (got exit {code}: {out.strip()[:300]})")

        line = {}

        def gemm_to_qgemm(t):
            line["gemm"] = add_include(t, "kernels/gemm/gemm.h", "kernels/qgemm/qgemm_kernel.h")

        case("gemm-includes-qgemm", gemm_to_qgemm, 1, "kernels/gemm/gemm.h:",
             "includes kernels/qgemm/qgemm_kernel.h", "kernels/gemm may not depend on kernels/qgemm")
        case("sim-includes-models", lambda t: add_include(t, "sim/timing/cost_model.h", "models/simulation.h"), 1,
             "sim/timing/cost_model.h:", "sim/timing may not depend on models")
        case("graph-includes-session",
             lambda t: add_include(t, "kernels/graph/graph_program.cpp", "tools/session/run_problem.h"), 1,
             "kernels/graph may not depend on tools/session")
        case("kernel-includes-a-test", lambda t: add_include(t, "kernels/kernel.cpp", "tests/configs.h"), 1,
             "only tests/ and bench/ may include them")
        case("a-folder-the-card-does-not-name", lambda t: os.makedirs(os.path.join(t, "graph")), 1,
             "graph/: a top-level folder")

        def drop_component(t):
            doc = os.path.join(t, "docs", "architecture.md")
            text = open(doc, encoding="utf-8").read().replace("sim/plan          sim/core\n", "")
            open(doc, "w", encoding="utf-8").write(text)

        case("a-file-in-no-component", drop_component, 1, "sim/plan/", "in no component")

        def cycle(t):
            doc = os.path.join(t, "docs", "architecture.md")
            text = open(doc, encoding="utf-8").read().replace("\nsim/core\n", "\nsim/core          sim/timing\n")
            open(doc, "w", encoding="utf-8").write(text)

        case("a-cycle-in-the-block", cycle, 2, "cycle", "sim/core")
    print(f"{len(failures)} failed" if failures else "all cases passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

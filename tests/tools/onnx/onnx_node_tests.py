#!/usr/bin/python3
"""ONNX's backend node tests (Debian's libonnx-testdata) under `treesim onnx test`.

The list is docs/onnx.md's table ("| test_name | pass |" or "| test_name | unsupported: why |"), so
the document says exactly what this checks: a "pass" test must exit 0 with every output passing; an
unsupported one must be refused with one line naming the node (exit 2), when it is placed or, for a
type the node cannot take (a float MaxPool), when the run reaches it.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

DATA = Path("/usr/share/libonnx-testdata/data/node")


def table(doc: Path):
    rows = []
    for line in doc.read_text().splitlines():
        m = re.match(r"^\|\s*`?(test_[A-Za-z0-9_]+)`?\s*\|\s*(pass|unsupported)\b", line)
        if m:
            rows.append((m.group(1), m.group(2)))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--treesim", required=True)
    ap.add_argument("--machine", required=True)
    ap.add_argument("--doc", required=True)
    args = ap.parse_args()
    rows = table(Path(args.doc))
    if not rows:
        print(f"{args.doc}: no test table found")
        return 1
    failures = 0
    for name, expected in rows:
        folder = DATA / name
        if not folder.is_dir():
            print(f"{name}: {folder} is missing (is libonnx-testdata installed?)")
            failures += 1
            continue
        r = subprocess.run([args.treesim, "onnx", "test", str(folder), "--machine", args.machine],
                           capture_output=True, text=True, timeout=120)
        if expected == "pass":
            ok = r.returncode == 0 and r.stdout and all(" pass " in l for l in r.stdout.splitlines())
        else:
            # Refused when placed ("treesim: node ...") or when its inputs are seen ("treesim: TEST: node ...").
            ok = (r.returncode == 2 and re.match(r"treesim: (test_\w+: )?node ", r.stderr) is not None
                  and r.stderr.count("\n") == 1)
        print(f"{name}: {expected}: {'ok' if ok else 'WRONG'}")
        if not ok:
            failures += 1
            print("  exit", r.returncode, "stdout:", r.stdout.strip()[:300], "stderr:", r.stderr.strip()[:300])
    print(f"{len(rows) - failures} of {len(rows)} as documented")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

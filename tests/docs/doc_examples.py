#!/usr/bin/python3
"""Runs the worked examples of Markdown documents and compares their output with what they show.

An example is a fenced block opened with ```console. In it, a line starting with `$ ` is a command
(continued on the next lines while it ends with a backslash or has an unclosed quote); the lines
after it, up to the next command, are what it prints: stdout and stderr together, as a terminal
shows them. An expected line containing `...` matches any text in place of the `...` (for figures
that change from run to run). Blocks opened with ```sh, ```text or anything else are not run, and
must not show a `$ ` command line (output shown without being run).

Prose that quotes figures of an example is checked too: the paragraph after a line
`<!-- numbers from the output above -->` may only hold numbers that the console blocks above it in
the same section (since the last heading) print or have in their commands. Numbers are compared as
values (`12,345` is 12345, `87%` matches `87.0%`); link targets and section signs (`§8.5`) are
skipped. --rewrite does not rewrite prose: fix the reported numbers by hand.

Each block runs in a fresh temporary directory holding a copy of docs/examples/ and `configs`, `tools` and
`tests` links to the repository's configs/, tools/ and tests/ (whose tests/data/mlp/ holds the committed
models), so commands use paths such as `configs/mini.yaml`, `tests/data/mlp/int8` and `gemm.prog` and
write their files there. `treesim` is the built binary (its directory is first on PATH, then
/usr/bin, so `python3` is the system one with NumPy); TREESIM_ROOT is the repository root. The
commands of one block run one after another in the same directory, each with bash.

Usage: doc_examples.py --treesim BUILD/tools/treesim --root REPO [--rewrite] FILE.md...
With --rewrite the expected output of every failing command is replaced by what it printed: review
the diff before committing it.
"""
import argparse
import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile


class Command:
    def __init__(self, line, text):
        self.line = line          # 1-based line of the `$ ` in the document
        self.text = text          # the command, continuation lines included
        self.expected = []        # expected output lines
        self.expected_start = 0   # 0-based index of the first expected line in the document


def complete(command):
    if command.endswith("\\"):
        return False
    try:
        shlex.split(command, comments=True)
    except ValueError:  # an unclosed quote: the command goes on
        return False
    return True


def parse_blocks(lines):
    """Yields (opening line number, [Command]) for every ```console block."""
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        start = i + 1
        i += 1
        commands = []
        while i < len(lines) and lines[i].rstrip() != "```":
            line = lines[i]
            if line.startswith("$ "):
                cmd = Command(i + 1, line[2:])
                while not complete(cmd.text) and i + 1 < len(lines) and lines[i + 1].rstrip() != "```":
                    i += 1
                    cmd.text += "\n" + lines[i]
                cmd.expected_start = i + 1
                commands.append(cmd)
            elif commands:
                commands[-1].expected.append(line)
            else:
                raise SyntaxError(f"line {i + 1}: output before the first `$ ` command of the block")
            i += 1
        yield start, commands, i
        i += 1


PROSE_MARK = "<!-- numbers from the output above -->"
NUMBER = re.compile(r"(?<![0-9.])[0-9]+(?:,[0-9]{3})*(?:\.[0-9]+)?")


def numbers(text):
    """The numeric values in a text, thousands separators removed."""
    return {float(n.replace(",", "")) for n in NUMBER.findall(text)}


def prose_numbers(text):
    text = re.sub(r"\]\([^)]*\)", "]", text)          # link targets
    text = re.sub(r"§[0-9]+(?:\.[0-9]+)*", "", text)  # section references
    return [n for n in NUMBER.findall(text)]


def marked_paragraphs(lines):
    """Yields (1-based line of the mark, paragraph text) for every prose mark."""
    for i, line in enumerate(lines):
        if line.strip() != PROSE_MARK:
            continue
        j = i + 1
        para = []
        while j < len(lines) and lines[j].strip():
            para.append(lines[j])
            j += 1
        yield i + 1, "\n".join(para)


def unrun_commands(lines):
    """Yields the 1-based line of every `$ ` line in a fenced block that is not ```console."""
    i = 0
    while i < len(lines):
        if lines[i].startswith("```") and lines[i].strip() != "```console":
            i += 1
            while i < len(lines) and lines[i].rstrip() != "```":
                if lines[i].startswith("$ "):
                    yield i + 1
                i += 1
        elif lines[i].strip() == "```console":
            i += 1
            while i < len(lines) and lines[i].rstrip() != "```":
                i += 1
        i += 1


def matches(expected, got):
    if "..." not in expected:
        return expected == got
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, got) is not None


def same(expected, got):
    return len(expected) == len(got) and all(matches(e, g) for e, g in zip(expected, got))


def run_block(commands, root, treesim, timeout):
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(os.path.abspath(treesim)) + os.pathsep + "/usr/bin" + os.pathsep + env.get("PATH", "")
    env["TREESIM_ROOT"] = root
    results = []
    with tempfile.TemporaryDirectory(prefix="treesim-doc-") as tmp:
        examples = os.path.join(root, "docs", "examples")
        if os.path.isdir(examples):
            shutil.copytree(examples, tmp, dirs_exist_ok=True)
        os.symlink(os.path.join(root, "configs"), os.path.join(tmp, "configs"))
        os.symlink(os.path.join(root, "tests"), os.path.join(tmp, "tests"))
        os.symlink(os.path.join(root, "tools"), os.path.join(tmp, "tools"))
        for cmd in commands:
            try:
                p = subprocess.run(["bash", "-c", cmd.text], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
                out = p.stdout.decode("utf-8", errors="replace")
            except subprocess.TimeoutExpired:
                out = f"(timed out after {timeout} s)\n"
            got = out.split("\n")
            if got and got[-1] == "":
                got.pop()
            results.append(got)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--treesim", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--rewrite", action="store_true")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    failures = examples = paragraphs = 0
    for name in args.files:
        path = os.path.join(root, name)
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        edits = []
        shown = []  # (line of the block's opening, the numbers its commands and outputs hold)
        for line in unrun_commands(lines):
            failures += 1
            print(f"{name}:{line}: a `$ ` command in a block that is not ```console (it would not be run)")
        for start, commands, _ in parse_blocks(lines):
            pool = set()
            for cmd, got in zip(commands, run_block(commands, root, args.treesim, args.timeout)):
                pool |= numbers(cmd.text) | numbers("\n".join(got))
                examples += 1
                if same(cmd.expected, got):
                    continue
                failures += 1
                print(f"{name}:{cmd.line}: $ {cmd.text}")
                diff = difflib.unified_diff(cmd.expected, got, "shown", "printed", lineterm="", n=2)
                print("\n".join("    " + d for d in diff))
                edits.append((cmd.expected_start, len(cmd.expected), got))
            shown.append((start, pool))
        fenced, inside = set(), False
        for i, line in enumerate(lines):
            if line.startswith("```"):
                inside = not inside
            if inside:
                fenced.add(i)
        for mark, text in marked_paragraphs(lines):
            section = max([i + 1 for i in range(mark) if lines[i].startswith("#") and i not in fenced], default=0)
            pool = set()
            for start, block in shown:
                if section < start < mark:
                    pool |= block
            missing = [n for n in prose_numbers(text) if float(n.replace(",", "")) not in pool]
            paragraphs += 1
            if missing:
                failures += 1
                print(f"{name}:{mark + 1}: prose numbers not printed by the examples above it: {', '.join(missing)}")
        if args.rewrite and edits:
            for start, count, got in sorted(edits, reverse=True):
                lines[start:start + count] = got
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
    print(f"{examples} commands and {paragraphs} quoting paragraphs checked, {failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

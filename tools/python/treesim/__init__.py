"""treesim from Python: machines from files or dicts, kernels run with NumPy arrays in and out.

SystemC elaborates once per process, so every run happens in a worker process: the `treesim`
binary, started by the module with the run's options and its arrays as .npy files in a private
temporary folder. A session can therefore simulate any number of machines, one after another or
side by side. docs/python.md documents the API.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from . import _treesim

__all__ = ["Error", "Machine", "OnnxResult", "Result", "binary", "run_onnx"]


class Error(RuntimeError):
    """A run or a machine that failed: the one-line message treesim gives."""


def binary() -> str:
    """The treesim binary the workers run: $TREESIM_BINARY, else the one built with this module."""
    return os.environ.get("TREESIM_BINARY") or _treesim.default_binary


@dataclass
class Result:
    """One run: the output array (None when the run writes none), the report and the printed text."""

    output: Optional[np.ndarray]
    report: dict
    text: str = field(default="", repr=False)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


class Machine:
    """A machine from a machine file (a path) or a dict with the same fields (docs/machine-files.md).

    The machine is read and checked at once; a bad one raises Error with the file's one-line message.
    """

    def __init__(self, source: Any):
        self._tmp = tempfile.TemporaryDirectory(prefix="treesim-")
        self._runs = 0
        try:
            if isinstance(source, dict):
                # JSON is YAML: the dict is written as the machine file the workers read.
                text = json.dumps(source, indent=1)
                self.path = os.path.join(self._tmp.name, "machine.yaml")
                with open(self.path, "w", encoding="utf-8") as f:
                    f.write(text)
                self.summary = _treesim.parse_machine(text, "machine dict")
            else:
                self.path = os.path.abspath(os.fspath(source))
                self.summary = _treesim.load_machine(self.path)
        except ValueError as e:
            raise Error(str(e)) from None
        self.name = self.summary["name"]

    def __repr__(self) -> str:
        return f"Machine({self.name!r}, pes={self.summary['pes']})"

    def run(self, kernel: str, **options: Any) -> Result:
        """Run `kernel` (qgemm, tgemm, relu, chain, ..., or mlp) with options as keywords.

        An option named like the command-line one, with '_' for '-' (out_dtype="f32" is
        --out-dtype f32). Values: a NumPy array (written as .npy), a dict (written as a YAML file,
        e.g. quant=...), True (a flag; False leaves it out), or anything str() turns into the value.
        """
        self._runs += 1
        folder = os.path.join(self._tmp.name, f"run{self._runs}")
        os.mkdir(folder)
        args = [binary(), "run", kernel, "--machine", self.path]
        for name, value in options.items():
            if value is None or value is False:
                continue
            if value is True:
                args.append(_flag(name))
            elif isinstance(value, np.ndarray):
                path = os.path.join(folder, f"{name}.npy")
                np.save(path, value)
                args += [_flag(name), path]
            elif isinstance(value, dict):
                path = os.path.join(folder, f"{name}.yaml")
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(value, f, indent=1)
                args += [_flag(name), path]
            else:
                args += [_flag(name), str(value)]
        report = os.path.join(folder, "report.json")
        out = os.path.join(folder, "out.npy")
        args += ["--report", report]
        if not options.get("timing_only") and not options.get("plan"):
            args += ["--out", out]
        worker = subprocess.run(args, capture_output=True, text=True, check=False)
        if worker.returncode != 0:
            message = worker.stderr.strip().splitlines()[-1] if worker.stderr.strip() else "failed"
            raise Error(message.removeprefix("treesim: "))
        result = Result(None, {}, worker.stdout)
        if os.path.exists(report):  # every run writes one; --plan runs nothing
            with open(report, encoding="utf-8") as f:
                result.report = json.load(f)
        if os.path.exists(out):
            result.output = np.load(out)
        return result


@dataclass
class OnnxResult:
    """An ONNX model's run: its outputs by name, the per-node report and the printed text."""

    outputs: dict
    report: dict
    text: str = field(default="", repr=False)


def run_onnx(path: Any, inputs: dict, machine: Any, verify: bool = True) -> OnnxResult:
    """Run the ONNX model at `path` on `machine` (a Machine, a machine file or a dict), with `inputs`
    by graph input name (NumPy arrays of int8, uint8, int32 or float32), as `treesim onnx run`
    does (docs/onnx.md). With verify (the default) every machine node is checked against its host
    reference; a difference raises Error."""
    m = machine if isinstance(machine, Machine) else Machine(machine)
    with tempfile.TemporaryDirectory(prefix="treesim-onnx-") as tmp:
        args = [binary(), "onnx", "run", os.path.abspath(os.fspath(path)), "--machine", m.path]
        for name, value in inputs.items():
            file = os.path.join(tmp, f"input{len(args)}.npy")
            np.save(file, np.asarray(value))
            args += ["--input", f"{name}={file}"]
        out, report = os.path.join(tmp, "out"), os.path.join(tmp, "report.json")
        args += ["--out", out, "--report", report]
        if verify:
            args.append("--verify")
        worker = subprocess.run(args, capture_output=True, text=True, check=False)
        if worker.returncode != 0:
            message = worker.stderr.strip().splitlines()[-1] if worker.stderr.strip() else "failed"
            raise Error(message.removeprefix("treesim: "))
        with open(report, encoding="utf-8") as f:
            rep = json.load(f)
        outputs = {o["name"]: np.load(os.path.join(out, o["file"])) for o in rep["outputs"]}
        return OnnxResult(outputs, rep, worker.stdout)

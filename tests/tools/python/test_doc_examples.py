"""The Python examples of docs/tour.md, docs/python.md and docs/onnx.md, run as they stand (from the repository
root): each ```python block followed by "It prints:" and a ```text block must print that text."""

import contextlib
import io
import os
import re

import pytest

EXAMPLE = re.compile(r"```python\n(.*?)```\n\nIt prints:\n\n```text\n(.*?)```", re.S)


def examples(root, document):
    with open(os.path.join(root, document), encoding="utf-8") as f:
        found = EXAMPLE.findall(f.read())
    assert found, f"{document} has no ```python block followed by 'It prints:' and a ```text block"
    return found


@pytest.mark.parametrize("document", ["docs/tour.md", "docs/python.md", "docs/onnx.md"])
def test_python_examples_print_what_the_document_shows(root, document, monkeypatch):
    monkeypatch.chdir(root)
    for code, shown in examples(root, document):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, document, "exec"), {})
        assert printed.getvalue() == shown

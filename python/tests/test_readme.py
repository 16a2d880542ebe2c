"""The README's Python examples run, and print what their comments say: a line
`expression  # value: prose` must give repr(expression) == value, and an assignment
`x, y = ...  # x: value` must give repr(x) == value. Blocks that import CuPy or PyTorch run where
a GPU and the library are there, blocks that import Dask where Dask is (skipped, with the
reason, elsewhere)."""

import pathlib
import re

import pytest

import corank

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def python_blocks():
    text = README.read_text()
    section = text[text.index("\n## Python\n"):]
    section = section[:section.index("\n## ", 1)]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def needs(block):
    for library in ("cupy", "torch", "dask"):
        if re.search(rf"^import .*\b{library}\b", block, re.M):
            return library
    return None


@pytest.mark.parametrize("block", python_blocks(), ids=lambda b: needs(b) or "numpy")
def test_readme_example(block):
    library = needs(block)
    if library:
        pytest.importorskip(library, reason=f"the example needs {library}")
    if library in ("cupy", "torch"):
        reason = corank.gpu_unavailable_reason()
        if reason:
            pytest.skip(f"the example needs a GPU: {reason}")
    scope = {}
    checked = 0
    for line in block.splitlines():
        code, _, comment = line.partition("  # ")
        exec(code, scope)
        if not comment:
            continue
        head, _, rest = comment.partition(": ")
        if "=" in code.split("(")[0]:  # an assignment: `# name: value`
            name, expected = head, rest.split(": ")[0]
            got = repr(eval(name, scope))
        else:  # an expression: `# value: prose`
            expected = head
            got = repr(eval(code, scope))
        assert got == expected, f"README line {line!r}: got {got}"
        checked += 1
    assert checked > 0

"""The Python examples of the README (its Python section) and of docs/guide/python.md run,
and print what their comments say: a line `expression  # value: prose` must give
repr(expression) == value, and an assignment `x, y = ...  # x: value` must give repr(x) == value.
Blocks that import CuPy or PyTorch run where a GPU and the library are there, blocks that import
Dask where Dask is (skipped, with the reason, elsewhere)."""

import pathlib
import re

import pytest

import corank

ROOT = pathlib.Path(__file__).resolve().parents[2]


def python_blocks():
    """(document, block) for every Python block of the README's Python section and of the guide."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("\n## Python\n"):]
    section = section[:section.index("\n## ", 1)]
    guide = (ROOT / "docs" / "guide" / "python.md").read_text()
    blocks = [("README", b) for b in re.findall(r"```python\n(.*?)```", section, re.S)]
    blocks += [("guide", b) for b in re.findall(r"```python\n(.*?)```", guide, re.S)]
    assert blocks, "no Python examples found"
    return blocks


def needs(block):
    for library in ("cupy", "torch", "dask"):
        if re.search(rf"^import .*\b{library}\b", block, re.M):
            return library
    return None


BLOCKS = python_blocks()


@pytest.mark.parametrize("document, block", BLOCKS, ids=[f"{d}-{needs(b) or 'numpy'}" for d, b in BLOCKS])
def test_readme_example(document, block):
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
        assert got == expected, f"{document} line {line!r}: got {got}"
        checked += 1
    assert checked > 0

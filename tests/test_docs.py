"""Every example a user can read runs: the README's Python blocks and every docstring.

* Each fenced ``python`` block of ``README.md`` is executed, in order, each in a fresh
  namespace (a reader copies one block at a time, so every block must stand alone).
* Every ``>>>`` example in the modules of the installed :mod:`treeopt` package is run
  with :mod:`doctest` (the installed package, so the compiled core is the one built by
  ``pip install``). ``treeopt.torch`` needs PyTorch, an optional dependency: its examples
  run when PyTorch is installed and the test says it was skipped otherwise.

A broken example therefore fails the test suite, and CI.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import matplotlib
import pytest

import treeopt

matplotlib.use("Agg")

README = Path(__file__).resolve().parent.parent / "README.md"

_FENCE_RE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def readme_python_blocks():
    """``(first line number, code)`` of every fenced python block of the README."""
    text = README.read_text(encoding="utf-8")
    blocks = []
    for match in _FENCE_RE.finditer(text):
        line = text.count("\n", 0, match.start(1)) + 1
        blocks.append((line, match.group(1)))
    return blocks


_BLOCKS = readme_python_blocks()


def test_readme_has_python_examples():
    # The parser itself must find the blocks: a fence it cannot read would skip them all.
    assert len(_BLOCKS) >= 5
    assert README.read_text(encoding="utf-8").count("```python") == len(_BLOCKS)


#: Libraries a README block may use that treeopt does not depend on (they are in the test
#: extra): such a block is skipped, with the reason, only where the library is missing,
#: as in the run at the declared dependency floors.
_BLOCK_EXTRAS = ("dask",)


@pytest.mark.parametrize("line,code", _BLOCKS, ids=[f"README.md:{line}" for line, _ in _BLOCKS])
def test_readme_block_runs(line, code, tmp_path, monkeypatch):
    for module in _BLOCK_EXTRAS:
        if re.search(rf"^\s*(from|import) {module}\b", code, re.M):
            pytest.importorskip(module, reason=f"README.md:{line} needs {module}, which treeopt does not depend on")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__readme__"}
    exec(compile(code, f"README.md:{line}", "exec"), namespace)  # noqa: S102 - the docs are the test


def _public_modules():
    names = [treeopt.__name__]
    for info in pkgutil.walk_packages(treeopt.__path__, treeopt.__name__ + "."):
        if info.name.endswith("__main__"):
            continue  # importing it would run the command line
        names.append(info.name)
    return sorted(names)


_OPTIONAL = {"treeopt.torch": "torch"}


@pytest.mark.parametrize("module_name", _public_modules())
def test_docstring_examples_run(module_name):
    if module_name in _OPTIONAL:
        pytest.importorskip(_OPTIONAL[module_name], reason=f"{module_name} needs the optional {_OPTIONAL[module_name]}")
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    for test in finder.find(module, module_name):
        runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)


def test_every_docstring_example_is_run():
    """No example hides behind ``+SKIP``: a skipped example is an example nobody checks."""
    skipped = []
    package = Path(treeopt.__file__).parent
    for path in sorted(package.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "doctest:" in line and "+SKIP" in line:
                skipped.append(f"{path.relative_to(package)}:{number}: {line.strip()}")
    assert not skipped, "\n".join(skipped)

"""The package is typed: the stub of the compiled module says what the module has, and
``mypy --strict`` finds no error in the package.

``python/treeopt/_core.pyi`` is written by hand beside ``rust/python/src``: these tests
fail when a name, an argument list or a field of ``treeopt._core`` changes without it.
The strict check runs mypy with the repository's configuration (``[tool.mypy]`` in
``pyproject.toml``: the stubs of ``typings/``), against pandas-stubs and scipy-stubs.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
from importlib import metadata
from pathlib import Path

import pytest

import treeopt
from treeopt import _core

STUB = Path(treeopt.__file__).with_name("_core.pyi")
REPO_ROOT = Path(__file__).resolve().parent.parent


def _stub():
    """``{name: node}`` of the stub's top-level classes and functions."""
    tree = ast.parse(STUB.read_text())
    return {n.name: n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}


def _public(names):
    return {n for n in names if not n.startswith("_")}


def _parameters(fn):
    """``[(name, default source or None)]`` of a stub function, ``self`` left out."""
    args = fn.args
    defaults = [None] * (len(args.args) - len(args.defaults)) + [ast.unparse(d) for d in args.defaults]
    return [(a.arg, d) for a, d in zip(args.args, defaults) if a.arg != "self"]


def _runtime_parameters(obj):
    sig = inspect.signature(obj)
    return [
        (p.name, None if p.default is inspect.Parameter.empty else repr(p.default))
        for p in sig.parameters.values()
        if p.name != "self"
    ]


def test_stub_and_module_have_the_same_public_names():
    assert _public(_stub()) == _public(n for n in dir(_core) if not n.startswith("__"))
    assert STUB.with_name("py.typed").exists()


@pytest.mark.parametrize("name", sorted(_public(_stub())))
def test_stub_signatures_and_fields_match_the_module(name):
    node, runtime = _stub()[name], getattr(_core, name)
    if isinstance(node, ast.FunctionDef):
        assert _parameters(node) == _runtime_parameters(runtime)
        return
    methods = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
    fields = {n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
    assert fields | _public(methods) == _public(vars(runtime))
    for method in _public(methods):
        assert _parameters(methods[method]) == _runtime_parameters(getattr(runtime, method)), method
    if "__init__" in methods and runtime.__text_signature__ is not None:
        assert _parameters(methods["__init__"]) == _runtime_parameters(runtime)


def test_the_stub_type_checks(tmp_path):
    api = pytest.importorskip("mypy.api")
    stub = tmp_path / "_core.pyi"  # away from site-packages, which mypy would take as a package root
    stub.write_text(STUB.read_text())
    out, err, status = api.run(["--strict", "--cache-dir", str(tmp_path / "cache"), str(stub)])
    assert status == 0, out + err


def _distribution_installed(name):
    try:
        metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return False
    return True


@pytest.mark.skipif(
    importlib.util.find_spec("mypy") is None,
    reason="mypy is not installed (it is in the test extra; the run at the dependency floors has none)",
)
@pytest.mark.skipif(
    not _distribution_installed("pandas-stubs"),
    reason="pandas-stubs is not installed (test extra, Python >= 3.10): mypy would not know pandas",
)
@pytest.mark.skipif(
    not _distribution_installed("scipy-stubs"),
    reason="scipy-stubs is not installed (test extra, Python >= 3.10): mypy would not know scipy",
)
@pytest.mark.skipif(
    not (REPO_ROOT / "pyproject.toml").is_file() or not (REPO_ROOT / "python" / "treeopt").is_dir(),
    reason="not run from a source checkout (no pyproject.toml / python/treeopt to check)",
)
def test_mypy_strict_finds_no_error_in_the_package(monkeypatch):
    """``mypy --strict python/treeopt`` with the repository's configuration reports 0
    errors (a configuration error, which mypy prints on stderr, counts as one)."""
    from mypy import api

    monkeypatch.chdir(REPO_ROOT)  # the configuration's paths (typings/) are relative to it
    out, err, status = api.run(["--strict", "--config-file", "pyproject.toml", "python/treeopt"])
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert (status, errors, err.strip()) == (0, [], ""), (
        f"mypy --strict python/treeopt: {len(errors)} error(s), exit status {status}\n{out}{err}"
    )

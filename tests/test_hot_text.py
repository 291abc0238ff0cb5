"""The code layout of ``treeopt._core`` on Linux: the functions small first fits run sit
together at the start of ``.text`` (``rust/python/hot_text.ld``, written by
``benches/hot_text.py``), so a first numeric fit maps few 64 KiB blocks of code."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import treeopt._core as core

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benches"))
import hot_text  # noqa: E402

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("nm") is None or shutil.which("readelf") is None,
    reason="the hot-text layout is an ELF linker script; needs nm and readelf",
)


def _hot_section():
    """(start, size) of the extension's ``.text.treeopt_hot``, or None without one."""
    out = subprocess.run(["readelf", "-SW", core.__file__], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.replace("[ ", "[").split()
        if ".text.treeopt_hot" in parts:
            i = parts.index(".text.treeopt_hot")
            return int(parts[i + 2], 16), int(parts[i + 4], 16)
    return None


def test_every_hot_pattern_still_names_a_function():
    # A renamed or removed hot function leaves a pattern that matches nothing: rerun
    # benches/hot_text.py (the layout would silently fall back to the compiler's).
    if _hot_section() is None:
        pytest.skip("built without the hot-text script (own linker, TREEOPT_NO_HOT_TEXT, or no v0 names)")
    assert hot_text.check(core.__file__) == []


def test_a_small_numeric_fit_runs_code_from_the_hot_section_only():
    # The search's entry points for a numeric misclassification fit (the graph search's
    # instance and the sweep kernel) are placed in the hot section.
    hot = _hot_section()
    if hot is None:
        pytest.skip("built without the hot-text script")
    start, size = hot
    syms = subprocess.run(["nm", "--defined-only", core.__file__], capture_output=True, text=True, check=True).stdout
    placed = {}
    for line in syms.splitlines():
        addr, _, name = line.split()[:3] if len(line.split()) >= 3 else (None, None, None)
        if name and name.startswith("_R"):
            placed[name] = int(addr, 16)
    numeric = [n for n in placed if "6Solver" in n and "17Misclassification" in n and "10Thresholds" in n
               and re.search(r"E(6search|3new|12kernel_above)(B[0-9A-Za-z]*_)?$", n)]
    sweep = [n for n in placed if n.startswith("_RINvM") and re.search(r"5Sweep11solve_above.*17Misclassification", n)]
    assert len(numeric) == 3 and len(sweep) == 1
    assert all(start <= placed[n] < start + size for n in numeric + sweep)
    # and the fit itself works on the layout
    X = np.random.default_rng(0).random((40, 3))
    y = (X[:, 0] > 0.5).astype(int)
    from treeopt import DL85Classifier

    assert DL85Classifier(max_depth=2).fit(X, y).score(X, y) == 1.0

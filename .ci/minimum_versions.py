#!/usr/bin/env python
"""Print pip requirements pinning every dependency of treeopt at its declared floor.

With ``--newest`` it prints the same requirements as declared instead (``name>=v``), for
``pip install --upgrade``: the newest versions the declarations allow, which the first
stage of ``.ci/run`` tests.

Reads ``pyproject.toml``: the runtime dependencies, the ``plot`` and ``pandas`` extras
and the test runners of the ``test`` extra (pytest, hypothesis), each ``name>=v`` as
``name==v``. CI installs these into a fresh venv and runs the whole test suite there, so
a floor that is too low fails CI instead of a user's install. (The peers of the ``test``
extra are other projects' solvers, pinned exactly already; their tests skip without them.
``torch`` is left out: the wheel is gigabytes and its tests skip without it.)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

TEST_RUNNERS = ("pytest", "hypothesis")


def declared(pyproject: Path) -> list:
    """The runtime dependencies, the plot and pandas extras and the test runners, as declared."""
    project = tomllib.loads(pyproject.read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = list(project["dependencies"]) + extras["plot"] + extras["pandas"]
    wanted += [r for r in extras["test"] if re.match(r"(%s)\b" % "|".join(TEST_RUNNERS), r)]
    return wanted


def pins(pyproject: Path) -> list:
    """Each declared ``name>=v`` as ``name==v``."""
    out = []
    for requirement in declared(pyproject):
        m = re.fullmatch(r"([A-Za-z0-9_.\-\[\]]+)\s*>=\s*([0-9][0-9.]*)", requirement.strip())
        if m is None:
            sys.exit(f"{requirement!r} has no plain '>=' floor to pin")
        out.append(f"{m.group(1)}=={m.group(2)}")
    return out


if __name__ == "__main__":
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    print("\n".join(declared(pyproject) if "--newest" in sys.argv[1:] else pins(pyproject)))

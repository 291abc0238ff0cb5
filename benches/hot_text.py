"""Writes ``rust/python/hot_text.ld``: the functions a small first fit runs, placed
together at the start of the extension's code.

Why: a process maps the code of ``treeopt._core`` 64 KiB at a time (the kernel's fault
around), so a first fit costs one 64 KiB block of resident memory per block of code it
touches. Left to the compiler, a numeric DL8.5 fit at depth 2 runs about 100 pages of
code spread over 26 such blocks of the 2.3 MB ``.text`` (the generic search's six
instantiations are laid out method by method, the sweep's three objective by objective,
the binding and the non-generic helpers at the far end), 10 of them not yet mapped by the
import: 640 KiB, the whole of the fit's peak memory growth on raisin d2, more than
ConTree's 0.66 MiB.

How: each fit below runs once under valgrind's callgrind (collecting inside the binding's
``fit_tree`` only); the ``_core`` functions it executed, in the fits' order, become
input-section patterns of a linker script that ``rust/python/build.rs`` hands to the
linker (``INSERT BEFORE .text``: the default layout otherwise). Symbols are Rust's v0
mangling (``.cargo/config.toml``), which names a generic instance with its type
arguments, so a pattern picks ``Solver<PyMonitor, Misclassification, Thresholds>::search``
and not the five other instances; the crate hashes and back-references of a name (which
change with the compiler and the build) are wildcards. A pattern that matches nothing
costs nothing; one that matches too much only moves code.

    python benches/hot_text.py            # profile the fits and rewrite the script
    python benches/hot_text.py --check    # every pattern still matches a function

Run it (then rebuild) after renaming or splitting the search's hot functions.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "rust" / "python" / "hot_text.ld"

#: The fits profiled, in the order their code is laid out: a numeric DL8.5 fit first
#: (the ConTree bench's case), then what a deeper, a 0/1 and a 7-class fit add (GOSDT runs the same
#: search code; ``gosdt`` / ``*bin`` kinds are accepted).
FITS = [
    ("raisin", 2, "dl85"),
    ("raisin", 3, "dl85"),
    ("compas", 3, "dl85bin"),
    ("segment", 2, "dl85"),
]

#: Whole families of small functions taken after the profiled ones: the sweep's steps
#: for every class count (2, 3 and any: a few KB each). LLVM folds
#: identical instances (``RawVec<bool>::grow_one`` and ``RawVec<Opt>::grow_one``) into
#: one body under either name, so which name a profile reports changes from build to
#: build; together they are about 40 KB. Also the estimators' search objects, which the
#: Python side builds before each fit.
HELPERS = [
    ".text._R*5Sweep5shift*",
    ".text._R*5Sweep7move_to*",
    ".text._R*5alloc7raw_vec*",
    ".text._R*9hashbrown3raw*",
    ".text._R*8VecDeque*4grow*",
    ".text._R*7ndarray*",
    ".text._R*5__core7solvers*",
]

_FIT = """
import sys
sys.path.insert(0, {benches!r})
import numpy as np
import treeopt
from _numeric_data import load_numeric
X, y, _ = load_numeric({name!r})
if {kind!r}.endswith("bin"):
    X = (X > np.median(X, axis=0)).astype(np.uint8)
if {kind!r}.startswith("gosdt"):
    est = treeopt.GOSDTClassifier(max_depth={depth}, regularization=0.01)
else:
    est = treeopt.DL85Classifier(max_depth={depth})
est.fit(X, y)
"""


def executed(name, depth, kind):
    """The v0 names of the ``_core`` functions one fit runs (callgrind, inside fit_tree)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        code = _FIT.format(benches=str(REPO / "benches"), name=name, depth=depth, kind=kind)
        subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}",
                        "--toggle-collect=_RNvCs*__pyfunction_fit_tree", sys.executable, "-c", code],
                       check=True, capture_output=True)
        return parse(out)


def parse(path):
    """The ``_core`` functions with costs in the callgrind file ``path``, in its order
    (names without callgrind's ``'2`` recursion marks)."""
    names, objects, functions, in_core = [], {}, {}, False
    for line in open(path):
        m = re.match(r"(c?ob|c?fn)=\((\d+)\)(?: (\S+))?", line)
        if not m:
            continue
        kind, key, name = m.groups()
        table = objects if kind.endswith("ob") else functions
        if name:
            table[key] = name
        if kind == "ob":
            in_core = objects[key].endswith("_core.abi3.so")
        elif kind == "fn" and in_core:
            sym = functions[key].split("'")[0]
            if sym.startswith("_R") and sym not in names:
                names.append(sym)
    return names


def pattern(symbol):
    """A section pattern for ``symbol`` that survives new crate hashes: ``Cs<hash>_``
    disambiguators, ``B<offset>_`` back-references and the number LLVM appends to a
    local symbol's copy become wildcards."""
    p = re.sub(r"\.\d+$", "", symbol)  # LLVM's numbered copies of local symbols (".4559")
    p = re.sub(r"Cs[0-9A-Za-z]+_", "C*", p)
    p = re.sub(r"B[0-9A-Za-z]*_", "B*_", p)
    p = re.sub(r"\*+", "*", p)
    return f".text.{p}*"


def write(patterns):
    lines = [
        "/* Generated by benches/hot_text.py: the code small first fits run, first in .text",
        "   (see that script). Input-section patterns of v0-mangled names. */",
        "SECTIONS",
        "{",
        "  .text.treeopt_hot :",
        "  {",
    ]
    lines += [f"    *({p})" for p in patterns]
    lines += ["  }", "}", "INSERT BEFORE .text;", ""]
    SCRIPT.write_text("\n".join(lines))


def read_patterns():
    return re.findall(r"^\s*\*\((\S+)\)$", SCRIPT.read_text(), flags=re.M)


def check(so):
    """Patterns that match no function of the built extension ``so``."""
    syms = subprocess.run(["nm", "--defined-only", str(so)], capture_output=True, text=True, check=True).stdout
    sections = [".text." + line.split()[-1] for line in syms.splitlines() if line.split()[-1].startswith("_R")]
    return [p for p in read_patterns() if not any(fnmatch.fnmatchcase(s, p) for s in sections)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only report patterns matching nothing")
    args = parser.parse_args(argv)
    import treeopt._core as core

    if args.check:
        stale = check(core.__file__)
        for p in stale:
            print("matches nothing:", p)
        print(f"{len(read_patterns()) - len(stale)}/{len(read_patterns())} patterns match")
        return 1 if stale else 0
    seen, patterns = set(), []
    for fit in FITS:
        for sym in executed(*fit):
            p = pattern(sym)
            if p not in seen:
                seen.add(p)
                patterns.append(p)
        print(f"{fit}: {len(patterns)} patterns", flush=True)
    write(patterns + [p for p in HELPERS if p not in seen])
    print(f"wrote {SCRIPT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

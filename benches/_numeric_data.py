"""Shared data helpers of the numeric benchmarks (issue 12).

Imported by ``benches/compare_numeric.py`` and ``benches/compare_depth_limited.py``.

* ``load_numeric(name)``: a raw numeric dataset as float64 X, labels 0..k-1 and the
  feature names. Names are the files of ``<repo>/../shared/datasets/numeric/`` (ConTree's
  min-max normalised UCI sets: ``bank``, ``raisin``, ...), the numeric files of
  ``<repo>/../shared/datasets/`` (``fico``, ``compas``, ``broward_general_2y``) and
  ``breast_cancer`` (scikit-learn's embedded copy). The label is the last CSV column.
* Held-out instances (for checking a change on data the benches were not tuned on):
  ``NAME@i,j,...`` is columns i, j, ... of a set above (``magic@0,1,2``),
  ``make_classification_RxC`` scikit-learn's ``make_classification`` with ``R`` rows and
  ``C`` features (seed 0, values rounded to 3 decimals so that columns hold ties), and
  scikit-learn's ``wine`` (3 classes) and ``digits`` (10 classes, 64 columns).
* ``quantile_binarize(X, k)``: the 0/1 matrix of the tests ``x_j <= t`` for the distinct
  interior ``k``-quantiles ``t`` of every column (plain numpy, so every solver gets
  exactly the same matrix).
* Peak-memory readers of ``/proc/self/status`` for the one-fit-per-process workers.

Nothing here imports treeopt or a peer solver.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, Optional, Tuple

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
DATASETS_DIR = REPO_ROOT.parent / "shared" / "datasets"
NUMERIC_DIR = DATASETS_DIR / "numeric"

# The numeric (not pre-binarized) files at the top of the shared folder.
TOP_LEVEL_NUMERIC = ["fico", "compas", "broward_general_2y"]


def numeric_dataset_names() -> List[str]:
    """Every raw numeric dataset this module can load, in a stable order."""
    names = sorted(p.stem for p in NUMERIC_DIR.glob("*.csv")) if NUMERIC_DIR.is_dir() else []
    return names + TOP_LEVEL_NUMERIC + ["breast_cancer"]


def _csv_path(name: str) -> Path:
    for path in (NUMERIC_DIR / f"{name}.csv", DATASETS_DIR / f"{name}.csv"):
        if path.is_file():
            return path
    raise FileNotFoundError(f"no dataset {name!r} in {NUMERIC_DIR} or {DATASETS_DIR}")


def load_numeric(name: str) -> Tuple[np.ndarray, np.ndarray, List[str]]:
    """Raw features (float64, C order), labels remapped to 0..k-1 (int64), feature names.

    Held-out instances for speed work (not in the default list): ``NAME@i,j,...`` keeps
    columns i, j, ... of dataset NAME; ``make_classification_RxC`` is scikit-learn's
    generator at R rows and C columns (C/2 informative, C/4 redundant, 5 % of labels
    flipped, seed 0, values rounded to 3 decimals); ``wine`` (178 rows, 13 columns, 3
    classes) and ``digits`` (1,797 rows, 64 pixel columns of 17 levels, 10 classes) are
    scikit-learn's, as ``digits@i,j,...`` keeps some of the pixels."""
    synthetic = re.fullmatch(r"make_classification_(\d+)x(\d+)", name)
    if "@" in name:
        base, cols = name.split("@", 1)
        X, y, names = load_numeric(base)
        keep = [int(c) for c in cols.split(",")]
        return np.ascontiguousarray(X[:, keep]), y, [names[c] for c in keep]
    if synthetic:
        from sklearn.datasets import make_classification

        rows, cols = int(synthetic.group(1)), int(synthetic.group(2))
        X, y = make_classification(n_samples=rows, n_features=cols, n_informative=max(2, cols // 2),
                                   n_redundant=cols // 4, flip_y=0.05, random_state=0)
        X, names = X.round(3), [f"x{j}" for j in range(cols)]
    elif name == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        data = load_breast_cancer()
        X, y, names = data.data, data.target, [str(n) for n in data.feature_names]
    elif name in ("wine", "digits"):
        from sklearn import datasets

        data = getattr(datasets, f"load_{name}")()
        X, y, names = data.data, data.target, [str(n) for n in data.feature_names]
    else:
        path = _csv_path(name)
        with open(path) as f:
            header = f.readline().strip().split(",")
        table = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
        X, y, names = table[:, :-1], table[:, -1], header[:-1]
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name}: non-finite feature values")
    _, y = np.unique(y, return_inverse=True)  # ConTree indexes its counts by the label
    return np.ascontiguousarray(X, dtype=np.float64), y.astype(np.int64), names


def quantile_thresholds(column: np.ndarray, k: int) -> np.ndarray:
    """Distinct interior quantiles at levels i/(k+1), i = 1..k, that split the column
    (a threshold at or above the column's maximum would give a constant feature)."""
    levels = np.arange(1, k + 1) / (k + 1)
    t = np.unique(np.quantile(column, levels))
    return t[t < column.max()]


def quantile_binarize(X: np.ndarray, k: int) -> Tuple[np.ndarray, List[Tuple[int, float]]]:
    """0/1 matrix (uint8) with one column ``x_j <= t`` per kept quantile threshold of
    every column, and the (column, threshold) of each output column."""
    cols, meta = [], []
    for j in range(X.shape[1]):
        for t in quantile_thresholds(X[:, j], k):
            cols.append(X[:, j] <= t)
            meta.append((j, float(t)))
    Z = np.column_stack(cols) if cols else np.zeros((X.shape[0], 0), dtype=bool)
    return np.ascontiguousarray(Z, dtype=np.uint8), meta


# --------------------------------------------------------------------------- #
# Peak resident memory of the current process (Linux /proc)
# --------------------------------------------------------------------------- #


def _status_kib(field: str) -> Optional[int]:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def current_rss_kib() -> Optional[int]:
    return _status_kib("VmRSS")


def peak_rss_kib() -> Optional[int]:
    """High-water mark of resident memory (VmHWM)."""
    return _status_kib("VmHWM")


def reset_peak_rss() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0: write 5 to clear_refs); False if
    the kernel refuses, in which case the peak includes everything before the fit."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False

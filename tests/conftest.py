"""Shared pytest helpers: locating and loading the shared benchmark datasets.

The datasets live *next to* the repository, at ``../shared/datasets`` relative to
the repository root (CI has the same layout). Every file is a CSV with a header
row whose last column is the 0/1 label.

Tests get at them through two fixtures:

* ``datasets_dir`` -- the :class:`pathlib.Path` of the folder;
* ``load_dataset`` -- a function ``load_dataset(name) -> (X, y, feature_names)``.

Both skip the test, with a clear reason, only when the folder itself is absent.
When the folder is present but a requested file is missing, the test errors:
a silently skipped test would hide a broken setup.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import List, Optional, Tuple

import numpy as np
import pytest

# The helper modules next to the tests (oracle, random_problems, binary_estimator_checks,
# sklearn_conformance) import by name whatever pytest's import mode.
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

REPO_ROOT = Path(__file__).resolve().parent.parent
DATASETS_DIR = REPO_ROOT.parent / "shared" / "datasets"


def _require_datasets_dir(datasets_dir: Optional[Path] = None) -> Path:
    path = DATASETS_DIR if datasets_dir is None else Path(datasets_dir)
    if not path.is_dir():
        pytest.skip(
            f"shared datasets folder not found at {path} "
            "(expected at ../shared/datasets relative to the repository root)"
        )
    return path


def load_dataset(
    name: str, datasets_dir: Optional[Path] = None
) -> Tuple[np.ndarray, np.ndarray, List[str]]:
    """Load ``<datasets_dir>/<name>.csv``.

    Returns ``(X, y, feature_names)``: ``X`` is ``uint8`` when every feature value
    is 0 or 1 and ``float64`` otherwise, ``y`` is an ``int64`` vector of labels
    (the last column) and ``feature_names`` the header names of the feature columns.
    Skips the calling test when the datasets folder is absent.
    """
    folder = _require_datasets_dir(datasets_dir)
    path = folder / f"{name}.csv"
    if not path.is_file():
        available = sorted(p.stem for p in folder.glob("*.csv"))
        raise FileNotFoundError(f"dataset {name!r} not found at {path}; available: {available}")
    with path.open(newline="") as fh:
        header = next(csv.reader(fh))
    data = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float64, ndmin=2)
    if data.shape[1] != len(header):
        raise ValueError(f"{path}: {data.shape[1]} columns but {len(header)} header names")
    X, y = data[:, :-1], data[:, -1]
    if not np.all((y == 0) | (y == 1)):
        raise ValueError(f"{path}: the label column {header[-1]!r} is not 0/1")
    if np.all((X == 0) | (X == 1)):
        X = X.astype(np.uint8)
    return X, y.astype(np.int64), [h.strip() for h in header[:-1]]


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    """Path of the shared datasets folder; skips when it is absent."""
    return _require_datasets_dir()


@pytest.fixture(name="load_dataset", scope="session")
def _load_dataset_fixture():
    """The :func:`load_dataset` helper (skips when the datasets folder is absent)."""
    return load_dataset

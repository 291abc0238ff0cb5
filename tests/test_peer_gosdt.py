"""Fast correctness check against the peer implementation gosdt 1.0.4.

treeopt's GOSDTClassifier must reach the same optimal objective as gosdt
(computed from gosdt's model JSON, since its own bounds are float32) on a few
small real and random instances.  Also pins down how gosdt's ``depth_budget``
maps to ``max_depth``, which the peer benchmark relies on.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

gosdt = pytest.importorskip("gosdt")

_REPO = Path(__file__).resolve().parents[1]
for _dir in (_REPO / "benches", _REPO / "tests"):
    if str(_dir) not in sys.path:
        sys.path.insert(0, str(_dir))

import _gosdt_peer as peer  # noqa: E402
from oracle import brute_force  # noqa: E402

TOL = 1e-9


def assert_same_optimum(X, y, lam, max_depth):
    g = peer.run_gosdt(X, y, lam, max_depth)
    t = peer.run_treeopt(X, y, lam, max_depth)
    context = f"lam={lam} max_depth={max_depth} gosdt={g} treeopt={t}"
    assert g["optimal"], context
    assert t["optimal"], context
    # gosdt's own float32 upperbound agrees with the objective of its tree.
    assert abs(g["reported_objective"] - g["objective"]) <= 1e-6, context
    # treeopt's objective_ agrees with the objective recomputed from tree_.
    assert abs(t["reported_objective"] - t["objective"]) <= TOL, context
    assert abs(t["objective"] - g["objective"]) <= TOL, context
    if max_depth is not None:
        assert g["depth"] <= max_depth and t["depth"] <= max_depth, context
    return g, t


def test_gosdt_depth_budget_means_sklearn_max_depth():
    # y = x0 AND x1 on patterns (0,0) x10, (0,1) x10, (1,0) x2, (1,1) x10, lam = 0.001:
    #   leaf                  10/32 + 1 lam = 0.3135
    #   stump on x0           2/32 + 2 lam = 0.0645  (right side: 10 ones, 2 zeros)
    #   x0 then x1 (depth 2)  0    + 3 lam = 0.003
    # so the optimum under max_depth d has depth exactly d for d = 0, 1, 2.
    # gosdt's depth_budget=d must reproduce that (not d + 1, not d - 1).
    X = np.array([[0, 0]] * 10 + [[0, 1]] * 10 + [[1, 0]] * 2 + [[1, 1]] * 10, dtype=np.uint8)
    y = X[:, 0] & X[:, 1]
    for depth, expected in ((0, 10 / 32 + 0.001), (1, 2 / 32 + 0.002), (2, 0.003), (None, 0.003)):
        g = peer.run_gosdt(X, y, 0.001, depth)
        assert abs(g["objective"] - expected) <= TOL, (depth, g)
        assert abs(brute_force(X, y, regularization=0.001, max_depth=depth)[0] - expected) <= TOL
        assert g["depth"] == (2 if depth is None else depth), (depth, g)


@pytest.mark.parametrize(
    "dataset, lam, max_depth",
    [
        ("monk1", 0.02, None),
        ("monk1", 0.01, 3),
        ("monk3", 0.01, None),
        ("monk3", 0.02, None),
        ("monk3", 0.01, 4),
    ],
)
def test_same_objective_as_gosdt_on_monks(dataset, lam, max_depth):
    if not peer.DATASETS_DIR.is_dir():
        pytest.skip(f"shared datasets folder {peer.DATASETS_DIR} is absent")
    X, y = peer.load_dataset(dataset)
    assert_same_optimum(X, y, lam, max_depth)


@pytest.mark.parametrize("seed", range(30))
def test_same_objective_as_gosdt_on_random_matrices(seed):
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(8, 31))
    m = int(rng.integers(2, 8))
    k = 2 if seed % 3 else 3
    X = (rng.random((n, m)) < rng.choice([0.3, 0.5, 0.7])).astype(np.uint8)
    y = rng.integers(0, k, size=n)
    if seed % 2:  # a noisy function of two features: needs a deeper tree
        y = np.where(rng.random(n) < 0.15, y, (X[:, 0] ^ X[:, m - 1]) % k)
    y[:2] = [0, 1]  # at least two classes
    lam = [0.0, 0.001, 0.01, 0.02, 0.05][seed % 5]
    max_depth = [None, 1, 2, 3, None, 4][seed % 6]
    g, _ = assert_same_optimum(X, y, lam, max_depth)
    expected, _ = brute_force(X, y, regularization=lam, max_depth=max_depth)
    assert abs(g["objective"] - expected) <= TOL

"""Property tests: treeopt.GOSDTClassifier against the brute-force oracle.

Every test draws small random problems (<= 30 rows, <= 7 binary features,
2-3 classes), fits ``GOSDTClassifier`` and checks that

* it reports ``status_ == "optimal"``,
* ``objective_`` equals the oracle's optimum to 1e-9,
* ``lower_bound_ <= objective_``,
* the objective recomputed from ``tree_`` (predicting on X) equals
  ``objective_`` to 1e-9, and ``tree_`` respects ``max_depth``.

In total 1100 instances are checked (a few seconds with the compiled solver).
"""

from __future__ import annotations


import numpy as np
from hypothesis import given, settings

from treeopt import GOSDTClassifier

from oracle import brute_force
from random_problems import SETTINGS, problems, problems_with_duplicates

TOL = 1e-9

# --------------------------------------------------------------------------- #
# The check
# --------------------------------------------------------------------------- #


def objective_from_tree(est, X, y, w, lam):
    weights = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    pred = np.asarray(est.tree_.predict(X))
    assert pred.shape == y.shape
    return float(weights[pred != y].sum()) / float(weights.sum()) + lam * est.tree_.n_leaves


def assert_matches_oracle(X, y, w, lam, max_depth):
    expected, oracle_tree = brute_force(X, y, sample_weight=w, regularization=lam,
                                        max_depth=max_depth)
    est = GOSDTClassifier(regularization=lam, max_depth=max_depth)
    est.fit(X, y, sample_weight=w)
    context = (f"n={X.shape[0]} m={X.shape[1]} classes={np.unique(y).tolist()} lam={lam!r} "
               f"max_depth={max_depth} weighted={w is not None}\n"
               f"X={X.tolist()}\ny={y.tolist()}\nw={None if w is None else w.tolist()}\n"
               f"oracle={expected!r} tree={oracle_tree}")

    assert est.status_ == "optimal", context
    assert abs(est.objective_ - expected) <= TOL, (
        f"objective_ {est.objective_!r} != oracle {expected!r}\n{context}")
    assert est.lower_bound_ <= est.objective_ + 1e-12, (
        f"lower_bound_ {est.lower_bound_!r} > objective_ {est.objective_!r}\n{context}")
    recomputed = objective_from_tree(est, X, y, w, lam)
    assert abs(recomputed - est.objective_) <= TOL, (
        f"objective from tree_ {recomputed!r} != objective_ {est.objective_!r}\n{context}")
    assert est.n_leaves_ == est.tree_.n_leaves, context
    if max_depth is not None:
        assert est.tree_.depth <= max_depth, context


# --------------------------------------------------------------------------- #
# Tests (300 + 300 + 200 + 150 + 150 = 1100 instances)
# --------------------------------------------------------------------------- #


@settings(max_examples=300, **SETTINGS)
@given(problems(depth="none", weights="unit"))
def test_no_depth_limit(problem):
    assert_matches_oracle(*problem)


@settings(max_examples=300, **SETTINGS)
@given(problems(depth="limited", weights="unit"))
def test_with_depth_limit(problem):
    assert_matches_oracle(*problem)


@settings(max_examples=200, **SETTINGS)
@given(problems(weights="random"))
def test_sample_weights(problem):
    assert_matches_oracle(*problem)


@settings(max_examples=150, **SETTINGS)
@given(problems(n_classes=(3,)))
def test_three_classes(problem):
    assert_matches_oracle(*problem)


@settings(max_examples=150, **SETTINGS)
@given(problems_with_duplicates())
def test_duplicate_rows_with_conflicting_labels(problem):
    assert_matches_oracle(*problem)

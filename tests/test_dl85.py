"""Tests of :class:`treeopt.DL85Classifier` (issue 4).

* Oracle agreement (hypothesis, derandomized): 755 random small problems (<= 30 rows,
  <= 7 binary features, 2-3 classes, depth 0-4, unit / integer / real / zero weights,
  regularization 0 and > 0, ``min_samples_leaf`` 1, an int or a fraction) against
  the brute-force oracle (``tests/oracle.py``): status, objective, certificate, depth,
  the support of every leaf, and the objective recomputed from ``tree_``.
* With ``regularization > 0`` the objective equals ``GOSDTClassifier(max_depth=...)``
  on every shared 0/1 dataset at depths 3 and 4.
* Same training errors as pydl8.5 0.1.8 and pystreed 1.4.0 on the shared datasets at
  depths 3 and 4 and on random small instances (where pydl8.5 0.1.8 is suboptimal with
  ``min_sup > 1``, the oracle shows treeopt's count is the optimum; see below).
* scikit-learn's estimator checks (bare and in a NumericBinarizer pipeline), pandas,
  clone, pipelines, GridSearchCV, pickle, determinism.
* Bad input, ``max_depth=0``, ``min_samples_leaf`` above half the data, time and
  memory limits.
* Lower-bound guessing: ``y_ref == y`` gives the exact optimum, and Theorem 4.3's
  guarantee with a gradient-boosting reference on random instances.
"""

from __future__ import annotations

import math
import re
import time
import warnings
from numbers import Integral

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline

import treeopt
from treeopt import DL85Classifier, GOSDTClassifier, NumericBinarizer, Tree

from binary_estimator_checks import expected_failed_checks, fit_within_time_limit
from sklearn_conformance import sklearn_checks_test
from oracle import brute_force
from random_problems import (
    and_or_problem,
    assert_pickle_round_trip,
    fit_dataframe_and_array,
    LAMBDAS,
    SEEDS,
    SETTINGS,
    problems,
    problems_with_duplicates,
    random_labels,
    random_weights,
    ensure_classes,
)

TOL = 1e-9
STATUSES = {"optimal", "time_limit", "memory_limit", "interrupted"}
SHARED_DATASETS = [
    "compas_binary", "fico_binary", "tic-tac-toe", "car_evaluation", "monk1", "monk2", "monk3",
]

# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #


def resolve_min_leaf(min_samples_leaf, n_rows):
    """The documented meaning of ``min_samples_leaf``: an int is a row count, a float
    in (0, 1) the fraction ``ceil(fraction * n_rows)`` (at least 1)."""
    if isinstance(min_samples_leaf, Integral):
        return int(min_samples_leaf)
    return max(1, math.ceil(min_samples_leaf * n_rows))


def positive_rows(y, w):
    return np.ones(len(y), dtype=bool) if w is None else np.asarray(w) > 0


def weighted_errors(pred, y, w):
    wrong = np.asarray(pred) != np.asarray(y)
    return float(wrong.sum() if w is None else np.asarray(w, dtype=float)[wrong].sum())


def fit_recording_warnings(est, X, y, w=None, y_ref=None):
    """Fits ``est``; returns the messages of the min_samples_leaf UserWarnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y, sample_weight=w, y_ref=y_ref)
    return [
        str(c.message)
        for c in caught
        if issubclass(c.category, UserWarning) and "min_samples_leaf" in str(c.message)
    ]


def assert_valid_tree(est, X, y, w, lam, max_depth, min_leaf, context=""):
    """``tree_`` respects the depth and the leaf support (counting rows of positive
    weight only) and ``objective_`` is the objective of ``tree_`` on the data."""
    tree = est.tree_
    assert tree.depth <= max_depth, f"depth {tree.depth} > max_depth {max_depth}\n{context}"
    pos = positive_rows(y, w)
    reached = np.asarray(tree.apply(X[pos]))
    np.testing.assert_array_equal(reached, est.apply(X[pos]))
    per_node = np.bincount(reached, minlength=tree.node_count)
    leaves = np.flatnonzero(np.asarray(tree.children_left) == -1)
    assert len(leaves) == tree.n_leaves == est.n_leaves_, context
    if tree.n_leaves > 1:  # the root leaf is always allowed
        assert per_node[leaves].min() >= min_leaf, (
            f"a leaf holds {per_node[leaves].min()} rows < min_samples_leaf {min_leaf}: "
            f"{per_node[leaves].tolist()}\n{context}"
        )
    total = float(pos.sum() if w is None else np.asarray(w, dtype=float).sum())
    pred = tree.predict(X)
    np.testing.assert_array_equal(pred, est.predict(X))
    recomputed = weighted_errors(pred, y, w) / total + lam * tree.n_leaves
    assert abs(recomputed - est.objective_) <= TOL, (
        f"objective from tree_ {recomputed!r} != objective_ {est.objective_!r}\n{context}"
    )
    assert est.lower_bound_ <= est.objective_ + TOL, context


def assert_matches_oracle(X, y, w, lam, max_depth, min_samples_leaf):
    """Fits DL85Classifier and checks it against the brute-force oracle run on the rows
    of positive weight (rows of weight 0 are ignored entirely, also for the support)."""
    pos = positive_rows(y, w)
    n_pos = int(pos.sum())
    min_leaf = resolve_min_leaf(min_samples_leaf, n_pos)
    expected, oracle_tree = brute_force(
        X[pos], y[pos], sample_weight=None if w is None else w[pos], regularization=lam,
        max_depth=max_depth, min_samples_leaf=min_leaf,
    )
    est = DL85Classifier(max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                         regularization=lam)
    too_small = fit_recording_warnings(est, X, y, w)
    context = (
        f"n={X.shape[0]} (positive weight: {n_pos}) m={X.shape[1]} "
        f"classes={np.unique(y).tolist()} lam={lam!r} max_depth={max_depth} "
        f"min_samples_leaf={min_samples_leaf!r} (-> {min_leaf})\n"
        f"X={X.tolist()}\ny={y.tolist()}\nw={None if w is None else w.tolist()}\n"
        f"oracle={expected!r} tree={oracle_tree}"
    )
    assert est.status_ == "optimal", context
    assert abs(est.objective_ - expected) <= TOL, (
        f"objective_ {est.objective_!r} != oracle {expected!r}\n{context}")
    # the certificate: a proven bound that meets the objective
    assert abs(est.lower_bound_ - est.objective_) <= TOL, (
        f"status optimal but lower_bound_ {est.lower_bound_!r} != objective_ "
        f"{est.objective_!r}\n{context}")
    assert est.guessed_lower_bound_ is None
    assert_valid_tree(est, X, y, w, lam, max_depth, min_leaf, context)
    # the warning is given exactly when no split can keep min_samples_leaf rows per side
    assert bool(too_small) == (max_depth > 0 and 2 * min_leaf > n_pos), (
        f"warnings {too_small}\n{context}")
    return est


# --------------------------------------------------------------------------- #
# Oracle agreement (150 + 150 + 100 + 75 + 75 + 75 + 50 + 40 + 40 = 755 instances)
# --------------------------------------------------------------------------- #

# DL8.5 is mostly used on the accuracy objective: regularization 0 in about two draws
# of three (test_oracle_positive_regularization covers regularization > 0).
DL85_LAMBDAS = st.tuples(st.integers(0, 2), LAMBDAS).map(lambda t: t[1] if t[0] == 0 else 0.0)
POSITIVE_LAMBDAS = st.one_of(
    st.sampled_from([0.001, 0.01, 0.02, 0.05]),
    st.floats(min_value=0.001, max_value=0.1, allow_nan=False, allow_infinity=False),
)
INT_MIN_LEAF = st.integers(min_value=1, max_value=8)
FRACTION_MIN_LEAF = st.one_of(
    st.sampled_from([0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5]),
    st.floats(min_value=0.01, max_value=0.6, allow_nan=False, allow_infinity=False),
)
ANY_MIN_LEAF = st.one_of(st.just(1), INT_MIN_LEAF, FRACTION_MIN_LEAF)


def oracle_test(max_examples, problem_strategy, min_leaf_strategy):
    """A hypothesis test: DL85Classifier on ``max_examples`` draws of the two
    strategies equals the exhaustive oracle."""

    @settings(max_examples=max_examples, **SETTINGS)
    @given(problem_strategy, min_leaf_strategy)
    def test(problem, min_samples_leaf):
        assert_matches_oracle(*problem, min_samples_leaf)

    return test


LIMITED = problems(depth="limited", lambdas=DL85_LAMBDAS)
test_oracle_without_min_samples_leaf = oracle_test(150, LIMITED, st.just(1))
test_oracle_int_min_samples_leaf = oracle_test(150, LIMITED, INT_MIN_LEAF)
test_oracle_fraction_min_samples_leaf = oracle_test(100, LIMITED, FRACTION_MIN_LEAF)
test_oracle_three_classes = oracle_test(
    75, problems(n_classes=(3,), depth="limited", lambdas=DL85_LAMBDAS), ANY_MIN_LEAF)
test_oracle_sample_weights = oracle_test(
    75, problems(weights="random", depth="limited", lambdas=DL85_LAMBDAS), ANY_MIN_LEAF)
test_oracle_positive_regularization = oracle_test(
    75, problems(depth="limited", lambdas=POSITIVE_LAMBDAS), ANY_MIN_LEAF)


@settings(max_examples=50, **SETTINGS)
@given(problems_with_duplicates(), ANY_MIN_LEAF)
def test_oracle_duplicate_rows_with_conflicting_labels(problem, min_samples_leaf):
    X, y, w, lam, max_depth = problem
    # DL85Classifier needs a depth limit: a draw without one becomes depth 4
    assert_matches_oracle(X, y, w, lam, 4 if max_depth is None else max_depth,
                          min_samples_leaf)


@st.composite
def problems_with_zero_weights(draw, min_leaf):
    """A random problem in which some rows have weight 0 (>= 2 classes keep weight)."""
    lam = draw(DL85_LAMBDAS)
    min_samples_leaf = draw(min_leaf)
    rng = np.random.default_rng(draw(SEEDS))
    n, m = int(rng.integers(8, 31)), int(rng.integers(2, 8))
    k = int(rng.choice([2, 3]))
    X = (rng.random((n, m)) < rng.choice([0.3, 0.5, 0.7])).astype(np.uint8)
    y = ensure_classes(rng, random_labels(rng, X, k, rng.choice(["random", "function"])), k)
    w = random_weights(rng, n, rng.choice(["ones", "integer", "random"]))
    w = np.where(rng.random(n) < rng.uniform(0.1, 0.5), 0.0, w)
    for c in np.unique(y):  # give weight back to a row of each missing class, until 2
        if len(np.unique(y[w > 0])) >= 2:
            break
        if not np.any(w[y == c] > 0):
            w[np.flatnonzero(y == c)[0]] = 1.0
    return X, y, w, lam, int(rng.integers(0, 5)), min_samples_leaf


def assert_zero_weight_rows_ignored(X, y, w, lam, max_depth, min_samples_leaf):
    est = assert_matches_oracle(X, y, w, lam, max_depth, min_samples_leaf)
    pos = w > 0
    without = DL85Classifier(max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                             regularization=lam)
    fit_recording_warnings(without, X[pos], y[pos], w[pos])
    assert abs(without.objective_ - est.objective_) <= TOL, (
        f"dropping the rows of weight 0 changed the objective: {est.objective_!r} -> "
        f"{without.objective_!r} (min_samples_leaf={min_samples_leaf!r}, n={len(y)}, "
        f"positive={int(pos.sum())})")


@settings(max_examples=40, **SETTINGS)
@given(problems_with_zero_weights(INT_MIN_LEAF))
def test_zero_weight_rows_are_ignored_int_min_samples_leaf(problem):
    assert_zero_weight_rows_ignored(*problem)


@settings(max_examples=40, **SETTINGS)
@given(problems_with_zero_weights(FRACTION_MIN_LEAF))
def test_zero_weight_rows_are_ignored_fraction_min_samples_leaf(problem):
    # the fraction is of the rows that count, i.e. those of positive weight
    assert_zero_weight_rows_ignored(*problem)


def test_zero_weight_rows_fraction_minimal_case():
    # 4 rows of weight 1 split perfectly 2 | 2; two more rows have weight 0. With the
    # rows of weight 0 ignored, min_samples_leaf=0.5 means ceil(0.5 * 4) = 2 rows per
    # leaf, so the perfect stump is allowed (as it is when those rows are dropped).
    X = np.array([[0], [0], [1], [1], [0], [1]], dtype=np.uint8)
    y = np.array([0, 0, 1, 1, 1, 0])
    w = np.array([1.0, 1.0, 1.0, 1.0, 0.0, 0.0])
    dropped = DL85Classifier(max_depth=1, min_samples_leaf=0.5).fit(X[:4], y[:4])
    assert dropped.objective_ == 0.0 and dropped.n_leaves_ == 2
    est = DL85Classifier(max_depth=1, min_samples_leaf=0.5)
    assert fit_recording_warnings(est, X, y, w) == []
    assert est.objective_ == 0.0 and est.n_leaves_ == 2


# --------------------------------------------------------------------------- #
# regularization > 0: the same objective as GOSDT under the same depth limit
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("max_depth", [3, 4])
@pytest.mark.parametrize("name", SHARED_DATASETS)
def test_regularized_objective_equals_gosdt(load_dataset, name, max_depth):
    X, y, _ = load_dataset(name)
    for lam in (0.001, 0.01):
        dl85 = DL85Classifier(max_depth=max_depth, regularization=lam).fit(X, y)
        gosdt = GOSDTClassifier(max_depth=max_depth, regularization=lam).fit(X, y)
        assert dl85.status_ == gosdt.status_ == "optimal"
        assert abs(dl85.objective_ - gosdt.objective_) <= TOL, (
            f"{name} depth {max_depth} lam {lam}: DL8.5 {dl85.objective_!r} != "
            f"GOSDT {gosdt.objective_!r}")
        assert_valid_tree(dl85, X, y, None, lam, max_depth, 1)


# --------------------------------------------------------------------------- #
# Peers: pydl8.5 0.1.8 and pystreed 1.4.0
# --------------------------------------------------------------------------- #


def _peer_errors(X, y, max_depth, min_sup):
    """Training errors of pydl8.5 and of STreeD (accuracy objective, no leaf penalty:
    STreeD's default cost_complexity is 0.01), counted from their predictions."""
    pydl85 = pytest.importorskip("pydl85")
    pystreed = pytest.importorskip("pystreed")
    Xi = np.ascontiguousarray(X, dtype=np.int32)
    dl = pydl85.DL85Classifier(max_depth=max_depth, min_sup=min_sup).fit(Xi, y)
    sd = pystreed.STreeDClassifier(max_depth=max_depth, min_leaf_node_size=min_sup,
                                   cost_complexity=0.0).fit(Xi, y)
    return int((dl.predict(Xi) != y).sum()), int((sd.predict(Xi) != y).sum())


def _treeopt_errors(X, y, max_depth, min_sup):
    """Training errors of treeopt counted from its tree (checked: depth, leaf support,
    objective), so a disagreement with a peer can be told apart from a bookkeeping error."""
    est = DL85Classifier(max_depth=max_depth, min_samples_leaf=min_sup)
    fit_recording_warnings(est, X, y)
    assert est.status_ == "optimal"
    assert_valid_tree(est, X, y, None, 0.0, max_depth, min_sup)
    errors = int((est.tree_.predict(X) != y).sum())
    assert abs(errors - est.objective_ * len(y)) < 1e-6
    return errors


@pytest.mark.parametrize("max_depth", [3, 4])
@pytest.mark.parametrize("name", SHARED_DATASETS)
def test_same_training_errors_as_peers_on_datasets(load_dataset, name, max_depth):
    X, y, _ = load_dataset(name)
    pydl85_errors, streed_errors = _peer_errors(X, y, max_depth, 1)
    ours = _treeopt_errors(X, y, max_depth, 1)
    assert ours == pydl85_errors == streed_errors, (ours, pydl85_errors, streed_errors)


def _peer_instance(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(20, 50)), int(rng.integers(3, 7))
    k = int(rng.choice([2, 3]))
    X = (rng.random((n, m)) < rng.choice([0.3, 0.5, 0.7])).astype(np.uint8)
    y = ensure_classes(rng, random_labels(rng, X, k, rng.choice(["random", "function"])), k)
    return X, y, int(rng.integers(1, 5)), int(rng.choice([1, 1, 2, 3, 5]))


# pydl8.5 0.1.8 returns a suboptimal tree with min_sup > 1 on four of these instances:
# seed -> (optimal errors: treeopt = STreeD = exhaustive oracle, pydl8.5's errors).
# treeopt's trees are checked to respect the depth and the support, and the oracle
# confirms their counts, so the extra error is pydl8.5's. Pinned to pydl8.5==0.1.8.
PYDL85_SUBOPTIMAL = {4: (5, 7), 5: (5, 6), 22: (19, 20), 28: (8, 9)}


@pytest.mark.parametrize("seed", range(30))
def test_same_training_errors_as_peers_on_random_instances(seed):
    X, y, max_depth, min_sup = _peer_instance(seed)
    pydl85_errors, streed_errors = _peer_errors(X, y, max_depth, min_sup)
    ours = _treeopt_errors(X, y, max_depth, min_sup)
    optimum, _ = brute_force(X, y, max_depth=max_depth, min_samples_leaf=min_sup)
    assert ours == round(optimum * len(y)), "treeopt's count differs from the oracle's"
    assert ours == streed_errors
    # pydl8.5's tree is feasible, so it can never beat the optimum
    assert ours <= pydl85_errors
    if seed in PYDL85_SUBOPTIMAL:
        assert min_sup > 1 and (ours, pydl85_errors) == PYDL85_SUBOPTIMAL[seed]
    else:
        assert ours == pydl85_errors


# --------------------------------------------------------------------------- #
# scikit-learn estimator checks (expected failures shared with GOSDTClassifier:
# tests/binary_estimator_checks.py)
# --------------------------------------------------------------------------- #


test_sklearn_estimator_checks = sklearn_checks_test(
    [
        DL85Classifier(),
        Pipeline([("bin", NumericBinarizer(max_thresholds=4)), ("tree", DL85Classifier())]),
    ],
    expected_failed_checks,
)


# --------------------------------------------------------------------------- #
# sklearn integration
# --------------------------------------------------------------------------- #


def test_fitted_attributes():
    X, y = and_or_problem()
    est = DL85Classifier(max_depth=3, min_samples_leaf=5).fit(X, y)
    assert est.status_ == "optimal"
    assert_valid_tree(est, X, y, None, 0.0, 3, 5)
    assert est.lower_bound_ == pytest.approx(est.objective_, abs=TOL)
    assert est.guessed_lower_bound_ is None
    np.testing.assert_array_equal(est.classes_, [0, 1])
    assert est.n_features_in_ == 8
    for key in ("subproblems", "expansions", "seconds", "memory_bytes"):
        assert key in est.search_stats_
    # (x0 AND x1) OR x2 fits in depth 3: the planted structure is found
    assert est.score(X, y) >= 0.9 and est.n_leaves_ >= 3
    assert isinstance(est.tree_, Tree)
    assert est.predict_proba(X).shape == (len(y), 2)
    assert "DL85Classifier" in treeopt.__all__ and treeopt.DL85Classifier is DL85Classifier


def test_pandas_input_uses_column_names():
    pytest.importorskip("pandas")
    est, _, df, y, _ = fit_dataframe_and_array(lambda: DL85Classifier(max_depth=3))
    # bool columns mixed with int columns are 0/1 too
    dfb = df.astype(bool)
    dfb["x_6"] = dfb["x_6"].astype(np.int64)
    assert DL85Classifier(max_depth=3).fit(dfb, y).tree_.to_dict() == est.tree_.to_dict()


def test_string_labels_and_three_classes():
    X, y = and_or_problem()
    y3 = np.where(X[:, 5] == 1, 2, y)
    labels = np.array(["no", "yes", "maybe"], dtype=object)[y3]
    est = DL85Classifier(max_depth=3, min_samples_leaf=4).fit(X, labels)
    ref = DL85Classifier(max_depth=3, min_samples_leaf=4).fit(X, y3)
    np.testing.assert_array_equal(est.classes_, ["maybe", "no", "yes"])
    assert est.objective_ == pytest.approx(ref.objective_, abs=TOL)
    assert set(est.predict(X)) <= {"no", "yes", "maybe"}


def test_clone_and_pickle():
    X, y = and_or_problem()
    est = DL85Classifier(max_depth=2, min_samples_leaf=0.05, regularization=0.001,
                         time_limit=5.0).fit(X, y)
    cl = clone(est)
    assert cl.get_params() == est.get_params()
    assert not hasattr(cl, "tree_")
    assert cl.fit(X, y).tree_.to_dict() == est.tree_.to_dict()
    assert_pickle_round_trip(est, X)


def test_pipeline_with_binarizer():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 4))
    y = ((X[:, 0] > 0.3) & (X[:, 1] < 0.5)).astype(int)
    pipe = Pipeline([("bin", NumericBinarizer(max_thresholds=5)),
                     ("tree", DL85Classifier(max_depth=2, min_samples_leaf=10))]).fit(X, y)
    tree_est = pipe.named_steps["tree"]
    assert tree_est.status_ == "optimal"
    assert tree_est.tree_.depth <= 2
    assert pipe.score(X, y) >= 0.95


def test_grid_search_cv():
    X, y = and_or_problem(n=240, seed=4, noise=0.1)
    grid = {"max_depth": [1, 2, 3], "min_samples_leaf": [1, 0.1]}
    search = GridSearchCV(DL85Classifier(), grid, n_jobs=2, cv=3, error_score="raise").fit(X, y)
    assert len(search.cv_results_["params"]) == 6
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    assert search.best_estimator_.tree_.depth <= search.best_params_["max_depth"]
    assert search.score(X, y) >= 0.8


def test_sample_weight_integer_weights_equal_repeated_rows():
    # with min_samples_leaf=1, weight k is k copies of the row (weight 0: no copy)
    X, y = and_or_problem(n=200, seed=1, noise=0.1)
    w = np.random.default_rng(1).integers(0, 4, size=len(y))
    weighted = DL85Classifier(max_depth=3).fit(X, y, sample_weight=w)
    repeated = DL85Classifier(max_depth=3).fit(np.repeat(X, w, 0), np.repeat(y, w))
    assert weighted.objective_ == pytest.approx(repeated.objective_, abs=TOL)
    assert_valid_tree(weighted, X, y, w.astype(float), 0.0, 3, 1)


def test_class_weight_matches_sample_weight():
    X, y = and_or_problem(n=200, seed=3, noise=0.15)
    by_class = DL85Classifier(max_depth=3, class_weight={0: 3.0, 1: 1.0}).fit(X, y)
    by_sample = DL85Classifier(max_depth=3).fit(X, y, sample_weight=np.where(y == 0, 3.0, 1.0))
    assert by_class.objective_ == pytest.approx(by_sample.objective_, abs=TOL)


@pytest.mark.parametrize(
    "name, max_depth, min_samples_leaf, lam",
    [("compas_binary", 4, 1, 0.0), ("tic-tac-toe", 4, 5, 0.0), ("monk2", 5, 0.02, 0.005)],
)
def test_repeated_fits_are_identical(load_dataset, name, max_depth, min_samples_leaf, lam):
    X, y, _ = load_dataset(name)

    def fit():
        return DL85Classifier(max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                              regularization=lam).fit(X, y)

    first = fit()
    assert first.status_ == "optimal"
    ref = first.tree_.to_dict()
    for _ in range(19):
        est = fit()
        assert est.tree_.to_dict() == ref
        assert (est.objective_, est.lower_bound_, est.status_) == (
            first.objective_, first.lower_bound_, first.status_)


# --------------------------------------------------------------------------- #
# bad input
# --------------------------------------------------------------------------- #

_X4 = np.array([[0, 1], [1, 0], [1, 1], [0, 0]], dtype=np.uint8)
_Y4 = np.array([0, 1, 1, 0])


def _raises_with(exc, pattern, fn):
    """``fn()`` raises ``exc`` with a message matching ``pattern`` (case-insensitive)."""
    with pytest.raises(exc) as info:
        fn()
    assert re.search(pattern, str(info.value), flags=re.IGNORECASE), (
        f"error message {str(info.value)!r} should match {pattern!r}")


def _with(X=None, y=None, **changes):
    X = _X4.astype(float) if X is None else X
    for (i, j), v in changes.pop("cells", {}).items():
        X[i, j] = v
    return X, _Y4 if y is None else y


@pytest.mark.parametrize(
    "X, y, pattern",
    [
        (*_with(cells={(0, 0): np.nan}), r"nan|missing"),
        (*_with(cells={(1, 1): np.inf}), r"inf"),
        (*_with(y=np.ones(4, dtype=int)), r"class"),
        (np.zeros((0, 3), dtype=np.uint8), np.zeros(0, dtype=int),
         r"0 sample|empty|no sample|at least one sample|at least 1"),
        (_X4, _Y4[:3], r"inconsistent|number of samples|length"),
        (np.zeros((4, 0), dtype=np.uint8), _Y4, r"feature"),
        (_X4, np.array(["a", 1, "b", 2], dtype=object), r"\blabels?\b|\by\b|class"),
        (_X4, np.array([0.1, 0.7, 1.3, 2.2]), r"Unknown label type|continuous"),
    ],
    ids=["nan", "inf", "one-class", "empty", "lengths",
         "no-features", "mixed-labels", "continuous-labels"],
)
def test_rejects_bad_data(X, y, pattern):
    _raises_with((ValueError, TypeError), pattern, lambda: DL85Classifier().fit(X, y))


@pytest.mark.parametrize(
    "params",
    [
        {"min_samples_leaf": 0}, {"min_samples_leaf": -1}, {"min_samples_leaf": 1.5},
        {"min_samples_leaf": 2.0}, {"min_samples_leaf": 0.0}, {"min_samples_leaf": "3"},
        {"max_depth": -1}, {"max_depth": None}, {"max_depth": 2.5},
        {"regularization": -0.01}, {"regularization": -1}, {"regularization": float("nan")},
        {"time_limit": -1.0}, {"time_limit": float("nan")}, {"memory_limit": -1},
    ],
    ids=lambda p: f"{next(iter(p))}={next(iter(p.values()))!r}",
)
def test_rejects_bad_parameters(params):
    name = next(iter(params))
    _raises_with(ValueError, name, lambda: DL85Classifier(**params).fit(_X4, _Y4))


@pytest.mark.parametrize(
    "w, pattern",
    [
        (np.array([1.0, -1.0, 1.0, 1.0]), r"negative|non-negative|>= ?0|positive"),
        (np.zeros(4), r"(.*weight.*zero.*)|(.*zero.*weight.*)"),
        (np.array([1.0, np.nan, 1.0, 1.0]), r"nan|finite|infinity"),
        (np.ones(3), r"sample_weight|shape|samples"),
    ],
    ids=["negative", "zero-sum", "nan", "length"],
)
def test_rejects_bad_sample_weight(w, pattern):
    _raises_with(ValueError, pattern, lambda: DL85Classifier().fit(_X4, _Y4, sample_weight=w))


@pytest.mark.parametrize("y_ref", [np.array([0, 1, 1]), np.array([0, 1, 7, 0])],
                         ids=["length", "unknown-class"])
def test_rejects_bad_y_ref(y_ref):
    _raises_with(ValueError, r"y_ref", lambda: DL85Classifier().fit(_X4, _Y4, y_ref=y_ref))


def test_predict_routes_numbers_by_the_thresholds():
    # Since issue 12 numeric input is accepted; a tree fitted on 0/1 columns tests x <= 0.5.
    est = DL85Classifier().fit(_X4, _Y4)
    np.testing.assert_array_equal(est.predict(_X4 * 2.5), est.predict(_X4))
    _raises_with(ValueError, r"feature", lambda: est.predict(np.zeros((3, 5), dtype=np.uint8)))


# --------------------------------------------------------------------------- #
# depth 0, min_samples_leaf above half the data, limits
# --------------------------------------------------------------------------- #


def test_max_depth_zero_returns_a_single_leaf():
    X, y = and_or_problem(noise=0.0)
    for min_samples_leaf in (1, 1000):  # no warning: depth 0 never splits anyway
        est = DL85Classifier(max_depth=0, min_samples_leaf=min_samples_leaf)
        assert fit_recording_warnings(est, X, y) == []
        assert est.n_leaves_ == 1 and est.tree_.depth == 0
        assert est.status_ == "optimal"
        assert est.objective_ == pytest.approx(min(y.mean(), 1 - y.mean()), abs=TOL)
        assert est.lower_bound_ == pytest.approx(est.objective_, abs=TOL)
        assert len(set(est.predict(X))) == 1


@pytest.mark.parametrize("min_samples_leaf", [101, 150, 200, 1000, 0.51, 0.9])
def test_min_samples_leaf_above_half_the_data_gives_a_leaf_and_says_why(min_samples_leaf):
    X, y = and_or_problem(n=200, noise=0.0)
    est = DL85Classifier(max_depth=3, min_samples_leaf=min_samples_leaf)
    with pytest.warns(UserWarning, match=r"min_samples_leaf.*single leaf") as record:
        est.fit(X, y)
    message = str(next(r.message for r in record if "min_samples_leaf" in str(r.message)))
    assert "200" in message  # it says how many rows there are
    assert est.n_leaves_ == 1 and est.status_ == "optimal"
    assert est.objective_ == pytest.approx(min(y.mean(), 1 - y.mean()), abs=TOL)
    assert est.lower_bound_ == pytest.approx(est.objective_, abs=TOL)


def test_min_samples_leaf_exactly_half_still_splits():
    X = np.array([[0], [0], [1], [1]], dtype=np.uint8)
    y = np.array([0, 0, 1, 1])
    for min_samples_leaf in (2, 0.5):
        est = DL85Classifier(max_depth=1, min_samples_leaf=min_samples_leaf)
        assert fit_recording_warnings(est, X, y) == []
        assert est.objective_ == 0.0 and est.n_leaves_ == 2


def test_time_limit_returns_best_tree_so_far(load_dataset):
    X, y, _ = load_dataset("fico_binary")
    est = fit_within_time_limit(DL85Classifier(max_depth=8, time_limit=1), X, y)
    assert_valid_tree(est, X, y, None, 0.0, 8, 1)


def test_memory_limit_returns_best_tree_so_far(load_dataset):
    X, y, _ = load_dataset("fico_binary")
    est = DL85Classifier(max_depth=8, memory_limit=2_000_000, time_limit=30).fit(X, y)
    assert est.status_ == "memory_limit"
    assert_valid_tree(est, X, y, None, 0.0, 8, 1)
    assert est.lower_bound_ < est.objective_


# --------------------------------------------------------------------------- #
# Lower-bound guessing (McTavish et al. 2022, §4.3)
# --------------------------------------------------------------------------- #


@settings(max_examples=100, **SETTINGS)
@given(problems(depth="limited", lambdas=DL85_LAMBDAS), ANY_MIN_LEAF)
def test_reference_equal_to_labels_gives_the_exact_optimum(problem, min_samples_leaf):
    X, y, w, lam, max_depth = problem
    min_leaf = resolve_min_leaf(min_samples_leaf, len(y))
    opt, _ = brute_force(X, y, sample_weight=w, regularization=lam, max_depth=max_depth,
                         min_samples_leaf=min_leaf)
    est = DL85Classifier(max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                         regularization=lam)
    fit_recording_warnings(est, X, y, w, y_ref=y)
    assert est.objective_ == pytest.approx(opt, abs=TOL)
    assert est.lower_bound_ <= opt + TOL
    assert est.guessed_lower_bound_ is not None
    assert_valid_tree(est, X, y, w, lam, max_depth, min_leaf)


def theorem_4_3_bound(X, y, w, y_ref, lam, max_depth, min_leaf):
    """min over trees t (depth <= max_depth, leaves >= min_leaf rows) of
    (reference errors + errors of t on the rows the reference gets right) / N + lam * H_t,
    the oracle run on the reference-correct rows with the penalty rescaled to the full
    weight N (a tree feasible on a subset of the rows is feasible on all of them)."""
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    total = float(w.sum())
    correct = y_ref == y
    ref_errors = float(w[~correct].sum())
    if not correct.any():
        return ref_errors / total + lam  # t = a single leaf
    w_correct = float(w[correct].sum())
    obj, _ = brute_force(X[correct], y[correct], sample_weight=w[correct],
                         regularization=lam * total / w_correct, max_depth=max_depth,
                         min_samples_leaf=min_leaf)
    return ref_errors / total + obj * w_correct / total


@settings(max_examples=100, **SETTINGS)
@given(problems(depth="limited", lambdas=DL85_LAMBDAS), ANY_MIN_LEAF,
       st.sampled_from([(3, 1), (10, 1), (5, 2), (20, 2)]))
def test_theorem_4_3_with_a_boosted_reference(problem, min_samples_leaf, gbdt):
    X, y, w, lam, max_depth = problem
    n_estimators, depth = gbdt
    ref = GradientBoostingClassifier(n_estimators=n_estimators, max_depth=depth,
                                     random_state=0).fit(X, y, sample_weight=w)
    y_ref = ref.predict(X)
    min_leaf = resolve_min_leaf(min_samples_leaf, len(y))
    est = DL85Classifier(max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                         regularization=lam)
    fit_recording_warnings(est, X, y, w, y_ref=y_ref)
    opt, _ = brute_force(X, y, sample_weight=w, regularization=lam, max_depth=max_depth,
                         min_samples_leaf=min_leaf)
    bound = theorem_4_3_bound(X, y, w, y_ref, lam, max_depth, min_leaf)
    assert est.status_ in ("optimal", "matched_reference")
    assert est.objective_ <= bound + TOL, (est.objective_, bound)
    assert est.objective_ >= opt - TOL  # never better than the optimum
    assert est.lower_bound_ <= opt + TOL  # the proven bound stays a true bound
    assert est.guessed_lower_bound_ is not None
    if est.status_ == "optimal":
        assert est.objective_ == pytest.approx(opt, abs=TOL)
    assert_valid_tree(est, X, y, w, lam, max_depth, min_leaf)


def test_parameters_are_checked_at_every_fit_after_a_good_fit_of_the_class():
    # scikit-learn's parameter check runs once per class and parameter values (a cache
    # by class, type and value): after a good fit, bad values and good values of a bad
    # type still fail, and the cache is per class.
    rng = np.random.default_rng(3)
    X = rng.random((30, 3))
    y = (X[:, 0] > 0.5).astype(int)
    for make in (lambda: DL85Classifier(max_depth=2), lambda: GOSDTClassifier(regularization=0.02, max_depth=2)):
        est = make().fit(X, y)
        for name, bad in [("max_depth", 2.0), ("max_depth", -1), ("regularization", -0.5), ("time_limit", "1")]:
            with pytest.raises(ValueError, match=name):
                clone(est).set_params(**{name: bad}).fit(X, y)
        assert make().fit(X, y).tree_.to_text() == est.tree_.to_text()
    with pytest.raises(ValueError, match="min_samples_leaf"):
        DL85Classifier(max_depth=2, min_samples_leaf=0).fit(X, y)

"""RashomonSet (issue 21) against a brute-force enumeration of every tree.

The oracle lists every tree of a tiny problem as the set is defined (a split at a
midpoint of two consecutive distinct values of the rows its node holds, each side keeping
at least ``min_samples_leaf`` rows; a leaf predicting any class; within the depth limit),
scores each by routing the rows, and keeps those within the bound. The set must hold
exactly those trees (same count, same trees, same objectives to 1e-9), in ascending
objective order; its predictions, feature usage and samples are checked against the
listed trees too.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare
from sklearn.base import clone

from treeopt import RashomonSet

from random_problems import SETTINGS
from sklearn_conformance import sklearn_checks_test

TOL = 1e-9


def _midpoints(a, b):
    m = a / 2.0 + b / 2.0
    return np.where((m >= a) & (m < b), m, a)


def all_trees(X, y, rows, depth, n_classes, min_leaf):
    """Every tree over ``rows`` (a tuple of row indices) with ``depth`` levels left (None:
    no limit), as nested tuples: ``("leaf", k)`` or ``("split", j, t, left, right)``."""
    trees = [("leaf", k) for k in range(n_classes)]
    if depth == 0 or len(rows) < 2 * min_leaf:
        return trees
    below = None if depth is None else depth - 1
    for j in range(X.shape[1]):
        distinct = np.unique(X[list(rows), j])
        for t in _midpoints(distinct[:-1], distinct[1:]):
            left = tuple(i for i in rows if X[i, j] <= t)
            right = tuple(i for i in rows if X[i, j] > t)
            if len(left) < min_leaf or len(right) < min_leaf:
                continue
            for a in all_trees(X, y, left, below, n_classes, min_leaf):
                for b in all_trees(X, y, right, below, n_classes, min_leaf):
                    trees.append(("split", j, float(t), a, b))
    return trees


def route(tree, x):
    while tree[0] == "split":
        tree = tree[3] if x[tree[1]] <= tree[2] else tree[4]
    return tree[1]


def n_leaves(tree):
    return 1 if tree[0] == "leaf" else n_leaves(tree[3]) + n_leaves(tree[4])


def objective(tree, X, y, w, lam):
    wrong = sum(w[i] for i in range(len(y)) if route(tree, X[i]) != y[i])
    return wrong / w.sum() + lam * n_leaves(tree)


def as_nested(tree, node=0):
    """A treeopt.Tree as the oracle's nested tuples (its leaves' class indices)."""
    if tree.children_left[node] < 0:
        return ("leaf", int(np.flatnonzero(tree.classes == tree.prediction[node])[0]))
    return ("split", int(tree.feature[node]), float(tree.threshold[node]),
            as_nested(tree, tree.children_left[node]), as_nested(tree, tree.children_right[node]))


@st.composite
def problems(draw, numeric):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = int(rng.integers(2, 9))
    m = int(rng.integers(1, 4))
    k = int(rng.choice([2, 2, 3]))
    if numeric:
        X = rng.integers(0, int(rng.integers(2, 5)), size=(n, m)).astype(float) * 0.5
    else:
        X = rng.integers(0, 2, size=(n, m)).astype(float)
    y = rng.integers(0, k, size=n)
    y[:2] = [0, 1]  # at least two classes
    w = rng.choice([1.0, 1.0, 2.0, 0.5], size=n) if draw(st.booleans()) else None
    lam = draw(st.sampled_from([0.0, 0.01, 0.05, 0.1, 0.2]))
    depth = draw(st.sampled_from([0, 1, 2, 3] if n <= 6 else [0, 1, 2]))
    if lam > 0 and draw(st.booleans()) and n <= 5 and m <= 2:
        depth = None
    min_leaf = draw(st.sampled_from([1, 1, 2]))
    bound_type = draw(st.sampled_from(["multiplicative", "additive"]))
    bound = draw(st.sampled_from([0.0, 0.05, 0.2, 0.5]))
    return X, y, w, lam, depth, min_leaf, bound_type, bound


def assert_matches_oracle(problem):
    X, y, w, lam, depth, min_leaf, bound_type, bound = problem
    weights = np.ones(len(y)) if w is None else w
    n_classes = len(np.unique(y))
    labels = np.unique(y)
    ys = np.searchsorted(labels, y)
    trees = all_trees(X, ys, tuple(range(len(y))), depth, n_classes, min_leaf)
    scored = {t: objective(t, X, ys, weights, lam) for t in trees}
    best = min(scored.values())
    limit = best * (1 + bound) if bound_type == "multiplicative" else best + bound
    want = {t: o for t, o in scored.items() if o <= limit + TOL}

    rs = RashomonSet(regularization=lam, rashomon_bound=bound, bound_type=bound_type,
                     max_depth=depth, min_samples_leaf=min_leaf).fit(X, y, sample_weight=w)
    assert rs.optimal_objective_ == pytest.approx(best, abs=TOL)
    assert rs.n_trees_ == len(want), (rs.n_trees_, len(want))
    got = [as_nested(rs[i]) for i in range(rs.n_trees_)]
    assert set(got) == set(want) and len(set(got)) == len(got)
    objectives = [rs.objective(i) for i in range(rs.n_trees_)]
    for t, o in zip(got, objectives):
        assert o == pytest.approx(want[t], abs=TOL)
    assert all(a <= b + TOL for a, b in zip(objectives, objectives[1:]))
    # predict_proba is the share of the trees predicting each class, on any rows
    grid = np.vstack([X, X + 0.25, X - 0.25])
    share = np.array([[sum(route(t, x) == c for t in got) for c in range(n_classes)] for x in grid])
    np.testing.assert_allclose(rs.predict_proba(grid), share / len(got), atol=1e-12)
    usage = [sum(_uses(t, j) for t in got) / len(got) for j in range(X.shape[1])]
    np.testing.assert_allclose(rs.feature_usage(), usage, atol=1e-12)


def _uses(tree, j):
    return tree[0] == "split" and (tree[1] == j or _uses(tree[3], j) or _uses(tree[4], j))


@settings(max_examples=500, **SETTINGS)
@given(problems(numeric=False))
def test_zero_one_sets_match_the_enumeration(problem):
    assert_matches_oracle(problem)


@settings(max_examples=500, **SETTINGS)
@given(problems(numeric=True))
def test_numeric_sets_match_the_enumeration(problem):
    assert_matches_oracle(problem)


@st.composite
def many_threshold_problems(draw):
    """Numeric columns with many distinct values (up to 13 thresholds a column), where
    the builder rules out thresholds next to one proved too costly (the neighbourhood
    bound); depth at most two, so the enumeration stays small."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = int(rng.integers(6, 15))
    m = int(rng.integers(1, 3))
    k = int(rng.choice([2, 2, 3]))
    X = rng.integers(0, int(rng.integers(4, 15)), size=(n, m)).astype(float) * 0.5
    y = rng.integers(0, k, size=n)
    if draw(st.booleans()):  # labels that follow a column, so that few trees are near the optimum
        y = (X[:, 0] > np.median(X[:, 0])).astype(int) ^ (rng.random(n) < 0.15)
    y[:2] = [0, 1]
    w = rng.choice([1.0, 1.0, 2.0, 0.5, 0.3], size=n) if draw(st.booleans()) else None
    lam = draw(st.sampled_from([0.0, 0.01, 0.05, 0.1]))
    depth = draw(st.sampled_from([1, 2, 2]))
    min_leaf = draw(st.sampled_from([1, 1, 2]))
    bound_type = draw(st.sampled_from(["multiplicative", "additive"]))
    bound = draw(st.sampled_from([0.0, 0.05, 0.2]))
    return X, y, w, lam, depth, min_leaf, bound_type, bound


@settings(max_examples=200, **SETTINGS)
@given(many_threshold_problems())
def test_numeric_sets_with_many_thresholds_match_the_enumeration(problem):
    assert_matches_oracle(problem)


def test_sample_is_uniform():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(60, 6))
    y = (X[:, 0] ^ X[:, 1]) | (rng.random(60) < 0.2)
    rs = RashomonSet(regularization=0.01, rashomon_bound=0.4, bound_type="additive", max_depth=2).fit(X, y)
    assert rs.n_trees_ >= 1000
    draws = np.array(rs.sample(40_000, random_state=0))
    assert draws.min() >= 0 and draws.max() < rs.n_trees_
    counts = np.bincount(draws * 20 // rs.n_trees_, minlength=20)
    assert chisquare(counts).pvalue > 1e-4
    for i in draws[:50]:  # every sampled tree is within the bound
        assert rs.objective(int(i)) <= rs.objective_bound_ + TOL
        tree = rs[int(i)]
        wrong = np.mean(tree.predict(X) != y)
        assert wrong + 0.01 * tree.n_leaves == pytest.approx(rs.objective(int(i)), abs=TOL)


def test_billions_of_trees_are_counted_and_sampled():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(300, 10))
    y = rng.integers(0, 2, size=300)
    rs = RashomonSet(regularization=0.0, rashomon_bound=1.0, bound_type="additive",
                     max_depth=3).fit(X, y)
    assert rs.n_trees_ >= 10**9
    for i in rs.sample(20, random_state=1) + [rs.n_trees_ - 1]:
        assert rs[i].depth <= 3


def test_sklearn_conventions():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.integers(0, 2, size=(40, 3)), columns=["smoker", "age > 40", "bmi"])
    y = X["smoker"].to_numpy() | (rng.random(40) < 0.1)
    rs = RashomonSet(regularization=0.02, rashomon_bound=0.2, max_depth=2).fit(X, y)
    assert "smoker" in rs[0].to_text()
    back = pickle.loads(pickle.dumps(rs))
    assert back.n_trees_ == rs.n_trees_ and back[rs.n_trees_ - 1].to_dict() == rs[rs.n_trees_ - 1].to_dict()
    assert clone(rs).get_params() == rs.get_params()
    np.testing.assert_array_equal(rs.predict(X), back.predict(X))
    with pytest.raises(IndexError):
        rs[rs.n_trees_]
    with pytest.raises(ValueError, match="NaN"):
        RashomonSet().fit(np.array([[np.nan], [1.0]]), [0, 1])
    with pytest.raises(ValueError, match="max_depth"):
        RashomonSet(regularization=0.0).fit(X, y)


def test_parameters_are_checked_at_every_fit_and_default_weights_are_ones():
    # Parameters that passed scikit-learn's check are not checked again (a cache by
    # class, type and value): bad values, and good values of a bad type, still fail.
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, size=(30, 3))
    y = X[:, 0] ^ (rng.random(30) < 0.2)
    rs = RashomonSet(regularization=0.02, rashomon_bound=0.2, max_depth=2).fit(X, y)
    for name, bad in [("rashomon_bound", -1.0), ("max_depth", 2.0), ("bound_type", "ratio"), ("min_samples_leaf", 0)]:
        with pytest.raises(ValueError, match=name):
            clone(rs).set_params(**{name: bad}).fit(X, y)
    again = RashomonSet(regularization=0.02, rashomon_bound=0.2, max_depth=2).fit(X, y)
    weighted = RashomonSet(regularization=0.02, rashomon_bound=0.2, max_depth=2).fit(X, y, sample_weight=np.ones(30))
    for other in (again, weighted):
        assert other.n_trees_ == rs.n_trees_ and other._levels == rs._levels
        assert [other[i].to_dict() for i in range(rs.n_trees_)] == [rs[i].to_dict() for i in range(rs.n_trees_)]


def test_plain_zero_one_inputs_give_the_same_set_as_any_other_form():
    # A C-contiguous 0/1 uint8 matrix with integer labels and no weights skips the
    # general checks (``plain_zero_one_problem``); every other form of the same data
    # goes the general way, and all must give the same set, classes and trees.
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, size=(60, 4)).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(60) < 0.15)).astype(np.int64) * 3 + X[:, 2]
    params = dict(regularization=0.02, rashomon_bound=0.3, max_depth=2)
    plain = RashomonSet(**params).fit(X, y)
    assert plain._train_rows[2] is None  # the plain path: the core weighs each row 1
    forms = [
        (X.astype(bool), y), (X.astype(np.float64), y), (X.astype(np.int64), y),
        (np.asfortranarray(X), y), (X, y.astype(np.uint16)), (X, y.astype(np.int8)),
        (X, y.astype(np.float64)), (pd.DataFrame(X), y),
    ]
    for Xf, yf in forms:
        other = RashomonSet(**params).fit(Xf, yf)
        assert other.n_trees_ == plain.n_trees_ and other._levels == plain._levels
        np.testing.assert_array_equal(other.classes_, plain.classes_.astype(other.classes_.dtype))
        assert other.classes_.dtype == np.asarray(yf).dtype
        for i in (0, plain.n_trees_ // 2, plain.n_trees_ - 1):
            assert other[i].to_dict() == plain[i].to_dict()
        np.testing.assert_array_equal(other.predict_proba(X), plain.predict_proba(X))
    # Feature names of an earlier DataFrame fit are dropped, as scikit-learn does.
    named = RashomonSet(**params).fit(pd.DataFrame(X, columns=list("abcd")), y)
    assert list(named.feature_names_in_) == list("abcd")
    named.fit(X, y)
    assert not hasattr(named, "feature_names_in_") and named.n_features_in_ == 4
    # Values other than 0/1 in a uint8 matrix are numeric columns, not an error.
    wide = X.copy()
    wide[:, 3] *= 5
    assert RashomonSet(**params).fit(wide, y).n_trees_ == plain.n_trees_
    # Node values come from the rows as they were at fit time, whatever the caller does
    # to its array afterwards.
    values = [plain[i].value for i in range(plain.n_trees_)]
    for Xf in (X.copy(), X.astype(np.float64), pd.DataFrame(X.astype(np.float64))):
        rs = RashomonSet(**params).fit(Xf, y)
        Xf[:] = 1 - np.asarray(Xf)  # after the fit, before any tree is read
        assert all(np.array_equal(rs[i].value, v) for i, v in enumerate(values))
    # A single class is refused with the general wording.
    with pytest.raises(ValueError, match="only one class"):
        RashomonSet(**params).fit(X, np.zeros(60, dtype=np.int64))


test_sklearn_estimator_checks = sklearn_checks_test([RashomonSet(max_depth=2, rashomon_bound=0.01)])


def test_rashomon_importance_ranges_over_the_sampled_trees():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, size=(300, 4))
    y = X[:, 0] ^ (rng.random(300) < 0.05)  # column 0 decides, the rest is noise
    rs = RashomonSet(regularization=0.02, rashomon_bound=0.3, max_depth=2).fit(X, y)
    table = rs.rashomon_importance(X, y, n_trees=30, n_repeats=3, random_state=0)
    assert table["feature"] == ["x[0]", "x[1]", "x[2]", "x[3]"]
    assert np.all(table["min"] <= table["mean"]) and np.all(table["mean"] <= table["max"])
    np.testing.assert_allclose(table["usage"], rs.feature_usage())
    # Every member needs column 0: shuffling it costs every sampled tree about half its rows.
    assert table["min"][0] > 0.3
    # A column no member splits on is worth exactly nothing to every tree.
    unused = np.flatnonzero(rs.feature_usage() == 0)
    assert np.all(table["max"][unused] == 0) and np.all(table["min"][unused] == 0)
    # One tree's importance is its own permutation importance.
    one = RashomonSet(regularization=0.02, rashomon_bound=0.0, max_depth=2).fit(X, y)
    assert one.n_trees_ == 1
    got = one.rashomon_importance(X, y, n_trees=1, n_repeats=4, random_state=7)
    tree, r = one[0], np.random.RandomState(7)
    one.sample(1, random_state=r)  # the draws of the sampled index
    base = np.mean(tree.predict(X) != y)
    for j in np.unique(tree.feature[tree.feature >= 0]):
        rises = []
        for _ in range(4):
            Z = X.copy()
            Z[:, j] = X[r.permutation(len(y)), j]
            rises.append(np.mean(tree.predict(Z) != y) - base)
        assert got["mean"][j] == pytest.approx(np.mean(rises))


def test_plot_draws_the_objectives_and_the_feature_usage():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(200, 4))
    y = (X[:, 0] | X[:, 1]) ^ (rng.random(200) < 0.1)
    rs = RashomonSet(regularization=0.01, rashomon_bound=0.5, max_depth=2).fit(X, y)
    histogram, usage = rs.plot()
    heights = [p.get_height() for p in histogram.patches]
    assert sum(heights) == rs.n_trees_ and len(heights) == len(rs._levels)
    np.testing.assert_allclose([p.get_width() for p in usage.patches], rs.feature_usage())

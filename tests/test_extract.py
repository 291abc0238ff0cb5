"""Model extraction (treeopt.extract): the conditional GMM sampler, the split search,
the extraction estimators, their scikit-learn contract, refine="gosdt" and bad input.
"""

from __future__ import annotations

import itertools
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scipy import integrate, stats
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from treeopt import ExtractedTreeClassifier, ExtractedTreeRegressor, GOSDTRegressor, Tree
from treeopt.extract import (
    BoxGaussianMixture,
    CopulaGaussianMixture,
    _best_split,
    _cart_threshold,
    _split_decrease,
    _class_indices,
    _clearly_lower,
    _importance_weights,
    _interpolated_rows,
    _sort_rows,
    _truncnorm_ppf,
)

from sklearn_conformance import sklearn_checks_test

# --------------------------------------------------------------------------- #
# black boxes (module level, so they pickle)
# --------------------------------------------------------------------------- #


def first_positive(X):
    """Class 1 where the first column is positive."""
    return (np.asarray(X)[:, 0] > 0).astype(int)


def twice_first(X):
    return 2.0 * np.asarray(X)[:, 0]


def rule(X):
    """Class 1 iff x0 <= 0.5 and x1 > -0.25: a depth-2 axis-aligned tree."""
    X = np.asarray(X)
    return ((X[:, 0] <= 0.5) & (X[:, 1] > -0.25)).astype(int)


def steps(X):
    """Piecewise constant in x0 (steps at -0.5 and 0.7), plus 3 where x1 > 0."""
    X = np.asarray(X)
    return np.where(X[:, 0] <= -0.5, -10.0, np.where(X[:, 0] <= 0.7, 0.0, 10.0)) + 3.0 * (
        X[:, 1] > 0
    )


class CallLog:
    """A callable black box that records the batches it is called with."""

    def __init__(self, fn):
        self.fn = fn
        self.batches = []

    def __call__(self, X):
        X = np.asarray(X)
        self.batches.append(X.copy())
        return self.fn(X)


def gaussian_data(n=600, d=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


# --------------------------------------------------------------------------- #
# the sampler
# --------------------------------------------------------------------------- #


def _mixture(seed=0):
    """A 3-feature mixture: continuous, integer (grid 0..5) and binary columns."""
    rng = np.random.default_rng(seed)
    X = np.column_stack(
        [
            np.concatenate([rng.normal(-2, 1, 300), rng.normal(3, 0.5, 300)]),
            rng.integers(0, 6, 600),
            rng.integers(0, 2, 600),
        ]
    ).astype(float)
    return BoxGaussianMixture.fit(X, n_components=3, random_state=0), X


bounds = st.one_of(st.just(None), st.floats(-6, 6, allow_nan=False))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    b=st.lists(bounds, min_size=6, max_size=6),
    seed=st.integers(0, 2**31 - 1),
)
def test_samples_lie_inside_the_box_and_take_valid_values(b, seed):
    mix, _ = _mixture()
    lower = np.array([-np.inf if v is None else v for v in b[:3]])
    upper = np.array([np.inf if v is None else v for v in b[3:]])
    upper = np.where(np.isfinite(lower) & np.isfinite(upper), np.maximum(lower, upper), upper)
    if mix.probability(lower, upper) == 0.0:
        with pytest.raises(ValueError, match="zero probability"):
            mix.sample(lower, upper, 10, random_state=seed)
        return
    x = mix.sample(lower, upper, 300, random_state=seed)
    assert x.shape == (300, 3)
    assert np.all(np.isfinite(x))
    assert np.all(x > lower) and np.all(x <= upper)
    assert set(np.unique(x[:, 1])) <= set(range(6))  # integer column: 0..5 only
    assert set(np.unique(x[:, 2])) <= {0.0, 1.0}  # 0/1 column


def test_samples_inside_far_tail_boxes():
    # Boxes far out in the tails (up to 40 standard deviations) still sample exactly inside.
    mix = BoxGaussianMixture([0.3, 0.7], [[0.0, 0.0], [1.0, -1.0]], [[1.0, 0.5], [0.2, 1.0]])
    for lower, upper in [
        ([8.0, -np.inf], [np.inf, np.inf]),
        ([40.0, -45.0], [40.5, -44.0]),
        ([-np.inf, 20.0], [-30.0, np.inf]),
    ]:
        assert mix.probability(lower, upper) < 1e-12  # may underflow to 0.0 ...
        assert np.isfinite(mix.log_probability(lower, upper))  # ... but not in log space
        x = mix.sample(lower, upper, 500, random_state=1)
        assert np.all(x > lower) and np.all(x <= upper)


@pytest.mark.parametrize(
    "lower, upper",
    [
        (-0.7, 1.9),  # most of the mass: mostly the untruncated draws
        (-np.inf, -1.2),  # one-sided lower tail
        (2.5, 3.0),  # thin band in the tail: mostly the inverse CDF (flipped case)
        (4.0, np.inf),  # far upper tail
        (44.6, 45.0),  # 34 standard deviations out: the log-space inverse CDF
    ],
)
def test_one_dimensional_samples_follow_the_truncated_normal(lower, upper):
    mu, sigma = 0.4, 1.3
    mix = BoxGaussianMixture([1.0], [[mu]], [[sigma]])
    x = mix.sample([lower], [upper], 20000, random_state=0)[:, 0]
    a, b = (lower - mu) / sigma, (upper - mu) / sigma
    p_value = stats.kstest(x, stats.truncnorm(a, b, loc=mu, scale=sigma).cdf).pvalue
    assert p_value > 0.01
    # the test has power: the same samples are far from the untruncated normal
    assert stats.kstest(x, stats.norm(mu, sigma).cdf).pvalue < 1e-6


@pytest.mark.parametrize(
    "alpha, beta",
    [
        (-np.inf, 0.3),
        (-0.7, 1.9),
        (2.5, 3.0),
        (4.0, np.inf),
        (0.0, np.inf),
        (-np.inf, np.inf),
        (-np.inf, -30.0),
        (-3.0, -2.9999),
        (-1e-12, 1e-12),
        (8.0, 9.0),
        (-5.0, 40.0),
        (-38.0, -37.9),  # mass ~1e-315: log-space route
        (40.0, 40.5),
        (-45.0, -44.0),
    ],
)
def test_inverse_cdf_equals_scipys_truncnorm_ppf(alpha, beta):
    q = np.random.default_rng(0).uniform(1e-6, 1 - 1e-6, 5000)
    q[:3] = [1e-6, 0.5, 1 - 1e-6]
    ours = _truncnorm_ppf(q, alpha, beta)
    np.testing.assert_allclose(ours, stats.truncnorm.ppf(q, alpha, beta), rtol=1e-9, atol=1e-9)
    # inside the interval up to rounding
    assert np.all(ours >= alpha - 1e-12 * (1 + abs(alpha)))
    assert np.all(ours <= beta + 1e-12 * (1 + abs(beta)))


@settings(max_examples=150, deadline=None)
@given(
    d=st.integers(1, 4),
    n=st.integers(1, 3000),
    kind=st.sampled_from(["normal", "ties", "outliers", "adjacent", "constant", "huge"]),
    seed=st.integers(0, 2**31 - 1),
)
def test_sort_rows_is_an_exact_argsort(d, n, kind, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(d, n))
    if kind == "ties":
        X = np.round(X, 1)
    elif kind == "outliers":  # most values share one integer level: the argsort fallback
        X[:, : min(3, n)] = 1e12
    elif kind == "adjacent":  # values one ulp apart
        X = 1.0 + rng.integers(0, 3, (d, n)) * np.finfo(float).eps
    elif kind == "constant":
        X[:] = 3.0
    elif kind == "huge":
        X[:, 0], X[:, -1] = 1e300, -1e300
    order, distinct = _sort_rows(X.copy())
    xs = np.take_along_axis(X, order, axis=1)
    np.testing.assert_array_equal(xs, np.sort(X, axis=1))
    np.testing.assert_array_equal(distinct, xs[:, 1:] > xs[:, :-1])
    np.testing.assert_array_equal(np.sort(order, axis=1), np.broadcast_to(np.arange(n), (d, n)))


@pytest.mark.parametrize(
    "labels",
    [
        np.array([3, -2, 3, 7, -2]),
        np.array([True, False, True]),
        np.array([True, True]),
        np.array([0, 2, 1], dtype=np.uint8),
        np.array([-128, 127, 0], dtype=np.int8),  # range beyond the dtype's own difference
        np.array([2**64 - 1, 2**64 - 3], dtype=np.uint64),
        np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max]),  # wide: np.unique
        np.array(["b", "a", "b"]),
        np.array([1.0, 0.0, 1.0]),
        np.array([], dtype=int),
    ],
)
def test_class_indices_equal_uniques_inverse(labels):
    expected = np.unique(labels, return_inverse=True)[1].reshape(-1)
    np.testing.assert_array_equal(_class_indices(labels), expected)


@settings(max_examples=200, deadline=None)
@example(base=1.192379528447418e-07, steps=[0, 1, 1], jitter=[0.0] * 12, seed=1)
@given(
    base=st.floats(-1e6, 1e6, allow_nan=False, width=32),
    steps=st.lists(st.integers(0, 3), min_size=2, max_size=12),
    jitter=st.lists(st.floats(-0.49, 0.49), min_size=12, max_size=12),
    seed=st.integers(0, 2**16),
)
def test_cart_threshold_keeps_scikit_learns_partition(base, steps, jitter, seed):
    # Rows a few float32 steps apart (each a float64 near its float32 value), so that
    # scikit-learn's thresholds fall halfway between neighbouring float32 values, where
    # a float32 comparison would round them up. The moved threshold must send every row
    # to the side scikit-learn sends it (it compares float32 values with a float64
    # threshold); a float32 comparison failed this and left a pooled tree with an
    # empty node (NaN class totals).
    idx = np.cumsum(steps) - steps[0]  # each row 0-3 float32 steps above the last
    grid = [np.float32(base)]
    for _ in range(int(idx[-1])):
        grid.append(np.nextafter(grid[-1], np.float32(np.inf)))
    ulp = np.array([float(np.spacing(g)) for g in grid])
    column = np.array([float(grid[i]) for i in idx]) + np.array(jitter[: len(idx)]) * ulp[idx]
    labels = np.random.default_rng(seed).integers(0, 2, len(column))
    cart = DecisionTreeClassifier(max_depth=1, random_state=0).fit(column[:, None], labels)
    if cart.tree_.node_count < 3:
        return
    threshold = float(cart.tree_.threshold[0])
    sklearn_left = cart.apply(column[:, None]) == cart.tree_.children_left[0]
    moved = _cart_threshold(column, threshold)
    np.testing.assert_array_equal(column <= moved, sklearn_left)


def test_component_reweighting_matches_a_numerical_integral():
    weights = np.array([0.5, 0.3, 0.2])
    means = np.array([[0.0, 0.0], [2.0, -1.0], [-1.5, 2.0]])
    stds = np.array([[1.0, 0.5], [0.7, 1.2], [0.4, 0.9]])
    mix = BoxGaussianMixture(weights, means, stds)
    lower, upper = np.array([-0.5, -2.0]), np.array([1.5, 0.8])

    def component_mass(j):
        density = lambda y, x: (  # noqa: E731 - dblquad integrates f(y, x)
            stats.norm.pdf(x, means[j, 0], stds[j, 0]) * stats.norm.pdf(y, means[j, 1], stds[j, 1])
        )
        mass, _ = integrate.dblquad(density, lower[0], upper[0], lower[1], upper[1])
        return weights[j] * mass

    masses = np.array([component_mass(j) for j in range(3)])
    np.testing.assert_allclose(
        mix.component_probabilities(lower, upper), masses / masses.sum(), rtol=1e-6
    )
    np.testing.assert_allclose(mix.probability(lower, upper), masses.sum(), rtol=1e-6)


def test_sampled_component_frequencies_match_the_reweighting():
    # Two well separated components in x0; the box cuts x1 so that their masses differ.
    mix = BoxGaussianMixture([0.5, 0.5], [[-10.0, 0.0], [10.0, 2.0]], [[1.0, 1.0], [1.0, 1.0]])
    lower, upper = np.array([-np.inf, -np.inf]), np.array([np.inf, 0.5])
    expected = mix.component_probabilities(lower, upper)
    np.testing.assert_allclose(
        expected,
        [stats.norm.cdf(0.5), stats.norm.cdf(-1.5)] / (stats.norm.cdf(0.5) + stats.norm.cdf(-1.5)),
        rtol=1e-12,
    )
    x = mix.sample(lower, upper, 20000, random_state=2)
    frequency = np.mean(x[:, 0] > 0)
    assert abs(frequency - expected[1]) < 4 * np.sqrt(expected[1] * expected[0] / 20000)


def test_discrete_column_follows_the_discretised_normal():
    # Integer grid 0..6, one component N(2.2, 1.5^2): P(k) is proportional to the normal
    # mass of [k - 0.5, k + 0.5], within the box 0 < x <= 4 (values 1..4).
    mix = BoxGaussianMixture([1.0], [[2.2]], [[1.5]], grid_min=[0.0], grid_max=[6.0], grid_size=[7])
    x = mix.sample([0.0], [4.0], 20000, random_state=5)[:, 0]
    values, counts = np.unique(x, return_counts=True)
    assert values.tolist() == [1.0, 2.0, 3.0, 4.0]
    cells = stats.norm.cdf([1.5, 2.5, 3.5, 4.5], 2.2, 1.5) - stats.norm.cdf(
        [0.5, 1.5, 2.5, 3.5], 2.2, 1.5
    )
    assert stats.chisquare(counts, cells / cells.sum() * counts.sum()).pvalue > 0.01
    # probability of the box = mass of the four cells / mass of the whole grid
    grid = stats.norm.cdf(6.5, 2.2, 1.5) - stats.norm.cdf(-0.5, 2.2, 1.5)
    np.testing.assert_allclose(mix.probability([0.0], [4.0]), cells.sum() / grid, rtol=1e-12)


def test_empty_and_zero_probability_boxes():
    mix, _ = _mixture()
    inf = np.inf
    # no integer strictly above 2.2 and at most 2.9
    assert mix.probability([-inf, 2.2, -inf], [inf, 2.9, inf]) == 0.0
    assert mix.component_probabilities([-inf, 2.2, -inf], [inf, 2.9, inf]).tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="zero probability"):
        mix.sample([-inf, 2.2, -inf], [inf, 2.9, inf], 5, random_state=0)
    # 0/1 column: nothing above 1
    assert mix.probability([-inf, -inf, 1.0], [inf, inf, inf]) == 0.0
    # empty continuous interval
    assert mix.probability([1.0, -inf, -inf], [1.0, inf, inf]) == 0.0
    # the root box has probability 1
    assert mix.probability([-inf] * 3, [inf] * 3) == pytest.approx(1.0)


def test_fit_detects_constant_integer_and_two_valued_columns():
    rng = np.random.default_rng(0)
    X = np.column_stack(
        [
            rng.normal(size=200),  # continuous
            np.full(200, 7.25),  # constant
            rng.integers(-3, 4, 200),  # integers -3..3
            np.where(rng.random(200) < 0.4, -0.0446, 0.0507),  # two values (like sklearn's sex)
        ]
    )
    mix = BoxGaussianMixture.fit(X, n_components=4, random_state=0)
    assert mix.discrete.tolist() == [False, True, True, True]
    x = mix.sample([-np.inf] * 4, [np.inf] * 4, 3000, random_state=0)
    assert np.all(x[:, 1] == 7.25)
    assert set(np.unique(x[:, 2])) <= set(range(-3, 4))
    assert set(np.unique(x[:, 3])) == {-0.0446, 0.0507}
    assert len(np.unique(x[:, 0])) == 3000
    # a box between the two values of the binary column keeps the upper one only
    upper_only = mix.sample([-np.inf, -np.inf, -np.inf, 0.0], [np.inf] * 4, 100, random_state=0)
    assert np.all(upper_only[:, 3] == 0.0507)


def test_sample_boxes_keeps_the_rows_of_each_box_together():
    mix = BoxGaussianMixture([1.0], [[0.0]], [[1.0]])
    x = mix.sample_boxes([[-np.inf], [1.0]], [[0.0], [np.inf]], 200, random_state=0)
    assert x.shape == (400, 1)
    assert np.all(x[:200] <= 0.0) and np.all(x[200:] > 1.0)


def test_mixture_rejects_bad_parameters():
    with pytest.raises(ValueError, match="stds"):
        BoxGaussianMixture([1.0], [[0.0]], [[0.0]])
    with pytest.raises(ValueError, match="shape"):
        BoxGaussianMixture([0.5, 0.5], [[0.0]], [[1.0]])
    mix = BoxGaussianMixture([1.0], [[0.0]], [[1.0]])
    with pytest.raises(ValueError, match="shape"):
        mix.sample([0.0, 1.0], [1.0, 2.0], 3)
    with pytest.raises(ValueError, match="NaN"):
        mix.probability([np.nan], [1.0])


# --------------------------------------------------------------------------- #
# the split search
# --------------------------------------------------------------------------- #


def _gini(y, k):
    p = np.bincount(y, minlength=k) / len(y)
    return 1.0 - np.sum(p**2)


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(2, 40),
    d=st.integers(1, 4),
    k=st.integers(1, 4),
    regression=st.booleans(),
    seed=st.integers(0, 2**31 - 1),
)
def test_best_split_matches_brute_force(n, d, k, regression, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, (n, d)).astype(float)
    y = rng.normal(size=n) if regression else rng.integers(0, k, n)
    impurity = np.var if regression else (lambda t: _gini(t, k))
    best = 0.0
    for j in range(d):
        for v in np.unique(X[:, j])[:-1]:
            left = X[:, j] <= v
            decrease = (
                impurity(y)
                - (left.sum() * impurity(y[left]) + (~left).sum() * impurity(y[~left])) / n
            )
            best = max(best, decrease)
    feature, threshold, decrease = _best_split(X, y, not regression)
    assert decrease == pytest.approx(best, abs=1e-9)
    if feature >= 0:
        left = X[:, feature] <= threshold
        assert 0 < left.sum() < n
        assert impurity(y) - (
            left.sum() * impurity(y[left]) + (~left).sum() * impurity(y[~left])
        ) / n == pytest.approx(best, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 30),
    d=st.integers(1, 3),
    regression=st.booleans(),
    seed=st.integers(0, 2**31 - 1),
)
def test_weighted_split_equals_the_split_of_repeated_rows(n, d, regression, seed):
    # integer weights are row multiplicities: the weighted search must find the same
    # impurity decrease as the unweighted one on the rows repeated that many times
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, d)).astype(float)
    y = rng.normal(size=n) if regression else rng.integers(0, 3, n)
    repeat = rng.integers(1, 4, n)
    _, _, expected = _best_split(np.repeat(X, repeat, axis=0), np.repeat(y, repeat), not regression)
    weights = repeat / repeat.sum()
    feature, threshold, decrease = _best_split(X, y, not regression, weights)
    assert decrease == pytest.approx(expected, abs=1e-9)
    if feature >= 0:
        assert _split_decrease(
            X, y, feature, threshold, not regression, weights
        ) == pytest.approx(expected, abs=1e-9)


# --------------------------------------------------------------------------- #
# scikit-learn estimator checks
# --------------------------------------------------------------------------- #

# The extractors ignore y: the labels come from the black box. The checks below fit on
# (X, y) and then compare predictions or errors with y, so they cannot pass by design.
_Y_IGNORED = (
    "y is ignored by design (labels come from the black box), so predictions are not "
    "fitted to the check's y"
)
_Y_NOT_VALIDATED = (
    "y is ignored by design (labels come from the black box), so it is not validated: "
    "a malformed y (wrong length, NaN, continuous, 2-D) raises no error or warning"
)
EXPECTED_FAILED_CLASSIFIER = {
    "check_classifiers_classes": _Y_IGNORED,
    "check_classifiers_train": _Y_NOT_VALIDATED,
    "check_classifiers_regression_target": _Y_NOT_VALIDATED,
    "check_supervised_y_no_nan": _Y_NOT_VALIDATED,
    "check_supervised_y_2d": _Y_NOT_VALIDATED,
}
EXPECTED_FAILED_REGRESSOR = {
    "check_regressors_train": _Y_NOT_VALIDATED,
    "check_supervised_y_no_nan": _Y_NOT_VALIDATED,
    "check_supervised_y_2d": _Y_NOT_VALIDATED,
}


def _expected_failed(estimator):
    if isinstance(estimator, ExtractedTreeClassifier):
        return EXPECTED_FAILED_CLASSIFIER
    return EXPECTED_FAILED_REGRESSOR


test_sklearn_estimator_checks = sklearn_checks_test(
    [
        ExtractedTreeClassifier(
            first_positive, max_leaves=4, n_samples=50, n_components=2, random_state=0
        ),
        ExtractedTreeRegressor(
            twice_first, max_leaves=4, n_samples=50, n_components=2, random_state=0
        ),
    ],
    _expected_failed,
)


# --------------------------------------------------------------------------- #
# extraction
# --------------------------------------------------------------------------- #


def test_extraction_recovers_an_axis_aligned_rule():
    X = gaussian_data()
    est = ExtractedTreeClassifier(rule, max_leaves=8, n_samples=500, random_state=0).fit(X)
    tree = est.tree_
    internal = tree.feature >= 0
    # the two true splits are found, close to their true thresholds
    for feature, true_threshold in [(0, 0.5), (1, -0.25)]:
        found = tree.threshold[internal & (tree.feature == feature)]
        assert found.size and np.min(np.abs(found - true_threshold)) < 0.05
    assert est.fidelity(gaussian_data(seed=1))["accuracy"] > 0.98
    assert est.classes_.tolist() == [0, 1]
    assert isinstance(tree, Tree) and tree.n_leaves <= 8
    # weighted_n_node_samples is the probability of the node's region: root 1, and the
    # children's probabilities add up to the parent's
    assert tree.weighted_n_node_samples[0] == pytest.approx(1.0)
    for node in np.flatnonzero(internal):
        kids = tree.children_left[node], tree.children_right[node]
        assert tree.weighted_n_node_samples[list(kids)].sum() == pytest.approx(
            tree.weighted_n_node_samples[node], rel=1e-9
        )


def test_queries_are_batched_and_counted():
    X = gaussian_data()
    log = CallLog(rule)
    est = ExtractedTreeClassifier(
        log, max_leaves=6, n_samples=100, random_state=0, train_weight=0.5
    ).fit(X)
    sizes = [len(b) for b in log.batches]
    # one batch for the root (the training rows and its samples), then one per
    # expansion holding both children
    assert sizes == [len(X) + 200] + [400] * (est.tree_.n_leaves - 1)
    assert est.n_queries_ == sum(sizes)
    assert est.n_blackbox_calls_ == len(sizes)
    assert est.blackbox_time_ >= 0
    est.fidelity(X)  # fidelity queries once more, not counted
    assert len(log.batches) == len(sizes) + 1 and est.n_queries_ == sum(sizes)
    # train_weight=0 (the paper's algorithm): the training rows are not queried
    samples_only = CallLog(rule)
    ExtractedTreeClassifier(
        samples_only, max_leaves=6, n_samples=100, random_state=0, train_weight=0
    ).fit(X)
    assert [len(b) for b in samples_only.batches][0] == 200
    # train_weight=1 (the rows alone): one query of the training rows, no sampling
    rows_only = CallLog(rule)
    est = ExtractedTreeClassifier(
        rows_only, max_leaves=6, n_samples=100, random_state=0, train_weight=1
    ).fit(X)
    assert [len(b) for b in rows_only.batches] == [len(X)] and est.n_queries_ == len(X)
    # "auto": ONE query, the training rows followed by a pool of n_samples * max_leaves
    # inputs and half as many check inputs, counted
    auto = CallLog(rule)
    est = ExtractedTreeClassifier(auto, max_leaves=6, n_samples=100, random_state=0).fit(X)
    assert [len(b) for b in auto.batches] == [len(X) + 900] and est.n_queries_ == len(X) + 900
    assert np.array_equal(auto.batches[0][: len(X)], X)
    assert est.train_weight_ in (len(X) / (len(X) + 100), 1.0, 0.9, 0.75, 0.5)


def test_zero_gain_stops_early():
    X = gaussian_data()
    constant = CallLog(lambda X: np.ones(len(X), dtype=int))
    # (a fixed share: "auto" would also query its cross-validation fits)
    est = ExtractedTreeClassifier(
        constant, max_leaves=16, n_samples=50, random_state=0, train_weight=0.5
    ).fit(X)
    assert est.tree_.n_leaves == 1 and len(constant.batches) == 1
    assert est.predict(X[:3]).tolist() == [1, 1, 1]
    # on an integer column, the split x0 <= 0.5 makes both children pure: gain 0, stop
    Z = np.column_stack([np.random.default_rng(0).integers(-3, 4, 500), X[:500, :2]])
    one_split = ExtractedTreeClassifier(
        first_positive, max_leaves=16, n_samples=200, random_state=0
    ).fit(Z)
    assert one_split.tree_.n_leaves == 2
    assert one_split.tree_.threshold[0] == 0.5 and one_split.tree_.feature[0] == 0


def test_max_leaves_one_is_the_majority_leaf():
    X = gaussian_data()
    est = ExtractedTreeClassifier(rule, max_leaves=1, n_samples=300, random_state=0).fit(X)
    assert est.tree_.n_leaves == 1
    majority = np.bincount(
        rule(est.input_distribution_.sample([-np.inf] * 3, [np.inf] * 3, 5000, random_state=1))
    ).argmax()
    assert np.all(est.predict(X) == majority)


def test_same_seed_same_tree_and_other_seeds_differ():
    X = gaussian_data()
    # (with the mixture: the rows alone, CART, are the same tree whatever the seed
    # where no two splits tie)
    kw = {"max_leaves": 6, "n_samples": 200, "train_weight": 0.5}
    a = ExtractedTreeClassifier(rule, random_state=3, **kw).fit(X)
    b = ExtractedTreeClassifier(rule, random_state=3, **kw).fit(X)
    c = ExtractedTreeClassifier(rule, random_state=4, **kw).fit(X)
    assert a.tree_ == b.tree_
    assert not np.array_equal(a.tree_.threshold, c.tree_.threshold)


def test_shared_input_distribution():
    X = gaussian_data()
    first = ExtractedTreeClassifier(rule, max_leaves=4, n_samples=100, random_state=0).fit(X)
    again = ExtractedTreeClassifier(
        rule,
        max_leaves=4,
        n_samples=100,
        random_state=1,
        input_distribution=first.input_distribution_,
    ).fit(X)
    assert again.input_distribution_ is first.input_distribution_
    with pytest.raises(ValueError, match="features"):
        ExtractedTreeClassifier(rule, input_distribution=first.input_distribution_).fit(X[:, :2])


def test_regression_recovers_steps():
    X = gaussian_data()
    est = ExtractedTreeRegressor(steps, max_leaves=6, n_samples=500, random_state=0).fit(X)
    tree = est.tree_
    internal = tree.feature >= 0
    for feature, true_threshold in [(0, -0.5), (0, 0.7), (1, 0.0)]:
        found = tree.threshold[internal & (tree.feature == feature)]
        assert found.size and np.min(np.abs(found - true_threshold)) < 0.05
    X_test = gaussian_data(seed=2)
    mse = est.fidelity(X_test)["mse"]
    assert mse == pytest.approx(np.mean((est.predict(X_test) - steps(X_test)) ** 2))
    assert mse < 0.05 * np.var(steps(X_test))  # a step misplaced by a sample gap costs a bit
    # negative leaf means are kept (value holds the node means): the x0 <= -0.5 region
    # (mean -10, or -7 where x1 > 0) gives a leaf of mean at most -7
    assert tree.value.min() <= -7 and est.predict(X_test).min() == tree.value.min()
    assert "x[0] <=" in tree.to_text() and "digraph" in tree.to_dot()


def test_random_forest_on_breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=30, random_state=0).fit(X[::2], y[::2])
    est = ExtractedTreeClassifier(forest, max_leaves=8, n_samples=300, random_state=0)
    est.fit(X[::2])
    fid = est.fidelity(X[1::2])
    assert set(fid) == {"accuracy", "f1"} and fid["accuracy"] > 0.9 and fid["f1"] > 0.9
    np.testing.assert_array_equal(est.classes_, forest.classes_)
    proba = est.predict_proba(X[1::2])
    assert proba.shape == (len(X[1::2]), 2) and np.allclose(proba.sum(axis=1), 1.0)
    assert est.score(X[1::2], y[1::2]) > 0.85  # ClassifierMixin.score against true labels


def test_multiclass_and_string_labels():
    X, y = load_iris(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    est = ExtractedTreeClassifier(forest, max_leaves=5, n_samples=300, random_state=0).fit(X)
    assert est.predict_proba(X).shape == (150, 3)
    assert set(est.fidelity(X)) == {"accuracy"}  # F1 only for binary problems
    names = np.array(["setosa", "versicolor", "virginica"])
    est = ExtractedTreeClassifier(
        lambda Z: names[forest.predict(Z)], max_leaves=5, n_samples=300, random_state=0
    ).fit(X)
    assert est.classes_.tolist() == names.tolist()
    assert est.fidelity(X)["accuracy"] > 0.9


def test_training_rows_raise_multiclass_fidelity():
    # On wine (13 features, 3 classes) a 10-component diagonal mixture is a rough model
    # of the inputs: trees fitted to its samples alone (train_weight=0, the paper's
    # algorithm) agree less with the forest on held-out rows than trees that also fit
    # the training rows themselves (the default), summed over five fixed splits.
    from sklearn.datasets import load_wine
    from sklearn.model_selection import train_test_split

    X, y = load_wine(return_X_y=True)
    total = {0.0: 0.0, 0.5: 0.0}
    for split in range(5):
        Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.3, random_state=split)
        forest = RandomForestClassifier(n_estimators=50, random_state=0).fit(Xtr, ytr)
        for share in total:
            est = ExtractedTreeClassifier(
                forest, max_leaves=6, n_samples=500, random_state=0, train_weight=share
            ).fit(Xtr)
            total[share] += est.fidelity(Xte)["accuracy"]
    assert total[0.5] > total[0.0]


def test_auto_train_weight_where_the_mixture_misleads():
    # The inputs lie on a curve in 3-D; a mixture puts much of its mass off the curve,
    # where the black box answers a third class the data never shows. Trees that give
    # a diagonal mixture half the distribution agree less with the black box on fresh
    # rows than "auto". Its pool (a quarter of it off the curve) weighs 20% against the
    # 400 rows by default, which cost up to 0.5% of fresh rows against CART on the rows
    # alone (0.9935 vs 0.9985 on seed 0) while "auto" kept the default unless the check
    # inputs clearly favoured another share; it now keeps a pooled tree only where the
    # check inputs and the held-out rows together favour it over the rows alone, and
    # is never below CART here.
    def curve(n, seed):
        t = np.random.default_rng(seed).uniform(-1, 1, n)
        return np.column_stack([t, np.sin(3 * t), t**2 - 0.5 * t])

    def blackbox(X):
        off = np.abs(X[:, 1] - np.sin(3 * X[:, 0])) + np.abs(X[:, 2] - X[:, 0] ** 2 + 0.5 * X[:, 0])
        return np.where(off > 0.1, 2, (np.sin(5 * X[:, 0]) > 0).astype(int))

    total = {0.5: 0.0, "auto": 0.0}
    for seed in range(6):
        X, X_test = curve(400, seed), curve(2000, 100 + seed)
        fidelity = {}
        for share in (0.5, "auto"):
            est = ExtractedTreeClassifier(
                blackbox, max_leaves=5, n_samples=200, random_state=seed, train_weight=share
            ).fit(X)
            fidelity[share] = est.fidelity(X_test)["accuracy"]
            total[share] += fidelity[share]
        cart = DecisionTreeClassifier(max_leaf_nodes=5, random_state=seed).fit(X, blackbox(X))
        assert fidelity["auto"] >= np.mean(cart.predict(X_test) == blackbox(X_test))
    assert total[0.5] < total["auto"]


def _splits_by_path(tree):
    """{root-to-node path: feature} of the internal nodes of a treeopt or sklearn tree."""
    out, stack = {}, [(0, "")]
    while stack:
        node, path = stack.pop()
        if tree.children_left[node] != -1:
            out[path] = int(tree.feature[node])
            stack += [(tree.children_left[node], path + "L"), (tree.children_right[node], path + "R")]
    return out


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_rows_alone_is_scikit_learns_cart(seed):
    # train_weight=1 is scikit-learn's CART on the black box's labels, with the
    # extractor's integer seed: on the full grid {0, 1, 2}^4 and a black box symmetric
    # in the four columns, every split of a column ties with the same split of the
    # others, and CART's seed decides between them (the four seeds give four different
    # trees). The tree is the same, split by split, and it routes every row alike (the
    # thresholds are our float64 midpoints of the same partitions).
    X = np.array(list(itertools.product(range(3), repeat=4)), dtype=float)
    X_new = np.random.default_rng(seed).uniform(-0.5, 2.5, size=(500, 4))

    def blackbox(Z):
        return (Z.sum(axis=1) > 4).astype(int)

    def outputs(Z):
        return blackbox(Z) + 0.5 * Z.sum(axis=1)

    cases = [
        (ExtractedTreeClassifier, DecisionTreeClassifier, blackbox),
        (ExtractedTreeRegressor, DecisionTreeRegressor, outputs),
    ]
    for Extractor, Cart, box in cases:
        est = Extractor(box, max_leaves=9, random_state=seed, train_weight=1).fit(X)
        cart = Cart(max_leaf_nodes=9, random_state=seed).fit(X, box(X))
        assert _splits_by_path(est.tree_) == _splits_by_path(cart.tree_)
        # (leaf means up to the rounding of their sums)
        assert np.allclose(est.predict(X_new), cart.predict(X_new), rtol=1e-12, atol=0)
        assert est.n_queries_ == len(X)


def test_auto_train_weight_keeps_the_mixture_where_it_helps():
    # 80 rows of a 5-D Gaussian, which a diagonal mixture models well, and a black box
    # made of axis-aligned boxes: 8 leaves placed by 300 samples of every node's region
    # find its thresholds, 8 leaves placed by the 80 rows alone (CART) miss many. "auto"
    # sees it on its check inputs, keeps the mixture, and beats CART on fresh rows.
    def blackbox(Z):
        boxes = ((Z[:, 0] > 0.5) & (Z[:, 1] > -0.3)) | ((Z[:, 3] < -0.8) & (Z[:, 0] < 0))
        return (boxes | (Z[:, 2] > 1.2)).astype(int)

    for seed in range(3):
        rng = np.random.default_rng(seed)
        X, X_new = rng.normal(size=(80, 5)), rng.normal(size=(4000, 5))
        est = ExtractedTreeClassifier(blackbox, max_leaves=8, n_samples=300, random_state=seed)
        est.fit(X)
        assert est.train_weight_ < 1.0
        cart = DecisionTreeClassifier(max_leaf_nodes=8, random_state=seed).fit(X, blackbox(X))
        assert est.fidelity(X_new)["accuracy"] > np.mean(cart.predict(X_new) == blackbox(X_new))


def test_auto_is_cart_on_the_weighted_rows_and_pool():
    # "auto" is scikit-learn's CART on the rows and the pool it queried, the rows
    # weighing the chosen share in total and the pool the rest: the same splits, node
    # for node, and the same predictions (thresholds moved to float64 midpoints of the
    # same partitions), for a classifier and a regressor. The pooled share (n / (n + 100),
    # 0.9, 0.75 or 0.5) whose CART disagrees least with the black box on the check inputs
    # (queried after the pool) is kept only if, on the check inputs and the rows together
    # (each row predicted by the trees fitted without its fold of a 5-fold
    # cross-validation, fold ``default_rng(seed).permutation(n) % 5``), it disagrees less
    # than the rows alone by more than 2 standard errors of the paired differences.
    X = gaussian_data(150, 4, seed=1)  # few enough rows for the pool to count
    X_new = gaussian_data(2000, 4, seed=2)
    cases = [
        (ExtractedTreeClassifier, DecisionTreeClassifier, rule),
        (ExtractedTreeRegressor, DecisionTreeRegressor, lambda Z: steps(Z) + 0.3 * Z[:, 2]),
    ]
    kept = set()
    for Extractor, Cart, fn in cases:
        log = CallLog(fn)
        est = Extractor(log, max_leaves=7, n_samples=150, random_state=5).fit(X)
        (batch,) = log.batches
        n, m = len(X), 150 * 7
        assert batch.shape[0] == n + m + m // 2
        data, check = batch[: n + m], batch[n + m :]
        default = n / (n + 100)

        def fit(share, rows):
            weight = np.r_[np.full(len(rows), share / len(rows)), np.full(m, (1 - share) / m)]
            fit_on = np.r_[rows, n + np.arange(m)] if share < 1 else rows
            cart = Cart(max_leaf_nodes=7, random_state=5)
            return cart.fit(data[fit_on], fn(data[fit_on]), sample_weight=weight[: len(fit_on)])

        def loss(cart, Z):
            pred = cart.predict(Z)
            return (pred != fn(Z)) * 1.0 if Cart is DecisionTreeClassifier else (pred - fn(Z)) ** 2

        losses, trees, check_loss = {}, {}, {}
        for share in (default, 1.0, 0.9, 0.75, 0.5):
            trees[share] = fit(share, np.arange(n))
            check_loss[share] = loss(trees[share], check)
            losses[share] = np.mean(check_loss[share])
        best = min(losses, key=losses.get)
        folds = np.random.default_rng(5).permutation(n) % 5
        held = {best: np.empty(n), 1.0: np.empty(n)}
        for fold in range(5):
            out = folds == fold
            for share in held:
                held[share][out] = loss(fit(share, np.flatnonzero(~out)), X[out])
        diff = np.r_[check_loss[best] - check_loss[1.0], held[best] - held[1.0]]
        clear = diff.mean() < -2 * diff.std(ddof=1) / np.sqrt(diff.size)
        chosen = best if best != 1.0 and clear else 1.0
        kept.add(chosen < 1)
        assert est.train_weight_ == chosen
        cart = trees[chosen]
        assert _splits_by_path(est.tree_) == _splits_by_path(cart.tree_)
        assert np.allclose(est.predict(X_new), cart.predict(X_new), rtol=1e-12, atol=0)
        # the pool is a sample of the distribution fitted to X, not X itself
        assert est.pool_distribution_.n_features == 4
        # (a draw beyond a column's range is clipped to its extreme row, which it equals)
        inner = (X[:, 0].min() < batch[len(X):, 0]) & (batch[len(X):, 0] < X[:, 0].max())
        assert not np.isin(batch[len(X):, 0][inner], X[:, 0]).any() and inner.mean() > 0.99
    assert kept == {True}  # (the pool is kept here: the rule above is not only CART's)


def test_auto_pool_comes_from_a_given_input_distribution():
    # With input_distribution, "auto" draws its pool from it (nothing is refitted):
    # here a mixture concentrated far from X, which the pool then follows.
    X = gaussian_data(200, 2)
    far = BoxGaussianMixture([1.0], [[50.0, 50.0]], [[0.1, 0.1]])
    log = CallLog(rule)
    est = ExtractedTreeClassifier(
        log, max_leaves=3, n_samples=50, random_state=0, input_distribution=far
    ).fit(X)
    assert est.pool_distribution_ is far
    pool = log.batches[0][len(X) : len(X) + 150]
    assert np.all(np.abs(pool - 50.0) < 1.0)


def test_copula_mixture_keeps_marginals_and_dependence():
    # A skewed column, its strongly dependent partner and a three-valued integer column:
    # the samples stay in the skewed column's range, the integer column on its values,
    # and the dependence of the first two is kept (an axis-aligned mixture of one
    # component, BoxGaussianMixture, loses it entirely).
    rng = np.random.default_rng(0)
    a = rng.exponential(size=2000)
    X = np.column_stack([a, np.log1p(a) + 0.05 * rng.normal(size=2000), rng.integers(0, 3, 2000)])
    mix = CopulaGaussianMixture.fit(X, n_components=3, random_state=0)
    Z = mix.sample(5000, random_state=1)
    assert Z.shape == (5000, 3) and mix.n_features == 3
    assert Z[:, 0].min() >= X[:, 0].min() and Z[:, 0].max() <= X[:, 0].max()
    assert set(np.unique(Z[:, 2])) == {0.0, 1.0, 2.0}
    rank = lambda V: stats.spearmanr(V[:, 0], V[:, 1])[0]
    assert rank(Z) > 0.9 and abs(rank(Z) - rank(X)) < 0.05
    diag = BoxGaussianMixture.fit(X, n_components=1, random_state=0)
    W = diag.sample(np.full(3, -np.inf), np.full(3, np.inf), 5000, random_state=1)
    assert abs(rank(W)) < 0.1
    # a Generator or a seed; the same seed gives the same sample
    assert np.array_equal(mix.sample(10, random_state=3), mix.sample(10, random_state=3))
    assert mix.sample(10, np.random.default_rng(0)).shape == (10, 3)


def test_predict_proba_only_black_box():
    class ProbaOnly:
        classes_ = np.array(["no", "yes"])

        def predict_proba(self, X):
            p = 1.0 / (1.0 + np.exp(-4.0 * np.asarray(X)[:, 0]))
            return np.column_stack([1 - p, p])

    est = ExtractedTreeClassifier(ProbaOnly(), max_leaves=3, n_samples=200, random_state=0)
    est.fit(gaussian_data())
    assert est.classes_.tolist() == ["no", "yes"]
    assert est.predict([[1.0, 0, 0], [-1.0, 0, 0]]).tolist() == ["yes", "no"]


def test_integer_and_binary_columns_of_compas_get_valid_values(load_dataset):
    X, _, names = load_dataset("compas")
    X = X.astype(float)
    integral = np.all(X == np.round(X), axis=0)
    assert integral.any()
    log = CallLog(lambda Z: (Z[:, 0] + 3 * Z[:, -1] > np.median(X[:, 0])).astype(int))
    est = ExtractedTreeClassifier(log, max_leaves=6, n_samples=200, random_state=0).fit(X)
    queried = np.vstack(log.batches)
    for j in np.flatnonzero(integral):
        lo, hi = X[:, j].min(), X[:, j].max()
        col = queried[:, j]
        assert np.all(col == np.round(col)) and col.min() >= lo and col.max() <= hi, names[j]
        if set(np.unique(X[:, j])) <= {0.0, 1.0}:
            assert set(np.unique(col)) <= {0.0, 1.0}, names[j]
    assert est.tree_.n_leaves >= 2


def test_constant_column_is_sampled_constant_and_never_split():
    X = gaussian_data()
    X[:, 1] = 4.5
    log = CallLog(lambda Z: (Z[:, 0] > 0).astype(int) ^ (Z[:, 2] > 1).astype(int))
    est = ExtractedTreeClassifier(log, max_leaves=6, n_samples=200, random_state=0).fit(X)
    assert np.all(np.vstack(log.batches)[:, 1] == 4.5)
    assert 1 not in est.tree_.feature


# --------------------------------------------------------------------------- #
# refine="gosdt"
# --------------------------------------------------------------------------- #


def test_refine_gosdt_maps_back_to_the_original_features():
    X = gaussian_data()
    est = ExtractedTreeClassifier(
        rule,
        max_leaves=8,
        n_samples=300,
        random_state=0,
        refine="gosdt",
        refine_regularization=0.005,
        refine_time_limit=30,
    ).fit(X)
    assert est.refine_status_ == "optimal"
    gosdt = est.refine_estimator_
    pairs = est.refine_thresholds_
    assert len(pairs) == len(est.refine_feature_names_) == gosdt.n_features_in_
    assert all(
        name.startswith(f"x{f} <= ") for (f, _), name in zip(pairs, est.refine_feature_names_)
    )
    # predictions on raw X equal GOSDT's on the binarized columns
    X_test = gaussian_data(seed=5)
    X01 = np.column_stack([X_test[:, f] <= t for f, t in pairs]).astype(np.uint8)
    np.testing.assert_array_equal(est.predict(X_test), gosdt.predict(X01))
    # thresholds of the refined tree are among the extraction's
    tree = est.tree_
    used = {(int(f), float(t)) for f, t in zip(tree.feature, tree.threshold) if f >= 0}
    assert used <= set(pairs)
    # the rule is a 3-leaf tree: GOSDT finds it, with near-perfect fidelity
    assert tree.n_leaves == 3
    assert est.fidelity(X_test)["accuracy"] > 0.98
    assert est.extracted_tree_.n_leaves >= 3
    # GOSDT's objective is computed on importance-weighted samples (weights sum to 1)
    assert gosdt.objective_ == pytest.approx(gosdt.lower_bound_)
    assert 0.015 - 1e-9 <= gosdt.objective_ < 0.05


def test_refine_gosdt_regressor_maps_back_to_the_original_features():
    X = gaussian_data()
    # (with the mixture's samples, whose thresholds find the steps' edges)
    est = ExtractedTreeRegressor(
        steps, max_leaves=8, n_samples=300, random_state=0, refine="gosdt",
        refine_regularization=0.003, refine_time_limit=30, train_weight=0.5,
    ).fit(X)
    assert est.refine_status_ == "optimal"
    reg = est.refine_estimator_
    assert isinstance(reg, GOSDTRegressor) and reg.objective_ == pytest.approx(reg.lower_bound_)
    pairs = est.refine_thresholds_
    assert len(pairs) == len(est.refine_feature_names_) == reg.n_features_in_
    # predictions on raw X equal GOSDT's on the binarized columns, and the rules say so
    X_test = gaussian_data(seed=5)
    X01 = np.column_stack([X_test[:, f] <= t for f, t in pairs]).astype(np.uint8)
    np.testing.assert_allclose(est.predict(X_test), reg.predict(X01))
    tree = est.tree_
    assert tree.task == "regression" and tree.value.shape[1] == 1
    used = {(int(f), float(t)) for f, t in zip(tree.feature, tree.threshold) if f >= 0}
    assert used <= set(pairs)
    # the black box is six constant pieces; the optimal tree over the extraction's
    # thresholds finds them, within sampling error of the thresholds
    assert tree.n_leaves == 6
    assert est.fidelity(X_test)["mse"] < 1e-3 * np.var(steps(X_test))
    assert est.extracted_tree_ is not tree


def test_refine_gosdt_regressor_trivial_when_outputs_are_constant():
    est = ExtractedTreeRegressor(
        lambda Z: np.full(len(Z), 2.5), max_leaves=4, n_samples=50, refine="gosdt", random_state=0
    ).fit(gaussian_data())
    assert est.refine_status_ == "trivial" and est.tree_.n_leaves == 1
    assert est.predict(gaussian_data(n=5)) == pytest.approx(2.5)


def test_importance_weights_make_pooled_node_samples_represent_the_distribution():
    # Root x0 <= 1; its right child x1 <= 0.5. Each node gets 2000 draws from P | node.
    mix = BoxGaussianMixture([1.0], [[0.0, 0.0]], [[1.0, 1.0]])
    inf = np.inf
    boxes = [
        ([-inf, -inf], [inf, inf]),
        ([-inf, -inf], [1.0, inf]),
        ([1.0, -inf], [inf, inf]),
        ([1.0, -inf], [inf, 0.5]),
        ([1.0, 0.5], [inf, inf]),
    ]
    prob = np.array([mix.probability(lo, hi) for lo, hi in boxes])
    np.testing.assert_allclose(prob[1:3], [stats.norm.cdf(1.0), stats.norm.sf(1.0)])
    tree = Tree(
        [1, -1, 3, -1, -1],
        [2, -1, 4, -1, -1],
        [0, -2, 1, -2, -2],
        [1.0, -2, 0.5, -2, -2],
        np.ones((5, 1)),
        prob,
    )
    X = np.vstack([mix.sample(lo, hi, 2000, random_state=i) for i, (lo, hi) in enumerate(boxes)])
    weight = _importance_weights(tree, np.full(5, 2000), X)
    assert weight.sum() == pytest.approx(1.0)
    leaf = tree.apply(X)
    for node in (1, 3, 4):
        assert weight[leaf == node].sum() == pytest.approx(prob[node], abs=0.01)
    # unweighted, the pooled rows are far from the distribution (leaf 1: ~0.37, not 0.84)
    assert abs(np.mean(leaf == 1) - prob[1]) > 0.3


def test_refine_trivial_when_single_class():
    est = ExtractedTreeClassifier(
        lambda Z: np.zeros(len(Z), int), max_leaves=4, n_samples=50, refine="gosdt", random_state=0
    )
    est.fit(gaussian_data())
    assert est.refine_status_ == "trivial" and est.tree_.n_leaves == 1


# --------------------------------------------------------------------------- #
# scikit-learn integration
# --------------------------------------------------------------------------- #


def test_pandas_input_uses_names_and_queries_with_frames():
    pd = pytest.importorskip("pandas")
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. "X does not have valid feature names"
        est = ExtractedTreeClassifier(forest, max_leaves=4, n_samples=200, random_state=0)
        est.fit(X, y)
        est.fidelity(X)
        est.predict(X)
    assert list(est.feature_names_in_) == list(X.columns)
    assert any(name in est.tree_.to_text() for name in X.columns)
    assert isinstance(X, pd.DataFrame)


def test_clone_shares_the_fitted_black_box_and_grid_search_works():
    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    est = ExtractedTreeClassifier(forest, n_samples=100, random_state=0)
    copy = clone(est)
    assert copy.blackbox is forest and copy.get_params()["max_leaves"] == 16
    search = GridSearchCV(est, {"max_leaves": [2, 6]}, cv=2).fit(X, y)
    assert search.best_params_["max_leaves"] in (2, 6)
    assert search.best_estimator_.blackbox is forest


def test_pipeline_and_pickle():
    X = gaussian_data()
    pipe = Pipeline(
        [
            ("scale", FunctionTransformer(lambda Z: 2.0 * Z)),
            (
                "tree",
                ExtractedTreeRegressor(twice_first, max_leaves=4, n_samples=100, random_state=0),
            ),
        ]
    )
    pipe.fit(X)
    assert pipe.predict(X).shape == (len(X),)
    est = ExtractedTreeClassifier(rule, max_leaves=4, n_samples=100, random_state=0).fit(X)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    assert again.fidelity(X) == est.fidelity(X)


# --------------------------------------------------------------------------- #
# bad input
# --------------------------------------------------------------------------- #


def test_black_box_without_predict():
    X = gaussian_data()
    with pytest.raises((TypeError, ValueError), match="blackbox"):
        ExtractedTreeClassifier(object()).fit(X)
    with pytest.raises((TypeError, ValueError), match="blackbox"):
        ExtractedTreeRegressor(None).fit(X)
    with pytest.raises(TypeError, match="fitted instance"):
        ExtractedTreeClassifier(RandomForestClassifier).fit(X)


def test_unfitted_black_box():
    with pytest.raises(ValueError, match="not fitted"):
        ExtractedTreeClassifier(RandomForestClassifier(), n_samples=20).fit(gaussian_data())


@pytest.mark.parametrize(
    "blackbox, message",
    [
        (lambda Z: np.zeros((len(Z), 2)), "shape"),
        (lambda Z: np.zeros(len(Z) - 1), "shape"),
        (lambda Z: np.zeros(()), "shape"),
        (lambda Z: np.full(len(Z), np.nan), "NaN"),
        (lambda Z: np.where(Z[:, 0] > 0, 1.0, np.nan), "NaN"),
        (lambda Z: np.array([None] * len(Z), dtype=object), "None"),
        (lambda Z: Z[:, 0] * 0.37, "ExtractedTreeRegressor"),
    ],
)
def test_classifier_rejects_bad_outputs(blackbox, message):
    est = ExtractedTreeClassifier(blackbox, n_samples=20, random_state=0)
    with pytest.raises(ValueError, match=message):
        est.fit(gaussian_data())


@pytest.mark.parametrize(
    "blackbox, message",
    [
        (lambda Z: np.zeros((len(Z), 3)), "shape"),
        (lambda Z: np.where(Z[:, 0] > 0, 1.0, np.inf), "infinite"),
        (lambda Z: np.array(["a"] * len(Z)), "numbers"),
        # squared errors of such outputs overflow (this raised a TypeError before)
        (lambda Z: np.where(Z[:, 0] > 0, 1e200, -1e200), "overflow"),
    ],
)
def test_regressor_rejects_bad_outputs(blackbox, message):
    est = ExtractedTreeRegressor(blackbox, n_samples=20, random_state=0)
    with pytest.raises(ValueError, match=message):
        est.fit(gaussian_data())


def test_regressor_explains_huge_but_finite_outputs():
    # outputs of 1e90 square to 1e180: still finite, so the extraction must work and
    # find the one split of the step
    est = ExtractedTreeRegressor(
        lambda Z: np.where(Z[:, 0] > 0, 1e90, -1e90), max_leaves=2, n_samples=50, random_state=0
    )
    X = gaussian_data()
    est.fit(X)
    assert est.tree_.n_leaves == 2
    step = np.where(X[:, 0] > 0, 1e90, -1e90)
    assert np.mean(np.isclose(est.predict(X), step, rtol=1e-12)) > 0.98
    assert "predict 1e+90" in est.tree_.to_text()  # not all 91 digits


def test_bad_X_and_parameters():
    X = gaussian_data()
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ExtractedTreeClassifier(rule).fit(X_nan)
    est = ExtractedTreeClassifier(rule, max_leaves=2, n_samples=50, random_state=0).fit(X)
    with pytest.raises(ValueError, match="NaN"):
        est.predict(X_nan)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :2])
    for params in (
        {"max_leaves": 0},
        {"max_leaves": -3},
        {"n_samples": 1},
        {"n_components": 0},
        {"refine": "osdt"},
        {"refine_time_limit": 0},
        {"train_weight": "best"},
        {"train_weight": 1.5},
    ):
        with pytest.raises(ValueError, match=next(iter(params))):
            ExtractedTreeClassifier(rule, **params).fit(X)


def test_regressor_of_a_random_forest_has_a_readable_tree():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (300, 3))
    forest = RandomForestRegressor(n_estimators=20, random_state=0).fit(X, steps(X))
    est = ExtractedTreeRegressor(forest, max_leaves=4, n_samples=200, random_state=0).fit(X)
    tree = est.tree_
    assert tree.task == "regression" and tree.n_leaves == 4
    assert est.tree_.to_text().count("predict ") == 4
    assert Tree.from_dict(tree.to_dict()) == tree
    np.testing.assert_array_equal(est.predict(X), tree.value[tree.apply(X), 0])


@given(st.integers(0, 2**32 - 1), st.integers(2, 30))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_check_inputs_lie_between_neighbouring_rows(seed, n):
    # Every check input of train_weight="auto" is on the segment from a row to one of
    # its k nearest rows (brute force, in standardised columns), and an integer column
    # stays on its grid (the integers from its least to its largest value).
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), 10 * rng.normal(size=n), rng.integers(0, 4, n)])
    k = 2
    out = _interpolated_rows(X, 60, np.random.default_rng(seed + 1), k=k)
    assert out.shape == (60, 3) and np.all(out[:, 2] == np.round(out[:, 2]))
    assert X[:, 2].min() <= out[:, 2].min() and out[:, 2].max() <= X[:, 2].max()
    Z = (X[:, :2] - X[:, :2].mean(0)) / X[:, :2].std(0)  # the continuous columns
    Zall = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1)
    dist = ((Zall[:, None, :] - Zall[None, :, :]) ** 2).sum(-1)
    for p in out[:, :2]:
        found = False
        for i in range(n):
            kth = np.sort(dist[i])[min(k, n - 1)]  # i itself is at distance 0
            for j in np.flatnonzero((dist[i] <= kth + 1e-12) & (np.arange(n) != i)):
                a, b = X[i, :2], X[j, :2]
                t = np.dot(p - a, b - a) / max(np.dot(b - a, b - a), 1e-300)
                if -1e-9 <= t <= 1 + 1e-9 and np.allclose(a + t * (b - a), p, atol=1e-9):
                    found = True
        assert found


def test_clearly_lower_is_a_paired_test():
    # The same 10 fewer errors in 10000 inputs is clear when the trees differ only there,
    # and not when they also swap errors on 1000 others; errors both make do not count.
    base = np.zeros(10000)
    base[:10] = 1
    assert _clearly_lower(np.zeros(10000), base)
    swapped = np.zeros(10000)
    swapped[100:600] = 1  # 500 errors where base has none
    base[600:1100] = 1  # and 500 errors of base where swapped has none
    assert not _clearly_lower(swapped, base)
    assert not _clearly_lower(base, base)
    # 30 fewer errors on top of 1000 shared ones: clear only because the test is paired
    shared = np.zeros(10000)
    shared[:1000] = 1
    more = shared.copy()
    more[5000:5030] = 1
    assert _clearly_lower(shared, more) and not _clearly_lower(more, shared)
    # the margin, 2 standard errors by default: 5 fewer errors in 10000 inputs (and none
    # more) are 2.24 standard errors below, 3 fewer are 1.73; with 10 fewer and 5 more,
    # 5 / sqrt(15) = 1.29, clear only at a margin of 1
    for fewer, clear in ((5, True), (3, False)):
        base = np.zeros(10000)
        base[:fewer] = 1
        assert _clearly_lower(np.zeros(10000), base) == clear
    base = np.zeros(10000)
    base[:10] = 1
    loss = np.zeros(10000)
    loss[100:105] = 1
    assert _clearly_lower(loss, base, margin=1.0) and not _clearly_lower(loss, base)


def test_auto_leaves_a_misleading_pool_for_the_rows_alone():
    # A pool drawn far from the rows, where the black box answers a class the rows never
    # show: the default share spends one of 3 leaves on that region, and the check
    # inputs (between the rows) see the rows alone do clearly better, so "auto" takes
    # them: the tree is CART on the rows alone.
    X = gaussian_data(200, 2)
    far = BoxGaussianMixture([1.0], [[50.0, 50.0]], [[0.1, 0.1]])

    def blackbox(Z):
        return np.where(Z[:, 0] > 20, 2, rule(Z))

    X_new = gaussian_data(2000, 2, seed=9)
    for seed in range(3):
        est = ExtractedTreeClassifier(
            blackbox, max_leaves=3, n_samples=200, random_state=seed, input_distribution=far
        ).fit(X)
        default = 200 / 300
        assert est.train_weight_ == 1.0
        assert est.train_weight_losses_[default] > est.train_weight_losses_[1.0] + 0.1
        cart = DecisionTreeClassifier(max_leaf_nodes=3, random_state=seed).fit(X, blackbox(X))
        assert np.array_equal(est.predict(X_new), cart.predict(X_new))


def test_auto_limits_its_own_thread_pools_but_not_the_black_boxs():
    # "auto" samples, searches neighbours and fits its trees with one BLAS / OpenMP
    # thread (small arrays, where thread pools cost more than they save), but the black
    # box is the user's model: it is queried with the thread pools as the user set them.
    threadpoolctl = pytest.importorskip("threadpoolctl")
    seen = []

    def blackbox(Z):
        seen.append([pool["num_threads"] for pool in threadpoolctl.threadpool_info()])
        return rule(Z)

    X = gaussian_data(200, 3)
    with threadpoolctl.threadpool_limits(limits=2):
        limited = [pool["num_threads"] for pool in threadpoolctl.threadpool_info()]
        ExtractedTreeClassifier(blackbox, max_leaves=4, n_samples=50, random_state=0).fit(X)
    if not any(k > 1 for k in limited):
        pytest.skip("no thread pool with more than one thread here")
    assert seen == [limited]

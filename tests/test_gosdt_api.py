"""The estimator contract of :class:`treeopt.GOSDTClassifier`.

* scikit-learn's estimator checks, on the bare classifier (binary input only) and on
  a ``NumericBinarizer -> GOSDTClassifier`` pipeline (accepts continuous input, so
  nearly every generic check really runs on it);
* pandas / bool input, ``clone``, pipelines, grid search, pickling;
* determinism, input validation, time and memory limits;
* the optimality sanity check against CART on the solver's own objective.
"""

from __future__ import annotations

import pickle
import re
import sys
import time

import logging

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import get_tags

import treeopt
from treeopt import GOSDTClassifier, NumericBinarizer, Tree

from binary_estimator_checks import expected_failed_checks, fit_within_time_limit
from sklearn_conformance import sklearn_checks_test
from random_problems import (
    AND_OR_FEATURE_NAMES,
    and_or_problem,
    assert_pickle_round_trip,
    fit_dataframe_and_array,
    more_than_64_million_cells,
)

STATUSES = {"optimal", "time_limit", "memory_limit", "interrupted"}

# --------------------------------------------------------------------------- #
# scikit-learn estimator checks
# --------------------------------------------------------------------------- #

# GOSDTClassifier takes 0/1 and numeric columns: every generic check runs for real on
# the bare classifier, and on the NumericBinarizer pipeline (expectations shared with
# DL85Classifier's tests: tests/binary_estimator_checks.py).


def _make_bare():
    # Small problems, a strong-enough penalty and a depth cap keep every check fast;
    # the time limit is only a guard against a pathological hang.
    return GOSDTClassifier(regularization=0.02, max_depth=3, time_limit=20)


def _make_pipeline():
    return Pipeline(
        [
            ("bin", NumericBinarizer(max_thresholds=4)),
            ("tree", GOSDTClassifier(regularization=0.02, max_depth=3, time_limit=20)),
        ]
    )


test_sklearn_estimator_checks = sklearn_checks_test(
    [_make_bare(), _make_pipeline()], expected_failed_checks
)


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #


def _tree_objective(tree, X, y, regularization, sample_weight=None):
    """Weighted misclassification / total weight + regularization * leaves.

    ``tree.predict`` returns class labels, compared with the labels ``y``.
    """
    y = np.asarray(y)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    wrong = np.asarray(tree.predict(X)) != y
    return float(w[wrong].sum() / w.sum() + regularization * tree.n_leaves)


def _assert_same_tree_structure(a, b):
    """Same nodes, tests and leaf values (feature names may differ)."""
    for name in ("children_left", "children_right", "feature", "threshold", "value"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def _depth(tree):
    """``Tree.depth`` (a property; tolerate a method too)."""
    d = tree.depth
    return d() if callable(d) else d


def _assert_valid_fit(est, X, y, sample_weight=None):
    """The fitted attributes are mutually consistent and match the training data."""
    assert est.status_ in STATUSES
    assert isinstance(est.tree_, Tree)
    assert est.n_leaves_ == est.tree_.n_leaves >= 1
    assert est.tree_.node_count == 2 * est.tree_.n_leaves - 1
    assert est.n_features_in_ == X.shape[1]
    pred = est.predict(X)
    assert pred.shape == (X.shape[0],)
    assert set(np.unique(pred)) <= set(est.classes_)
    proba = est.predict_proba(X)
    assert proba.shape == (X.shape[0], len(est.classes_))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.classes_[np.argmax(proba, axis=1)], pred)
    # tree_ is self-contained: it carries the labels and predicts like the estimator
    np.testing.assert_array_equal(np.asarray(est.tree_.classes), est.classes_)
    np.testing.assert_array_equal(est.tree_.predict(np.asarray(X)), pred)
    recomputed = _tree_objective(est.tree_, np.asarray(X), y, est.regularization, sample_weight)
    assert est.objective_ == pytest.approx(recomputed, abs=1e-9), (
        "objective_ must equal weighted misclassification / total weight "
        "+ regularization * leaves of tree_ on the training data"
    )
    assert est.lower_bound_ <= est.objective_ + 1e-9
    stats = est.search_stats_
    for key in ("subproblems", "expansions", "seconds"):
        assert key in stats, f"search_stats_ lacks {key!r}"
    assert stats["seconds"] >= 0


# --------------------------------------------------------------------------- #
# basic fit / fitted attributes
# --------------------------------------------------------------------------- #


def test_fitted_attributes_on_optimal_fit():
    X, y = and_or_problem()
    est = GOSDTClassifier(regularization=0.01).fit(X, y)
    _assert_valid_fit(est, X, y)
    assert est.status_ == "optimal"
    # certified optimal: the lower bound meets the objective
    assert est.lower_bound_ == pytest.approx(est.objective_, abs=1e-6)
    np.testing.assert_array_equal(est.classes_, [0, 1])
    # the planted structure (x0 AND x1) OR x2 beats a single leaf by far
    assert est.n_leaves_ >= 3
    assert est.score(X, y) >= 0.9
    assert not hasattr(est, "feature_names_in_")


def test_max_depth_is_respected():
    X, y = and_or_problem(noise=0.0)
    for depth in (0, 1, 2):
        est = GOSDTClassifier(regularization=0.0, max_depth=depth).fit(X, y)
        _assert_valid_fit(est, X, y)
        assert _depth(est.tree_) <= depth
    assert GOSDTClassifier(regularization=0.0, max_depth=0).fit(X, y).n_leaves_ == 1


def test_string_labels():
    X, y = and_or_problem()
    labels = np.array(["no", "yes"], dtype=object)[y]
    est = GOSDTClassifier(regularization=0.01).fit(X, labels)
    np.testing.assert_array_equal(est.classes_, ["no", "yes"])
    assert set(est.predict(X)) <= {"no", "yes"}
    ref = GOSDTClassifier(regularization=0.01).fit(X, y)
    np.testing.assert_array_equal(est.predict(X), np.array(["no", "yes"])[ref.predict(X)])
    assert est.objective_ == pytest.approx(ref.objective_)


def test_verbose_logs_progress_and_quiet_logs_nothing(caplog, capfd):
    X, y = and_or_problem()
    caplog.set_level(logging.INFO, logger="treeopt")
    GOSDTClassifier(regularization=0.01, verbose=False).fit(X, y)
    assert caplog.records == [], "verbose=False must not log"
    GOSDTClassifier(regularization=0.01, verbose=True).fit(X, y)
    assert caplog.records, "verbose=True must log progress on the treeopt logger"
    assert all(r.name == "treeopt" and r.levelno == logging.INFO for r in caplog.records)
    assert "optimal: objective" in caplog.records[-1].getMessage()
    assert capfd.readouterr() == ("", ""), "with logging configured, nothing is printed directly"


# --------------------------------------------------------------------------- #
# sample_weight / class_weight (the generic sklearn checks for these need
# continuous data, so they are covered here on 0/1 data)
# --------------------------------------------------------------------------- #


def test_sample_weight_integer_weights_equal_repeated_rows():
    X, y = and_or_problem(n=200, seed=1, noise=0.1)
    w = np.random.default_rng(1).integers(0, 4, size=len(y))
    lam = 0.01
    weighted = GOSDTClassifier(regularization=lam).fit(X, y, sample_weight=w)
    repeated = GOSDTClassifier(regularization=lam).fit(np.repeat(X, w, 0), np.repeat(y, w))
    assert weighted.status_ == repeated.status_ == "optimal"
    _assert_valid_fit(weighted, X, y, sample_weight=w)
    assert weighted.objective_ == pytest.approx(repeated.objective_, abs=1e-9)
    # the weighted tree is optimal for the repeated data as well
    assert _tree_objective(
        weighted.tree_, np.repeat(X, w, 0), np.repeat(y, w), lam
    ) == pytest.approx(repeated.objective_, abs=1e-9)


def test_sample_weight_scale_invariance():
    X, y = and_or_problem(n=200, seed=2, noise=0.1)
    w = np.random.default_rng(2).random(len(y)) + 0.1
    a = GOSDTClassifier(regularization=0.01).fit(X, y, sample_weight=w)
    b = GOSDTClassifier(regularization=0.01).fit(X, y, sample_weight=w * 7.5)
    assert a.objective_ == pytest.approx(b.objective_, abs=1e-9)
    _assert_valid_fit(a, X, y, sample_weight=w)


def test_class_weight_matches_sample_weight():
    X, y = and_or_problem(n=200, seed=3, noise=0.15)
    by_class = GOSDTClassifier(regularization=0.01, class_weight={0: 3.0, 1: 1.0}).fit(X, y)
    w = np.where(y == 0, 3.0, 1.0)
    by_sample = GOSDTClassifier(regularization=0.01).fit(X, y, sample_weight=w)
    assert by_class.objective_ == pytest.approx(by_sample.objective_, abs=1e-9)
    _assert_valid_fit(by_class, X, y, sample_weight=w)


# --------------------------------------------------------------------------- #
# input types and sklearn integration
# --------------------------------------------------------------------------- #

def test_pandas_dataframe_feature_names():
    pytest.importorskip("pandas")
    est, plain, df, _, internal = fit_dataframe_and_array(lambda: GOSDTClassifier(regularization=0.01))
    np.testing.assert_array_equal(est.predict_proba(df), plain.predict_proba(df.to_numpy()))
    # explicit names win; class names are used too
    text2 = est.tree_.to_text(feature_names=[f"F{i}" for i in range(8)], class_names=["neg", "pos"])
    used = {f"F{int(est.tree_.feature[n])}" for n in internal}
    assert all(u in text2 for u in used)
    assert "neg" in text2 or "pos" in text2


def test_pandas_bool_and_int_columns():
    pd = pytest.importorskip("pandas")
    X, y = and_or_problem()
    df = pd.DataFrame(X.astype(bool), columns=AND_OR_FEATURE_NAMES)
    df["x_6"] = df["x_6"].astype(np.int64)  # mixed bool / int columns
    est = GOSDTClassifier(regularization=0.01).fit(df, y)
    ref = GOSDTClassifier(regularization=0.01).fit(X, y)
    _assert_same_tree_structure(est.tree_, ref.tree_)
    np.testing.assert_array_equal(est.feature_names_in_, AND_OR_FEATURE_NAMES)


def test_bool_input_equals_uint8_input():
    X, y = and_or_problem()
    a = GOSDTClassifier(regularization=0.01).fit(X.astype(bool), y)
    b = GOSDTClassifier(regularization=0.01).fit(X, y)
    c = GOSDTClassifier(regularization=0.01).fit(X.astype(np.float64), y)
    assert a.tree_.to_dict() == b.tree_.to_dict() == c.tree_.to_dict()
    assert a.objective_ == b.objective_ == c.objective_
    np.testing.assert_array_equal(a.predict(X.astype(bool)), b.predict(X))
    np.testing.assert_array_equal(a.predict(X), b.predict(X.astype(bool)))


def test_clone():
    X, y = and_or_problem()
    est = GOSDTClassifier(regularization=0.03, max_depth=2, time_limit=5.0, class_weight=None)
    est.fit(X, y)
    cl = clone(est)
    assert cl.get_params() == est.get_params()
    assert not hasattr(cl, "tree_")
    cl.fit(X, y)
    assert cl.tree_.to_dict() == est.tree_.to_dict()
    # set_params round trip
    cl.set_params(regularization=0.5)
    assert cl.get_params()["regularization"] == 0.5
    assert est.get_params()["regularization"] == 0.03


def test_pickle_round_trip():
    X, y = and_or_problem()
    est = GOSDTClassifier(regularization=0.01).fit(X, y)
    assert_pickle_round_trip(est, X)
    # the tree alone round-trips through to_dict / from_dict and pickle
    t2 = Tree.from_dict(est.tree_.to_dict())
    np.testing.assert_array_equal(t2.predict(X), est.tree_.predict(X))
    t3 = pickle.loads(pickle.dumps(est.tree_))
    np.testing.assert_array_equal(t3.predict(X), est.tree_.predict(X))


def _breast_cancer_split():
    data = load_breast_cancer(as_frame=True)
    return train_test_split(
        data.data, data.target, test_size=0.25, stratify=data.target, random_state=0
    )


def test_pipeline_on_breast_cancer():
    X_tr, X_te, y_tr, y_te = _breast_cancer_split()
    pipe = Pipeline(
        [
            ("bin", NumericBinarizer(max_thresholds=2)),
            ("tree", GOSDTClassifier(regularization=0.01, time_limit=60)),
        ]
    )
    pipe.fit(X_tr, y_tr)
    tree_est = pipe.named_steps["tree"]
    assert tree_est.status_ == "optimal"
    assert tree_est.lower_bound_ <= tree_est.objective_ + 1e-9
    assert pipe.score(X_tr, y_tr) >= 0.9
    assert pipe.score(X_te, y_te) >= 0.85
    names = list(pipe.named_steps["bin"].get_feature_names_out())
    assert len(names) == tree_est.n_features_in_
    text = tree_est.tree_.to_text(feature_names=names)
    internal = np.flatnonzero(np.asarray(tree_est.tree_.children_left) >= 0)
    assert len(internal) >= 1
    for node in internal:
        name = names[int(tree_est.tree_.feature[node])]
        assert name in text
        # the binarized name refers to an original column of the data frame
        assert any(name.startswith(col) for col in X_tr.columns), name


def test_default_pipeline_constructs_and_clones():
    pipe = Pipeline([("bin", NumericBinarizer()), ("tree", GOSDTClassifier())])
    params = pipe.get_params()
    assert params["tree__regularization"] == 0.01
    assert params["tree__max_depth"] is None
    assert params["bin__max_thresholds"] is None
    clone(pipe)


def test_grid_search_cv():
    X, y = and_or_problem(n=240, seed=4, noise=0.1)
    grid = {"regularization": [0.005, 0.02, 0.1], "max_depth": [1, 2, 3]}
    search = GridSearchCV(
        GOSDTClassifier(time_limit=30), grid, n_jobs=2, cv=3, error_score="raise"
    )
    search.fit(X, y)
    assert len(search.cv_results_["params"]) == 9
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    assert search.best_params_["regularization"] in grid["regularization"]
    assert search.best_params_["max_depth"] in grid["max_depth"]
    assert _depth(search.best_estimator_.tree_) <= search.best_params_["max_depth"]
    assert search.score(X, y) >= 0.8


# --------------------------------------------------------------------------- #
# determinism
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "name, lam, max_depth",
    [("compas_binary", 0.001, 5), ("monk2", 0.005, None), ("tic-tac-toe", 0.01, None)],
)
def test_repeated_fits_are_identical(load_dataset, name, lam, max_depth):
    X, y, _ = load_dataset(name)
    first = GOSDTClassifier(regularization=lam, max_depth=max_depth).fit(X, y)
    assert first.status_ == "optimal"
    _assert_valid_fit(first, X, y)
    ref = first.tree_.to_dict()
    for _ in range(19):
        est = GOSDTClassifier(regularization=lam, max_depth=max_depth).fit(X, y)
        assert est.tree_.to_dict() == ref
        assert est.objective_ == first.objective_
        assert est.lower_bound_ == first.lower_bound_
        assert est.status_ == first.status_


# --------------------------------------------------------------------------- #
# input validation
# --------------------------------------------------------------------------- #


def _raises_with(exc, patterns, fn):
    """``fn()`` raises ``exc`` and its message matches every regex in ``patterns``."""
    with pytest.raises(exc) as info:
        fn()
    msg = str(info.value)
    for pat in patterns:
        assert re.search(pat, msg, flags=re.IGNORECASE), (
            f"error message {msg!r} should match {pat!r}"
        )
    return msg


_X4 = np.array([[0, 1], [1, 0], [1, 1], [0, 0]], dtype=np.uint8)
_Y4 = np.array([0, 1, 1, 0])


def test_rejects_nan():
    X = _X4.astype(float)
    X[0, 0] = np.nan
    _raises_with(ValueError, [r"nan|missing"], lambda: GOSDTClassifier().fit(X, _Y4))


def test_rejects_inf():
    X = _X4.astype(float)
    X[1, 1] = np.inf
    _raises_with(ValueError, [r"inf"], lambda: GOSDTClassifier().fit(X, _Y4))


@pytest.mark.parametrize("bad", [0.5, 2.0, -1.0, 3])
def test_non_binary_features_take_the_numeric_route(bad):
    # Since issue 12 a value other than 0/1 is no error: the column is searched at its
    # midpoints, and the tree tests it in the caller's units (tests/test_numeric_*.py).
    X = _X4.astype(float)
    X[2, 0] = bad
    est = GOSDTClassifier(regularization=0.01).fit(X, _Y4)
    assert est.status_ == "optimal"
    np.testing.assert_array_equal(est.predict(X), est.tree_.predict(X))


def test_predict_on_non_binary_routes_by_the_thresholds():
    est = GOSDTClassifier().fit(_X4, _Y4)
    X = _X4.astype(float) * 2.5
    np.testing.assert_array_equal(est.predict(X), est.tree_.predict(X))
    np.testing.assert_array_equal(est.predict(X), est.predict(_X4))  # 0.5 parts 0 and 2.5 alike


def test_rejects_single_class():
    _raises_with(
        ValueError, [r"class"], lambda: GOSDTClassifier().fit(_X4, np.ones(4, dtype=int))
    )


def test_single_class_after_zero_weights():
    # sklearn's check_classifiers_one_label_sample_weights on 0/1 data: either a
    # ValueError mentioning "class", or a fit that predicts the remaining class
    w = np.array([0.0, 1.0, 1.0, 0.0])
    try:
        est = GOSDTClassifier().fit(_X4, _Y4, sample_weight=w)
    except ValueError as exc:
        assert "class" in str(exc), str(exc)
    else:
        np.testing.assert_array_equal(est.predict(_X4), [1, 1, 1, 1])


def test_fit_one_sample():
    # sklearn's check_fit2d_1sample on 0/1 data: fit works or the error names the
    # number of samples or of classes with one of these phrases
    msgs = ["1 sample", "n_samples = 1", "n_samples=1", "one sample", "1 class", "one class"]
    X = np.array([[1, 0, 1]], dtype=np.uint8)
    try:
        GOSDTClassifier().fit(X, [1])
    except ValueError as exc:
        assert any(m in str(exc) for m in msgs), (
            f"error {str(exc)!r} should contain one of {msgs} (sklearn's check_fit2d_1sample)"
        )


def test_rejects_empty_x():
    X = np.zeros((0, 3), dtype=np.uint8)
    _raises_with(
        ValueError,
        [r"0 sample|empty|no sample|at least one sample|at least 1"],
        lambda: GOSDTClassifier().fit(X, np.zeros(0, dtype=int)),
    )


def test_rejects_zero_features():
    X = np.zeros((4, 0), dtype=np.uint8)
    _raises_with(
        ValueError, [r"0 feature|feature"], lambda: GOSDTClassifier().fit(X, _Y4)
    )


def test_rejects_mismatched_lengths():
    _raises_with(
        ValueError,
        [r"inconsistent|number of samples|same length|length|rows"],
        lambda: GOSDTClassifier().fit(_X4, _Y4[:3]),
    )


@pytest.mark.parametrize("lam", [-0.01, -1, float("nan")])
def test_rejects_bad_regularization(lam):
    _raises_with(
        ValueError, [r"regularization"], lambda: GOSDTClassifier(regularization=lam).fit(_X4, _Y4)
    )


@pytest.mark.parametrize("depth", [-1, -5])
def test_rejects_negative_max_depth(depth):
    _raises_with(
        ValueError, [r"max_depth"], lambda: GOSDTClassifier(max_depth=depth).fit(_X4, _Y4)
    )


@pytest.mark.parametrize(
    "param, value",
    [("time_limit", -1.0), ("time_limit", float("nan")), ("memory_limit", -1)],
)
def test_rejects_bad_limits(param, value):
    _raises_with(
        ValueError, [param], lambda: GOSDTClassifier(**{param: value}).fit(_X4, _Y4)
    )


def test_rejects_negative_sample_weight():
    w = np.array([1.0, -1.0, 1.0, 1.0])
    _raises_with(
        ValueError,
        [r"sample.?weight", r"negative|non-negative|>= ?0|positive"],
        lambda: GOSDTClassifier().fit(_X4, _Y4, sample_weight=w),
    )


def test_rejects_zero_sum_sample_weight():
    # the pattern of sklearn's check_all_zero_sample_weights_error
    _raises_with(
        ValueError,
        [r"(.*weight.*zero.*)|(.*zero.*weight.*)"],
        lambda: GOSDTClassifier().fit(_X4, _Y4, sample_weight=np.zeros(4)),
    )


def test_rejects_nan_sample_weight():
    w = np.array([1.0, np.nan, 1.0, 1.0])
    _raises_with(
        ValueError,
        [r"nan|finite|infinity"],
        lambda: GOSDTClassifier().fit(_X4, _Y4, sample_weight=w),
    )


def test_rejects_mixed_string_and_number_labels():
    y = np.array(["a", 1, "b", 2], dtype=object)
    _raises_with(
        (ValueError, TypeError),
        [r"\blabels?\b|\btargets?\b|\by\b|\bclass(es)?\b"],
        lambda: GOSDTClassifier().fit(_X4, y),
    )


def test_rejects_continuous_labels():
    # the patterns of sklearn's check_classifiers_regression_target
    y = np.array([0.1, 0.7, 1.3, 2.2])
    _raises_with(
        ValueError,
        [r"Unknown label type: |continuous"],
        lambda: GOSDTClassifier().fit(_X4, y),
    )


def test_predict_before_fit_raises_not_fitted():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        GOSDTClassifier().predict(_X4)


def test_predict_with_wrong_number_of_features():
    est = GOSDTClassifier().fit(_X4, _Y4)
    _raises_with(
        ValueError, [r"feature"], lambda: est.predict(np.zeros((3, 5), dtype=np.uint8))
    )


def test_more_than_64_million_cells_is_refused_or_handled():
    X, y = more_than_64_million_cells()
    est = GOSDTClassifier(regularization=0.01, time_limit=5, memory_limit=500_000_000)
    start = time.perf_counter()
    try:
        est.fit(X, y)
    except ValueError as exc:
        # refusing is fine, with a message about the size
        assert re.search(r"cells|too large|size|64", str(exc), re.IGNORECASE), str(exc)
    else:
        assert est.status_ in STATUSES
        assert est.lower_bound_ <= est.objective_ + 1e-9
        assert est.predict(X[:10]).shape == (10,)
        # a limit was set: fit must honour it (generous slack for data handling)
        assert time.perf_counter() - start < 60
    del X


# --------------------------------------------------------------------------- #
# time and memory limits
# --------------------------------------------------------------------------- #


def test_time_limit_returns_best_tree_so_far(load_dataset):
    X, y, _ = load_dataset("fico_binary")
    est = fit_within_time_limit(GOSDTClassifier(regularization=0.0001, time_limit=1), X, y)
    _assert_valid_fit(est, X, y)


def test_memory_limit_returns_best_tree_so_far(load_dataset):
    X, y, _ = load_dataset("fico_binary")
    est = GOSDTClassifier(regularization=0.0001, memory_limit=2_000_000, time_limit=60)
    est.fit(X, y)
    assert est.status_ == "memory_limit"
    _assert_valid_fit(est, X, y)
    assert est.lower_bound_ < est.objective_


# --------------------------------------------------------------------------- #
# sanity: an optimal tree is never worse than CART on the solver's objective
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "max_thresholds, lam, max_depth",
    [(2, 0.01, None), (3, 0.01, 3), (4, 0.005, 2)],
)
def test_objective_never_worse_than_cart_on_breast_cancer(max_thresholds, lam, max_depth):
    data = load_breast_cancer()
    Xb = NumericBinarizer(max_thresholds=max_thresholds).fit_transform(data.data)
    Xb = np.asarray(Xb).astype(np.uint8)
    y = data.target
    est = GOSDTClassifier(regularization=lam, max_depth=max_depth, time_limit=120).fit(Xb, y)
    assert est.status_ == "optimal"
    _assert_valid_fit(est, Xb, y)
    if max_depth is not None:
        assert _depth(est.tree_) <= max_depth
    for k in (2, 3, 4, 5, 6, 8, 12):
        # CART under the same depth limit: a feasible tree of GOSDT's search space
        cart = DecisionTreeClassifier(max_leaf_nodes=k, max_depth=max_depth, random_state=0)
        cart.fit(Xb, y)
        cart_tree = Tree.from_sklearn(cart)
        assert cart_tree.n_leaves == cart.get_n_leaves()
        np.testing.assert_array_equal(cart_tree.predict(Xb), cart.predict(Xb))
        cart_objective = _tree_objective(cart_tree, Xb, y, lam)
        assert est.objective_ <= cart_objective + 1e-9, (
            f"GOSDT objective {est.objective_} worse than CART with {k} leaves "
            f"({cart_objective})"
        )
    # and than the trivial one-leaf tree
    assert est.objective_ <= min(np.mean(y), 1 - np.mean(y)) + lam + 1e-12


def test_public_names_exported():
    for name in ("GOSDTClassifier", "NumericBinarizer", "Tree"):
        assert hasattr(treeopt, name)
    tags = get_tags(GOSDTClassifier())
    assert tags.estimator_type == "classifier"
    assert not tags.input_tags.allow_nan


# --------------------------------------------------------------------------- #
# command line: python -m treeopt
# --------------------------------------------------------------------------- #


def test_cli_usage_and_demo():
    import subprocess
    import sys

    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "treeopt", *args], capture_output=True, text=True, timeout=120
        )

    for args in ((), ("--help",)):
        r = run(*args)
        assert r.returncode == 0, r.stderr
        assert "usage" in r.stdout and "demo" in r.stdout
    r = run("demo")
    assert r.returncode == 0, r.stderr
    for fragment in (
        "GOSDT", "CART", "objective", "certified lower bound", "train accuracy",
        "test accuracy", "optimal", "subproblems", "<=",
    ):
        assert fragment in r.stdout, f"{fragment!r} missing from the demo output"
    r = run("demo", "--regularization", "-1")
    assert r.returncode != 0 and "regularization" in r.stderr

"""Cost-sensitive misclassification (``misclassification_cost=C``) of GOSDT and DL8.5.

The objective is ``sum(w * C[y, yhat]) / sum(w) + regularization * leaves``. Checked
against an exhaustive oracle written here (every tree over the 0/1 columns, each leaf
predicting its class of least cost), against a recomputation from ``predict``, and
against the plain objective when ``C = 1 - I``. The fitted :class:`treeopt.Tree` keeps
the label each leaf predicts (``labels``), which may differ from its heaviest class.
"""

from __future__ import annotations

import json
import pickle
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from treeopt import DL85Classifier, GOSDTClassifier, Tree
from treeopt.optimal._base import _reference_errors
from treeopt.tree import subtree

ESTIMATORS = {"GOSDT": GOSDTClassifier, "DL85": DL85Classifier}


# --------------------------------------------------------------------------- #
# the oracle
# --------------------------------------------------------------------------- #
def brute_force_cost(X, y, w, C, regularization, max_depth):
    """Least ``sum(w * C[y, yhat]) / sum(w) + regularization * leaves`` over every tree
    of depth <= ``max_depth`` (None: any) testing the 0/1 columns of ``X``.

    ``y`` holds class indices. Plain recursion over the row sets a path can reach,
    memoised; no bound of any kind.
    """
    n, m = X.shape
    total = float(w.sum())
    depth0 = m if max_depth is None else min(max_depth, m)
    cost_of_label = w[:, None] * C[y]  # row i predicted as class k costs cost_of_label[i, k]

    @lru_cache(maxsize=None)
    def best(rows, depth):
        idx = list(rows)
        leaf = float(cost_of_label[idx].sum(axis=0).min()) / total + regularization
        if depth == 0:
            return leaf
        out = leaf
        for j in range(m):
            right = frozenset(i for i in rows if X[i, j] == 1)
            left = rows - right
            if left and right:
                out = min(out, best(left, depth - 1) + best(right, depth - 1))
        return out

    return best(frozenset(range(n)), depth0)


def cost_from_predict(est, X, y, w, C):
    """The objective recomputed from what the fitted estimator predicts."""
    k = np.searchsorted(est.classes_, est.predict(X))
    j = np.searchsorted(est.classes_, y)
    return float((w * C[j, k]).sum() / w.sum()) + est.regularization * est.n_leaves_


@st.composite
def cost_problems(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_classes = draw(st.integers(2, 4))
    m = draw(st.integers(2, 4))
    n = draw(st.integers(n_classes, 24))
    X = rng.integers(0, 2, (n, m))
    y = rng.integers(0, n_classes, n)
    y[:n_classes] = np.arange(n_classes)  # every class present
    if draw(st.booleans()):
        w = rng.choice([0.5, 1.0, 2.0, 3.0], n)
    else:
        w = np.ones(n)
    C = rng.choice([0.0, 0.5, 1.0, 2.0, 5.0, 20.0], (n_classes, n_classes))
    np.fill_diagonal(C, 0.0)
    return X, y, w, C


def _fit(est, X, y, w):
    return est.fit(X, y, sample_weight=None if np.all(w == 1) else w)


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(cost_problems(), st.sampled_from([0.0, 0.01, 0.04]), st.sampled_from([None, 1, 2]))
def test_gosdt_matches_brute_force(problem, regularization, max_depth):
    X, y, w, C = problem
    est = _fit(
        GOSDTClassifier(
            regularization=regularization, max_depth=max_depth, misclassification_cost=C
        ),
        X, y, w,
    )
    assert est.status_ == "optimal"
    expected = brute_force_cost(X, y, w, C, regularization, max_depth)
    assert est.objective_ == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert est.objective_ == pytest.approx(cost_from_predict(est, X, y, w, C), rel=1e-9, abs=1e-12)
    assert est.lower_bound_ <= est.objective_ + 1e-12


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(cost_problems(), st.sampled_from([0.0, 0.02]), st.sampled_from([1, 2]))
def test_dl85_matches_brute_force(problem, regularization, max_depth):
    X, y, w, C = problem
    est = _fit(
        DL85Classifier(max_depth=max_depth, regularization=regularization, misclassification_cost=C),
        X, y, w,
    )
    assert est.status_ == "optimal"
    assert est.tree_.depth <= max_depth
    expected = brute_force_cost(X, y, w, C, regularization, max_depth)
    assert est.objective_ == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert est.objective_ == pytest.approx(cost_from_predict(est, X, y, w, C), rel=1e-9, abs=1e-12)


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(cost_problems(), st.sampled_from(["GOSDT", "DL85"]))
def test_one_minus_identity_is_plain_misclassification(problem, name):
    X, y, w, _ = problem
    k = len(np.unique(y))
    params = {"regularization": 0.02, "max_depth": 2}
    plain = _fit(ESTIMATORS[name](**params), X, y, w)
    costed = _fit(ESTIMATORS[name](**params, misclassification_cost=1 - np.eye(k)), X, y, w)
    assert costed.objective_ == pytest.approx(plain.objective_, rel=1e-12, abs=1e-15)
    assert costed.lower_bound_ == pytest.approx(plain.lower_bound_, rel=1e-12, abs=1e-15)
    if costed.tree_.labels is not None:
        # a stored label is a heaviest class of its leaf: an exact tie of class weights
        # (seen after weight scaling: 5 against 5) may go either way under 1 - I
        leaves = costed.apply(X)
        for node in np.unique(leaves):
            rows = leaves == node
            weights = np.bincount(y[rows], weights=w[rows], minlength=k)
            predicted = np.searchsorted(costed.classes_, costed.predict(X[rows][:1]))[0]
            assert weights[predicted] == pytest.approx(weights.max(), rel=1e-12), weights
    # Each is an optimal tree of the other's objective too, as its predictions score. The
    # trees themselves may differ where two trees tie: the two searches can break the tie
    # apart, with other weights by a last-bit rounding and with unit weights too (a
    # 16-row, 3-class problem below: roots on columns 1 and 2).
    one_minus_identity = 1 - np.eye(k)
    for est in (plain, costed):
        assert cost_from_predict(est, X, y, w, one_minus_identity) == pytest.approx(plain.objective_, rel=1e-12, abs=1e-15)


def test_one_minus_identity_may_pick_another_optimal_tree():
    # Found by hypothesis: plain GOSDT splits on column 1 first, with 1 - I on column 2;
    # both trees cost 0.3725.
    X = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1], [1, 0, 0], [0, 0, 0],
                  [0, 0, 1], [1, 1, 0], [1, 0, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0], [0, 0, 0], [1, 1, 1]])
    y = np.array([0, 1, 2, 1, 2, 0, 0, 0, 1, 1, 0, 1, 1, 0, 2, 0])
    w = np.ones(len(y))
    plain = GOSDTClassifier(regularization=0.02, max_depth=2).fit(X, y)
    costed = GOSDTClassifier(regularization=0.02, max_depth=2, misclassification_cost=1 - np.eye(3)).fit(X, y)
    assert costed.objective_ == pytest.approx(plain.objective_, rel=1e-12) == 0.3725
    for est in (plain, costed):
        assert cost_from_predict(est, X, y, w, 1 - np.eye(3)) == pytest.approx(0.3725, rel=1e-12)


# --------------------------------------------------------------------------- #
# a problem where the costs change what a leaf predicts
# --------------------------------------------------------------------------- #
def _skewed():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (200, 4))
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, 200)) % 3
    C = np.array([[0, 1, 1], [1, 0, 1], [20, 20, 0]], dtype=float)
    return X, y, C


def _rare_positive():
    """Missing a positive costs 6 times a false alarm: the leaf where positives are a
    third of the rows predicts positive, though most of its rows are negative."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (300, 4))
    y = (rng.random(300) < np.where(X[:, 0] == 1, 0.35, 0.05)).astype(int)
    return X, y, np.array([[0, 1], [6, 0]], dtype=float)


@pytest.mark.parametrize("name", ["GOSDT", "DL85"])
def test_predict_follows_the_cheapest_label(name):
    X, y, C = _rare_positive()
    est = ESTIMATORS[name](max_depth=2, misclassification_cost=C).fit(X, y)
    tree = est.tree_
    assert tree.labels is not None
    leaf = tree.apply(X)
    # every leaf predicts the class of least total cost over its rows...
    for node in np.unique(leaf):
        rows = leaf == node
        costs = C[y[rows]].sum(axis=0)
        assert tree.labels[node] == int(np.argmin(costs))
    # ... which here is not always the most frequent one: predict_proba keeps proportions
    proba_label = est.classes_[np.argmax(est.predict_proba(X), axis=1)]
    assert np.any(proba_label != est.predict(X))
    assert est.objective_ == pytest.approx(cost_from_predict(est, X, y, np.ones(len(y)), C))
    # the printed rules and the JSON say the same
    text = tree.to_text()
    for node in np.flatnonzero(tree.is_leaf):
        assert f"predict {tree.classes[tree.labels[node]]}  (n=" in text
    back = Tree.from_dict(json.loads(json.dumps(tree.to_dict())))
    assert back == tree
    np.testing.assert_array_equal(back.predict(X), est.predict(X))


def test_class_weight_multiplies_the_costs_of_a_class():
    X, y, C = _skewed()
    cw = {0: 3.0, 1: 1.0, 2: 0.5}
    est = GOSDTClassifier(regularization=0.01, class_weight=cw, misclassification_cost=C).fit(X, y)
    w = np.array([cw[c] for c in y])
    assert est.objective_ == pytest.approx(cost_from_predict(est, X, y, w, C), rel=1e-9)
    assert est.objective_ == pytest.approx(brute_force_cost(X, y, w, C, 0.01, None), rel=1e-9)


def test_reference_errors_are_costs_under_a_matrix():
    classes = np.array(["a", "b", "c"])
    y = np.array(["a", "b", "c", "c", "a"])
    y_ref = np.array(["b", "b", "a", "c", "c"])
    w = np.array([1.0, 2.0, 0.5, 1.0, 0.25])
    C = np.array([[0, 2, 3], [4, 0, 5], [6, 7, 0]], dtype=float)
    np.testing.assert_array_equal(
        _reference_errors(y, y_ref, classes, w, C), [2.0, 0.0, 3.0, 0.0, 0.75]
    )
    np.testing.assert_array_equal(_reference_errors(y, y_ref, classes, w), [1, 0, 0.5, 0, 0.25])


@pytest.mark.parametrize("name", ["GOSDT", "DL85"])
def test_lower_bound_guessing_under_costs(name):
    X, y, C = _skewed()
    params = {"max_depth": 2, "misclassification_cost": C}
    exact = ESTIMATORS[name](**params).fit(X, y)
    for y_ref in (y, np.zeros_like(y), exact.predict(X)):
        est = ESTIMATORS[name](**params).fit(X, y, y_ref=y_ref)
        assert est.objective_ >= exact.objective_ - 1e-12
        assert est.lower_bound_ <= exact.objective_ + 1e-12
        w = np.ones(len(y))
        assert est.objective_ == pytest.approx(cost_from_predict(est, X, y, w, C))
    # a reference that is the optimal tree itself leaves nothing to gain
    assert est.objective_ == pytest.approx(exact.objective_)


# --------------------------------------------------------------------------- #
# validation
# --------------------------------------------------------------------------- #
BAD_COSTS = [
    (np.zeros((2, 2)), r"shape \(2, 2\) but y has 3 classes"),
    (np.zeros((3, 2)), r"shape \(3, 2\)"),
    (np.zeros(9), r"shape \(9,\)"),
    ([[0, 1, 1], [1, 0, -1], [1, 1, 0]], r"misclassification_cost\[1, 2\] is -1.0; costs must be finite"),
    ([[0, 1, np.nan], [1, 0, 1], [1, 1, 0]], r"misclassification_cost\[0, 2\] is nan"),
    ([[0, 1, 1], [np.inf, 0, 1], [1, 1, 0]], r"misclassification_cost\[1, 0\] is inf"),
    ([[0, 1, 1], [1, 0.5, 1], [1, 1, 0]], r"misclassification_cost\[1, 1\] is 0.5; .*zero diagonal"),
    ([["a", "b", "c"]] * 3, r"misclassification_cost must be a numeric"),
]


@pytest.mark.parametrize("name", ["GOSDT", "DL85"])
@pytest.mark.parametrize("cost, message", BAD_COSTS)
def test_invalid_cost_matrices_are_refused_by_name(name, cost, message):
    X, y, _ = _skewed()
    with pytest.raises(ValueError, match=message):
        ESTIMATORS[name](misclassification_cost=cost).fit(X, y)


def test_matrix_follows_sorted_classes():
    """Rows and columns follow ``classes_`` (sorted labels), not the order of first sight."""
    X, y, C = _skewed()
    names = np.array(["zeta", "alpha", "mid"])  # classes_ = [alpha, mid, zeta]
    order = np.argsort(names)  # position in classes_ -> original class index
    C_named = C[np.ix_(order, order)]
    est = GOSDTClassifier(max_depth=2, misclassification_cost=C_named).fit(X, names[y])
    ref = GOSDTClassifier(max_depth=2, misclassification_cost=C).fit(X, y)
    assert est.objective_ == pytest.approx(ref.objective_)
    np.testing.assert_array_equal(est.predict(X), names[ref.predict(X)])


# --------------------------------------------------------------------------- #
# scikit-learn integration
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("name", ["GOSDT", "DL85"])
def test_clone_pickle_and_grid_search(name):
    X, y, C = _rare_positive()
    est = ESTIMATORS[name](max_depth=2, misclassification_cost=C)
    assert clone(est).misclassification_cost is C or np.array_equal(
        clone(est).misclassification_cost, C
    )
    est.fit(X, y)
    back = pickle.loads(pickle.dumps(est))
    assert back.tree_ == est.tree_ and back.tree_.labels is not None
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    grid = GridSearchCV(
        ESTIMATORS[name](max_depth=2),
        {"misclassification_cost": [None, C]},
        cv=3,
        scoring=lambda e, Xs, ys: -cost_from_predict(e, Xs, ys, np.ones(len(ys)), C),
    ).fit(X, y)
    assert grid.best_params_["misclassification_cost"] is not None
    assert grid.best_estimator_.tree_.labels is not None


# --------------------------------------------------------------------------- #
# Tree.labels
# --------------------------------------------------------------------------- #
def _stump(**kw):
    return Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2],
                [[6, 4], [5, 1], [1, 3]], [10, 6, 4], **kw)


def test_tree_labels_drive_predict_and_survive_every_form():
    tree = _stump(classes=["no", "yes"], labels=[1, 1, 1], binary_features=True)
    X = np.array([[0], [1]])
    assert tree.predict(X).tolist() == ["yes", "yes"]
    assert tree.prediction.tolist() == ["yes", "yes", "yes"]
    np.testing.assert_allclose(tree.predict_proba(X), [[5 / 6, 1 / 6], [0.25, 0.75]])
    assert "predict yes  (n=6; no: 5, yes: 1; p=0.1667)" in tree.to_text()
    assert '"yes\\nn = 6' in tree.to_dot()
    d = tree.to_dict()
    assert [node["label"] for node in d["nodes"]] == [1, 1, 1]
    assert Tree.from_dict(json.loads(json.dumps(d))) == tree
    assert pickle.loads(pickle.dumps(tree)) == tree
    assert tree != _stump(classes=["no", "yes"], binary_features=True)
    pruned = subtree(tree, np.array([True, False, False]))
    assert pruned.node_count == 1 and pruned.predict(X).tolist() == ["yes", "yes"]


def test_tree_labels_equal_to_the_argmax_are_not_stored():
    assert _stump(labels=[0, 0, 1]).labels is None
    assert _stump(labels=[0, 0, 1]) == _stump()
    assert "label" not in _stump().to_dict()["nodes"][0]


@pytest.mark.parametrize(
    "labels, message",
    [
        ([0, 2, 1], r"labels\[1\] is 2; labels are class indices in \[0, 2\)"),
        ([0, -1, 1], r"labels\[1\] is -1"),
        ([0, 1], "labels has length 2"),
        ([0.5, 1, 1], "labels must contain integers"),
    ],
)
def test_tree_labels_are_validated(labels, message):
    with pytest.raises(ValueError, match=message):
        _stump(labels=labels)


def test_regression_tree_has_no_labels():
    with pytest.raises(ValueError, match="pass labels=None"):
        Tree([-1], [-1], [-2], [-2.0], [[1.5]], [1.0], task="regression", labels=[0])


def test_tree_dict_labels_are_validated():
    d = _stump(labels=[1, 1, 1]).to_dict()
    partial = json.loads(json.dumps(d))
    del partial["nodes"][2]["label"]
    with pytest.raises(ValueError, match="on every node or on none"):
        Tree.from_dict(partial)
    out_of_range = json.loads(json.dumps(d))
    out_of_range["nodes"][1]["label"] = 5
    with pytest.raises(ValueError, match=r"'label' of node 1 is 5"):
        Tree.from_dict(out_of_range)
    not_int = json.loads(json.dumps(d))
    not_int["nodes"][1]["label"] = "yes"
    with pytest.raises(ValueError, match="'label' of node 1"):
        Tree.from_dict(not_int)


def test_trees_pickled_before_labels_still_load():
    tree = _stump()
    state = dict(tree.__dict__)
    del state["labels"]
    old = Tree.__new__(Tree)
    old.__dict__.update(state)
    assert old.labels is None and old.predict([[0], [1]]).tolist() == [0, 1]


def test_plot_shows_the_labels():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tree = _stump(classes=["no", "yes"], labels=[1, 1, 1], binary_features=True)
    ax = tree.plot()
    texts = [t.get_text() for t in ax.texts]
    leaves = [t for t in texts if t.startswith(("no\n", "yes\n"))]
    assert sorted(leaves) == ["yes\nn = 4", "yes\nn = 6"]  # argmax would say "no" at n = 6
    plt.close(ax.figure)

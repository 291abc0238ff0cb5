"""``Tree.to_sklearn``: scikit-learn's tree tools on treeopt's trees.

Trees from every estimator family (the fitted trees of the rules-interpreter tests) are
converted; the scikit-learn estimator must reach the same leaf and predict the same on
10,000 rows around the training data (float32-representable, as scikit-learn compares
in float32), and ``export_text`` / ``plot_tree`` must accept it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor, export_text
from test_rules_interpreter import FAMILIES, _check_rows, fitted_tree

from treeopt import GOSDTClassifier, LatentTreeClassifier


def _rows_around(rng, X, tree, n_rows=10_000):
    """``n_rows`` rows drawn around X's values, plus rows on every threshold, in float32."""
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    binary = np.all((X == 0) | (X == 1), axis=0)
    rows = X[rng.integers(n, size=(n_rows, d)), np.arange(d)].astype(np.float64)
    rows[:, ~binary] += rng.normal(size=(n_rows, int((~binary).sum()))) * rng.integers(0, 2, (n_rows, 1))
    rows = np.vstack([rows, _check_rows(rng, X, tree)])
    return rows.astype(np.float32).astype(np.float64)


@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_to_sklearn_reaches_the_same_leaf_and_predicts_the_same(family, seed):
    rng, _, tree, X_fit, _ = fitted_tree(family, seed)
    if tree.weights is not None:  # a latent tree with an oblique test
        with pytest.raises(ValueError, match="oblique"):
            tree.to_sklearn()
        return
    sk = tree.to_sklearn()
    regression = tree.task == "regression"
    assert isinstance(sk, DecisionTreeRegressor if regression else DecisionTreeClassifier)
    assert sk.n_features_in_ == tree.n_features and sk.tree_.node_count == tree.node_count
    rows = _rows_around(rng, X_fit, tree)
    np.testing.assert_array_equal(sk.apply(rows), tree.apply(rows))
    np.testing.assert_array_equal(sk.predict(rows), tree.predict(rows))
    if not regression:
        np.testing.assert_array_equal(sk.classes_, tree.classes)
        # the class proportions carry over wherever the leaf predicts its majority
        majority = np.argmax(tree.predict_proba(rows), axis=1) == tree._class_index()[tree.apply(rows)]
        np.testing.assert_allclose(sk.predict_proba(rows)[majority], tree.predict_proba(rows)[majority])
    assert export_text(sk).count("---") >= tree.n_leaves


def test_to_sklearn_works_with_export_text_and_plot_tree_on_named_features():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.datasets import load_iris
    from sklearn.tree import plot_tree

    from treeopt import DL85Classifier

    X, y = load_iris(return_X_y=True, as_frame=True)
    clf = DL85Classifier(max_depth=2).fit(X, y)
    sk = clf.tree_.to_sklearn()
    assert list(sk.feature_names_in_) == list(X.columns)
    text = export_text(sk, feature_names=list(X.columns))
    assert "petal width (cm) <= 1.65" in text
    np.testing.assert_array_equal(sk.predict(X), clf.predict(X))  # with the frame's names
    fig, ax = plt.subplots()
    boxes = plot_tree(sk, ax=ax, feature_names=list(X.columns), class_names=["setosa", "versicolor", "virginica"])
    texts = [b.get_text() for b in boxes]
    assert sum("gini" in t for t in texts) == clf.tree_.node_count  # one box a node
    assert any(t.startswith("petal width (cm) <= 1.65") for t in texts)
    plt.close(fig)


def test_cost_sensitive_leaves_keep_their_label():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(300, 4))
    y = (X[:, 0] & (rng.random(300) < 0.3)).astype(int)
    cost = np.array([[0.0, 1.0], [8.0, 0.0]])  # missing a 1 is dear: leaves lean to 1
    clf = GOSDTClassifier(regularization=0.01, misclassification_cost=cost).fit(X, y)
    tree = clf.tree_
    leaves = np.flatnonzero(tree.is_leaf)
    assert (np.argmax(tree.value[leaves], axis=1) != tree._class_index()[leaves]).any()
    np.testing.assert_array_equal(tree.to_sklearn().predict(X), clf.predict(X))


def test_an_oblique_tree_raises_a_clear_error():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    clf = LatentTreeClassifier(depth=1, max_epochs=2, random_state=0).fit(X, y)
    if clf.tree_.weights is None:
        pytest.skip("this latent tree came out axis-aligned")
    with pytest.raises(ValueError, match="oblique .* cannot"):
        clf.tree_.to_sklearn()


def test_onnx_export_predicts_the_same():
    skl2onnx = pytest.importorskip("skl2onnx")
    ort = pytest.importorskip("onnxruntime")
    from skl2onnx.common.data_types import FloatTensorType

    from treeopt import DL85Classifier

    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 4)).astype(np.float32)
    y = (X[:, 0] > 0.2).astype(int) + (X[:, 1] > 0).astype(int)
    clf = DL85Classifier(max_depth=3).fit(X.astype(np.float64), y)
    onx = skl2onnx.convert_sklearn(clf.tree_.to_sklearn(), initial_types=[("x", FloatTensorType([None, 4]))])
    session = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    labels = session.run(None, {"x": X})[0]
    np.testing.assert_array_equal(labels, clf.predict(X.astype(np.float64)))

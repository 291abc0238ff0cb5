"""Tests for :class:`treeopt.Tree`, the node-array tree model shared by all estimators."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from treeopt._tree import Tree, binary_columns
from treeopt.binarize import NumericBinarizer

LEAF = -1
UNDEF = -2


# --------------------------------------------------------------------------- #
# fixtures / helpers
# --------------------------------------------------------------------------- #
def binary_tree():
    """Depth-2 tree on 0/1 features (threshold 0.5: left = 0, right = 1).

    node 0: "age <= 23.5"   left (column is 0) -> 1, right (column is 1) -> 2
    node 1: "priors > 2"    left -> 3, right -> 4
    node 2: leaf  [10, 40]  -> yes
    node 3: leaf  [30,  2]  -> no
    node 4: leaf  [ 5,  8]  -> yes
    """
    return Tree(
        children_left=[1, 3, LEAF, LEAF, LEAF],
        children_right=[2, 4, LEAF, LEAF, LEAF],
        feature=[0, 1, UNDEF, UNDEF, UNDEF],
        threshold=[0.5, 0.5, -2.0, -2.0, -2.0],
        value=[[45, 50], [35, 10], [10, 40], [30, 2], [5, 8]],
        weighted_n_node_samples=[95, 45, 50, 32, 13],
        classes=np.array(["no", "yes"]),
        feature_names=["age <= 23.5", "priors > 2", "male"],
        binary_features=True,
    )


def one_split(feature, threshold, value, **kwargs):
    """Root ``x[feature] <= threshold`` and its two leaves; ``value`` has the rows of
    the root, left and right leaf, and the node weights are their sums."""
    value = np.asarray(value, dtype=np.float64)
    return Tree(
        [1, LEAF, LEAF],
        [2, LEAF, LEAF],
        [feature, UNDEF, UNDEF],
        [threshold, UNDEF, UNDEF],
        value,
        value.sum(axis=1),
        **kwargs,
    )


def numeric_tree():
    """Depth-1 tree ``x[1] <= 2.5`` on numeric data, integer classes 3 and 7."""
    return one_split(1, 2.5, [[4, 6], [4, 1], [0, 5]], classes=np.array([3, 7]), n_features=2)


def stump(name):
    """Single 0/1 split on a feature called ``name``."""
    return one_split(0, 0.5, [[2, 2], [2, 0], [0, 2]], feature_names=[name], binary_features=True)


def reference_apply(tree, X):
    """Row-by-row traversal, the obvious (slow) definition of ``apply``."""
    out = []
    for row in np.asarray(X, dtype=float):
        node = 0
        while tree.children_left[node] != LEAF:
            if row[tree.feature[node]] <= tree.threshold[node]:
                node = tree.children_left[node]
            else:
                node = tree.children_right[node]
        out.append(node)
    return np.array(out)


def random_tree(rng, n_features=4, n_classes=3, max_nodes=41):
    """A random (possibly unbalanced) tree with numeric thresholds."""
    left, right, feature, threshold = [LEAF], [LEAF], [UNDEF], [-2.0]
    frontier = [0]
    while frontier and len(left) + 2 <= max_nodes:
        node = frontier.pop(rng.integers(len(frontier)))
        if rng.random() < 0.25 and node != 0:
            continue
        a, b = len(left), len(left) + 1
        left[node], right[node] = a, b
        feature[node] = int(rng.integers(n_features))
        threshold[node] = float(np.round(rng.normal(), 1))
        for _ in range(2):
            left.append(LEAF)
            right.append(LEAF)
            feature.append(UNDEF)
            threshold.append(-2.0)
        frontier += [a, b]
    n = len(left)
    value = rng.integers(0, 10, size=(n, n_classes)).astype(float)
    return Tree(left, right, feature, threshold, value, value.sum(1), n_features=n_features)


# --------------------------------------------------------------------------- #
# prediction
# --------------------------------------------------------------------------- #
X_BIN = np.array([[0, 0, 0], [0, 1, 0], [1, 0, 1], [1, 1, 1]], dtype=np.uint8)


def test_apply_predict_predict_proba_hand_built():
    t = binary_tree()
    np.testing.assert_array_equal(t.apply(X_BIN), [3, 4, 2, 2])
    np.testing.assert_array_equal(t.predict(X_BIN), ["no", "yes", "yes", "yes"])
    np.testing.assert_allclose(
        t.predict_proba(X_BIN),
        [[30 / 32, 2 / 32], [5 / 13, 8 / 13], [0.2, 0.8], [0.2, 0.8]],
    )
    assert t.predict(X_BIN).dtype == t.classes.dtype


def test_generic_threshold_goes_left_on_equality():
    t = numeric_tree()
    X = np.array([[9.0, 2.5], [9.0, 2.5000001], [-5.0, -100.0], [0.0, 1e9]])
    np.testing.assert_array_equal(t.apply(X), [1, 2, 1, 2])
    np.testing.assert_array_equal(t.predict(X), [3, 7, 3, 7])


@pytest.mark.parametrize("seed", range(8))
def test_vectorised_apply_matches_row_by_row_reference(seed):
    rng = np.random.default_rng(seed)
    t = random_tree(rng)
    X = np.round(rng.normal(size=(300, 4)), 1)  # many exact ties with thresholds
    np.testing.assert_array_equal(t.apply(X), reference_apply(t, X))
    np.testing.assert_array_equal(t.predict(X), np.argmax(t.value, axis=1)[reference_apply(t, X)])


def test_deep_chain_tree():
    # a "caterpillar": node 2k tests x[0] <= k, going right is the long path
    depth = 60
    n = 2 * depth + 1
    left = np.full(n, LEAF)
    right = np.full(n, LEAF)
    feature = np.full(n, UNDEF)
    threshold = np.full(n, -2.0)
    for k in range(depth):
        node = 2 * k if k else 0
        left[node], right[node] = 2 * k + 1, 2 * k + 2
        feature[node], threshold[node] = 0, k
    value = np.zeros((n, 2))
    value[np.arange(n), np.arange(n) % 2] = 1
    t = Tree(left, right, feature, threshold, value, value.sum(1))
    assert t.depth == depth
    X = np.arange(-1, depth + 2, dtype=float)[:, None] - 0.5
    np.testing.assert_array_equal(t.apply(X), reference_apply(t, X))


def test_input_types_list_dataframe_bool():
    pd = pytest.importorskip("pandas")
    t = binary_tree()
    expected = t.predict(X_BIN)
    np.testing.assert_array_equal(t.predict(X_BIN.tolist()), expected)
    np.testing.assert_array_equal(t.predict(X_BIN.astype(bool)), expected)
    df = pd.DataFrame(X_BIN, columns=["a", "b", "c"])
    np.testing.assert_array_equal(t.predict(df), expected)
    # extra columns beyond n_features are ignored
    wide = np.hstack([X_BIN, np.full((4, 2), 7)])
    np.testing.assert_array_equal(t.predict(wide), expected)


def test_too_few_columns_raises():
    t = binary_tree()
    with pytest.raises(ValueError, match="expects at least 3"):
        t.predict(X_BIN[:, :2])


def test_nan_and_1d_input_raise():
    t = numeric_tree()
    with pytest.raises(ValueError, match="NaN"):
        t.predict([[0.0, np.nan]])
    with pytest.raises(ValueError, match="2-D"):
        t.predict([0.0, 1.0])


def test_empty_input():
    t = binary_tree()
    assert t.predict(np.zeros((0, 3))).shape == (0,)
    assert t.predict_proba(np.zeros((0, 3))).shape == (0, 2)


def test_zero_weight_leaf_is_uniform_and_ties_go_to_first_class():
    t = Tree(
        [1, LEAF, LEAF],
        [2, LEAF, LEAF],
        [0, UNDEF, UNDEF],
        [0.5, UNDEF, UNDEF],
        [[3, 3, 0], [0, 0, 0], [3, 3, 0]],
        [6, 0, 6],
        classes=["a", "b", "c"],
    )
    np.testing.assert_allclose(t.predict_proba([[0], [1]]), [[1 / 3] * 3, [0.5, 0.5, 0]])
    np.testing.assert_array_equal(t.predict([[0], [1]]), ["a", "a"])


# --------------------------------------------------------------------------- #
# structure
# --------------------------------------------------------------------------- #
def test_structure_properties():
    t = binary_tree()
    assert t.node_count == 5
    assert t.n_leaves == 3
    assert t.depth == 2
    assert t.n_features == 3
    assert t.n_classes == 2
    np.testing.assert_array_equal(t.is_leaf, [False, False, True, True, True])
    np.testing.assert_array_equal(t.node_depth, [0, 1, 1, 2, 2])
    np.testing.assert_array_equal(t.prediction, ["yes", "no", "yes", "no", "yes"])


def test_root_only_tree():
    t = Tree([LEAF], [LEAF], [UNDEF], [-2.0], [[1.0, 3.0]], [4.0])
    assert (t.depth, t.n_leaves, t.node_count, t.n_features) == (0, 1, 1, 0)
    np.testing.assert_array_equal(t.predict(np.zeros((3, 0))), [1, 1, 1])
    np.testing.assert_array_equal(t.predict(np.zeros((2, 5))), [1, 1])
    assert t.to_text() == "predict 1  (n=4; 0: 1, 1: 3; p=0.75)"


def test_defaults_and_canonical_leaves():
    t = Tree(
        [1, LEAF, LEAF],
        [2, LEAF, LEAF],
        [4, 0, -1],
        [0.5, 9.0, 1.0],
        [[1, 0], [1, 0], [0, 0]],
        [1, 1, 0],
    )
    assert t.n_features == 5  # max(feature) + 1
    np.testing.assert_array_equal(t.classes, [0, 1])
    np.testing.assert_array_equal(t.feature, [4, UNDEF, UNDEF])
    np.testing.assert_array_equal(t.threshold, [0.5, -2.0, -2.0])
    assert t.children_left.dtype == np.int64 and t.threshold.dtype == np.float64


def test_constructor_copies_its_inputs():
    value = np.array([[1.0, 2.0]])
    t = Tree([LEAF], [LEAF], [UNDEF], [-2.0], value, [3.0])
    value[0, 0] = 100.0
    assert t.value[0, 0] == 1.0


def _valid_kwargs():
    return dict(
        children_left=[1, LEAF, LEAF],
        children_right=[2, LEAF, LEAF],
        feature=[0, UNDEF, UNDEF],
        threshold=[0.5, -2.0, -2.0],
        value=[[2, 2], [2, 0], [0, 2]],
        weighted_n_node_samples=[4, 2, 2],
    )


@pytest.mark.parametrize(
    "changes, match",
    [
        (
            dict(
                children_left=[],
                children_right=[],
                feature=[],
                threshold=[],
                value=np.zeros((0, 2)),
                weighted_n_node_samples=[],
            ),
            "at least one node",
        ),
        (dict(children_right=[2, LEAF]), "length"),
        (dict(feature=[0, UNDEF]), "length"),
        (dict(threshold=[0.5, -2.0]), "length"),
        (dict(weighted_n_node_samples=[4, 2]), "length"),
        (dict(value=[[2, 2], [2, 0]]), "rows"),
        (dict(value=[2, 2, 2]), "2-D"),
        (dict(children_right=[LEAF, LEAF, LEAF]), "exactly one child"),
        (dict(children_left=[1, LEAF, LEAF], children_right=[3, LEAF, LEAF]), "child indices"),
        (dict(children_left=[0, LEAF, LEAF]), "child indices"),
        (dict(children_left=[1, LEAF, LEAF], children_right=[1, LEAF, LEAF]), "parents"),
        (dict(children_left=[1, 2, LEAF], children_right=[2, 0, LEAF]), "child indices"),
        (dict(feature=[-1, UNDEF, UNDEF]), "negative feature"),
        (dict(feature=[0.5, UNDEF, UNDEF]), "integers"),
        (dict(children_left=["a", "b", "c"]), "integer"),
        (dict(threshold=[np.nan, -2.0, -2.0]), "NaN"),
        (dict(value=[[2, 2], [2, -1], [0, 2]]), "non-negative"),
        (dict(value=[[2, 2], [2, np.inf], [0, 2]]), "finite"),
        (dict(weighted_n_node_samples=[4, -2, 2]), "non-negative"),
        (dict(classes=[0, 1, 2]), "classes"),
        (dict(classes=[1, 1]), "unique"),
        (dict(feature_names=["a", "b"], n_features=1), "feature_names"),
        (dict(feature_names="ab"), "feature_names"),
        (dict(n_features=0), "n_features"),
        (dict(n_features=-3), "n_features"),
    ],
)
def test_invalid_arrays_raise_value_error(changes, match):
    kwargs = _valid_kwargs()
    kwargs.update(changes)
    with pytest.raises(ValueError, match=match):
        Tree(**kwargs)


def test_unreachable_cycle_raises():
    # nodes 3 and 4 are each other's child: every non-root node has exactly one
    # parent, but 3..6 are not reachable from the root.
    with pytest.raises(ValueError, match="not reachable"):
        Tree(
            [1, LEAF, LEAF, 4, 3, LEAF, LEAF],
            [2, LEAF, LEAF, 5, 6, LEAF, LEAF],
            [0, UNDEF, UNDEF, 0, 0, UNDEF, UNDEF],
            [0.5, -2, -2, 0.5, 0.5, -2, -2],
            np.ones((7, 2)),
            np.full(7, 2.0),
        )


def test_valid_kwargs_are_valid():
    # guards the parametrised test above: the base case itself must construct
    assert Tree(**_valid_kwargs()).node_count == 3


# --------------------------------------------------------------------------- #
# text / dot / plot
# --------------------------------------------------------------------------- #
def test_to_text_exact_layout():
    expected = "\n".join(
        [
            "if age <= 23.5:",
            "    predict yes  (n=50; no: 10, yes: 40; p=0.8)",
            "else:  # age > 23.5",
            "    if priors > 2:",
            "        predict yes  (n=13; no: 5, yes: 8; p=0.6154)",
            "    else:  # priors <= 2",
            "        predict no  (n=32; no: 30, yes: 2; p=0.9375)",
        ]
    )
    assert binary_tree().to_text() == expected


def test_to_text_names_class_names_and_decimals():
    t = binary_tree()
    text = t.to_text(
        feature_names=["young", "many priors", "male"], class_names=["N", "Y"], decimals=2
    )
    assert "if young:" in text
    assert "else:  # not young" in text
    assert "if many priors:" in text and "not (many priors)" in text
    assert "predict Y  (n=13; N: 5, Y: 8; p=0.62)" in text
    mapped = t.to_text(class_names={"no": "stay", "yes": "reoffend"})
    assert "predict reoffend" in mapped and "predict stay" in mapped


def test_to_text_generic_thresholds_and_default_names():
    text = numeric_tree().to_text()
    assert text.splitlines()[0] == "if x[1] <= 2.5:"
    assert "else:  # x[1] > 2.5" in text
    t = Tree(
        [1, LEAF, LEAF],
        [2, LEAF, LEAF],
        [0, UNDEF, UNDEF],
        [1 / 3, -2, -2],
        np.ones((3, 2)),
        np.full(3, 2.0),
    )
    # thresholds print exactly whatever ``decimals`` says: a rounded 0.3333 would
    # send 0.33334 to the wrong branch
    assert "if x[0] <= 0.3333333333333333:" in t.to_text()
    assert "if x[0] <= 0.3333333333333333:" in t.to_text(decimals=2)
    assert "(n=2; 0: 1, 1: 1; p=0.5)" in t.to_text(decimals=2)


@pytest.mark.parametrize(
    "name, negation",
    [
        ("age <= 23.5", "age > 23.5"),
        ("age > 23.5", "age <= 23.5"),
        ("a < 3", "a >= 3"),
        ("a >= 2", "a < 2"),
        ("color == red", "color != red"),
        ("b != 0", "b == 0"),
        ("sex=female", "sex!=female"),
        ("smoker", "not smoker"),
        ("has kids?", "not (has kids?)"),
        ("1 < a <= 3", "not (1 < a <= 3)"),
    ],
)
def test_to_text_negates_condition_names(name, negation):
    lines = stump(name).to_text().splitlines()
    assert lines[0] == f"if {name}:"
    assert lines[2] == f"else:  # {negation}"


def test_to_text_wrong_number_of_names_raises():
    with pytest.raises(ValueError, match="feature_names"):
        binary_tree().to_text(feature_names=["a"])
    with pytest.raises(ValueError, match="class_names"):
        binary_tree().to_text(class_names=["a", "b", "c"])


def test_to_dot_is_a_digraph():
    t = binary_tree()
    dot = t.to_dot()
    assert dot.startswith("digraph Tree {")
    assert dot.rstrip().endswith("}")
    assert dot.count("->") == 2 * (t.node_count - t.n_leaves)
    assert '0 -> 2 [label="true"]' in dot  # column is 1 -> right child
    assert '0 -> 1 [label="false"]' in dot
    assert "age <= 23.5" in dot and "priors > 2" in dot
    numeric = numeric_tree().to_dot(class_names=["three", "seven"])
    assert '0 -> 1 [label="true"]' in numeric  # x <= t -> left child
    assert "x[1] <= 2.5" in numeric and "seven" in numeric


def test_to_dot_escapes_quotes():
    dot = stump('say "hi"').to_dot()
    assert 'say \\"hi\\"' in dot
    assert 'say "hi"' not in dot


def test_plot_with_matplotlib():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = binary_tree()
    fig, ax = plt.subplots()
    out = t.plot(ax=ax, class_names=["N", "Y"])
    assert out is ax
    texts = [txt.get_text() for txt in ax.texts]
    # one box per node and one label per edge
    assert len(texts) == t.node_count + 2 * (t.node_count - t.n_leaves)
    assert any("age <= 23.5" in s for s in texts)
    assert sum(s.startswith("Y\n") for s in texts) == 2
    fig.canvas.draw()
    plt.close(fig)
    ax2 = Tree([LEAF], [LEAF], [UNDEF], [-2.0], [[1.0, 3.0]], [4.0]).plot()
    assert len(ax2.texts) == 1
    plt.close(ax2.figure)


# --------------------------------------------------------------------------- #
# serialisation and dunder methods
# --------------------------------------------------------------------------- #
def test_to_dict_schema():
    d = binary_tree().to_dict()
    assert set(d) == {
        "schema", "n_features", "classes", "feature_names", "nodes", "binary_features"
    }
    assert d["binary_features"] == [True, True, True]
    assert "binary_features" not in numeric_tree().to_dict()
    assert d["schema"] == "treeopt.tree/1"
    assert d["n_features"] == 3
    assert d["classes"] == ["no", "yes"] and all(type(c) is str for c in d["classes"])
    assert d["feature_names"] == ["age <= 23.5", "priors > 2", "male"]
    assert [n["id"] for n in d["nodes"]] == [0, 1, 2, 3, 4]
    assert d["nodes"][0] == {
        "id": 0,
        "feature": 0,
        "threshold": 0.5,
        "left": 1,
        "right": 2,
        "value": [45.0, 50.0],
        "weight": 95.0,
    }
    leaf = d["nodes"][3]
    assert (leaf["feature"], leaf["threshold"], leaf["left"], leaf["right"]) == (None,) * 4


@pytest.mark.parametrize(
    "classes, native",
    [
        (np.array([3, 7], dtype=np.int64), int),
        (np.array([0.5, 1.5]), float),
        (np.array([False, True]), bool),
        (np.array(["a", "b"], dtype=object), str),
    ],
)
def test_to_dict_class_labels_are_python_natives(classes, native):
    t = Tree(**_valid_kwargs(), classes=classes)
    d = t.to_dict()
    assert [type(c) for c in d["classes"]] == [native, native]
    json.dumps(d)  # must not raise


def test_json_round_trip():
    for t in (binary_tree(), numeric_tree(), random_tree(np.random.default_rng(3))):
        d = t.to_dict()
        back = Tree.from_dict(json.loads(json.dumps(d)))
        assert back == t
        assert back.to_dict() == d
        X = np.random.default_rng(0).normal(size=(50, t.n_features)).round(1)
        np.testing.assert_array_equal(back.predict(X), t.predict(X))
        np.testing.assert_array_equal(back.predict_proba(X), t.predict_proba(X))


def test_from_dict_rejects_bad_input():
    d = binary_tree().to_dict()
    with pytest.raises(ValueError, match="schema"):
        Tree.from_dict({**d, "schema": "other/2"})
    with pytest.raises(ValueError, match="no nodes"):
        Tree.from_dict({**d, "nodes": []})
    with pytest.raises(ValueError, match="ids"):
        Tree.from_dict({**d, "nodes": d["nodes"][:-1] + [{**d["nodes"][-1], "id": 9}]})
    with pytest.raises(ValueError, match="one entry per class"):
        Tree.from_dict({**d, "nodes": d["nodes"][:-1] + [{**d["nodes"][-1], "value": [1.0]}]})
    with pytest.raises(ValueError, match="missing"):
        Tree.from_dict({k: v for k, v in d.items() if k != "classes"})


def test_from_dict_accepts_shuffled_nodes():
    d = binary_tree().to_dict()
    shuffled = {**d, "nodes": list(reversed(d["nodes"]))}
    assert Tree.from_dict(shuffled) == binary_tree()


def test_pickle_round_trip():
    t = binary_tree()
    back = pickle.loads(pickle.dumps(t))
    assert back == t
    np.testing.assert_array_equal(back.predict(X_BIN), t.predict(X_BIN))
    assert back.depth == 2


def test_equality_is_structural():
    assert binary_tree() == binary_tree()
    a = binary_tree()
    a.threshold[0] = 0.25
    assert a != binary_tree()
    b = Tree(**{**_valid_kwargs(), "value": [[2, 2], [2, 0], [0, 3]]})
    assert b != Tree(**_valid_kwargs())
    assert Tree(**_valid_kwargs(), classes=["a", "b"]) != Tree(
        **_valid_kwargs(), classes=["a", "c"]
    )
    assert Tree(**_valid_kwargs(), n_features=2) != Tree(**_valid_kwargs())
    assert Tree(**_valid_kwargs(), feature_names=["f"]) != Tree(**_valid_kwargs())
    assert binary_tree() != "tree"


def test_repr():
    r = repr(binary_tree())
    assert r.startswith("Tree(")
    assert "node_count=5" in r and "depth=2" in r and "'no'" in r


# --------------------------------------------------------------------------- #
# scikit-learn conversion
# --------------------------------------------------------------------------- #
def _float32_exact(rng, shape):
    # sklearn compares float32-cast inputs; float32-representable data makes the
    # comparison with float64 inputs exact.
    return rng.normal(size=shape).astype(np.float32).astype(np.float64)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("max_depth", [1, 4, None])
def test_from_sklearn_matches_sklearn(n_classes, max_depth):
    rng = np.random.default_rng(n_classes * 10 + (max_depth or 0))
    X = _float32_exact(rng, (400, 6))
    y = (
        np.digitize(X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(scale=0.5, size=400), [0.0, 1.0])
        % n_classes
    )
    clf = DecisionTreeClassifier(max_depth=max_depth, random_state=0).fit(X, y)
    t = Tree.from_sklearn(clf)
    X_test = np.vstack([X, _float32_exact(rng, (400, 6))])
    np.testing.assert_array_equal(t.predict(X_test), clf.predict(X_test))
    np.testing.assert_array_equal(t.apply(X_test), clf.apply(X_test))
    np.testing.assert_allclose(t.predict_proba(X_test), clf.predict_proba(X_test))
    assert t.depth == clf.get_depth()
    assert t.n_leaves == clf.get_n_leaves()
    assert t.n_features == 6
    # value holds class totals, not fractions
    np.testing.assert_allclose(t.value[0], np.bincount(y, minlength=n_classes))
    assert Tree.from_sklearn(clf.tree_) == Tree(
        t.children_left,
        t.children_right,
        t.feature,
        t.threshold,
        t.value,
        t.weighted_n_node_samples,
        n_features=6,
    )


def test_from_sklearn_weights_string_labels_and_feature_names():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(7)
    X = pd.DataFrame(_float32_exact(rng, (200, 3)), columns=["age", "income", "debt"])
    y = np.where(X["age"] > 0.3, "yes", "no")
    w = rng.uniform(0.5, 2.0, size=200)
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y, sample_weight=w)
    t = Tree.from_sklearn(clf)
    assert t.feature_names == ["age", "income", "debt"]
    assert list(t.classes) == ["no", "yes"]
    np.testing.assert_array_equal(t.predict(X), clf.predict(X))
    np.testing.assert_allclose(t.value[0], [w[y == "no"].sum(), w[y == "yes"].sum()])
    np.testing.assert_allclose(t.weighted_n_node_samples[0], w.sum())
    assert "age <= " in t.to_text()
    renamed = Tree.from_sklearn(clf, feature_names=["a", "b", "c"])
    assert renamed.feature_names == ["a", "b", "c"]


def test_from_sklearn_rejects_unfitted_regressor_and_junk():
    with pytest.raises(NotFittedError):
        Tree.from_sklearn(DecisionTreeClassifier())
    with pytest.raises(ValueError, match="classification or regression"):
        Tree.from_sklearn(NumericBinarizer().fit([[0.0], [1.0]]))
    multi = DecisionTreeClassifier(max_depth=2).fit([[0], [1], [2]], [[0, 1], [1, 0], [1, 1]])
    with pytest.raises(ValueError, match="multi-output"):
        Tree.from_sklearn(multi)
    with pytest.raises(TypeError):
        Tree.from_sklearn("not a tree")


def test_from_sklearn_regressor():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 3))
    y = X[:, 0] * 2 + rng.normal(size=200)
    reg = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    t = Tree.from_sklearn(reg)
    assert t.task == "regression"
    X_new = rng.normal(size=(100, 3))
    np.testing.assert_allclose(t.predict(X_new), reg.predict(X_new))
    assert t.to_text().startswith("if x[")


def test_from_sklearn_binary_features_from_training_data():
    X = np.array([[0, 3.0], [1, 3.0], [1, 0.0], [0, 0.0]])
    clf = DecisionTreeClassifier(max_depth=1).fit(X, [0, 1, 1, 0])  # y is the smoker column
    assert binary_columns(X).tolist() == [True, False]
    t = Tree.from_sklearn(clf, feature_names=["smoker", "x"], binary_features=binary_columns(X))
    assert t.to_text().splitlines()[0] == "if smoker:"
    assert t.predict(X).tolist() == [0, 1, 1, 0]
    unknown = Tree.from_sklearn(clf, feature_names=["smoker", "x"])
    assert unknown.to_text().splitlines()[0] == "if smoker <= 0.5:"


# --------------------------------------------------------------------------- #
# issue 19: malformed dicts, sizes, huge totals
# --------------------------------------------------------------------------- #
def named_numeric_tree():
    t = numeric_tree()
    return Tree(t.children_left, t.children_right, t.feature, t.threshold, t.value,
                t.weighted_n_node_samples, classes=t.classes, feature_names=["a", "b"])


def _node(d, i, **changes):
    return {**d, "nodes": [({**n, **changes} if n["id"] == i else n) for n in d["nodes"]]}


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda d: _node(d, 1, id=1.7), "'id'"),
        (lambda d: _node(d, 0, left=1.7), "'left' of node 0"),
        (lambda d: _node(d, 0, right=0.9), "'right' of node 0"),
        (lambda d: _node(d, 0, feature=0.9), "'feature' of node 0"),
        (lambda d: _node(d, 0, feature=True), "'feature' of node 0"),
        (lambda d: _node(d, 0, feature="0"), "'feature' of node 0"),
        (lambda d: _node(d, 0, feature=7), "'feature' of node 0"),
        (lambda d: _node(d, 0, threshold="0.5"), "'threshold' of node 0"),
        (lambda d: _node(d, 2, value=["1", 2]), "'value' of node 2"),
        (lambda d: _node(d, 2, weight=None), "'weight' of node 2"),
        (lambda d: {**d, "classes": [0, "a"]}, "'classes'"),
        (lambda d: {**d, "classes": [0, 2**63 + 5]}, "'classes'"),
        (lambda d: {**d, "n_features": 10**9}, "'n_features'"),
        (lambda d: {**d, "n_features": 2.5}, "'n_features'"),
        (lambda d: {**d, "n_features": 4}, "'feature_names'"),
        (lambda d: {**d, "feature_names": "abc"}, "'feature_names'"),
        (lambda d: {**d, "binary_features": [True]}, "'binary_features'"),
        (lambda d: {**d, "nodes": "x"}, "'nodes'"),
        (lambda d: {**d, "nodes": [1, 2]}, "'nodes'"),
    ],
)
def test_from_dict_refuses_malformed_fields(change, match):
    d = named_numeric_tree().to_dict()
    with pytest.raises(ValueError, match=match):
        Tree.from_dict(change(d))


def test_from_dict_keeps_integral_floats_and_big_int_classes_exact():
    d = named_numeric_tree().to_dict()
    back = Tree.from_dict(_node(d, 0, left=1.0, feature=1.0))
    assert back == named_numeric_tree()
    d = numeric_tree().to_dict()
    d["classes"] = [0, 2**62 + 5]
    t = Tree.from_dict(d)
    assert t.classes.dtype == np.int64 and t.classes[1] == 2**62 + 5


def test_to_text_does_not_allocate_every_default_name():
    t = Tree([1, LEAF, LEAF], [2, LEAF, LEAF], [3, UNDEF, UNDEF], [0.5, UNDEF, UNDEF],
             [[1, 1], [1, 0], [0, 1]], [2, 1, 1], n_features=10**9)
    assert t.to_text().splitlines()[0] == "if x[3] <= 0.5:"


def test_predict_proba_with_huge_totals():
    t = Tree([LEAF], [LEAF], [UNDEF], [-2.0], [[1e308, 1e308]], [1e308])
    np.testing.assert_array_equal(t.predict_proba([[0.0]]), [[0.5, 0.5]])
    t = Tree([LEAF], [LEAF], [UNDEF], [-2.0], [[1e308, 1e307, 0.0]], [1e308])
    np.testing.assert_allclose(t.predict_proba([[0.0]]), [[10 / 11, 1 / 11, 0.0]])


def test_dataframe_with_huge_integers_and_floats_is_refused():
    pd = pytest.importorskip("pandas")
    t = numeric_tree()
    df = pd.DataFrame({"a": [0.5, 1.5], "b": np.array([2**53 + 1, 0], dtype=np.int64)})
    with pytest.raises(ValueError, match="'b'.*2\\*\\*53"):
        t.predict(df)
    ok = pd.DataFrame({"a": [0.5, 1.5], "b": np.array([3, 0], dtype=np.int64)})
    assert t.predict(ok).tolist() == [7, 3]


@pytest.mark.parametrize("seed", range(6))
def test_tree_built_from_a_solver_result_equals_the_checked_constructor(seed):
    # Fitted estimators build their tree with Tree._from_solver (no checks): every
    # attribute must be what Tree(...) makes of the same arrays, costs and names included.
    from treeopt import DL85Classifier, GOSDTClassifier

    rng = np.random.default_rng(seed)
    n, m, k = 60, 3, 2 + seed % 3
    X = rng.normal(size=(n, m)).round(1)
    y = np.array(["a", "b", "c", "d"])[rng.integers(0, k, size=n)]
    if seed % 2:
        est = DL85Classifier(max_depth=1 + seed % 3).fit(X, y)
    else:
        cost = rng.uniform(0.5, 2.0, size=(k, k))
        np.fill_diagonal(cost, 0.0)
        est = GOSDTClassifier(max_depth=2, regularization=0.01, misclassification_cost=cost).fit(
            (X > 0).astype(float), y
        )
    t = est.tree_
    ref = Tree(
        t.children_left, t.children_right, t.feature, t.threshold, t.value,
        t.value.sum(axis=1), labels=t.labels, classes=t.classes,
        feature_names=t.feature_names, n_features=t.n_features,
        binary_features=t.binary_features,
    )
    for name in ("children_left", "children_right", "feature", "threshold", "value",
                 "weighted_n_node_samples", "classes", "binary_features", "labels",
                 "_node_depth"):
        a, b = getattr(t, name), getattr(ref, name)
        assert (a is None) == (b is None), name
        if a is not None:
            assert a.dtype == b.dtype and np.array_equal(a, b), name
    for name in ("feature_names", "n_features", "weights", "task", "weight_label"):
        assert getattr(t, name) == getattr(ref, name), name
    assert t.to_text() == ref.to_text()

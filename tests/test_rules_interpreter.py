"""The printed rules of a :class:`treeopt.Tree` say exactly what ``predict`` does.

Two tiny interpreters live in this file and read only what a user reads: the
text of :meth:`Tree.to_text` and the JSON of :meth:`Tree.to_dict`. They never
call ``Tree`` internals. For random trees of every estimator family they must
predict, on every row, exactly what :meth:`Tree.predict` predicts.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from treeopt._tree import Tree

LEAF = -1
UNDEF = -2
OBLIQUE = -3

# Trees checked by the property tests of this module (reported by the last test).
TREES_CHECKED = {"count": 0}


# --------------------------------------------------------------------------- #
# interpreter of the printed text
# --------------------------------------------------------------------------- #


def _parse_text(text):
    """Parse ``to_text`` output into nested tuples.

    ``("leaf", label)`` or ``("if", condition, true_subtree, false_subtree)``.
    """
    lines = text.split("\n")
    pos = 0

    def block(level):
        nonlocal pos
        line = lines[pos]
        pad = "    " * level
        assert line.startswith(pad) and not line[len(pad)].isspace(), line
        body = line[len(pad) :]
        pos += 1
        if body.startswith("predict "):
            m = re.match(r"^predict (.*?)  \(\w+=", body)
            assert m, body
            return ("leaf", m.group(1))
        assert body.startswith("if ") and body.endswith(":"), body
        cond = body[3:-1]
        first = block(level + 1)
        assert lines[pos].startswith(pad + "else:"), lines[pos]
        pos += 1
        second = block(level + 1)
        return ("if", cond, first, second)

    tree = block(0)
    assert pos == len(lines)
    return tree


_LINEAR_TERM_RE = re.compile(
    r"\s*(?P<sign>[+-])?\s*(?:(?P<mag>[0-9][0-9.e+\-]*|inf)\*)?(?P<name>\([^()]*\)|[^\s()]+)"
)


def _linear_terms(lhs, names):
    """``[(weight, column)]`` of a printed linear score ``2*a - b + 0.5*(c d)`` (``0``: none)."""
    if lhs == "0":
        return []
    terms = []
    pos = 0
    while pos < len(lhs):
        m = _LINEAR_TERM_RE.match(lhs, pos)
        assert m and m.end() > pos, (lhs, pos)
        name = m.group("name")
        if name.startswith("(") and name[1:-1] in names:
            name = name[1:-1]
        assert name in names, (name, lhs)
        mag = 1.0 if m.group("mag") is None else float(m.group("mag"))
        sign = -1.0 if m.group("sign") == "-" else 1.0
        terms.append((sign * mag, names.index(name)))
        pos = m.end()
    return terms


def _condition(cond, names):
    """A function ``row -> bool`` for one printed condition."""
    if cond in names:  # a yes/no test of a 0/1 column
        j = names.index(cond)

        def yes(row):
            assert row[j] in (0, 1), "a yes/no test printed for a column that is not 0/1"
            return row[j] == 1

        return yes
    m = re.match(r"^(.*) (<=|>) (\S+)$", cond)
    assert m, cond
    lhs, op, t = m.group(1), m.group(2), float(m.group(3))
    if lhs in names:
        j = names.index(lhs)
        if op == "<=":
            return lambda row: row[j] <= t
        return lambda row: row[j] > t
    terms = _linear_terms(lhs, names)  # an oblique test, evaluated left to right

    def linear(row):
        s = 0.0
        for w, j in terms:
            s += w * float(row[j])
        return s <= t if op == "<=" else s > t

    return linear


def interpret_text(text, names, rows):
    """Printed label of the leaf each row reaches when the printed rules are followed."""
    parsed = _parse_text(text)
    compiled = {}

    def run(node, row):
        while node[0] == "if":
            key = id(node)
            if key not in compiled:
                compiled[key] = _condition(node[1], names)
            node = node[2] if compiled[key](row) else node[3]
        return node[1]

    return [run(parsed, row) for row in rows]


# --------------------------------------------------------------------------- #
# interpreter of the JSON
# --------------------------------------------------------------------------- #
def interpret_json(d, rows):
    d = json.loads(json.dumps(d))  # only what survives JSON
    nodes = {n["id"]: n for n in d["nodes"]}
    out = []
    for row in rows:
        node = nodes[0]
        while node["left"] is not None:
            if node.get("weights") is not None:
                s = 0.0
                for j, w in enumerate(node["weights"]):
                    if w != 0:
                        s += w * float(row[j])
                left = s <= node["threshold"]
            else:
                left = row[node["feature"]] <= node["threshold"]  # exact int/float compare
            node = nodes[node["left"] if left else node["right"]]
        if d.get("task") == "regression":
            out.append(node["value"][0])
        elif node.get("label") is not None:  # the class the node predicts, by index
            out.append(d["classes"][node["label"]])
        else:
            v = node["value"]
            out.append(d["classes"][v.index(max(v))])
    return out


def _rows(X):
    """Rows as Python numbers (ints stay ints, exactly)."""
    X = np.asarray(X)
    return [list(r) for r in X.tolist()]


def check_tree(tree, X, decimals=None):
    """Both interpreters reproduce ``tree.predict`` on every row of ``X``."""
    rows = _rows(X)
    pred = tree.predict(X)
    names = (
        list(tree.feature_names)
        if tree.feature_names is not None
        else [f"x[{j}]" for j in range(tree.n_features)]
    )
    text = tree.to_text(decimals=decimals)
    labels = interpret_text(text, names, rows)
    from_json = interpret_json(tree.to_dict(), rows)
    if tree.task == "regression":
        np.testing.assert_array_equal(np.array([float(v) for v in labels]), pred)
        np.testing.assert_array_equal(np.array(from_json, dtype=float), pred)
    else:
        assert labels == [str(p) for p in pred.tolist()], text
        assert from_json == pred.tolist()
    TREES_CHECKED["count"] += 1


# --------------------------------------------------------------------------- #
# defects from issue 19, one test each
# --------------------------------------------------------------------------- #
def test_numeric_split_at_one_half_is_not_printed_as_yes_no():
    """A CART split ``balance_change <= 0.5`` routes -3 left: no ``if balance_change:``."""
    rng = np.random.default_rng(0)
    X = rng.integers(-5, 6, size=(200, 1)).astype(float)
    y = (X[:, 0] > 0).astype(int)
    clf = DecisionTreeClassifier(max_depth=1).fit(X, y)
    tree = Tree.from_sklearn(clf, feature_names=["balance_change"])
    assert tree.threshold[0] == 0.5
    text = tree.to_text()
    assert "if balance_change:" not in text
    assert "balance_change <= 0.5" in text
    check_tree(tree, X)


def test_printed_threshold_is_exact():
    """``x <= 0.30000001`` must not print as ``x <= 0.3`` (0.3 itself goes left, wrongly)."""
    t = 0.30000001
    tree = Tree([1, LEAF, LEAF], [2, LEAF, LEAF], [0, UNDEF, UNDEF], [t, UNDEF, UNDEF],
                [[1, 1], [1, 0], [0, 1]], [2, 1, 1], feature_names=["a"])
    X = np.array([[0.3], [0.300000005], [t], [0.30000002]])
    check_tree(tree, X, decimals=4)


def test_binary_flag_prints_yes_no_and_survives_json():
    tree = Tree([1, LEAF, LEAF], [2, LEAF, LEAF], [0, UNDEF, UNDEF], [0.5, UNDEF, UNDEF],
                [[1, 1], [1, 0], [0, 1]], [2, 1, 1], feature_names=["smoker", "age"],
                binary_features=[True, False])
    assert tree.to_text().startswith("if smoker:")
    back = Tree.from_dict(json.loads(json.dumps(tree.to_dict())))
    assert back == tree and back.to_text() == tree.to_text()
    # dicts written before the flag existed still load, and read as numeric tests
    d = tree.to_dict()
    d.pop("binary_features")
    assert Tree.from_dict(d).to_text().startswith("if smoker <= 0.5:")


def test_integer_rows_compare_exactly():
    """2**53 + 1 is greater than a threshold of 2**53 (float64 would round it down)."""
    big = 2**53
    tree = Tree([1, LEAF, LEAF], [2, LEAF, LEAF], [0, UNDEF, UNDEF], [float(big), UNDEF, UNDEF],
                [[1, 1], [1, 0], [0, 1]], [2, 1, 1])
    X = np.array([[big - 1], [big], [big + 1], [big + 2], [2**63 - 1], [-(2**63)]], dtype=np.int64)
    assert tree.predict(X).tolist() == [0, 0, 1, 1, 1, 0]
    check_tree(tree, X)
    Xu = np.array([[big + 1], [2**64 - 1], [0]], dtype=np.uint64)
    assert tree.predict(Xu).tolist() == [1, 1, 0]


def test_latent_else_branch_is_compact():
    rng = np.random.default_rng(1)
    n = 30
    w = np.zeros((3, n))
    w[0] = rng.normal(size=n)
    tree = Tree([1, LEAF, LEAF], [2, LEAF, LEAF], [OBLIQUE, UNDEF, UNDEF], [0.25, UNDEF, UNDEF],
                [[1, 1], [1, 0], [0, 1]], [2, 1, 1], weights=w)
    text = tree.to_text()
    else_line = [line for line in text.split("\n") if line.startswith("else")][0]
    assert len(else_line) < 60, else_line
    check_tree(tree, rng.normal(size=(200, n)))


def test_extracted_tree_prints_mass_not_a_count():
    """Extracted trees store the probability of each node's region: not ``n=0.5752``."""
    import treeopt

    rng = np.random.default_rng(2)
    X = rng.normal(size=(100, 2))
    y = (X[:, 0] > 0).astype(int)
    bb = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    est = treeopt.ExtractedTreeClassifier(bb, max_leaves=4, n_samples=100, n_components=2,
                                          random_state=0).fit(X)
    text = est.tree_.to_text()
    assert "(n=" not in text and "(mass=" in text
    assert "mass = " in est.tree_.to_dot()
    assert Tree.from_dict(json.loads(json.dumps(est.tree_.to_dict()))).to_text() == text


# --------------------------------------------------------------------------- #
# property test: random synthetic trees
# --------------------------------------------------------------------------- #
@st.composite
def synthetic_trees(draw):
    n_features = draw(st.integers(1, 5))
    integer = draw(st.booleans())  # an all-integer problem (int64) or a float one
    kinds = [draw(st.sampled_from(["binary", "numeric"])) for _ in range(n_features)]
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_rows = 60
    cols = []
    for kind in kinds:
        if kind == "binary":
            col = rng.integers(0, 2, n_rows)
        elif integer:
            base = int(rng.choice([0, 2**53, -(2**53), 2**62]))
            col = base + rng.integers(-4, 5, n_rows)
        else:
            col = rng.choice([-3.0, 0.0, 0.3, 0.5, 0.30000001, 1.0, 2.5, 1e-7, 123456.789], n_rows)
            col = col + rng.choice([0.0, 1.0], n_rows) * rng.normal(size=n_rows)
        cols.append(col)
    X = np.column_stack(cols).astype(np.int64 if integer else np.float64)
    oblique_ok = not integer and draw(st.booleans())

    children_left, children_right, feature, threshold, weights = [], [], [], [], []

    def new_node():
        children_left.append(LEAF)
        children_right.append(LEAF)
        feature.append(UNDEF)
        threshold.append(-2.0)
        weights.append(np.zeros(n_features))
        return len(children_left) - 1

    def grow(node, depth):
        if depth >= 4 or rng.random() < 0.25 * depth:
            return
        if oblique_ok and rng.random() < 0.4:
            w = rng.normal(size=n_features).round(int(rng.integers(0, 6)))
            w[rng.random(n_features) < 0.3] = 0.0
            feature[node] = OBLIQUE
            weights[node] = w
            score = X.astype(float) @ w
            threshold[node] = float(rng.choice(score)) if rng.random() < 0.5 else rng.normal()
        else:
            j = int(rng.integers(n_features))
            feature[node] = j
            if kinds[j] == "binary":
                threshold[node] = float(rng.choice([0.5, 0.0, 0.25, 0.999, -1.0, 1.0, 1.5]))
            elif rng.random() < 0.6:
                v = X[rng.integers(n_rows), j]
                threshold[node] = float(v) + float(rng.choice([0.0, 0.5, -0.5, 1e-9]))
            else:
                threshold[node] = float(rng.normal()) * 10.0 ** int(rng.integers(-8, 8))
        left, right = new_node(), new_node()
        children_left[node], children_right[node] = left, right
        grow(left, depth + 1)
        grow(right, depth + 1)

    grow(new_node(), 0)
    n_nodes = len(children_left)
    leaves = [i for i in range(n_nodes) if children_left[i] == LEAF]
    regression = draw(st.booleans())
    labels = None
    if regression:
        value = rng.normal(size=(n_nodes, 1)) * 10.0 ** float(rng.integers(-5, 6))
        classes = None
    else:
        # one class per leaf: the predicted label identifies the leaf reached
        value = np.zeros((n_nodes, len(leaves)))
        for k, leaf in enumerate(leaves):
            value[leaf, k] = 1.0 + rng.integers(0, 5)
            value[leaf] += rng.integers(0, 2, len(leaves)) * 0.5
        classes = draw(st.sampled_from(["int", "str"]))
        classes = (
            np.arange(len(leaves)) * 3
            if classes == "int"
            else np.array([f"c{k}" for k in range(len(leaves))])
        )
        if draw(st.booleans()):
            # labels chosen by an objective other than the largest class (a cost
            # matrix): leaf k predicts class perm[k], still one class per leaf
            labels = rng.integers(0, len(leaves), n_nodes)
            labels[leaves] = rng.permutation(len(leaves))
    named = draw(st.booleans())
    spaced = draw(st.booleans())
    names = (
        [(f"f {j}" if spaced else f"f{j}") if kinds[j] == "numeric" else f"b{j}"
         for j in range(n_features)]
        if named
        else None
    )
    know = draw(st.sampled_from(["known", "unknown"]))
    binary = [k == "binary" for k in kinds] if know == "known" else None
    w = np.array(weights)
    tree = Tree(
        children_left, children_right, feature, threshold, value,
        np.abs(value).sum(axis=1), classes=classes, feature_names=names, n_features=n_features,
        weights=w if (np.array(feature) == OBLIQUE).any() else None,
        task="regression" if regression else "classification", binary_features=binary,
        labels=labels,
    )
    # rows: the data plus every threshold and its float neighbours
    extra = []
    for i in range(n_nodes):
        if feature[i] >= 0 and kinds[feature[i]] == "numeric":
            t = threshold[i]
            for v in (t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf)):
                row = X[rng.integers(n_rows)].copy()
                if integer:
                    if abs(v) < 2**63 - 2048:
                        row[feature[i]] = int(np.floor(v))
                else:
                    row[feature[i]] = v
                extra.append(row)
    if extra:
        X = np.vstack([X, np.array(extra, dtype=X.dtype)])
    return tree, X


@settings(max_examples=1200, deadline=None, suppress_health_check=list(HealthCheck))
@given(synthetic_trees())
def test_interpreters_match_predict_on_random_trees(case):
    tree, X = case
    check_tree(tree, X)


# --------------------------------------------------------------------------- #
# property test: trees fitted by every estimator family
# --------------------------------------------------------------------------- #
def _problem(seed):
    """Raw data with 0/1, small-integer and float columns, a label and a target."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(25, 90))
    d = int(rng.integers(1, 5))
    kinds = rng.choice(["binary", "int", "float"], d)
    cols = []
    for kind in kinds:
        if kind == "binary":
            cols.append(rng.integers(0, 2, n).astype(float))
        elif kind == "int":
            cols.append(rng.integers(-9, 25, n).astype(float))
        else:
            cols.append(rng.normal(size=n).round(int(rng.integers(1, 4))))
    X = np.column_stack(cols)
    score = X @ rng.normal(size=d) + 0.3 * rng.normal(size=n)
    y = (score > np.median(score)).astype(int)
    if rng.random() < 0.3:
        y = np.where(y == 1, "yes", "no")
    if len(np.unique(y)) < 2:
        y[: n // 2] = y[0] if y.dtype.kind in "iu" else y[0]
        y[0] = 1 - y[0] if y.dtype.kind in "iu" else ("no" if y[0] == "yes" else "yes")
    return rng, X, y, score, kinds


def _check_rows(rng, X, tree):
    """Training rows, fresh rows, and rows sitting on every threshold and its neighbours."""
    n, d = X.shape
    binary = np.all((X == 0) | (X == 1), axis=0)
    fresh = X[rng.integers(n, size=(40, d)), np.arange(d)]
    fresh[:, ~binary] += rng.normal(size=(40, int((~binary).sum()))) * rng.integers(0, 2, (40, 1))
    rows = [X, fresh]
    for i in np.flatnonzero(tree.feature >= 0):
        f, t = int(tree.feature[i]), float(tree.threshold[i])
        if binary[f] or f >= d:
            continue
        for v in (t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf)):
            row = X[rng.integers(n)].copy()
            row[f] = v
            rows.append(row[None, :])
    return np.vstack(rows)


def _binarized(X):
    from treeopt.binarize import NumericBinarizer

    return NumericBinarizer(max_thresholds=3).fit_transform(X)


def _fit_family(family, rng, X, y, score):
    import treeopt
    from sklearn.tree import DecisionTreeClassifier as DTC

    seed = int(rng.integers(2**31))
    if family in ("GOSDT", "DL85", "OSDT", "EC45", "ECART", "CostAware", "GOSDTCost", "DL85Cost"):
        Xb = _binarized(X)
        # a random cost matrix: leaves may predict a class that is not their largest
        cost = np.array([[0.0, rng.choice([0.2, 1.0, 5.0])], [rng.choice([0.2, 1.0, 5.0]), 0.0]])
        est = {
            "GOSDTCost": lambda: treeopt.GOSDTClassifier(
                regularization=0.02, misclassification_cost=cost
            ),
            "DL85Cost": lambda: treeopt.DL85Classifier(max_depth=3, misclassification_cost=cost),
            "GOSDT": lambda: treeopt.GOSDTClassifier(regularization=0.02),
            "DL85": lambda: treeopt.DL85Classifier(max_depth=3),
            "OSDT": lambda: treeopt.OSDTClassifier(regularization=0.03),
            "EC45": lambda: treeopt.EC45Classifier(),
            "ECART": lambda: treeopt.ECARTClassifier(),
            "CostAware": lambda: treeopt.CostAwareTreeClassifier(),
        }[family]()
        est.fit(Xb, y)
        return est.tree_, Xb.astype(np.uint8), True
    if family in ("GOSDTNumeric", "DL85Numeric"):
        # the raw columns, searched at every midpoint (or at most 4 per column)
        cap = None if rng.random() < 0.5 else 4
        est = {
            "GOSDTNumeric": lambda: treeopt.GOSDTClassifier(
                regularization=0.02, max_depth=3, max_thresholds=cap
            ),
            "DL85Numeric": lambda: treeopt.DL85Classifier(max_depth=2, max_thresholds=cap),
        }[family]()
        return est.fit(X, y).tree_, X, False
    if family == "Optimal":
        est = treeopt.OptimalTreeClassifier(regularization=0.02, n_estimators=10)
        return est.fit(X, y).tree_, X, False
    if family in ("ExtractedClassifier", "ExtractedRegressor"):
        classify = family == "ExtractedClassifier"
        bb = (DTC if classify else DecisionTreeRegressor)(max_depth=3, random_state=0)
        bb.fit(X, y if classify else score)
        extractor = treeopt.ExtractedTreeClassifier if classify else treeopt.ExtractedTreeRegressor
        refine = "gosdt" if rng.random() < 0.3 else None
        est = extractor(bb, max_leaves=6, n_samples=150, n_components=2, random_state=seed, refine=refine)
        return est.fit(X).tree_, X, False
    if family == "LatentClassifier":
        est = treeopt.LatentTreeClassifier(depth=2, max_epochs=3, random_state=seed)
        return est.fit(X, y).tree_, X, False
    if family == "LatentRegressor":
        est = treeopt.LatentTreeRegressor(depth=2, max_epochs=3, random_state=seed)
        return est.fit(X, score).tree_, X, False
    if family == "CARTClassifier":
        from treeopt._tree import binary_columns

        clf = DTC(max_depth=3, random_state=seed).fit(X, y)
        known = binary_columns(X) if rng.random() < 0.5 else None
        return Tree.from_sklearn(clf, binary_features=known), X, False
    if family == "CARTRegressor":
        reg = DecisionTreeRegressor(max_depth=3, random_state=seed).fit(X, score)
        return Tree.from_sklearn(reg), X, False
    raise AssertionError(family)


def fitted_tree(family, seed):
    """A random problem of ``seed`` and a tree of ``family`` fitted to it (warnings off):
    ``(rng, X, tree, X_fit, all_binary)`` with the rows ``X_fit`` the estimator saw."""
    import warnings

    rng, X, y, score, _ = _problem(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree, X_fit, all_binary = _fit_family(family, rng, X, y, score)
    return rng, X, tree, X_fit, all_binary


FAMILIES = [
    "GOSDT", "DL85", "GOSDTCost", "DL85Cost", "GOSDTNumeric", "DL85Numeric", "OSDT", "EC45", "ECART", "CostAware", "Optimal", "ExtractedClassifier",
    "ExtractedRegressor", "LatentClassifier", "LatentRegressor", "CARTClassifier",
    "CARTRegressor",
]


@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_interpreters_match_predict_on_fitted_trees(family, seed):
    rng, X, tree, X_fit, all_binary = fitted_tree(family, seed)
    if all_binary:
        # every input of these estimators is 0/1: their tests read as yes/no questions
        assert tree.binary_features is not None and tree.binary_features.all()
    elif family in ("Optimal", "ExtractedClassifier", "ExtractedRegressor", "GOSDTNumeric", "DL85Numeric"):
        expected = np.all((X == 0) | (X == 1), axis=0)
        np.testing.assert_array_equal(tree.binary_features, expected)
    rows = X_fit if all_binary else _check_rows(rng, X_fit, tree)
    check_tree(tree, rows)


def test_count_of_trees_checked():
    """Runs last in this module: the property tests above checked >= 2,000 trees."""
    if TREES_CHECKED["count"] < 1000:
        pytest.skip("run with the property tests of this module to count the trees")
    print(f"\ntrees checked by the interpreters: {TREES_CHECKED['count']}")
    assert TREES_CHECKED["count"] >= 2000


def test_optimal_tree_on_fico_reads_numeric_columns_as_thresholds(load_dataset):
    """Issue 19: ``if MSinceMostRecentInqexcl7days:`` was printed for a -9..24 column."""
    import warnings

    import treeopt

    X, y, names = load_dataset("fico")
    j = names.index("MSinceMostRecentInqexcl7days")
    cols = [j, names.index("ExternalRiskEstimate")]
    X, y = X[:3000][:, cols], y[:3000]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = treeopt.OptimalTreeClassifier(
            regularization=0.001, n_estimators=20, max_depth=2
        ).fit(X, y)
    tree = est.tree_
    tree.feature_names = [names[c] for c in cols]
    text = tree.to_text()
    assert "if MSinceMostRecentInqexcl7days:" not in text
    assert "MSinceMostRecentInqexcl7days <= 0.5" in text  # the split the issue quotes
    assert tree.binary_features.tolist() == [False, False]
    check_tree(tree, X)
    X_new = X.copy()
    X_new[:, 0] = np.arange(X.shape[0]) % 34 - 9  # every value of -9..24
    check_tree(tree, X_new)

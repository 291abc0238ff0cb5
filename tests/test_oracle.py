"""Self-tests of the brute-force oracle (tests/oracle.py).

The hand-checked cases pin down the objective's definition; the last tests
compare the oracle with a second, independent brute force that enumerates
every explicit tree over at most three features.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from oracle import (
    brute_force,
    tree_depth,
    tree_leaf_sizes,
    tree_n_leaves,
    tree_objective,
    tree_predict,
)

XOR_X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
XOR_Y = np.array([0, 1, 1, 0])


def check(X, y, w=None, lam=0.0, max_depth=None, min_samples_leaf=1):
    """Run the oracle and cross-check its tree against its objective."""
    obj, tree = brute_force(X, y, sample_weight=w, regularization=lam, max_depth=max_depth,
                            min_samples_leaf=min_samples_leaf)
    assert tree_objective(tree, X, y, w, lam) == pytest.approx(obj, abs=1e-12)
    if max_depth is not None:
        assert tree_depth(tree) <= max_depth
    if tree_n_leaves(tree) > 1:
        assert min(tree_leaf_sizes(tree, X)) >= min_samples_leaf
    return obj, tree


# --------------------------------------------------------------------------- #
# Hand-checkable cases
# --------------------------------------------------------------------------- #


def test_xor_no_penalty_needs_full_depth_two_tree():
    obj, tree = check(XOR_X, XOR_Y, lam=0.0)
    assert obj == 0.0
    assert tree_n_leaves(tree) == 4
    assert tree_depth(tree) == 2
    assert list(tree_predict(tree, XOR_X)) == list(XOR_Y)


def test_xor_small_penalty():
    # leaf: 2/4 + 0.1 = 0.6; any stump: 2/4 + 0.2 = 0.7; full tree: 0 + 4 * 0.1 = 0.4
    obj, tree = check(XOR_X, XOR_Y, lam=0.1)
    assert obj == pytest.approx(0.4)
    assert tree_n_leaves(tree) == 4


def test_xor_large_penalty_leaf_wins():
    # leaf: 0.5 + 0.2 = 0.7 < full tree: 4 * 0.2 = 0.8
    obj, tree = check(XOR_X, XOR_Y, lam=0.2)
    assert obj == pytest.approx(0.7)
    assert tree == {"prediction": 0}  # 2 vs 2: tie goes to the lowest class


def test_xor_depth_one_cannot_do_better_than_half():
    obj, tree = check(XOR_X, XOR_Y, lam=0.0, max_depth=1)
    assert obj == 0.5
    assert tree_n_leaves(tree) == 1  # stump ties with the leaf; leaf is kept


def test_leaf_beats_split_because_of_penalty():
    X = np.array([[0], [0], [0], [1]])
    y = np.array([0, 0, 0, 1])
    # leaf: 1/4 + lam; split on x0: 0 + 2 * lam.  Split iff lam < 1/4.
    obj, tree = check(X, y, lam=0.3)
    assert obj == pytest.approx(0.25 + 0.3)
    assert tree == {"prediction": 0}
    obj, tree = check(X, y, lam=0.2)
    assert obj == pytest.approx(0.4)
    assert tree == {"feature": 0, "left": {"prediction": 0}, "right": {"prediction": 1}}


def test_depth_zero_gives_a_leaf():
    X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [1, 1]])
    y = X[:, 0].copy()  # a perfect stump exists
    obj, tree = check(X, y, lam=0.01, max_depth=0)
    assert tree == {"prediction": 1}
    assert obj == pytest.approx(2 / 5 + 0.01)
    obj, tree = check(X, y, lam=0.01, max_depth=1)
    assert obj == pytest.approx(0.02)
    assert tree["feature"] == 0


def test_depth_limit_two_vs_three():
    # y = x0 AND x1 AND x2 needs depth 3 for zero loss.
    X = np.array(list(itertools.product([0, 1], repeat=3)))
    y = X[:, 0] & X[:, 1] & X[:, 2]
    obj3, _ = check(X, y, lam=0.0, max_depth=3)
    assert obj3 == 0.0
    obj2, _ = check(X, y, lam=0.0, max_depth=2)
    assert obj2 == pytest.approx(1 / 8)
    obj_none, _ = check(X, y, lam=0.0)
    assert obj_none == 0.0


def test_identical_rows_with_conflicting_labels():
    X = np.array([[1, 0], [1, 0], [1, 0]])
    y = np.array([0, 1, 1])
    # No split separates anything: a single leaf predicting the majority.
    obj, tree = check(X, y, lam=0.05)
    assert tree == {"prediction": 1}
    assert obj == pytest.approx(1 / 3 + 0.05)
    # Weights flip the majority.
    obj, tree = check(X, y, w=[5.0, 1.0, 1.0], lam=0.05)
    assert tree == {"prediction": 0}
    assert obj == pytest.approx(2 / 7 + 0.05)


def test_duplicates_mixed_with_separable_rows():
    # Rows (0) carry labels {0, 1, 1}; rows (1) carry {0}.
    X = np.array([[0], [0], [0], [1]])
    y = np.array([0, 1, 1, 0])
    # leaf: predicts 0 (2 vs 2 tie -> class 0), error 2/4.
    # split: left predicts 1 (1 error), right predicts 0 (0 errors): 1/4 + 2*lam.
    obj, tree = check(X, y, lam=0.0)
    assert obj == pytest.approx(0.25)
    assert tree_n_leaves(tree) == 2
    # lam = 0.3: leaf 0.5 + 0.3 = 0.8 < split 0.25 + 0.6 = 0.85.
    obj, tree = check(X, y, lam=0.3)
    assert obj == pytest.approx(0.5 + 0.3)
    assert tree == {"prediction": 0}


def test_tie_goes_to_lowest_class_index():
    X = np.array([[0], [0]])
    assert check(X, np.array([1, 0]))[1] == {"prediction": 0}
    assert check(X, np.array([2, 1]))[1] == {"prediction": 1}
    assert check(X, np.array([2, 1]), w=[1.0, 1.0])[1] == {"prediction": 1}
    assert check(X, np.array([2, 1]), w=[1.5, 1.0])[1] == {"prediction": 2}


def test_weights_change_the_optimum():
    X = np.array([[0], [1]])
    y = np.array([0, 1])
    # leaf predicts class 0 (weight 3 vs 1): 1/4 + 0.3 = 0.55; split: 2 * 0.3 = 0.6.
    obj, tree = check(X, y, w=[3.0, 1.0], lam=0.3)
    assert obj == pytest.approx(0.55)
    assert tree == {"prediction": 0}
    # With unit weights the leaf costs 1/2 + 0.3 = 0.8 > 0.6.
    obj, tree = check(X, y, lam=0.3)
    assert obj == pytest.approx(0.6)


def test_three_classes():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    y = np.array([0, 1, 2, 2])
    # Best: split x0; left split x1 (classes 0 | 1), right leaf (class 2): 3 leaves.
    obj, tree = check(X, y, lam=0.01)
    assert obj == pytest.approx(0.03)
    assert tree == {
        "feature": 0,
        "left": {"feature": 1, "left": {"prediction": 0}, "right": {"prediction": 1}},
        "right": {"prediction": 2},
    }


def test_single_class_is_one_leaf():
    X = np.array([[0, 1], [1, 0], [1, 1]])
    obj, tree = check(X, np.array([1, 1, 1]), lam=0.02)
    assert tree == {"prediction": 1}
    assert obj == pytest.approx(0.02)


def test_string_labels():
    obj, tree = check(XOR_X, np.array(["a", "b", "b", "a"]), lam=0.1)
    assert obj == pytest.approx(0.4)
    assert set(tree_predict(tree, XOR_X)) == {"a", "b"}


def test_rejects_bad_input():
    with pytest.raises(ValueError):
        brute_force(np.array([[2]]), np.array([0]))
    with pytest.raises(ValueError):
        brute_force(np.array([[1]]), np.array([0]), sample_weight=[0.0])
    with pytest.raises(ValueError):
        brute_force(np.array([[1]]), np.array([0]), regularization=-1.0)
    for bad in (0, -1, 0.5, 2.0, True):
        with pytest.raises(ValueError, match="min_samples_leaf"):
            brute_force(np.array([[1]]), np.array([0]), min_samples_leaf=bad)


# --------------------------------------------------------------------------- #
# min_samples_leaf (hand-checkable)
# --------------------------------------------------------------------------- #


def test_min_samples_leaf_forbids_a_small_side():
    X = np.array([[0], [0], [0], [1]])
    y = np.array([0, 0, 0, 1])
    obj, tree = check(X, y, min_samples_leaf=1)
    assert obj == 0.0 and tree["feature"] == 0
    # the only split leaves one row on the right: not allowed with 2
    obj, tree = check(X, y, min_samples_leaf=2)
    assert obj == pytest.approx(1 / 4)
    assert tree == {"prediction": 0}


def test_min_samples_leaf_picks_the_feature_each_level_allows():
    # rows 0-2 are class 1, rows 3-7 class 0
    # x0 isolates rows {0,1} (2 | 6 split, 1 error), x1 rows {0,1,2} (3 | 5, perfect),
    # x2 rows {0,1,2,3} (4 | 4, 1 error); a leaf makes 3 errors.
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    X = np.zeros((8, 3), dtype=int)
    X[[0, 1], 0] = 1
    X[[0, 1, 2], 1] = 1
    X[[0, 1, 2, 3], 2] = 1
    for k in (1, 2, 3):
        obj, tree = check(X, y, max_depth=1, min_samples_leaf=k)
        assert obj == 0.0 and tree["feature"] == 1
    obj, tree = check(X, y, max_depth=1, min_samples_leaf=4)
    assert obj == pytest.approx(1 / 8) and tree["feature"] == 2
    assert sorted(tree_leaf_sizes(tree, X)) == [4, 4]
    for k in (5, 8, 100):  # no split keeps both sides that large: the root leaf
        obj, tree = check(X, y, max_depth=1, min_samples_leaf=k)
        assert obj == pytest.approx(3 / 8) and tree == {"prediction": 0}


def test_min_samples_leaf_counts_rows_not_weight():
    X = np.array([[0], [1], [1]])
    y = np.array([0, 1, 1])
    w = [10.0, 1.0, 1.0]
    obj, tree = check(X, y, w=w, min_samples_leaf=1)
    assert obj == 0.0
    # the heavy row alone on the left is one row, however heavy: no split with 2
    obj, tree = check(X, y, w=w, min_samples_leaf=2)
    assert tree == {"prediction": 0}
    assert obj == pytest.approx(2 / 12)


def test_min_samples_leaf_applies_at_every_level():
    # y = x0 AND x1 AND x2: only row 111 is positive. Without the constraint a
    # depth-3 tree is perfect; with 2 rows per leaf the positive row shares its
    # leaf with a negative one, so one error is unavoidable (the leaf's error).
    X = np.array(list(itertools.product([0, 1], repeat=3)))
    y = X[:, 0] & X[:, 1] & X[:, 2]
    assert check(X, y, max_depth=3, min_samples_leaf=1)[0] == 0.0
    for depth in (1, 2, 3, None):
        obj, _ = check(X, y, max_depth=depth, min_samples_leaf=2)
        assert obj == pytest.approx(1 / 8)
    # XOR of x0, x1 needs four 2-row leaves: allowed with 2, not with 3
    y = X[:, 0] ^ X[:, 1]
    obj, tree = check(X, y, max_depth=2, min_samples_leaf=2)
    assert obj == 0.0 and tree_n_leaves(tree) == 4
    obj, tree = check(X, y, max_depth=2, min_samples_leaf=3)
    # only 4 | 4 splits exist at the root, then no 2-row side may split again
    assert obj == pytest.approx(1 / 2)


def test_min_samples_leaf_with_penalty():
    # leaf: 1/4 + lam; split on x0 (2 | 2): 0 + 2 lam. Split iff lam < 1/4.
    X = np.array([[0], [0], [1], [1]])
    y = np.array([0, 0, 1, 1])
    obj, tree = check(X, y, lam=0.1, min_samples_leaf=2)
    assert obj == pytest.approx(0.2) and tree_n_leaves(tree) == 2
    obj, tree = check(X, y, lam=0.1, min_samples_leaf=3)
    assert obj == pytest.approx(0.5 + 0.1) and tree == {"prediction": 0}


def test_min_samples_leaf_one_is_the_default():
    rng = np.random.default_rng(7)
    for _ in range(10):
        X = rng.integers(0, 2, size=(10, 3))
        y = rng.integers(0, 3, size=10)
        assert brute_force(X, y, regularization=0.02, max_depth=2) == brute_force(
            X, y, regularization=0.02, max_depth=2, min_samples_leaf=1
        )


# --------------------------------------------------------------------------- #
# Comparison with an independent brute force over explicit trees
# --------------------------------------------------------------------------- #


def all_trees(features, depth_left):
    """Every tree testing distinct features along each path (leaves unlabelled)."""
    yield None  # a leaf
    if depth_left is not None and depth_left == 0:
        return
    child_depth = None if depth_left is None else depth_left - 1
    for f in features:
        rest = tuple(g for g in features if g != f)
        subtrees = list(all_trees(rest, child_depth))
        for left in subtrees:
            for right in subtrees:
                yield (f, left, right)


def explicit_objective(shape, X, y, w, lam, min_samples_leaf=0):
    """Objective of a tree shape whose leaves predict their best class.

    Unlike the oracle, this keeps empty leaves (a split may send no row to one
    side); they cost lam and never beat the same tree without them. A shape
    with a leaf of fewer than ``min_samples_leaf`` rows (empty leaves included)
    is infeasible: infinite objective, unless it is the root leaf.
    """
    def route(node, row):
        path = ""
        while node is not None:
            f, left, right = node
            path += "R" if row[f] else "L"
            node = right if row[f] else left
        return path

    def count(node):
        return 1 if node is None else count(node[1]) + count(node[2])

    leaves = {}  # leaf path -> {class: weight}
    for i in range(len(y)):
        per_class = leaves.setdefault(route(shape, X[i]), {})
        per_class[y[i]] = per_class.get(y[i], 0.0) + w[i]
    if shape is not None and min_samples_leaf > 0:
        # every leaf must be reached by >= min_samples_leaf rows; an unreached leaf has 0
        if len(leaves) < count(shape) or min(
            sum(1 for i in range(len(y)) if route(shape, X[i]) == p) for p in leaves
        ) < min_samples_leaf:
            return float("inf")
    errors = 0.0
    for per_class in leaves.values():
        errors += sum(per_class.values()) - max(per_class.values())
    return errors / sum(w) + lam * count(shape)


def explicit_brute_force(X, y, w, lam, max_depth, min_samples_leaf=0):
    m = X.shape[1]
    return min(explicit_objective(s, X, y, w, lam, min_samples_leaf)
               for s in all_trees(tuple(range(m)), max_depth))


def _small_instance(rng, seed, min_rows):
    """``min_rows`` to 15 rows, 1 to 3 columns, 2 or 3 classes; odd seeds weighted."""
    n = int(rng.integers(min_rows, 16))
    m = int(rng.integers(1, 4))
    k = int(rng.integers(2, 4))
    X = rng.integers(0, 2, size=(n, m))
    y = rng.integers(0, k, size=n)
    w = rng.uniform(0.1, 3.0, size=n) if seed % 2 else np.ones(n)
    return X, y, w


@pytest.mark.parametrize("seed", range(40))
def test_matches_explicit_tree_enumeration(seed):
    rng = np.random.default_rng(seed)
    X, y, w = _small_instance(rng, seed, min_rows=1)
    lam = [0.0, 0.01, 0.05, 0.1, float(rng.uniform(0, 0.2))][seed % 5]
    max_depth = [None, 0, 1, 2, 3][(seed // 5) % 5]
    obj, tree = check(X, y, w, lam, max_depth)
    assert obj == pytest.approx(explicit_brute_force(X, y, w, lam, max_depth), abs=1e-12)


def test_unlimited_depth_equals_depth_m():
    rng = np.random.default_rng(123)
    for _ in range(10):
        X = rng.integers(0, 2, size=(12, 4))
        y = rng.integers(0, 2, size=12)
        a, _ = brute_force(X, y, regularization=0.0)
        b, _ = brute_force(X, y, regularization=0.0, max_depth=4)
        c, _ = brute_force(X, y, regularization=0.0, max_depth=10)
        assert a == pytest.approx(b, abs=1e-12) and a == pytest.approx(c, abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_min_samples_leaf_matches_explicit_tree_enumeration(seed):
    rng = np.random.default_rng(1000 + seed)
    X, y, w = _small_instance(rng, seed, min_rows=2)
    lam = [0.0, 0.0, 0.01, 0.05][seed % 4]
    max_depth = [None, 1, 2, 3][(seed // 4) % 4]
    min_leaf = [1, 2, 3, 4, 5][(seed // 16 + seed) % 5]
    obj, _ = check(X, y, w, lam, max_depth, min_samples_leaf=min_leaf)
    expected = explicit_brute_force(X, y, w, lam, max_depth, min_samples_leaf=min_leaf)
    assert obj == pytest.approx(expected, abs=1e-12)

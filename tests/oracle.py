"""Exhaustive brute-force oracle for the GOSDT objective.

Written for clarity, not speed: there are no pruning bounds of any kind. For a
0/1 feature matrix ``X`` (n x m), labels ``y``, positive sample weights ``w``,
a per-leaf penalty ``lam`` and an optional ``max_depth`` (scikit-learn meaning:
a root-only tree has depth 0), it minimises over all binary decision trees

    R(t) = (weight of misclassified rows) / (total weight) + lam * (#leaves)

where each internal node tests one feature (left branch: feature == 0, right
branch: feature == 1) and each leaf predicts the class of maximum weight among
its rows (ties -> lowest class index).

The recursion is the textbook one. For a set ``S`` of row indices reachable by
a path of feature tests and a remaining depth ``d``:

    opt(S, d) = min( leaf_cost(S),
                     min over features j that split S nontrivially (both
                     sides non-empty) and d > 0 of
                         opt(S & {x_j = 0}, d - 1) + opt(S & {x_j = 1}, d - 1) )

memoised on ``(frozenset(S), d)``. Splits that leave one side empty are never
useful (the non-empty child alone does at least as well with fewer leaves), so
excluding them does not change the optimum.

``min_samples_leaf = k`` (an int >= 1, DL8.5's ``min_sup``) restricts the trees
to those whose every leaf holds at least ``k`` rows: a split of ``S`` is allowed
only when both sides keep at least ``k`` rows (rows are counted, not weighed).
The root may always be a leaf, whatever its size. ``k = 1`` is the
unconstrained problem above.

Trees are plain nested dicts:

* leaf:     ``{"prediction": <class label>}``
* internal: ``{"feature": j, "left": <subtree for x_j == 0>,
  "right": <subtree for x_j == 1>}``

``tree_objective`` recomputes the objective of such a tree independently, by
routing every row to its leaf, so the two can be cross-checked.
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, Optional, Tuple

import numpy as np

Tree = Dict[str, Any]

__all__ = [
    "brute_force",
    "tree_objective",
    "tree_predict",
    "tree_n_leaves",
    "tree_depth",
    "tree_leaf_sizes",
]


def _as_inputs(X, y, sample_weight):
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError("X must be 2-dimensional")
    if not np.all((X == 0) | (X == 1)):
        raise ValueError("X must contain only 0/1 values")
    X = X.astype(np.int64)
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError("y must have shape (n_samples,)")
    if X.shape[0] == 0:
        raise ValueError("need at least one row")
    if sample_weight is None:
        w = np.ones(X.shape[0], dtype=float)
    else:
        w = np.asarray(sample_weight, dtype=float)
        if w.shape != (X.shape[0],):
            raise ValueError("sample_weight must have shape (n_samples,)")
        if not np.all(w > 0):
            raise ValueError("sample weights must be positive")
    return X, y, w


def brute_force(
    X,
    y,
    sample_weight=None,
    regularization: float = 0.0,
    max_depth: Optional[int] = None,
    min_samples_leaf: int = 1,
) -> Tuple[float, Tree]:
    """Return ``(optimal objective, an optimal tree)`` by exhaustive search.

    ``min_samples_leaf``: a split is allowed only when both sides keep at least
    this many rows (an int >= 1; 1 means no constraint beyond non-empty sides).
    """
    X, y, w = _as_inputs(X, y, sample_weight)
    lam = float(regularization)
    if lam < 0:
        raise ValueError("regularization must be >= 0")
    if max_depth is not None and max_depth < 0:
        raise ValueError("max_depth must be >= 0 or None")
    if isinstance(min_samples_leaf, bool) or not isinstance(min_samples_leaf, (int, np.integer)):
        raise ValueError("min_samples_leaf must be an int >= 1 (convert fractions first)")
    min_leaf = int(min_samples_leaf)
    if min_leaf < 1:
        raise ValueError("min_samples_leaf must be an int >= 1")

    n, m = X.shape
    classes = np.unique(y)  # sorted, so "lowest class index" = smallest label
    class_index = np.searchsorted(classes, y)
    total_weight = float(w.sum())

    def leaf(rows: FrozenSet[int]) -> Tuple[float, Tree]:
        # Weight of each class among the rows; predict the heaviest class,
        # ties going to the lowest class index (np.argmax returns the first).
        per_class = np.zeros(len(classes))
        for i in rows:
            per_class[class_index[i]] += w[i]
        best = int(np.argmax(per_class))
        misclassified = sum(float(per_class[k]) for k in range(len(classes)) if k != best)
        cost = misclassified / total_weight + lam
        return cost, {"prediction": classes[best].item()}

    rows_with_zero = [frozenset(i for i in range(n) if X[i, j] == 0) for j in range(m)]
    rows_with_one = [frozenset(i for i in range(n) if X[i, j] == 1) for j in range(m)]

    memo: Dict[Tuple[FrozenSet[int], Optional[int]], Tuple[float, Tree]] = {}

    def solve(rows: FrozenSet[int], depth_left: Optional[int]) -> Tuple[float, Tree]:
        key = (rows, depth_left)
        if key in memo:
            return memo[key]
        best_cost, best_tree = leaf(rows)
        if depth_left is None or depth_left > 0:
            child_depth = None if depth_left is None else depth_left - 1
            for j in range(m):
                left = rows & rows_with_zero[j]
                right = rows & rows_with_one[j]
                if len(left) < min_leaf or len(right) < min_leaf:
                    # with min_leaf == 1: a trivial split (one side would be an
                    # empty leaf); otherwise a side too small to hold a leaf, and
                    # every leaf below a side lies inside it
                    continue
                left_cost, left_tree = solve(left, child_depth)
                right_cost, right_tree = solve(right, child_depth)
                cost = left_cost + right_cost
                if cost < best_cost:  # strict: prefer the simpler tree on ties
                    best_cost = cost
                    best_tree = {"feature": j, "left": left_tree, "right": right_tree}
        memo[key] = (best_cost, best_tree)
        return best_cost, best_tree

    return solve(frozenset(range(n)), max_depth)


def tree_predict(tree: Tree, X) -> np.ndarray:
    """Route every row of X through ``tree`` and return the leaf predictions."""
    X = np.asarray(X)
    out = []
    for row in X:
        node = tree
        while "prediction" not in node:
            node = node["right"] if row[node["feature"]] == 1 else node["left"]
        out.append(node["prediction"])
    return np.asarray(out)


def tree_leaf_sizes(tree: Tree, X) -> list:
    """Number of rows of X reaching each leaf of ``tree`` (left-to-right order,
    empty leaves included as 0)."""
    X = np.asarray(X)

    def sizes(node, rows):
        if "prediction" in node:
            return [len(rows)]
        goes_right = X[rows, node["feature"]] == 1
        return sizes(node["left"], rows[~goes_right]) + sizes(node["right"], rows[goes_right])

    return sizes(tree, np.arange(X.shape[0]))


def tree_n_leaves(tree: Tree) -> int:
    if "prediction" in tree:
        return 1
    return tree_n_leaves(tree["left"]) + tree_n_leaves(tree["right"])


def tree_depth(tree: Tree) -> int:
    """Depth in the scikit-learn sense: a single leaf has depth 0."""
    if "prediction" in tree:
        return 0
    return 1 + max(tree_depth(tree["left"]), tree_depth(tree["right"]))


def tree_objective(tree: Tree, X, y, w=None, regularization: float = 0.0) -> float:
    """Objective of a given tree: misclassified weight / total weight + lam * leaves.

    Uses the leaf predictions stored in the tree (it does not re-derive them),
    so it also checks that the oracle labelled its leaves correctly.
    """
    X, y, w = _as_inputs(X, y, w)
    pred = tree_predict(tree, X)
    misclassified = float(w[pred != y].sum())
    return misclassified / float(w.sum()) + float(regularization) * tree_n_leaves(tree)

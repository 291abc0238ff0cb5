"""Exhaustive all-thresholds oracle for optimal trees on numeric columns.

Written for clarity: no bound of any kind prunes the search. For a numeric matrix
``X`` (n x m), labels ``y``, positive weights ``w``, a per-leaf penalty ``lam``, an
optional ``max_depth`` (a single leaf has depth 0) and ``min_samples_leaf`` (rows per
leaf, DL8.5's ``min_sup``), it minimises over every binary tree whose nodes test
``x[j] <= t`` for a midpoint ``t`` between two consecutive distinct values of column
``j``:

    R(tree) = (weight of misclassified rows) / (total weight) + lam * (#leaves)

each leaf predicting its heaviest class (ties: the lowest class index). Every
threshold of every column is tried at every node (those leaving a side empty, or a
side below ``min_samples_leaf`` rows, are skipped; two thresholds that part a node's
rows alike are one choice). Sets of rows are Python ints used as bitsets; the
recursion is memoised on (rows, depth left).

Trees are nested dicts: ``{"prediction": label}`` or ``{"feature": j, "threshold": t,
"left": <x[j] <= t>, "right": <x[j] > t>}``; :func:`numeric_tree_objective` routes the
rows through such a tree independently, so the two can be cross-checked.
"""

from __future__ import annotations

import numpy as np

__all__ = ["numeric_brute_force", "numeric_tree_objective", "numeric_tree_predict"]


def _count(rows):
    """Rows in a bitset (``int.bit_count`` needs Python 3.10; treeopt supports 3.9)."""
    return bin(rows).count("1")


def _mask(flags):
    """The bitset of the rows where ``flags`` is true."""
    return sum(1 << i for i, f in enumerate(flags) if f)


def numeric_brute_force(X, y, w=None, regularization=0.0, max_depth=None, min_samples_leaf=1):
    """``(optimal objective, an optimal tree)`` by exhaustive search (see the module)."""
    X = np.asarray(X, dtype=np.float64)
    n, m = X.shape
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    assert np.all(w > 0) and n > 0
    classes, class_index = np.unique(np.asarray(y), return_inverse=True)
    total = float(w.sum())
    lam = float(regularization)
    # Per class, the rows of each weight value: weight(rows, c) = sum(v * |rows & M|).
    levels = [
        [(float(v), _mask((class_index == c) & (w == v))) for v in np.unique(w[class_index == c])]
        for c in range(len(classes))
    ]
    splits = []  # (column, threshold, rows going left) for every midpoint of every column
    for j in range(m):
        d = np.unique(X[:, j])
        for a, b in zip(d[:-1], d[1:]):
            splits.append((j, a / 2 + b / 2, _mask(X[:, j] <= a)))

    def leaf(rows):
        per_class = [sum(v * _count(rows & mk) for v, mk in lv) for lv in levels]
        best = int(np.argmax(per_class))
        wrong = sum(per_class) - per_class[best]
        return wrong / total + lam, {"prediction": classes[best].item()}

    memo = {}

    def solve(rows, depth):
        key = (rows, depth)
        if key not in memo:
            best = leaf(rows)
            if depth is None or depth > 0:
                below = None if depth is None else depth - 1
                seen = set()
                for j, t, goes_left in splits:
                    left = rows & goes_left
                    right = rows ^ left
                    if left in seen or _count(left) < min_samples_leaf:
                        continue
                    seen.add(left)
                    if _count(right) < min_samples_leaf or right == 0:
                        continue
                    (lc, lt), (rc, rt) = solve(left, below), solve(right, below)
                    if lc + rc < best[0]:  # strict: the simpler tree on ties
                        best = (lc + rc, {"feature": j, "threshold": t, "left": lt, "right": rt})
            memo[key] = best
        return memo[key]

    return solve((1 << n) - 1, max_depth)


def numeric_tree_predict(tree, X):
    """The leaf prediction of every row of ``X`` routed through ``tree``."""
    out = []
    for row in np.asarray(X, dtype=np.float64):
        node = tree
        while "prediction" not in node:
            node = node["left"] if row[node["feature"]] <= node["threshold"] else node["right"]
        out.append(node["prediction"])
    return np.asarray(out)


def _leaves(tree):
    return 1 if "prediction" in tree else _leaves(tree["left"]) + _leaves(tree["right"])


def numeric_tree_objective(tree, X, y, w=None, regularization=0.0):
    """Objective of ``tree`` (its stored leaf predictions) on the data."""
    y = np.asarray(y)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
    wrong = numeric_tree_predict(tree, X) != y
    return float(w[wrong].sum()) / float(w.sum()) + regularization * _leaves(tree)

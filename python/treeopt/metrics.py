"""Complexity measures of decision trees.

* :func:`expected_cost` -- the complexity measure of Zhang & Gionis (regularized
  impurity reduction): the expected total cost of the tests an object goes through
  on its root-to-leaf path (with unit costs: the expected number of tests).
* :func:`tree_size` -- the number of nodes (internal nodes and leaves).

Both accept a :class:`treeopt.Tree`, a fitted treeopt estimator (anything with a
``tree_`` that is a :class:`treeopt.Tree`) or a fitted scikit-learn
``DecisionTreeClassifier`` / ``DecisionTreeRegressor``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional, Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.validation import _check_sample_weight

from .tree import TREE_LEAF, TREE_OBLIQUE, Tree

__all__ = ["expected_cost", "path_costs", "tree_size"]

#: What :func:`_structure` returns: ``(children_left, children_right, feature,
#: n_features, apply, weights)``.
_Structure = Tuple[
    NDArray[np.integer[Any]],
    NDArray[np.integer[Any]],
    NDArray[np.integer[Any]],
    int,
    Callable[[Any], ArrayLike],
    Optional[NDArray[np.float64]],
]


def _structure(tree: object) -> _Structure:
    """``(children_left, children_right, feature, n_features, apply, weights)`` of a tree.

    ``weights`` holds the per-feature weights of the oblique nodes (None if none)."""
    if isinstance(tree, Tree):
        return (
            tree.children_left,
            tree.children_right,
            tree.feature,
            tree.n_features,
            tree.apply,
            tree.weights,
        )
    inner = getattr(tree, "tree_", None)
    if isinstance(inner, Tree):
        apply = tree.apply if hasattr(tree, "apply") else inner.apply
        return (
            inner.children_left,
            inner.children_right,
            inner.feature,
            int(getattr(tree, "n_features_in_", inner.n_features)),
            apply,
            inner.weights,
        )
    if inner is not None and hasattr(inner, "children_left") and hasattr(tree, "apply"):
        return (
            np.asarray(inner.children_left),
            np.asarray(inner.children_right),
            np.asarray(inner.feature),
            int(getattr(tree, "n_features_in_", inner.n_features)),
            tree.apply,
            None,
        )
    raise TypeError(
        "expected a treeopt.Tree, a fitted treeopt tree estimator or a fitted "
        f"scikit-learn decision tree, got {type(tree).__name__}"
    )


def _node_path_costs(
    children_left: NDArray[np.integer[Any]],
    children_right: NDArray[np.integer[Any]],
    feature: NDArray[np.integer[Any]],
    costs: NDArray[np.float64],
    weights: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Cost of the tests on the path from the root to every node.

    A feature tested several times on one path (possible in trees over numeric
    features) is paid once: its value is known after the first test. An oblique node
    (``feature == TREE_OBLIQUE``) reads every feature with a non-zero weight in its
    linear test, and pays each of them once per path in the same way.
    """
    n_nodes = children_left.shape[0]
    out = np.zeros(n_nodes, dtype=np.float64)
    stack: list[tuple[int, float, frozenset[int]]] = [(0, 0.0, frozenset())]
    while stack:
        node, cost, seen = stack.pop()
        out[node] = cost
        if children_left[node] == TREE_LEAF:
            continue
        f = int(feature[node])
        if f == TREE_OBLIQUE:
            if weights is None:
                raise ValueError(f"node {node} is oblique but the tree has no weights")
            read = {int(j) for j in np.flatnonzero(weights[node])}
        else:
            read = {f}
        new = read - seen
        if new:
            cost = cost + float(np.sum(costs[sorted(new)]))
            seen = seen | new
        stack.append((int(children_left[node]), cost, seen))
        stack.append((int(children_right[node]), cost, seen))
    return out


def _costs_for(
    test_costs: ArrayLike | None, n_features: int, n_columns: int
) -> NDArray[np.float64]:
    if test_costs is None:
        return np.ones(max(n_features, n_columns), dtype=np.float64)
    try:
        costs = np.asarray(test_costs, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("test_costs must be a 1-D array of numbers, one per feature") from None
    if costs.ndim != 1 or costs.shape[0] != n_columns:
        raise ValueError(
            f"test_costs has shape {costs.shape} but X has {n_columns} features; pass "
            "one cost per feature (or None for unit costs)."
        )
    if not np.all(np.isfinite(costs)) or np.any(costs < 0):
        raise ValueError("test_costs must be finite and non-negative.")
    if costs.shape[0] < n_features:
        raise ValueError(f"the tree uses {n_features} features but test_costs has {costs.shape[0]}")
    return costs


def path_costs(
    tree: object, X: ArrayLike, test_costs: ArrayLike | None = None
) -> NDArray[np.float64]:
    """Cost of the tests each row of ``X`` goes through, root to leaf.

    Parameters
    ----------
    tree : treeopt.Tree, fitted treeopt estimator or fitted scikit-learn tree
    X : array-like of shape (n_samples, n_features)
    test_costs : array-like of shape (n_features,), default=None
        Cost of each feature's test; ``None`` means 1 for every feature (the cost
        is then the number of distinct features read on the path).

    Notes
    -----
    A feature is paid once per path, however often it is tested. An oblique node
    (a linear test ``x @ w <= t``, as in latent trees) reads every feature with a
    non-zero weight ``w[j]`` and pays the cost of each of them not already read on
    the path.

    Returns
    -------
    ndarray of float64, shape (n_samples,)
    """
    cl, cr, feature, n_features, apply, weights = _structure(tree)
    n_columns = np.shape(X)[1] if np.ndim(X) == 2 else -1
    if n_columns < 0:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {np.shape(X)}")
    costs = _costs_for(test_costs, n_features, n_columns)
    leaves: NDArray[np.intp] = np.asarray(apply(X))
    node_costs = _node_path_costs(
        np.asarray(cl), np.asarray(cr), np.asarray(feature), costs, weights
    )
    return node_costs[leaves]


def expected_cost(
    tree: object,
    X: ArrayLike,
    test_costs: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Expected cost of classifying an object: ``sum_x p(x) c(T, x)``.

    ``c(T, x)`` is the total cost of the tests on the root-to-leaf path of ``x``
    and ``p(x)`` is proportional to ``sample_weight`` (uniform by default) -- the
    complexity measure of the EC4.5 paper. With unit costs it is the expected
    number of tests (expected depth).

    Parameters
    ----------
    tree : treeopt.Tree, fitted treeopt estimator or fitted scikit-learn tree
    X : array-like of shape (n_samples, n_features)
    test_costs : array-like of shape (n_features,) or None
        Non-negative cost of each feature's test; ``None`` means unit costs. A
        feature tested twice on a path is paid once; an oblique node pays for every
        feature with a non-zero weight in its linear test (see :func:`path_costs`).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights (object probabilities up to normalisation).

    Returns
    -------
    float

    Examples
    --------
    >>> from treeopt import Tree
    >>> t = Tree([1, -1, 3, -1, -1], [2, -1, 4, -1, -1], [0, -2, 1, -2, -2],
    ...          [0.5, -2, 0.5, -2, -2], [[2, 2], [2, 0], [0, 2], [0, 1], [0, 1]],
    ...          [4, 2, 2, 1, 1])
    >>> expected_cost(t, [[0, 0], [0, 1], [1, 0], [1, 1]])
    1.5
    >>> expected_cost(t, [[0, 0], [0, 1], [1, 0], [1, 1]], test_costs=[1, 10])
    6.0
    """
    c = path_costs(tree, X, test_costs)
    if c.shape[0] == 0:
        raise ValueError("X has no rows; the expected cost needs at least one sample.")
    w = _check_sample_weight(sample_weight, c, dtype=np.float64, ensure_non_negative=True)
    if not w.max() > 0:
        raise ValueError("sample_weight sums to zero; give some samples a positive weight.")
    # Probabilities from weights scaled (exactly, by a power of two) to a largest
    # weight in [0.5, 1): sum(p) cannot overflow, and sum(p * c) <= max(c) stays
    # finite whenever the costs are.
    w = np.ldexp(w, -int(np.frexp(w.max())[1]))
    p = w / w.sum()
    return float(np.dot(p, c))


def tree_size(tree: object) -> int:
    """Number of nodes of a tree (internal nodes and leaves), the paper's tree size.

    Parameters
    ----------
    tree : treeopt.Tree, fitted treeopt estimator or fitted scikit-learn tree

    Returns
    -------
    int

    Examples
    --------
    >>> from treeopt import Tree
    >>> tree_size(Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2],
    ...                [[1, 1], [1, 0], [0, 1]], [2, 1, 1]))
    3
    """
    cl = _structure(tree)[0]
    return int(np.asarray(cl).shape[0])

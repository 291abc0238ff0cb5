"""Bottom-up pruning of a :class:`~treeopt.tree.Tree`, shared by the estimators.

A pruning of a tree keeps the root and turns some internal nodes into leaves. For an
objective that sums a cost per leaf (misclassification plus a leaf penalty, or impurity
plus ``alpha``), :func:`best_pruning` finds the best one in one pass from the leaves up
and :func:`subtree` builds it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._model import TREE_LEAF, TREE_UNDEFINED, Tree

__all__ = ["best_pruning", "postorder", "subtree"]


def postorder(children_left: NDArray[np.integer[Any]], children_right: NDArray[np.integer[Any]]) -> list[int | np.integer[Any]]:
    """Node indices reachable from the root, every child before its parent."""
    order: list[int | np.integer[Any]] = []
    stack: list[int | np.integer[Any]] = [0]
    while stack:
        node = stack.pop()
        order.append(node)
        if children_left[node] != TREE_LEAF:
            stack.append(children_left[node])
            stack.append(children_right[node])
    return order[::-1]


def best_pruning(
    children_left: NDArray[np.integer[Any]],
    children_right: NDArray[np.integer[Any]],
    leaf_cost: NDArray[np.float64],
    rtol: float = 0.0,
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The pruning minimising the summed ``leaf_cost`` of its leaves.

    ``leaf_cost[i]`` is what node ``i`` costs as a leaf (penalty included). A node
    becomes a leaf when that is not worse than its children's best, up to ``rtol``
    relative to the children's cost (ties: the smaller tree).

    Returns
    -------
    best : ndarray of float, shape (n_nodes,)
        Cost of the best pruning of the subtree at every node (``best[0]``: the tree's).
    make_leaf : ndarray of bool, shape (n_nodes,)
        Internal nodes the best pruning turns into leaves.
    """
    n_nodes = len(children_left)
    best = np.zeros(n_nodes)
    make_leaf = np.zeros(n_nodes, dtype=bool)
    for node in postorder(children_left, children_right):
        as_leaf = leaf_cost[node]
        if children_left[node] == TREE_LEAF:
            best[node] = as_leaf
            continue
        below = best[children_left[node]] + best[children_right[node]]
        if as_leaf <= below + rtol * max(1.0, abs(below)):
            make_leaf[node] = True
            best[node] = as_leaf
        else:
            best[node] = below
    return best, make_leaf


def subtree(tree: Tree, make_leaf: NDArray[np.bool_]) -> Tree:
    """Copy of ``tree`` where every node with ``make_leaf`` True becomes a leaf.

    Nodes below such a node are dropped and the rest renumbered in pre-order (left
    child first).
    """
    cl, cr = tree.children_left, tree.children_right
    new_id: dict[int | np.integer[Any], int] = {}
    preorder: list[int | np.integer[Any]] = []
    stack: list[int | np.integer[Any]] = [0]
    while stack:
        node = stack.pop()
        new_id[node] = len(preorder)
        preorder.append(node)
        if cl[node] != TREE_LEAF and not make_leaf[node]:
            stack.append(cr[node])
            stack.append(cl[node])
    order = np.asarray(preorder, dtype=np.int64)
    leaf = (cl[order] == TREE_LEAF) | make_leaf[order]
    left = np.where(leaf, TREE_LEAF, [new_id.get(int(c), -1) for c in cl[order]])
    right = np.where(leaf, TREE_LEAF, [new_id.get(int(c), -1) for c in cr[order]])
    return Tree(
        left,
        right,
        np.where(leaf, TREE_UNDEFINED, tree.feature[order]),
        np.where(leaf, float(TREE_UNDEFINED), tree.threshold[order]),
        tree.value[order],
        tree.weighted_n_node_samples[order],
        classes=tree.classes,
        feature_names=tree.feature_names,
        n_features=tree.n_features,
        binary_features=tree.binary_features,
        labels=None if tree.labels is None else tree.labels[order],
    )

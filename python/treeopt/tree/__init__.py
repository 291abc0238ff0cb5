"""The decision-tree model every estimator of :mod:`treeopt` returns (:class:`Tree`).

``_model`` holds the node arrays, their checks, prediction, the text / Graphviz /
matplotlib views and the dict/JSON form; ``_prune`` the bottom-up pruning shared by
the estimators (GOSDT's warm start, EC4.5's cost-complexity pruning, the guarantee of
:class:`treeopt.OptimalTreeClassifier`).
"""

from ._model import TREE_LEAF, TREE_OBLIQUE, TREE_UNDEFINED, Tree, binary_columns
from ._prune import best_pruning, postorder, subtree

__all__ = [
    "TREE_LEAF",
    "TREE_OBLIQUE",
    "TREE_UNDEFINED",
    "Tree",
    "best_pruning",
    "binary_columns",
    "postorder",
    "subtree",
]

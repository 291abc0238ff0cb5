"""The decision-tree model every estimator of :mod:`treeopt` returns (:class:`Tree`).

``_model`` holds the node arrays, their checks and prediction; ``_export`` the text,
Graphviz and matplotlib views; ``_io`` the dict/JSON form and the import of
scikit-learn trees; ``_prune`` the bottom-up pruning shared by the estimators.
"""

from ._model import TREE_LEAF, TREE_OBLIQUE, TREE_UNDEFINED, Tree, binary_columns

__all__ = ["TREE_LEAF", "TREE_OBLIQUE", "TREE_UNDEFINED", "Tree", "binary_columns"]

"""Old home of :class:`treeopt.Tree`, kept so that trees pickled before the move to
:mod:`treeopt.tree` still load (a pickle names the class's module)."""

from .tree._model import TREE_LEAF, TREE_OBLIQUE, TREE_UNDEFINED, Tree, binary_columns  # noqa: F401

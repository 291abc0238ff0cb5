"""Old home of :class:`treeopt.BinnedOneHotEncoder` (now in :mod:`treeopt.binarize`),
kept so that ``treeopt.preprocessing.BinnedOneHotEncoder`` imports and pickles load."""

from .binarize import BinnedOneHotEncoder

__all__ = ["BinnedOneHotEncoder"]

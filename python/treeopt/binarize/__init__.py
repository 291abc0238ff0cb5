"""From raw columns to the 0/1 columns the solvers learn from, and back.

``_core`` is what the binarizers share: ``x <= t`` columns and their exact names, the
DataFrame output rule, the ``transform`` template and the mapping of a tree learned on
binarized columns back to thresholds on the raw features
(:func:`~treeopt.binarize._core.tree_on_raw_features`, used by
:class:`treeopt.OptimalTreeClassifier` and :class:`treeopt.ExtractedTreeClassifier`).
The binarizers: :class:`NumericBinarizer` (every midpoint, ``_numeric``),
:class:`BinnedOneHotEncoder` (k-means bins and one-hot levels, ``_binned``) and
:class:`treeopt.ThresholdGuessBinarizer` (the thresholds of a boosted ensemble, in
:mod:`treeopt.guess`).
"""

from ._binned import BinnedOneHotEncoder
from ._numeric import NumericBinarizer

__all__ = ["BinnedOneHotEncoder", "NumericBinarizer"]

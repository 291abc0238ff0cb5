"""Shared plumbing of the estimators that learn from 0/1 features: the input check, the
distinct rows of a 0/1 matrix and prediction through the fitted ``tree_`` (a
:class:`treeopt.Tree`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.validation import check_is_fitted

from ._validation import binary_matrix, validate_data, zero_one_frame

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator
    from sklearn.utils import Tags

    from .tree import Tree

    # The mixin is used before BaseEstimator in the estimators' bases (its
    # __sklearn_tags__ extends theirs); at runtime its base is object.
    _MixinBase = BaseEstimator
else:
    _MixinBase = object


def as_binary_matrix(
    X: ArrayLike, hint: str, feature_names: Sequence[Any] | NDArray[Any] | None = None
) -> NDArray[np.uint8]:
    """X as a C-contiguous uint8 matrix, or a ValueError naming the column and ending
    with ``hint`` (see :func:`treeopt._validation.binary_matrix`)."""
    return binary_matrix(X, hint, feature_names)


def distinct_rows(
    Xb: NDArray[np.uint8], labels: NDArray[np.integer[Any]] | None = None
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """``(first, inverse)`` of the distinct rows of the 0/1 matrix ``Xb``.

    With ``labels`` (class indices below 256), rows are distinct pairs (row, label).
    ``first`` holds the index of the first row of each distinct row, in the order of the
    rows' packed bits (so independent of the row order); ``inverse[i]`` is the distinct
    row of row ``i``.
    """
    keys = np.packbits(Xb, axis=1)
    if labels is not None:
        keys = np.hstack([keys, labels.astype(np.uint8)[:, None]])
    keys = np.ascontiguousarray(keys)
    row_keys = keys.view(np.dtype((np.void, keys.shape[1]))).ravel()
    _, first, inverse = np.unique(row_keys, return_index=True, return_inverse=True)
    return first, inverse.ravel()


class BinaryTreeClassifierMixin(_MixinBase):
    """``predict``, ``predict_proba`` and ``apply`` through ``tree_`` for 0/1 input.

    Subclasses set ``_binary_hint``: what to tell a user who passes other values.
    """

    _binary_hint = "binarize the features first"
    tree_: Tree

    def _binary_input(self, X: Any) -> NDArray[np.uint8]:
        X = zero_one_frame(self, X)
        X = validate_data(self, X, reset=False, dtype=None, ensure_all_finite=True)
        return as_binary_matrix(X, self._binary_hint, getattr(self, "feature_names_in_", None))

    def predict(self, X: Any) -> NDArray[Any]:
        """Predicted class of each row of the 0/1 matrix X."""
        check_is_fitted(self, "tree_")
        return self.tree_.predict(self._binary_input(X))

    def predict_proba(self, X: Any) -> NDArray[np.float64]:
        """Class proportions (training weights) of the leaf each row of X reaches."""
        check_is_fitted(self, "tree_")
        return self.tree_.predict_proba(self._binary_input(X))

    def apply(self, X: Any) -> NDArray[np.intp]:
        """Index of the leaf of ``tree_`` each row of X reaches."""
        check_is_fitted(self, "tree_")
        return self.tree_.apply(self._binary_input(X))

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

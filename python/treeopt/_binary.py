"""Shared plumbing of the estimators that learn from 0/1 features: the input check and
prediction through the fitted ``tree_`` (a :class:`treeopt.Tree`)."""

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data


def as_binary_matrix(X, hint):
    """X as a C-contiguous uint8 matrix, or a ValueError that ends with ``hint``."""
    if X.dtype == np.bool_:
        return np.ascontiguousarray(X, dtype=np.uint8)
    if not np.issubdtype(X.dtype, np.number):
        raise ValueError(f"X has dtype {X.dtype}; {hint}.")
    bad = (X != 0) & (X != 1)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(f"X[{row}, {col}] = {X[row, col]!r} is not 0 or 1; {hint}.")
    return np.ascontiguousarray(X, dtype=np.uint8)


class BinaryTreeClassifierMixin:
    """``predict``, ``predict_proba`` and ``apply`` through ``tree_`` for 0/1 input.

    Subclasses set ``_binary_hint``: what to tell a user who passes other values.
    """

    _binary_hint = "binarize the features first"

    def _binary_input(self, X):
        X = validate_data(self, X, reset=False, dtype=None, ensure_all_finite=True)
        return as_binary_matrix(X, self._binary_hint)

    def predict(self, X):
        """Predicted class of each row of the 0/1 matrix X."""
        check_is_fitted(self, "tree_")
        return self.tree_.predict(self._binary_input(X))

    def predict_proba(self, X):
        """Class proportions (training weights) of the leaf each row of X reaches."""
        check_is_fitted(self, "tree_")
        return self.tree_.predict_proba(self._binary_input(X))

    def apply(self, X):
        """Index of the leaf of ``tree_`` each row of X reaches."""
        check_is_fitted(self, "tree_")
        return self.tree_.apply(self._binary_input(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

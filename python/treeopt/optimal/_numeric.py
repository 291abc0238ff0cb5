"""Numeric columns for the certified solvers (GOSDT, DL8.5): the matrix the Rust search
gets, the optional cap on candidate thresholds (``max_thresholds``) and the thresholds
of the fitted tree in the caller's units.

Without a cap, every midpoint between consecutive distinct values of a column (within
the rows a node captures) is a candidate split, and the Rust search sees the column as
it is. With ``max_thresholds=k``, a column with more than ``k`` midpoints keeps ``k`` of
them, chosen at the weighted quantiles ``1/(k+1), ..., k/(k+1)`` of its values (rows of
zero weight take no part; duplicates merge, so fewer may remain): the search then sees
the column's *code*, the number of kept thresholds below each value, and a split of the
codes between ``c`` and ``c + 1`` is the split ``x <= thresholds[c]`` in the column's
units. A tree fitted so tests only kept thresholds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["NumericColumns"]


def _midpoints(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """Halfway between ``a < b`` elementwise (``a`` where rounding leaves none), as the
    Rust search computes its thresholds."""
    m = a / 2.0 + b / 2.0
    return np.where((m >= a) & (m < b), m, a)


def candidate_thresholds(
    values: NDArray[np.float64], weight: NDArray[np.float64] | None, k: int
) -> NDArray[np.float64] | None:
    """At most ``k`` midpoints of the distinct values of ``values`` (rows of positive
    ``weight``, or all with ``weight`` None) at their weighted quantiles, ascending; None
    when the column has at most ``k`` midpoints (all are kept, no recoding needed)."""
    if weight is not None:
        values = values[weight > 0]
        weight = weight[weight > 0]
    distinct, inverse = np.unique(values, return_inverse=True)
    if distinct.size - 1 <= k:
        return None
    mass = np.bincount(inverse.ravel(), weights=weight, minlength=distinct.size)
    cumulative = np.cumsum(mass)[:-1] / mass.sum()  # share at or below each midpoint
    quantiles = np.arange(1, k + 1) / (k + 1)
    picked = np.minimum(np.searchsorted(cumulative, quantiles, side="left"), distinct.size - 2)
    picked = np.unique(picked)
    return _midpoints(distinct[picked], distinct[picked + 1])


class NumericColumns:
    """A float64 feature matrix ready for the Rust search, with the kept thresholds of
    each capped column (None for a column searched at every midpoint).

    ``matrix`` is C-contiguous float64 (X itself when it already is, and uncapped);
    ``kept[j]`` the ascending thresholds of column
    ``j`` when ``max_thresholds`` capped it (its values replaced by codes).
    """

    kept: list[NDArray[np.float64] | None]
    matrix: NDArray[np.float64]

    def __init__(
        self, X: ArrayLike, weight: NDArray[np.float64] | None = None, max_thresholds: int | None = None
    ) -> None:
        X = np.asarray(X)
        if X.dtype.kind in "iu" and X.size and (X.max() > 2**53 or X.min() < -(2**53)):
            raise ValueError(
                "X holds integers beyond 2**53, which float64 (the type the numeric "
                "search compares in) cannot represent exactly; scale the column first"
            )
        # A copy only when the cap below writes codes into it: the search only reads X.
        capped = max_thresholds is not None
        matrix = np.array(X, dtype=np.float64, order="C") if capped else np.ascontiguousarray(X, dtype=np.float64)
        self.kept = [None] * matrix.shape[1]
        if max_thresholds is not None:
            for j in range(matrix.shape[1]):
                kept = candidate_thresholds(matrix[:, j], weight, max_thresholds)
                if kept is not None:
                    self.kept[j] = kept
                    matrix[:, j] = np.searchsorted(kept, matrix[:, j], side="left")
        self.matrix = matrix

    def thresholds(self, feature: NDArray[np.int64], threshold: ArrayLike) -> NDArray[np.float64]:
        """The node thresholds of a tree fitted on ``matrix`` in the units of X: a split
        of a capped column's codes below ``c + 1`` is ``x <= kept[c]``."""
        threshold = np.array(threshold, dtype=np.float64, copy=True)
        if all(k is None for k in self.kept):
            return threshold  # no column capped: the search's own thresholds
        for i, j in enumerate(feature):
            if j >= 0 and self.kept[j] is not None:
                threshold[i] = self.kept[j][int(np.floor(threshold[i]))]
        return threshold

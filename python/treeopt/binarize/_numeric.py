"""Threshold binarisation of numeric features for the optimal tree solvers.

:class:`NumericBinarizer` turns every numeric column into 0/1 indicator columns
``x <= t`` for candidate thresholds ``t`` (midpoints between consecutive
distinct values), the input format of the :mod:`treeopt` solvers. Columns that
are already 0/1 pass through unchanged.

This module depends only on numpy and scikit-learn.
"""

from __future__ import annotations

import warnings
from numbers import Integral
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils._param_validation import Interval

from .._base import store_init_params
from .._validation import validate_numeric_data
from ._core import BinarizerBase, format_thresholds, midpoints, refuse_inexact_integers

__all__ = ["NumericBinarizer"]


def _short_midpoints(distinct: NDArray[np.float64]) -> NDArray[np.float64]:
    """Midpoints rounded to 15 significant digits when that keeps ``a <= t < b``.

    ``15.86 / 2 + 15.88 / 2`` is ``15.870000000000001`` in float64; ``15.87``
    separates the two values just as well and its exact name is short
    (``x <= 15.87``). A rounded value that would leave ``[a, b)`` is not used.
    """
    mids = midpoints(distinct)
    if mids.size == 0:
        return mids
    short = np.array([float(format(m, ".15g")) for m in mids.tolist()])
    ok = (distinct[:-1] <= short) & (short < distinct[1:])
    return np.where(ok, short, mids)


def _select_by_quantiles(column: NDArray[np.float64], mids: NDArray[np.float64], k: int) -> NDArray[np.float64]:
    """Pick at most ``k`` of the sorted midpoints ``mids`` by quantiles of ``column``.

    For every target level ``i / (k + 1)`` (``i = 1..k``) the midpoint whose
    empirical CDF (fraction of the column's values ``<= t``) is closest is chosen
    (ties: the smaller threshold). Duplicates are dropped, so fewer than ``k``
    thresholds are returned when the values are concentrated on a few points.
    """
    values = np.sort(column)
    cdf = np.searchsorted(values, mids, side="right") / values.shape[0]
    targets = np.arange(1, k + 1) / (k + 1)
    chosen = np.argmin(np.abs(cdf[None, :] - targets[:, None]), axis=1)
    return cast("NDArray[np.float64]", mids[np.unique(chosen)])


class NumericBinarizer(BinarizerBase):
    """Binarise numeric features into ``feature <= threshold`` indicator columns.

    For every input column the sorted distinct values are computed. A column
    whose values all lie in ``{0, 1}`` passes through unchanged (one output
    column, same name). Otherwise the candidate thresholds are the midpoints
    between consecutive distinct values (rounded to 15 significant digits when
    the rounded number still lies in ``[a, b)``: ``15.87`` rather than the
    float64 sum ``15.870000000000001``), and each threshold ``t`` yields an
    output column equal to ``1`` where ``x <= t`` and ``0`` elsewhere. A constant
    column that is not 0/1 produces no output column.

    Parameters
    ----------
    max_thresholds : int >= 1 or None, default=None
        Maximum number of thresholds per column. When a column has more
        midpoints, at most ``max_thresholds`` of them are kept, chosen by
        quantiles of the column's values (for each level ``i/(max_thresholds+1)``
        the midpoint whose empirical CDF is closest; deterministic, sorted,
        unique; fewer are kept when several levels pick the same midpoint).
        ``None`` keeps every midpoint.

    Attributes
    ----------
    thresholds_ : list of ndarray of float64
        Thresholds of each input column, ascending (empty for passthrough and
        constant columns).
    passthrough_ : ndarray of bool, shape (n_features_in_,)
        True for 0/1 columns copied unchanged.
    output_columns_ : list of tuple
        ``(input column index, threshold)`` for every output column, with
        threshold ``None`` for passthrough columns.
    n_features_in_ : int
        Number of input columns seen in :meth:`fit`.
    feature_names_in_ : ndarray of str
        Input column names; only defined when ``X`` had string column names.
    n_features_out_ : int
        Number of output columns.

    Notes
    -----
    The output of :meth:`transform` is a ``uint8`` array, or a pandas DataFrame
    of ``uint8`` columns named by :meth:`get_feature_names_out` when ``X`` is a
    DataFrame (so that a tree fitted on it prints the original column names);
    ``set_output`` overrides this either way. Integer columns must stay within
    ``+-2**53`` (the thresholds are float64). Output columns
    follow the input column order, thresholds ascending within a column. NaN and
    infinite values are rejected. A passthrough column that shows values other
    than 0/1 at transform time is read as ``x > 0.5`` (1 above 0.5) with a
    warning, so a test split with a value the training split lacked still
    transforms.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[20, 1], [30, 0], [25, 1]])
    >>> b = NumericBinarizer().fit(X)
    >>> b.get_feature_names_out().tolist()
    ['x0 <= 22.5', 'x0 <= 27.5', 'x1']
    >>> b.transform(X).tolist()
    [[1, 1, 1], [0, 0, 0], [0, 1, 1]]
    """

    _parameter_constraints: dict[str, list[Any]] = {
        "max_thresholds": [Interval(Integral, 1, None, closed="left"), None],
    }

    max_thresholds: int | None
    thresholds_: list[NDArray[np.float64]]
    passthrough_: NDArray[np.bool_]
    output_columns_: list[tuple[int, float | None]]

    def __init__(self, max_thresholds: int | None = None) -> None:
        store_init_params(self, locals())

    def fit(self, X: ArrayLike, y: object = None) -> NumericBinarizer:
        """Compute the thresholds of every column.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric data without NaN or infinite values.
        y : ignored
            Accepted for pipeline compatibility.

        Returns
        -------
        self : NumericBinarizer
        """
        self._validate_params()
        refuse_inexact_integers(X, "fit")
        X = validate_numeric_data(self, X, dtype=np.float64, ensure_all_finite=True)
        thresholds: list[NDArray[np.float64]] = []
        passthrough: list[bool] = []
        output_columns: list[tuple[int, float | None]] = []
        for j in range(X.shape[1]):
            column = X[:, j]
            distinct = np.unique(column)
            if np.all((distinct == 0) | (distinct == 1)):
                thresholds.append(np.empty(0, dtype=np.float64))
                passthrough.append(True)
                output_columns.append((j, None))
                continue
            mids = _short_midpoints(distinct)
            if self.max_thresholds is not None and mids.shape[0] > self.max_thresholds:
                mids = _select_by_quantiles(column, mids, int(self.max_thresholds))
            mids = np.asarray(mids, dtype=np.float64)
            thresholds.append(mids)
            passthrough.append(False)
            output_columns.extend((j, float(t)) for t in mids)
        self.thresholds_ = thresholds
        self.passthrough_ = np.asarray(passthrough, dtype=bool)
        self.output_columns_ = output_columns
        self.n_features_out_ = len(output_columns)
        return self

    def _transform_input(self, X: Any) -> NDArray[np.float64]:
        refuse_inexact_integers(X, "transform")
        return validate_numeric_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=True)

    def _encode(self, X: NDArray[np.float64]) -> NDArray[np.uint8]:
        """``1`` where ``X[:, j] <= t`` for output column ``(j, t)``; passthrough columns
        are copied."""
        out = np.empty((X.shape[0], self.n_features_out_), dtype=np.uint8)
        pos = 0
        for j, (thr, passthrough) in enumerate(zip(self.thresholds_, self.passthrough_)):
            column = X[:, j]
            if passthrough:
                if not np.all((column == 0) | (column == 1)):
                    warnings.warn(
                        f"column {j} held only 0/1 values during fit (passed through as a "
                        "yes/no column) but holds other values now; they are read as "
                        f"'x > 0.5' (1 above 0.5, else 0). Fit on data where column {j} "
                        "shows its other values to get thresholds for it",
                        UserWarning, stacklevel=3,
                    )
                out[:, pos] = column > 0.5
                pos += 1
            elif thr.shape[0]:
                out[:, pos : pos + thr.shape[0]] = column[:, None] <= thr[None, :]
                pos += thr.shape[0]
        return out

    def _output_names(self, input_features: NDArray[np.object_]) -> list[str]:
        """``"<name> <= <t>"`` with ``t`` printed exactly (the shortest ``g`` text that
        reads back as the stored threshold, e.g. ``22.5`` or ``0.2916666666666667``), so
        the name is true for every value; passthrough columns keep the input name."""
        names = []
        for j, (thr, passthrough) in enumerate(zip(self.thresholds_, self.passthrough_)):
            if passthrough:
                names.append(str(input_features[j]))
            else:
                names.extend(f"{input_features[j]} <= {t}" for t in format_thresholds(thr))
        return names

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

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted

from ._validation import validate_numeric_data

__all__ = ["NumericBinarizer"]


def _midpoints(distinct):
    """Midpoints between consecutive sorted distinct values, strictly below the upper one.

    ``a / 2 + b / 2`` equals ``(a + b) / 2`` exactly but cannot overflow; when
    ``a`` and ``b`` are adjacent floats the midpoint rounds to ``b`` and is then
    replaced by ``a`` (as scikit-learn's tree splitter does), so that
    ``a <= t < b`` always holds.
    """
    a, b = distinct[:-1], distinct[1:]
    mids = a / 2.0 + b / 2.0
    return np.where(mids >= b, a, mids)


def _short_midpoints(distinct):
    """Midpoints rounded to 15 significant digits when that keeps ``a <= t < b``.

    ``15.86 / 2 + 15.88 / 2`` is ``15.870000000000001`` in float64; ``15.87``
    separates the two values just as well and its exact name is short
    (``x <= 15.87``). A rounded value that would leave ``[a, b)`` is not used.
    """
    mids = _midpoints(distinct)
    if mids.size == 0:
        return mids
    short = np.array([float(format(m, ".15g")) for m in mids.tolist()])
    ok = (distinct[:-1] <= short) & (short < distinct[1:])
    return np.where(ok, short, mids)


def _select_by_quantiles(column, mids, k):
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
    return mids[np.unique(chosen)]


def _format_threshold(t):
    """The shortest ``g`` text that reads back as exactly the float ``t``.

    A name ``x <= 0.291667`` for the threshold 0.2916666... would be false for
    ``x = 0.2916668``; the exact text keeps the name true for every value.
    """
    t = float(t)
    for digits in range(1, 18):
        text = format(t, f".{digits}g")
        if float(text) == t:
            return text
    return repr(t)  # pragma: no cover - 17 significant digits always round-trip


def _format_thresholds(thresholds):
    """Exact text of every threshold (distinct thresholds give distinct texts)."""
    return [_format_threshold(t) for t in thresholds]


def _refuse_inexact_integers(X, where):
    """Refuse integer input beyond +-2**53, which float64 thresholds cannot separate.

    The binarizers compare in float64; an int64 value such as 2**63 - 1 would be
    rounded, and neighbouring integers would fall on the same side of every
    threshold.
    """
    if hasattr(X, "dtypes") and hasattr(X, "columns"):  # DataFrame: per column
        cols = [(name, X[name].to_numpy()) for name, dt in zip(X.columns, X.dtypes)
                if getattr(dt, "kind", None) in "iu"]
        cols = [(f"{name!r}", c) for name, c in cols]
    else:
        arr = X if isinstance(X, np.ndarray) else None
        if arr is None or arr.dtype.kind not in "iu" or arr.ndim != 2:
            return
        cols = [(str(j), arr[:, j]) for j in range(arr.shape[1])]
    for name, col in cols:
        if col.size and (col.max() > 2**53 or col.min() < -(2**53)):
            bad = col.max() if col.max() > 2**53 else col.min()
            raise ValueError(
                f"column {name} holds integers beyond 2**53 in {where} (e.g. {int(bad)}), "
                "which float64 thresholds cannot separate exactly; shift or rescale the "
                "column so that its values stay within +-2**53"
            )


def _dataframe_output(estimator, X, out):
    """``out`` as a DataFrame named by ``get_feature_names_out`` when ``X`` is one.

    The shared output rule of the treeopt binarizers: a DataFrame in gives a
    DataFrame out (with the input's index), so that a model fitted downstream
    sees the column names (``"mean radius <= 13.5"``) and prints its rules with
    them. It applies only while no output was chosen: after
    ``set_output(transform=...)`` on the transformer (``"default"`` included) or
    a global ``sklearn.set_config(transform_output=...)``, scikit-learn's choice
    is used.
    """
    if "transform" in getattr(estimator, "_sklearn_output_config", {}):
        return out
    from sklearn import get_config

    if get_config().get("transform_output", "default") != "default":
        return out
    is_pandas = type(X).__module__.startswith("pandas")
    if not (is_pandas and hasattr(X, "columns") and hasattr(X, "iloc")):
        return out
    import pandas as pd

    return pd.DataFrame(out, columns=estimator.get_feature_names_out(), index=X.index)


class NumericBinarizer(TransformerMixin, BaseEstimator):
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

    _parameter_constraints: dict = {
        "max_thresholds": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, max_thresholds=None):
        self.max_thresholds = max_thresholds

    def fit(self, X, y=None):
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
        _refuse_inexact_integers(X, "fit")
        X = validate_numeric_data(self, X, dtype=np.float64, ensure_all_finite=True)
        thresholds, passthrough, output_columns = [], [], []
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

    def transform(self, X):
        """Binarise ``X`` with the fitted thresholds.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features_in_)

        Returns
        -------
        ndarray of uint8, shape (n_samples, n_features_out_)
            ``1`` where ``X[:, j] <= t`` for output column ``(j, t)``; passthrough
            columns are copied. A DataFrame (columns named by
            :meth:`get_feature_names_out`, the input's index) when ``X`` is a
            DataFrame and no output was chosen with ``set_output``.

        Raises
        ------
        ValueError
            If ``X`` has the wrong number of columns or contains NaN/inf.
        """
        check_is_fitted(self)
        X_in = X
        _refuse_inexact_integers(X, "transform")
        X = validate_numeric_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=True)
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
                        UserWarning, stacklevel=2,
                    )
                out[:, pos] = column > 0.5
                pos += 1
            elif thr.shape[0]:
                out[:, pos : pos + thr.shape[0]] = column[:, None] <= thr[None, :]
                pos += thr.shape[0]
        return _dataframe_output(self, X_in, out)

    def get_feature_names_out(self, input_features=None):
        """Names of the output columns.

        Parameters
        ----------
        input_features : array-like of str, optional
            Input names; defaults to ``feature_names_in_`` or ``x0, x1, ...``.

        Returns
        -------
        ndarray of str (object dtype)
            ``"<name> <= <t>"`` with ``t`` printed exactly (the shortest ``g``
            text that reads back as the stored threshold, e.g. ``22.5`` or
            ``0.2916666666666667``), so the name is true for every value;
            passthrough columns keep the input name.
        """
        check_is_fitted(self)
        input_features = _check_feature_names_in(self, input_features)
        names = []
        for j, (thr, passthrough) in enumerate(zip(self.thresholds_, self.passthrough_)):
            if passthrough:
                names.append(str(input_features[j]))
            else:
                names.extend(f"{input_features[j]} <= {t}" for t in _format_thresholds(thr))
        return np.asarray(names, dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # The output is always uint8, whatever the input dtype.
        tags.transformer_tags.preserves_dtype = []
        return tags

"""The core every binarizer shares: ``x <= t`` columns, their names and the way back.

A binarized column is a pair ``(j, t)``: 1 where ``X[:, j] <= t``, else 0. This module
turns pairs into columns (:func:`threshold_columns`), names them
(:func:`threshold_column_names`), maps a tree learned on such columns back to tests on
the raw features (:func:`tree_on_raw_features`) and holds the transform and output rules
of the three binarizers (:class:`BinarizerBase`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, SupportsFloat, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted

from .._docstrings import FITTED_ROWS, takes_rows
from ..tree import TREE_LEAF, TREE_UNDEFINED, Tree

if TYPE_CHECKING:
    from abc import abstractmethod

    from sklearn.utils import Tags, TransformerTags

__all__ = [
    "BinarizerBase",
    "dataframe_output",
    "format_threshold",
    "format_thresholds",
    "midpoints",
    "refuse_inexact_integers",
    "threshold_column_names",
    "threshold_columns",
    "tree_on_raw_features",
]


def format_threshold(t: SupportsFloat) -> str:
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


def format_thresholds(thresholds: Iterable[SupportsFloat]) -> list[str]:
    """Exact text of every threshold (distinct thresholds give distinct texts)."""
    return [format_threshold(t) for t in thresholds]


def midpoints(distinct: NDArray[np.float64]) -> NDArray[np.float64]:
    """Midpoints between consecutive sorted distinct values, strictly below the upper one.

    ``a / 2 + b / 2`` equals ``(a + b) / 2`` exactly but cannot overflow; when
    ``a`` and ``b`` are adjacent floats the midpoint rounds to ``b`` and is then
    replaced by ``a`` (as scikit-learn's tree splitter does), so that
    ``a <= t < b`` always holds.
    """
    a, b = distinct[:-1], distinct[1:]
    mids = a / 2.0 + b / 2.0
    return np.where(mids >= b, a, mids)


def threshold_column_names(
    columns: Iterable[tuple[int, float]], names: Sequence[str] | NDArray[Any]
) -> list[str]:
    """``"<name> <= <t>"`` for every ``(j, t)`` of ``columns``, ``t`` printed exactly."""
    return [f"{names[j]} <= {format_threshold(t)}" for j, t in columns]


def threshold_columns(X: NDArray[Any], columns: Sequence[tuple[int, float]]) -> NDArray[np.uint8]:
    """uint8 matrix whose column ``k`` is 1 where ``X[:, j] <= t``, ``(j, t) = columns[k]``."""
    out = np.empty((X.shape[0], len(columns)), dtype=np.uint8)
    for k, (j, t) in enumerate(columns):
        out[:, k] = X[:, j] <= t
    return out


def tree_on_raw_features(
    tree: Tree, columns: Iterable[tuple[int, float]], classes: NDArray[Any] | None, **tree_kwargs: Any
) -> Tree:
    """A tree over binarized columns re-expressed as ``x[j] <= t`` tests on raw features.

    ``tree`` tests 0/1 columns, column ``k`` being ``x[j] <= t`` for ``(j, t) =
    columns[k]``. Such a tree sends column value 0 (``x > t``) left and 1 (``x <= t``)
    right, while :class:`~treeopt.Tree` sends ``x <= t`` left: the children of every split
    are swapped. ``classes`` (sorted) may hold more labels than ``tree.classes``; their
    ``value`` columns are zero. A regression tree takes ``classes=None`` and keeps its
    values. ``tree_kwargs`` go to :class:`~treeopt.Tree` (``feature_names``,
    ``n_features``, ``binary_features``, ``weight_label``).
    """
    internal = tree.children_left != TREE_LEAF
    pairs = list(columns)
    feat = np.array([j for j, _ in pairs], dtype=np.int64)
    thr = np.array([t for _, t in pairs], dtype=np.float64)
    column = np.where(internal, tree.feature, 0)
    if classes is None:
        value, tree_kwargs = tree.value, {"task": tree.task, **tree_kwargs}
    else:
        value = np.zeros((tree.node_count, len(classes)))
        value[:, np.searchsorted(classes, cast("NDArray[Any]", tree.classes))] = tree.value
    return Tree(
        np.where(internal, tree.children_right, TREE_LEAF),
        np.where(internal, tree.children_left, TREE_LEAF),
        np.where(internal, feat[column] if feat.size else 0, TREE_UNDEFINED),
        np.where(internal, thr[column] if thr.size else 0.0, float(TREE_UNDEFINED)),
        value,
        tree.weighted_n_node_samples,
        classes=classes,
        **tree_kwargs,
    )


def refuse_inexact_integers(X: Any, where: str) -> None:
    """Refuse integer input beyond +-2**53, which float64 thresholds cannot separate.

    The binarizers compare in float64; an int64 value such as 2**63 - 1 would be
    rounded, and neighbouring integers would fall on the same side of every
    threshold.
    """
    if hasattr(X, "dtypes") and hasattr(X, "columns"):  # DataFrame: per column
        cols = [(name, X[name].to_numpy()) for name, dt in zip(X.columns, X.dtypes)
                if cast(str, getattr(dt, "kind", None)) in "iu"]  # every dtype has a kind
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


def dataframe_output(estimator: BinarizerBase, X: Any, out: NDArray[np.uint8]) -> Any:
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


class BinarizerBase(TransformerMixin, BaseEstimator):
    """``transform`` and tags of the treeopt binarizers.

    A subclass validates an input at transform time in ``_transform_input(X)``, encodes
    the validated array in ``_encode(X)`` (a uint8 matrix of ``n_features_out_`` columns)
    and names the output columns in ``_output_names(input_features)``.
    """

    n_features_out_: int

    if TYPE_CHECKING:

        @abstractmethod
        def _transform_input(self, X: Any) -> NDArray[Any]: ...

        @abstractmethod
        def _encode(self, X: NDArray[Any]) -> NDArray[np.uint8]: ...

        @abstractmethod
        def _output_names(self, input_features: NDArray[np.object_]) -> list[str]: ...

    @takes_rows(
        "Encode ``X`` into the fitted 0/1 columns.",
        """ndarray of uint8, shape (n_samples, n_features_out_)
    A DataFrame (columns named by :meth:`get_feature_names_out`, the input's
    index) when ``X`` is a DataFrame and no output was chosen with
    ``set_output``.""",
        x=FITTED_ROWS,
    )
    def transform(self, X: ArrayLike) -> Any:
        check_is_fitted(self)
        return dataframe_output(self, X, self._encode(self._transform_input(X)))

    def get_feature_names_out(self, input_features: ArrayLike | None = None) -> NDArray[np.object_]:
        """Names of the output columns, true for every value they are 1 on.

        Parameters
        ----------
        input_features : array-like of str, optional
            Input names; defaults to ``feature_names_in_`` or ``x0, x1, ...``.

        Returns
        -------
        ndarray of str (object dtype)
            One name per output column (see the class's ``_output_names``).
        """
        check_is_fitted(self)
        input_features = _check_feature_names_in(self, input_features)
        return np.asarray(self._output_names(input_features), dtype=object)

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        # The output is always uint8, whatever the input dtype.
        cast("TransformerTags", tags.transformer_tags).preserves_dtype = []
        return tags

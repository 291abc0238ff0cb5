"""Encoding raw tabular data into 0/1 tests, as in the EC4.5 paper.

:class:`BinnedOneHotEncoder` reproduces the pre-processing of Zhang & Gionis
(regularized impurity reduction, section 6): numerical features are cut into 5 bins
by the k-means strategy (scikit-learn's :class:`~sklearn.preprocessing.KBinsDiscretizer`)
and every bin, like every level of a categorical feature, becomes one 0/1 column
("binarized to avoid biases towards features with a large number of levels").
The output feeds :class:`treeopt.CostAwareTreeClassifier` and the other 0/1 solvers;
the encoder is exported as ``treeopt.BinnedOneHotEncoder`` for any data with
categorical (string) columns.
"""

from __future__ import annotations

import warnings
from numbers import Integral
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.preprocessing import KBinsDiscretizer
from sklearn.utils._param_validation import Interval, StrOptions
from threadpoolctl import threadpool_limits

from .._base import store_init_params
from .._validation import validate_data
from ..tree._model import _format_number
from ._core import BinarizerBase, format_thresholds

if TYPE_CHECKING:
    from sklearn.utils import Tags

__all__ = ["BinnedOneHotEncoder"]


def _as_float_column(column: NDArray[Any]) -> NDArray[np.float64] | None:
    """The column as float64, or None when it is not numeric (categorical)."""
    if column.dtype.kind in "biuf":
        return column.astype(np.float64)
    try:
        return np.asarray(column, dtype=np.float64)
    except (TypeError, ValueError):
        return None


def _bin_exponent(column: NDArray[np.float64]) -> int:
    """Power of two ``e`` such that ``column / 2**e`` is in a range k-means bins well.

    :class:`~sklearn.preprocessing.KBinsDiscretizer` drops bins narrower than 1e-8 and
    its k-means squares the values, so a column spanning less than 1e-3 (e.g. values
    near 1e-310) or more than 1e300 is scaled, exactly (by a power of two), to a
    largest magnitude in [0.5, 1); other columns are binned as they are (``e = 0``).
    """
    low, high = float(column.min()), float(column.max())
    with np.errstate(over="ignore"):
        span = high - low
    if 1e-3 <= span <= 1e300:
        return 0
    return int(np.frexp(max(abs(low), abs(high)))[1])


class BinnedOneHotEncoder(BinarizerBase):
    """One-hot encoding of categorical columns and binned numeric columns into 0/1 tests.

    The encoder to put in front of any treeopt solver (GOSDT, DL8.5, OSDT, EC4.5 /
    ECART) when the data has string or categorical columns: it is exported as
    ``treeopt.BinnedOneHotEncoder``. With the defaults (k-means, 5 bins) it is the
    pre-processing of the EC4.5 paper. Every input column becomes one or more 0/1
    output columns:

    * a numeric column with only 0/1 values passes through unchanged;
    * a numeric column with at most ``n_bins`` distinct values gets one column per
      value (``"age == 30"``);
    * any other numeric column is cut into ``n_bins`` bins by
      :class:`~sklearn.preprocessing.KBinsDiscretizer` (``strategy``, k-means by
      default; bins narrower than 1e-8 are dropped by it) and gets one column per
      bin (``"age < 25.5"``, ``"25.5 <= age < 40.1"``, ``"age >= 40.1"``);
    * a non-numeric (categorical) column gets one column per level seen in ``fit``
      (``"colour == red"``); unseen levels give all zeros.

    Parameters
    ----------
    n_bins : int >= 2, default=5
        Bins per numeric column (the paper uses 5).
    strategy : {"kmeans", "quantile", "uniform"}, default="kmeans"
        Binning strategy of :class:`~sklearn.preprocessing.KBinsDiscretizer`.
    random_state : int, RandomState instance or None, default=None
        Passed to :class:`~sklearn.preprocessing.KBinsDiscretizer` (only used when it
        subsamples more than 200 000 rows).

    Attributes
    ----------
    kinds_ : list of str
        ``"passthrough"``, ``"values"``, ``"bins"`` or ``"categories"`` per input column.
    levels_ : list of ndarray
        Per input column: the values / levels one-hot encoded, or the bin edges for
        ``"bins"`` columns (empty for passthrough columns).
    discretizer_ : KBinsDiscretizer or None
        Fitted on the ``"bins"`` columns.
    n_features_in_, feature_names_in_ :
        As in scikit-learn.
    n_features_out_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0], [2.0, 1], [3.0, 1], [10.0, 0], [11.0, 1], [12.0, 0]])
    >>> enc = BinnedOneHotEncoder(n_bins=2).fit(X)
    >>> enc.get_feature_names_out().tolist()
    ['x0 < 6.5', 'x0 >= 6.5', 'x1']
    >>> enc.transform([[2.5, 1], [11.5, 0]]).tolist()
    [[1, 0, 1], [0, 1, 0]]

    String columns of a DataFrame are one-hot encoded, and the result feeds a solver:

    >>> import pandas as pd
    >>> from sklearn.pipeline import make_pipeline
    >>> from treeopt import BinnedOneHotEncoder, GOSDTClassifier
    >>> df = pd.DataFrame({"sex": ["male", "female", "female", "male"],
    ...                    "age": [20.0, 35.0, 50.0, 65.0]})
    >>> BinnedOneHotEncoder(n_bins=2).fit(df).get_feature_names_out().tolist()
    ['sex == female', 'sex == male', 'age < 42.5', 'age >= 42.5']
    >>> model = make_pipeline(BinnedOneHotEncoder(n_bins=2), GOSDTClassifier())
    >>> model.fit(df, [0, 1, 1, 1]).predict(df).tolist()
    [0, 1, 1, 1]
    """

    _parameter_constraints: dict[str, list[Any]] = {
        "n_bins": [Interval(Integral, 2, None, closed="left")],
        "strategy": [StrOptions({"kmeans", "quantile", "uniform"})],
        "random_state": ["random_state"],
    }

    n_bins: int
    strategy: str
    random_state: int | np.random.RandomState | None
    kinds_: list[str]
    levels_: list[NDArray[Any]]
    discretizer_: KBinsDiscretizer | None
    _bin_exponents: list[int]
    _binned: list[int]

    def __init__(
        self, n_bins: int = 5, strategy: str = "kmeans", random_state: int | np.random.RandomState | None = None
    ) -> None:
        store_init_params(self, locals())

    def _validate(self, X: ArrayLike, reset: bool) -> NDArray[Any]:
        X = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite=True)
        if X.dtype.kind not in "biufUO":
            raise ValueError(f"X has unsupported dtype {X.dtype}; pass numbers or strings.")
        return X

    def fit(self, X: ArrayLike, y: object = None) -> BinnedOneHotEncoder:
        """Learn the kind, levels and bins of every column.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric and/or categorical (string) columns, without missing values.
        y : ignored

        Returns
        -------
        self
        """
        self._validate_params()
        X = self._validate(X, reset=True)
        kinds: list[str] = []
        levels: list[NDArray[Any] | None] = []  # None for "bins" columns until they are binned
        binned: list[int] = []
        for j in range(X.shape[1]):
            numeric = _as_float_column(X[:, j])
            if numeric is None:
                bad = [
                    v for v in X[:, j] if not isinstance(v, (str, bytes, int, float, np.generic))
                ]
                if bad:
                    raise TypeError(
                        f"column {j} holds a {type(bad[0]).__name__} ({bad[0]!r}); every "
                        "argument must be a string or a number"
                    )
                kinds.append("categories")
                levels.append(np.unique(X[:, j].astype(str)))
                continue
            if not np.all(np.isfinite(numeric)):
                raise ValueError(
                    f"column {j} contains NaN or infinity; impute or drop missing values first"
                )
            distinct = np.unique(numeric)
            if np.all((distinct == 0) | (distinct == 1)):
                kinds.append("passthrough")
                levels.append(np.empty(0))
            elif distinct.shape[0] <= self.n_bins:
                kinds.append("values")
                levels.append(distinct)
            else:
                kinds.append("bins")
                levels.append(None)
                binned.append(j)
        self.discretizer_ = None
        self._bin_exponents = []
        if binned:
            numeric_columns = cast(  # numeric: checked above
                "list[NDArray[np.float64]]", [_as_float_column(X[:, j]) for j in binned]
            )
            self._bin_exponents = [_bin_exponent(col) for col in numeric_columns]
            cols = np.column_stack(
                [np.ldexp(col, -e) for col, e in zip(numeric_columns, self._bin_exponents)]
            )
            disc = KBinsDiscretizer(
                n_bins=self.n_bins, encode="ordinal", strategy=self.strategy, random_state=self.random_state
            )
            # Quantiles by the averaged inverted CDF (scikit-learn >= 1.7's option; 1.6
            # interpolates linearly and is given the same edges below).
            own_quantiles = "quantile_method" not in disc.get_params()
            if not own_quantiles:
                disc.set_params(quantile_method="averaged_inverted_cdf")
            # One k-means per column on 1-D data: a single thread is fastest, and avoids
            # OpenMP spin-waiting that makes it ~100x slower on a busy machine.
            with warnings.catch_warnings(), threadpool_limits(limits=1, user_api="openmp"):
                # "Bins whose width are too small ... are removed": expected for
                # columns with heavy ties; the kept bins are read from bin_edges_.
                warnings.filterwarnings("ignore", message=".*[Bb]ins whose width.*")
                warnings.filterwarnings("ignore", message=".*[Nn]umber of distinct clusters.*")
                disc.fit(cols)
            if own_quantiles and self.strategy == "quantile":
                _set_quantile_edges(disc, cols, self.n_bins)
            self.discretizer_ = disc
            for k, j in enumerate(binned):
                edges = np.asarray(disc.bin_edges_[k], dtype=np.float64)
                if edges.shape[0] < 2:  # every bin was narrower than 1e-8: one bin
                    edges = np.array([cols[:, k].min(), cols[:, k].max()])
                    disc.bin_edges_[k] = edges
                    disc.n_bins_[k] = 1
                levels[j] = np.ldexp(edges, self._bin_exponents[k])
        self.kinds_ = kinds
        self.levels_ = cast("list[NDArray[Any]]", levels)  # every "bins" entry set above
        self._binned = binned
        self.n_features_out_ = sum(self._n_out(j) for j in range(len(kinds)))
        return self

    def _n_out(self, j: int) -> int:
        kind = self.kinds_[j]
        if kind == "passthrough":
            return 1
        if kind == "bins":
            return int(self.levels_[j].shape[0]) - 1
        return int(self.levels_[j].shape[0])

    def _transform_input(self, X: Any) -> NDArray[Any]:
        return self._validate(X, reset=False)

    def _encode(self, X: NDArray[Any]) -> NDArray[np.uint8]:
        codes = None
        if self._binned:
            cols: list[NDArray[np.float64]] = []
            for j in self._binned:
                col = _as_float_column(X[:, j])
                if col is None:
                    raise ValueError(f"column {j} was numeric in fit but is not numeric now")
                cols.append(np.ldexp(col, -self._bin_exponents[len(cols)]))
            codes = cast("KBinsDiscretizer", self.discretizer_).transform(np.column_stack(cols)).astype(np.int64)
        out = np.zeros((X.shape[0], self.n_features_out_), dtype=np.uint8)
        pos = 0
        for j, kind in enumerate(self.kinds_):
            width = self._n_out(j)
            if kind == "categories":
                col = X[:, j].astype(str)
                out[:, pos : pos + width] = col[:, None] == self.levels_[j][None, :]
            else:
                col = _as_float_column(X[:, j])
                if col is None:
                    raise ValueError(f"column {j} was numeric in fit but is not numeric now")
                if not np.all(np.isfinite(col)):
                    raise ValueError(f"column {j} contains NaN or infinity")
                if kind == "passthrough":
                    if not np.all((col == 0) | (col == 1)):
                        raise ValueError(
                            f"column {j} held only 0/1 values in fit (passed through) but "
                            "contains other values now"
                        )
                    out[:, pos] = col
                elif kind == "values":
                    out[:, pos : pos + width] = col[:, None] == self.levels_[j][None, :]
                else:
                    k = self._binned.index(j)
                    out[np.arange(X.shape[0]), pos + cast("NDArray[np.int64]", codes)[:, k]] = 1
            pos += width
        return out

    def _output_names(self, input_features: NDArray[np.object_]) -> list[str]:
        """``"colour == red"``, ``"age < 25.5"``, ``"25.5 <= age < 40.1"``, ``"age >= 40.1"``
        (bounds and values printed exactly); passthrough columns keep the input name."""
        names: list[str] = []
        for j, kind in enumerate(self.kinds_):
            name = str(input_features[j])
            if kind == "passthrough":
                names.append(name)
            elif kind == "values":
                # exact values: "k == 0.333333" would be false for k = 1/3
                names.extend(f"{name} == {_format_number(v, None)}" for v in self.levels_[j])
            elif kind == "categories":
                names.extend(f"{name} == {v}" for v in self.levels_[j])
            else:
                inner = format_thresholds(self.levels_[j][1:-1])
                if not inner:
                    names.append(f"{name} (any value)")
                    continue
                names.append(f"{name} < {inner[0]}")
                names.extend(f"{a} <= {name} < {b}" for a, b in zip(inner[:-1], inner[1:]))
                names.append(f"{name} >= {inner[-1]}")
        return names

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags


def _set_quantile_edges(disc: KBinsDiscretizer, cols: NDArray[np.float64], n_bins: int) -> None:
    """Gives the fitted quantile ``disc`` the edges scikit-learn >= 1.7 computes with
    ``quantile_method="averaged_inverted_cdf"``: those quantiles of every column, less
    the edges within 1e-8 of the previous one (bins that narrow are dropped)."""
    levels = np.linspace(0, 100, n_bins + 1)
    for k in range(cols.shape[1]):
        edges = np.percentile(cols[:, k], levels, method="averaged_inverted_cdf")
        edges = edges[np.ediff1d(edges, to_begin=np.inf) > 1e-8]
        disc.bin_edges_[k] = edges
        disc.n_bins_[k] = edges.shape[0] - 1

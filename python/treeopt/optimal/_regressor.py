"""Optimal regression trees: squared error as a second objective of the Rust search.

:class:`GOSDTRegressor` (optimal sparse regression trees, the objective of OSRT) and
:class:`DL85Regressor` (depth-limited) share :class:`CertifiedTreeRegressor`, which
validates the input, packs the features as the classifiers do (0/1 or numeric
columns), runs the search through ``_core.fit`` and stores the tree (leaf
means) with its certificate.
"""

from __future__ import annotations

import time
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from .. import _core
from .._base import N_JOBS_CONSTRAINTS, N_JOBS_DOC, SEARCH_CONSTRAINTS, refuse_booleans, saturated, store_init_params
from .._validation import sample_weights, scaled_to_max, validate_numeric_data
from ..tree import Tree
from ._base import CertifiedSearch, pack_features, require_features

if TYPE_CHECKING:
    from abc import abstractmethod
    from typing import TypeVar

    from sklearn.utils import Tags

    # fit returns the estimator it is called on.
    _Regressor = TypeVar("_Regressor", bound="CertifiedTreeRegressor")

__all__ = ["CertifiedTreeRegressor", "DL85Regressor", "GOSDTRegressor"]

#: The parameters every regressor takes (``class_weight`` has no meaning here).
_REGRESSOR_CONSTRAINTS: dict[str, list[Any]] = {
    **{k: v for k, v in SEARCH_CONSTRAINTS.items() if k != "class_weight"},
    **N_JOBS_CONSTRAINTS,
    "max_thresholds": [Interval(Integral, 1, None, closed="left"), None],
    "min_samples_leaf": [
        Interval(Integral, 1, None, closed="left"),
        Interval(Real, 0, 1, closed="neither"),
    ],
}


class CertifiedTreeRegressor(CertifiedSearch, RegressorMixin, BaseEstimator):
    """Shared fit of the optimal regression trees (GOSDT and DL8.5 under squared error).

    A subclass sets ``_parameter_constraints`` and ``_search(min_leaf)``, the Rust
    search's settings (``_core.GosdtSearch`` or ``_core.Dl85Search``); validation,
    weights, limits, the tree and the certificate are here.
    """

    _fewer_columns_hint = "give fewer 0/1 columns (e.g. NumericBinarizer(max_thresholds=4))"

    _parameter_constraints: dict[str, list[Any]]
    regularization: float
    min_samples_leaf: int | float
    max_thresholds: int | None
    n_jobs: int | None
    n_features_in_: int

    if TYPE_CHECKING:

        @abstractmethod
        def _search(self, min_leaf: int) -> _core.GosdtSearch | _core.Dl85Search: ...

    def _min_leaf(self, n_rows: int) -> int:
        """``min_samples_leaf`` in rows (a fraction of ``n_rows`` rounded up)."""
        if isinstance(self.min_samples_leaf, Integral):
            return int(self.min_samples_leaf)
        return max(1, int(np.ceil(self.min_samples_leaf * n_rows)))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(
        self: _Regressor, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> _Regressor:
        """Finds the optimal regression tree for the features X and targets y.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Finite numbers, 0/1 or numeric columns as for :meth:`GOSDTClassifier.fit`
            (numeric columns split at the midpoints of their values).
        y : array-like of shape (n_samples,)
            Finite real targets (NaN, inf and 2-D targets are refused). A constant
            ``y`` is fitted by a single leaf (every tree predicts it exactly).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the squared errors (rows of weight 0 take no part).

        Returns
        -------
        self : object
            The fitted regressor. On Ctrl-C it keeps the best tree found so far
            (``status_ == "interrupted"``, ``lower_bound_`` still proven) and re-raises
            ``KeyboardInterrupt``, as the classifiers do.
        """
        refuse_booleans(self)
        if np.isnan(self.regularization):
            raise ValueError("regularization is NaN; pass a number >= 0 such as 0.01.")
        self._fit_started = time.perf_counter()
        X, y = validate_numeric_data(self, X, y, dtype="numeric", y_numeric=True, ensure_min_features=0)
        require_features(X)
        y = np.ascontiguousarray(y, dtype=np.float64)
        weight: NDArray[np.float64] | None = None
        unit = 1.0
        if sample_weight is not None:
            weight = sample_weights(sample_weight, X)
            unit = float(weight.max())
            weight = np.ascontiguousarray(scaled_to_max(weight, "sample_weight"))
        n_rows = X.shape[0] if weight is None else int(np.count_nonzero(weight))
        try:
            Xb = pack_features(self, X, weight, accepts_numeric=True)
            res = _core.fit(Xb, y, weight, self._search(self._min_leaf(n_rows)), **self._search_limits())
            self._set_result(res, unit, X, y, weight)
        finally:
            self._numeric_columns = self._binary_features = None  # fit-time only
        if res.interrupt is not None:
            raise res.interrupt
        return self

    def _set_result(
        self,
        res: _core.FitResult,
        unit: float,
        X: NDArray[Any],
        y: NDArray[np.float64],
        weight: NDArray[np.float64] | None,
    ) -> None:
        """``tree_`` (node means, node weights in the caller's units when representable)
        and the certificate from the search's ``FitResult`` on ``X, y, weight``."""
        node_weight = res.value[:, 0]
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            scaled = node_weight * unit
        if np.all(np.isfinite(scaled)):
            node_weight = scaled
        numeric = getattr(self, "_numeric_columns", None)
        threshold = res.threshold if numeric is None else numeric.thresholds(res.feature, res.threshold)
        names = getattr(self, "feature_names_in_", None)

        def tree(means: NDArray[np.float64]) -> Tree:
            return Tree(
                res.children_left,
                res.children_right,
                res.feature,
                threshold,
                means,
                node_weight,
                task="regression",
                feature_names=None if names is None else list(names),
                n_features=self.n_features_in_,
                binary_features=getattr(self, "_binary_features", True),
            )

        self.tree_ = tree(_exact_means(tree(res.value[:, 1:2]), X, y, weight))
        self._set_certificate(res)

    def _input(self, X: ArrayLike) -> NDArray[Any]:
        check_is_fitted(self, "tree_")
        return validate_numeric_data(self, X, reset=False, dtype="numeric")

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """The mean training target of the leaf each row of X reaches."""
        X = self._input(X)
        return self.tree_.predict(X)

    def apply(self, X: ArrayLike) -> NDArray[np.int64]:
        """Index of the leaf of ``tree_`` each row of X reaches."""
        X = self._input(X)
        return self.tree_.apply(X)

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags


def _exact_means(
    tree: Tree, X: NDArray[Any], y: NDArray[np.float64], weight: NDArray[np.float64] | None
) -> NDArray[np.float64]:
    """The node means of ``tree`` recomputed as ``sum(w * y) / sum(w)`` over the rows
    ``X`` sends there, shape (n_nodes, 1): the search works on the standardised target,
    whose means convert back with a rounding residue (a leaf of zeros would print
    ``-2.2e-16``). Nodes without weight keep the search's value."""
    means = np.array(tree.value, dtype=np.float64)
    w = np.ones(len(y)) if weight is None else weight
    n = means.shape[0]
    leaf = tree.apply(X)
    sw = np.bincount(leaf, weights=w, minlength=n)
    swy = np.bincount(leaf, weights=w * y, minlength=n)
    # The search lists children after their parent: sum the nodes bottom-up.
    for i in range(n - 1, -1, -1):
        left, right = tree.children_left[i], tree.children_right[i]
        if left >= 0:
            sw[i], swy[i] = sw[left] + sw[right], swy[left] + swy[right]
    positive = sw > 0
    means[positive, 0] = swy[positive] / sw[positive]
    return means


_OBJECTIVE_DOC = """
    objective_ : float
        Objective of ``tree_`` on the training data:
        ``sum(w * (y - yhat)**2) / sum(w) / var_w(y) + regularization * n_leaves_``
        with ``yhat = predict(X)``, ``w`` the sample weights (1 when not given) and
        ``var_w(y)`` the weighted variance of ``y`` (taken as 1 for a constant ``y``),
        that is ``1 - score(X, y, sample_weight=w) + regularization * n_leaves_``.
        Normalising by the variance makes ``regularization`` mean the same on every
        dataset: a split must cut the error by that fraction of the variance.
    lower_bound_ : float
        Proven lower bound on the optimal objective.
    status_ : str
        ``"optimal"`` (proven), ``"time_limit"``, ``"memory_limit"`` or
        ``"interrupted"`` (Ctrl-C: ``fit`` stored the best tree so far, then raised
        ``KeyboardInterrupt``).
    n_leaves_ : int
        Leaves of ``tree_``.
    search_stats_ : dict
        ``subproblems``, ``expansions``, ``seconds`` and ``memory_bytes`` of the search.
"""

_LIMITS_DOC = (
    """
    time_limit : float or None, default=None
        Seconds of ``fit`` (input checks included) after which the search stops and
        returns the best tree so far (``status_ == "time_limit"``) with its proven
        ``lower_bound_``. Without a limit, a search still running after 10 s warns once.
    memory_limit : int or None, default=None
        Bytes the search may use; reaching it stops the search the same way
        (``status_ == "memory_limit"``).
    verbose : bool, default=False
        Log the search progress (elapsed, lower bound, objective, gap, subproblems) on
        the ``treeopt`` logger (on stderr when logging is not configured).
    max_thresholds : int or None, default=None
        Numeric columns only: None tries every midpoint between consecutive distinct
        values of a column; an int ``k`` keeps ``k`` of them per column, at weighted
        quantiles of its training values (the optimum is then over those).
"""
    + N_JOBS_DOC
)

#: The run limits, then the fitted tree, of both regressors' docstrings.
_LIMITS_AND_ATTRIBUTES_DOC = (
    _LIMITS_DOC
    + """
    Attributes
    ----------
    tree_ : treeopt.Tree
        The fitted tree (``task="regression"``: ``value`` holds node means)."""
    + _OBJECTIVE_DOC
)


class GOSDTRegressor(CertifiedTreeRegressor):
    __doc__ = (
        """Provably optimal sparse regression tree (GOSDT's search under squared error,
    the objective of OSRT, Zhang et al. 2023) over 0/1 or numeric features.

    Minimises ``weighted MSE / weighted variance of y + regularization * leaves``,
    optionally under ``max_depth`` and ``min_samples_leaf``; each leaf predicts the
    weighted mean of its rows. The dependency-graph search bounds subproblems by
    OSRT's k-means equivalent-points bound and solves depth-two subproblems exactly.

    Parameters
    ----------
    regularization : float, default=0.01
        Penalty per leaf (λ), as a fraction of the variance of ``y``: a split must cut
        the mean squared error by at least ``regularization * var(y)``.
    max_depth : int or None, default=None
        Maximum depth (a single leaf has depth 0). None: no limit.
    min_samples_leaf : int or float, default=1
        Minimum training rows per leaf (a float in (0, 1): that fraction of the rows
        of positive weight, rounded up)."""
        + _LIMITS_AND_ATTRIBUTES_DOC
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from treeopt import GOSDTRegressor
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
    >>> y = 3.0 * X[:, 0] + 0.1 * X[:, 1]
    >>> reg = GOSDTRegressor(regularization=0.01).fit(X, y)
    >>> reg.status_, reg.n_leaves_, round(reg.score(X, y), 4)
    ('optimal', 2, 0.9989)
    >>> print(reg.tree_.to_text())
    if x[0]:
        predict 3.05  (n=10)
    else:  # not x[0]
        predict 0.05  (n=10)
    """
    )

    _parameter_constraints: dict[str, list[Any]] = {
        **_REGRESSOR_CONSTRAINTS,
        "max_depth": [Interval(Integral, 0, None, closed="left"), None],
    }

    max_depth: int | None

    def __init__(
        self,
        regularization: float = 0.01,
        max_depth: int | None = None,
        min_samples_leaf: int | float = 1,
        time_limit: float | None = None,
        memory_limit: int | None = None,
        verbose: bool = False,
        max_thresholds: int | None = None,
        n_jobs: int | None = None,
    ) -> None:
        store_init_params(self, locals())

    def _search(self, min_leaf: int) -> _core.GosdtSearch:
        return _core.GosdtSearch(
            float(self.regularization), max_depth=saturated(self.max_depth), min_samples_leaf=saturated(min_leaf)
        )


class DL85Regressor(CertifiedTreeRegressor):
    __doc__ = (
        """Optimal regression tree under a depth limit (DL8.5's setting under squared
    error, as STreeD solves it) over 0/1 or numeric features.

    Minimises ``weighted MSE / weighted variance of y + regularization * leaves`` over
    the trees of depth at most ``max_depth`` whose leaves hold at least
    ``min_samples_leaf`` training rows; each leaf predicts the weighted mean of its
    rows. Subproblems two levels from the limit are solved exactly from pairwise sums
    (0/1 columns) or sweeps (numeric columns).

    Parameters
    ----------
    max_depth : int, default=3
        Maximum depth (a single leaf has depth 0).
    min_samples_leaf : int or float, default=1
        Minimum training rows per leaf (a float in (0, 1): that fraction of the rows
        of positive weight, rounded up).
    regularization : float, default=0.0
        Penalty per leaf, as a fraction of the variance of ``y`` (0: the least error
        at that depth)."""
        + _LIMITS_AND_ATTRIBUTES_DOC
        + """
    Examples
    --------
    On raw numeric columns (every midpoint a candidate split):

    >>> from sklearn.datasets import load_diabetes
    >>> from treeopt import DL85Regressor
    >>> X, y = load_diabetes(return_X_y=True, as_frame=True)
    >>> reg = DL85Regressor(max_depth=2).fit(X, y)
    >>> reg.status_, reg.tree_.n_leaves, round(reg.score(X, y), 3)
    ('optimal', 4, 0.436)
    >>> [reg.tree_.feature_names[f] for f in reg.tree_.feature[:2]]
    ['s5', 'bmi']
    """
    )

    _parameter_constraints: dict[str, list[Any]] = {
        **_REGRESSOR_CONSTRAINTS,
        "max_depth": [Interval(Integral, 0, None, closed="left")],
    }

    max_depth: int

    def __init__(
        self,
        max_depth: int = 3,
        min_samples_leaf: int | float = 1,
        regularization: float = 0.0,
        time_limit: float | None = None,
        memory_limit: int | None = None,
        verbose: bool = False,
        max_thresholds: int | None = None,
        n_jobs: int | None = None,
    ) -> None:
        store_init_params(self, locals())

    def _search(self, min_leaf: int) -> _core.Dl85Search:
        return _core.Dl85Search(saturated(self.max_depth), saturated(min_leaf), float(self.regularization))

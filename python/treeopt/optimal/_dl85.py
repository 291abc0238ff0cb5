"""DL8.5: the optimal tree under a depth limit, by the cached branch and bound in Rust."""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils._param_validation import Interval

from .. import _core
from .._base import COST_AND_THRESHOLD_CONSTRAINTS, N_JOBS_CONSTRAINTS, N_JOBS_DOC, SEARCH_CONSTRAINTS, row_major, saturated, store_init_params
from ._base import CertifiedTreeClassifier

if TYPE_CHECKING:
    from ._base import _SearchMatrix

__all__ = ["DL85Classifier"]


class DL85Classifier(CertifiedTreeClassifier):
    __doc__ = (
        """Optimal decision tree under a depth limit (DL8.5) over 0/1 or numeric features.

    Minimises the weighted misclassification of trees of depth at most ``max_depth``
    whose leaves each hold at least ``min_samples_leaf`` training rows (DL8.5's
    ``min_sup``), optionally plus ``regularization`` per leaf (then it solves GOSDT's
    objective under the depth limit). Cached branch and bound in Rust (Aglin, Nijssen
    and Schaus 2020) with the cache keyed by the captured rows and MurTree's exact
    depth-two kernel; the result carries the same certificate as
    :class:`GOSDTClassifier`.

    Parameters
    ----------
    max_depth : int, default=3
        Maximum depth (a single leaf has depth 0).
    min_samples_leaf : int or float, default=1
        Minimum number of training rows (of positive weight) in every leaf; a float in
        (0, 1) is a fraction of the rows, rounded up.
    regularization : float, default=0.0
        Penalty per leaf as a fraction of the training weight (0: pure accuracy).
    misclassification_cost : array-like of shape (n_classes, n_classes) or None, default=None
        Cost of predicting ``classes_[j]`` for a row of class ``classes_[i]`` at
        ``[i, j]`` (finite, non-negative, zero diagonal); each leaf predicts its class
        of least expected cost. As for :class:`GOSDTClassifier`.
    class_weight : dict, "balanced" or None, default=None
        Weights multiplying the sample weights of each class.
    time_limit : float or None, default=None
        Seconds of ``fit`` after which the best tree so far is returned (``status_ ==
        "time_limit"``). Without a limit, a search still running after 10 s warns once
        with what to change.
    memory_limit : int or None, default=None
        Bytes the subproblem cache may use (``status_ == "memory_limit"`` when reached).
    verbose : bool, default=False
        Log the search progress on the ``treeopt`` logger (on stderr when logging is
        not configured).
    max_thresholds : int or None, default=None
        Numeric columns only, as for :class:`GOSDTClassifier`: None makes every
        midpoint between consecutive distinct values (within a node's rows) a candidate
        split; ``k`` keeps at most ``k`` per column, at weighted quantiles.
"""
        + N_JOBS_DOC
        + """
    Attributes
    ----------
    tree_, classes_, objective_, lower_bound_, guessed_lower_bound_, status_, n_leaves_, search_stats_
        As for :class:`GOSDTClassifier`; ``objective_`` is the weighted error rate
        (plus the leaf penalty when ``regularization > 0``), with
        ``misclassification_cost=C`` the weighted cost rate
        ``sum(w[i] * C[y[i], yhat[i]]) / sum(w)`` (plus the penalty).

    Examples
    --------
    Numeric columns are split at every midpoint, and the rules name the columns:

    >>> from sklearn.datasets import load_iris
    >>> from treeopt import DL85Classifier
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> clf = DL85Classifier(max_depth=2).fit(X, y)
    >>> clf.status_, clf.score(X, y)
    ('optimal', 0.96)
    >>> print(clf.tree_.to_text())
    if petal length (cm) <= 2.45:
        predict 0  (n=50; 0: 50, 1: 0, 2: 0; p=1)
    else:  # petal length (cm) > 2.45
        if petal width (cm) <= 1.65:
            predict 1  (n=52; 0: 0, 1: 48, 2: 4; p=0.9231)
        else:  # petal width (cm) > 1.65
            predict 2  (n=48; 0: 0, 1: 2, 2: 46; p=0.9583)
    """
    )

    _parameter_constraints: dict[str, list[Any]] = {
        **SEARCH_CONSTRAINTS,
        **COST_AND_THRESHOLD_CONSTRAINTS,
        **N_JOBS_CONSTRAINTS,
        "max_depth": [Interval(Integral, 0, None, closed="left")],
        "min_samples_leaf": [
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0, 1, closed="neither"),
        ],
    }

    _accepts_numeric = True

    max_depth: int
    min_samples_leaf: int | float
    misclassification_cost: ArrayLike | None
    max_thresholds: int | None
    n_jobs: int | None

    def __init__(
        self,
        max_depth: int = 3,
        min_samples_leaf: int | float = 1,
        regularization: float = 0.0,
        misclassification_cost: ArrayLike | None = None,
        class_weight: dict[Any, float] | str | None = None,
        time_limit: float | None = None,
        memory_limit: int | None = None,
        verbose: bool = False,
        max_thresholds: int | None = None,
        n_jobs: int | None = None,
    ) -> None:
        store_init_params(self, locals())

    def _min_leaf(self, n_rows: int) -> int:
        """``min_samples_leaf`` in rows (a fraction rounded up), with a warning when no
        split can give both children that many of the ``n_rows`` rows."""
        if isinstance(self.min_samples_leaf, Integral):
            min_leaf = int(self.min_samples_leaf)
        else:
            min_leaf = max(1, int(np.ceil(self.min_samples_leaf * n_rows)))
        if 2 * min_leaf > n_rows and self.max_depth > 0:
            warnings.warn(
                f"min_samples_leaf={self.min_samples_leaf} needs at least {2 * min_leaf} "
                f"rows for a split and there are {n_rows}: the tree is a single leaf.",
                UserWarning,
                stacklevel=5,
            )
        return min_leaf

    def _solve(
        self,
        Xb: _SearchMatrix,
        y_encoded: NDArray[np.uint32],
        weight: NDArray[np.float64] | None,
        reference: NDArray[np.float64] | None,
    ) -> _core.FitResult:
        # Rows of zero weight take no part in the fit, nor in the support counts.
        n_rows = Xb.shape[0] if weight is None else int(np.count_nonzero(weight))
        min_leaf = self._min_leaf(n_rows)
        search = _core.Dl85Search(
            saturated(self.max_depth),
            saturated(min_leaf),
            float(self.regularization),
            reference_errors=reference,
            misclassification_cost=row_major(self._cost_matrix()),
        )
        return self._fit_core(Xb, y_encoded, weight, search)

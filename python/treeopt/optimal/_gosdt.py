"""GOSDT: the provably optimal sparse tree by the dependency-graph search in Rust."""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sklearn.utils._param_validation import Interval

from .. import _core
from .._base import COST_AND_THRESHOLD_CONSTRAINTS, N_JOBS_CONSTRAINTS, N_JOBS_DOC, SEARCH_CONSTRAINTS, row_major, saturated, store_init_params
from ._base import CertifiedTreeClassifier

if TYPE_CHECKING:
    from ._base import _SearchMatrix

__all__ = ["GOSDTClassifier"]


class GOSDTClassifier(CertifiedTreeClassifier):
    __doc__ = (
        """Provably optimal sparse decision tree (GOSDT) over 0/1 or numeric features.

    Minimises ``weighted misclassification / total weight + regularization * leaves``
    (or its cost-sensitive form with ``misclassification_cost``),
    optionally under ``max_depth``, by a dependency-graph branch-and-bound search in
    Rust. The result comes with a certificate: ``lower_bound_`` is a proven lower bound
    on the optimal objective and ``status_ == "optimal"`` means it meets ``objective_``.

    Parameters
    ----------
    regularization : float, default=0.01
        Penalty per leaf (λ), as a fraction of the training weight: a split must
        correct at least this fraction of the data to pay for itself.
    max_depth : int or None, default=None
        Maximum depth (a single leaf has depth 0). None: no limit.
    time_limit : float or None, default=None
        Seconds of ``fit`` (input checks included) after which the search stops and
        returns the best tree so far (``status_ == "time_limit"``). Without a limit, a
        search still running after 10 s warns once with what to change.
    memory_limit : int or None, default=None
        Bytes the subproblem store may use; reaching it stops the search the same way
        (``status_ == "memory_limit"``).
    class_weight : dict, "balanced" or None, default=None
        Weights multiplying the sample weights of each class.
    verbose : bool, default=False
        Log the search progress (elapsed, lower bound, objective, gap, subproblems) on
        the ``treeopt`` logger (on stderr when logging is not configured).
    misclassification_cost : array-like of shape (n_classes, n_classes) or None, default=None
        Cost-sensitive misclassification: ``misclassification_cost[i, j]`` is the cost
        of predicting ``classes_[j]`` for a row of class ``classes_[i]`` (rows the true
        class, columns the predicted class, in the order of ``classes_``, i.e. the
        sorted labels of ``y``). Finite, non-negative, with a zero diagonal; checked in
        ``fit`` against the classes of ``y``. Each leaf then predicts the class of least
        expected cost over its rows, which need not be its most frequent class:
        ``predict`` follows that choice (``tree_.labels``), ``predict_proba`` still
        gives the leaf's class proportions. None counts every error as 1 (the matrix
        ``1 - I`` gives the same objective).
    max_thresholds : int or None, default=None
        Numeric columns only (a matrix whose values are all 0/1 is searched as 0/1
        columns and ignores it). None: every midpoint between consecutive distinct
        values of a column, within the rows a node captures, is a candidate split
        ``x <= threshold``. An int ``k``: a column with more than ``k`` midpoints keeps
        ``k`` of them, those at the weighted quantiles ``1/(k+1), ..., k/(k+1)`` of its
        training values (by ``sample_weight * class_weight``; ties can leave fewer), and
        the tree's thresholds are among them; the optimum is then over those
        thresholds only, and the search is faster.
"""
        + N_JOBS_DOC
        + """
    Attributes
    ----------
    tree_ : treeopt.Tree
        The fitted tree.
    classes_ : ndarray
        Class labels.
    objective_ : float
        Objective of ``tree_`` on the training data:
        ``sum(w[i] for misclassified rows i) / sum(w) + regularization * n_leaves_``
        with ``w[i] = sample_weight[i] * class_weight[y[i]]`` (each factor 1 when not
        given; ``"balanced"`` as in :func:`sklearn.utils.class_weight.compute_sample_weight`
        on the training ``y``), that is
        ``1 - clf.score(X, y, sample_weight=w) + regularization * n_leaves_``. Only the
        ratios of the weights matter (they are scaled to a largest weight of 1).
        With ``misclassification_cost=C``:
        ``sum(w[i] * C[y[i], yhat[i]]) / sum(w) + regularization * n_leaves_`` over all
        rows, ``yhat = clf.predict(X)`` and ``y[i]``, ``yhat[i]`` read as indices in
        ``classes_`` (the weights ``w`` as above: ``class_weight`` multiplies the costs
        of a class's rows); ``C = 1 - I`` gives the plain objective. With ``y_ref``
        (lower-bound guessing) the reference's loss is then its cost too: row ``i``
        counts ``w[i] * C[y[i], y_ref[i]]``.
    lower_bound_ : float
        Proven lower bound on the optimal objective.
    status_ : str
        ``"optimal"`` (proven), ``"matched_reference"`` (with ``y_ref``: the search
        closed on the guessed bound, see ``guessed_lower_bound_``), ``"time_limit"``,
        ``"memory_limit"`` or ``"interrupted"`` (Ctrl-C: ``fit`` stored the best tree
        so far, then raised ``KeyboardInterrupt``; see ``fit``).
    guessed_lower_bound_ : float or None
        With ``y_ref``: the guessed lower bound the search closed against (the
        reference's loss plus one leaf, tightened by the search); None otherwise.
    n_leaves_ : int
        Leaves of ``tree_``.
    search_stats_ : dict
        ``subproblems``, ``expansions``, ``seconds`` and ``memory_bytes`` of the search.

    Examples
    --------
    >>> import numpy as np
    >>> from treeopt import GOSDTClassifier
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
    >>> y = X[:, 0] ^ X[:, 1]
    >>> clf = GOSDTClassifier(regularization=0.01).fit(X, y)
    >>> clf.status_, clf.n_leaves_, clf.score(X, y)
    ('optimal', 4, 1.0)

    Numeric columns are split at the midpoints of their values:

    >>> Xn = np.array([[1.5], [2.0], [3.5], [4.0]] * 5)
    >>> clf = GOSDTClassifier(regularization=0.01).fit(Xn, Xn[:, 0] > 3)
    >>> print(clf.tree_.to_text().splitlines()[0])
    if x[0] <= 2.75:
    """
    )

    _parameter_constraints: dict[str, list[Any]] = {
        **SEARCH_CONSTRAINTS,
        **COST_AND_THRESHOLD_CONSTRAINTS,
        **N_JOBS_CONSTRAINTS,
        "max_depth": [Interval(Integral, 0, None, closed="left"), None],
    }

    _accepts_numeric = True

    max_depth: int | None
    misclassification_cost: ArrayLike | None
    max_thresholds: int | None
    n_jobs: int | None

    def __init__(
        self,
        regularization: float = 0.01,
        max_depth: int | None = None,
        time_limit: float | None = None,
        memory_limit: int | None = None,
        class_weight: dict[Any, float] | str | None = None,
        verbose: bool = False,
        misclassification_cost: ArrayLike | None = None,
        max_thresholds: int | None = None,
        n_jobs: int | None = None,
    ) -> None:
        store_init_params(self, locals())

    def _solve(
        self,
        Xb: _SearchMatrix,
        y_encoded: NDArray[np.uint32],
        weight: NDArray[np.float64] | None,
        reference: NDArray[np.float64] | None,
    ) -> _core.FitResult:
        """Runs the Rust GOSDT search: returns its ``_core.FitResult``."""
        search = _core.GosdtSearch(
            float(self.regularization),
            max_depth=saturated(self.max_depth),
            reference_errors=reference,
            misclassification_cost=row_major(self._cost_matrix()),
        )
        return self._fit_core(Xb, y_encoded, weight, search)

"""The base of the solvers with a certificate: GOSDT, DL8.5 and OSDT.

:class:`CertifiedTreeClassifier` validates the input with scikit-learn's own helpers,
packs the matrix once (a uint8 0/1 matrix when every value is 0 or 1; for the solvers
that take numeric columns, GOSDT and DL8.5, a float64 matrix otherwise, see
:mod:`treeopt.optimal._numeric`), runs one Rust search without the GIL (the subclass's
``_solve``) and exposes its result as a :class:`treeopt.Tree` in the caller's units
with a certificate (``objective_``, ``lower_bound_``, ``status_``, ``search_stats_``).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import _num_samples, column_or_1d

from .. import _core
from .._base import (
    INT_SATURATION,
    SEARCH_CONSTRAINTS,
    cost_matrix,
    effective_n_jobs,
    refuse_booleans,
    saturated,
    validate_params_once,
)
from .._binary import BinaryTreeClassifierMixin, as_binary_matrix
from .._progress import report
from .._validation import (
    encode_class_labels,
    sample_weights,
    scaled_to_max,
    validate_data,
    validate_numeric_data,
)
from ..tree import Tree
from ..tree._model import binary_columns
from ._numeric import NumericColumns

if TYPE_CHECKING:
    from abc import abstractmethod
    from typing import TypeVar

    # fit returns the estimator it is called on (GOSDTClassifier().fit(...) is a GOSDTClassifier).
    _Classifier = TypeVar("_Classifier", bound="CertifiedTreeClassifier")

    #: The matrix a Rust search takes: 0/1 columns as uint8, numeric ones as float64.
    _SearchMatrix = Union[NDArray[np.uint8], NDArray[np.float64]]
    _Search = Union[_core.GosdtSearch, _core.Dl85Search, _core.OsdtSearch]

__all__ = ["CertifiedSearch", "CertifiedTreeClassifier", "pack_features", "require_features"]

_BINARIZER_HINT = (
    "treeopt's optimal tree solvers need 0/1 features; binarize numeric columns first, "
    "e.g. with treeopt.NumericBinarizer (in a Pipeline)"
)


def _fit_weights(
    est: CertifiedTreeClassifier, X: NDArray[Any], y: NDArray[Any], sample_weight: ArrayLike | None
) -> tuple[NDArray[np.float64] | None, float]:
    """Sample weights combined with class weights, validated and scaled to a largest
    weight of 1 (see ``scaled_to_max``), as float64 (or None), and the unit: the
    caller's weights are the scaled ones times the unit (which may overflow to inf)."""
    if sample_weight is None and est.class_weight is None:
        return None, 1.0
    weight = sample_weights(sample_weight, X)
    unit = float(weight.max()) if weight.size else 1.0
    weight = scaled_to_max(weight, "sample_weight")
    if est.class_weight is not None:
        per_class = compute_sample_weight(est.class_weight, y)
        if not np.all(np.isfinite(per_class)) or np.any(per_class < 0):
            raise ValueError(
                f"class_weight={est.class_weight!r} gives weights that are negative or not "
                "finite; pass finite non-negative weights per class."
            )
        unit *= float(per_class.max()) if per_class.size else 1.0
        weight = weight * scaled_to_max(per_class, "class_weight")
        unit *= float(weight.max())
        weight = scaled_to_max(weight, "sample_weight * class_weight")
    return np.ascontiguousarray(weight, dtype=np.float64), unit


def _reference_errors(
    y: NDArray[Any],
    y_ref: ArrayLike,
    classes: NDArray[Any],
    weight: NDArray[np.float64] | None,
    cost: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Per row, the weight a reference model misclassifies (lower-bound guessing); under
    a cost matrix, the row's weight times the cost of the reference's prediction."""
    y_ref = column_or_1d(np.asarray(y_ref), warn=True)
    if _num_samples(y_ref) != _num_samples(y):
        raise ValueError(
            f"y_ref has {_num_samples(y_ref)} predictions for {_num_samples(y)} rows; pass "
            "the reference model's predictions on the training rows (e.g. ref.predict(X))."
        )
    unknown = ~np.isin(y_ref, classes)
    if unknown.any():
        raise ValueError(
            f"y_ref contains {y_ref[unknown][0]!r}, which is not a class of y "
            f"({list(classes)}); pass the reference's predicted labels, not scores."
        )
    if cost is None:
        wrong = (y_ref != y).astype(np.float64)
    else:
        wrong = cost[np.searchsorted(classes, y), np.searchsorted(classes, y_ref)]
    return np.ascontiguousarray(wrong if weight is None else wrong * weight)


def _tree_from_result(
    res: _core.FitResult,
    value: NDArray[np.float64],
    classes: NDArray[Any] | None,
    feature_names: Iterable[str] | None,
    n_features: int,
    threshold: NDArray[np.float64],
    binary: NDArray[np.bool_] | bool,
) -> Tree:
    """The shared Tree model from the node arrays of a Rust solver's ``FitResult``, with
    ``value`` the node values and ``threshold`` the node thresholds in the caller's
    units; ``binary`` marks the columns that were 0/1 at fit (True: all)."""
    # The arrays come from the solver and the rest from the fitted estimator: already
    # consistent, so the checks of Tree() (most of the Python time of a small fit) are
    # skipped.
    # Labels the solver found to be each node's heaviest class need not be stored (nor
    # compared here again); with rescaled values the comparison stays Tree's.
    labels = None if res.labels_are_argmax and value is res.value else res.labels
    return Tree._from_solver(
        res.children_left,
        res.children_right,
        res.feature,
        threshold,
        value,
        labels=labels,
        node_depth=res.node_depth,
        classes=classes,
        feature_names=None if feature_names is None else [str(f) for f in feature_names],
        n_features=n_features,
        binary_features=binary,
    )


def require_features(X: NDArray[Any]) -> None:
    """Refuses a validated matrix with no column."""
    if X.shape[1] == 0:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is "
            "required: pass at least one feature column."
        )


def pack_features(
    est: CertifiedSearch, X: NDArray[Any], weight: NDArray[np.float64] | None, accepts_numeric: bool
) -> _SearchMatrix:
    """The validated matrix ``X`` as the Rust search takes it: uint8 when every value is
    0 or 1 (or numeric columns are not accepted: then a ValueError names a bad
    column), else the float64 matrix of :class:`NumericColumns` (every midpoint a
    candidate, or ``est.max_thresholds`` of them). Sets ``est._numeric_columns`` and
    ``est._binary_features`` for the fit's result."""
    est._numeric_columns = None
    if accepts_numeric:
        # Which columns are 0/1, found once (it also tells the 0/1 search from the
        # numeric one).
        numbers = X.dtype == np.bool_ or np.issubdtype(X.dtype, np.number)
        binary = binary_columns(X) if numbers else None
        if binary is None or not binary.all():
            # The numeric route: every midpoint a candidate (or max_thresholds of them).
            cap = getattr(est, "max_thresholds", None)
            est._numeric_columns = NumericColumns(X, weight, cap)
            est._binary_features = binary_columns(X) if binary is None else binary
            return est._numeric_columns.matrix
    est._binary_features = True
    return as_binary_matrix(X, _BINARIZER_HINT, getattr(est, "feature_names_in_", None))


def _fields(obj: object, names: Iterable[str]) -> dict[str, Any]:
    """``{name: obj.name}`` for the named fields of a typed solver result."""
    return {k: getattr(obj, k) for k in names}


class CertifiedSearch:
    """What every estimator over a certified Rust search shares, classifier or
    regressor: the limits handed to the search (``time_limit`` counted from the start
    of ``fit``, the slow-fit warning, ``memory_limit``, ``verbose``) and the certificate
    attributes read from its result."""

    time_limit: float | None
    memory_limit: int | None
    verbose: bool
    tree_: Tree
    objective_: float
    lower_bound_: float
    guessed_lower_bound_: float | None
    status_: str
    n_leaves_: int
    search_stats_: dict[str, Any]
    _fit_started: float
    # Fit-time only: the numeric columns of the matrix being searched (None: 0/1) and
    # which columns were 0/1 (True: all).
    _numeric_columns: NumericColumns | None
    _binary_features: NDArray[np.bool_] | bool | None

    def _time_left(self) -> float | None:
        """Seconds of ``time_limit`` left for the search: the limit bounds the whole
        ``fit`` (input checks and warm start included), as the user times it."""
        if self.time_limit is None:
            return None
        spent = time.perf_counter() - getattr(self, "_fit_started", time.perf_counter())
        return max(float(self.time_limit) - spent, 1e-3)

    def _search_limits(self) -> dict[str, Any]:
        """The keyword arguments every Rust search takes: the seconds left, the slow-fit
        warning, the memory limit (bytes, capped for Rust), verbosity and the threads
        (``n_jobs`` of the estimators that take it, else 1)."""
        return {
            "time_limit": self._time_left(),
            "slow_fit_warning": self._slow_fit_warning(),
            "memory_limit": saturated(self.memory_limit),
            "verbose": bool(self.verbose),
            "threads": min(effective_n_jobs(getattr(self, "n_jobs", None)), INT_SATURATION),
        }

    #: Seconds of search after which a fit with no time_limit warns that it is slow.
    _slow_fit_seconds = 10.0

    #: How the slow-fit warning tells a fit on 0/1 columns to give fewer of them.
    _fewer_columns_hint = (
        "give fewer 0/1 columns (e.g. NumericBinarizer(max_thresholds=4), or "
        "treeopt.OptimalTreeClassifier on the raw columns)"
    )

    def _slow_fit_warning(self) -> tuple[float, str] | None:
        """``(seconds, message)``: what to change, shown once through ``warnings`` when a
        fit with no ``time_limit`` is still searching after ``_slow_fit_seconds``
        (``None`` with a limit)."""
        if self.time_limit is not None:
            return None
        # An estimator running this search for its user (OptimalTreeClassifier) names
        # itself and how to get fewer columns from it.
        name, fewer_columns = getattr(self, "_slow_fit_caller", (None, None))
        name = name or type(self).__name__
        if fewer_columns is None and getattr(self, "_numeric_columns", None) is not None:
            fewer_columns = "set max_thresholds (e.g. 16) to try fewer thresholds per column"
        fewer_columns = fewer_columns or self._fewer_columns_hint
        return self._slow_fit_seconds, (
            f"{name}.fit has searched for {self._slow_fit_seconds:g} s with no time_limit "
            "and may run much longer. To get a tree sooner: set time_limit (seconds; the "
            "best tree so far is returned with status_ 'time_limit' and a proven "
            f"lower_bound_), lower max_depth, raise regularization, or {fewer_columns}. "
            "Ctrl-C stops the fit and keeps the best tree so far."
        )

    def _set_certificate(self, res: _core.FitResult) -> None:
        """The certificate attributes of a fit from its ``_core.FitResult`` (``tree_``
        set first): ``objective_``, ``lower_bound_``, ``guessed_lower_bound_``,
        ``status_``, ``n_leaves_``, ``search_stats_``; warns when the memory ran out."""
        self.objective_ = float(res.objective)
        self.lower_bound_ = float(res.lower_bound)
        guess = res.guessed_lower_bound
        self.guessed_lower_bound_ = None if guess is None else float(guess)
        self.status_ = str(res.status)
        # A solver's tree is a proper binary tree (every split has two children): one
        # more leaf than splits. Counted so, not by comparing children_left, whose
        # numpy loop a first fit would fault in for this alone.
        self.n_leaves_ = (self.tree_.node_count + 1) // 2
        self.search_stats_ = _fields(res.stats, ("subproblems", "expansions", "seconds", "memory_bytes"))
        if self.status_ == "memory_limit" and self.memory_limit is None:
            fewer = (
                "give fewer 0/1 columns"
                if getattr(self, "_numeric_columns", None) is None
                else "set max_thresholds (fewer thresholds per column)"
            )
            warnings.warn(
                f"{type(self).__name__} ran out of memory before proving its tree optimal: "
                f"the tree returned has objective {self.objective_:.6g} against a proven "
                f"lower bound of {self.lower_bound_:.6g}. To finish, set max_depth, raise "
                f"regularization or {fewer}; set memory_limit (bytes) to "
                "stop sooner.",
                UserWarning,
                stacklevel=4,
            )
        if self.verbose:
            report(
                "%s: objective %.6f, lower bound %.6f, %d leaves, %d subproblems, %.3fs",
                self.status_, self.objective_, self.lower_bound_, self.n_leaves_,
                res.stats.subproblems, res.stats.seconds,
            )


class CertifiedTreeClassifier(BinaryTreeClassifierMixin, CertifiedSearch, ClassifierMixin, BaseEstimator):
    """Shared fit plumbing of the solvers whose trees come with a certificate (GOSDT and
    DL8.5 over 0/1 or numeric columns, OSDT over 0/1 columns).

    A subclass sets its ``_parameter_constraints`` as ``{**SEARCH_CONSTRAINTS, ...}``
    and defines ``_solve(Xb, y_encoded, weight, reference)``, which builds its Rust
    search's settings and runs them through ``_fit_core``, returning the ``_core.FitResult``; everything else (validation, weights, the time
    limit, the certificate attributes, the warnings) is here.
    """

    _parameter_constraints: dict[str, list[Any]] = dict(SEARCH_CONSTRAINTS)

    regularization: float
    class_weight: dict[Any, float] | str | None
    classes_: NDArray[Any]
    n_features_in_: int
    _weight_unit: float

    if TYPE_CHECKING:

        @abstractmethod
        def _solve(
            self,
            Xb: _SearchMatrix,
            y_encoded: NDArray[np.uint32],
            weight: NDArray[np.float64] | None,
            reference: NDArray[np.float64] | None,
        ) -> _core.FitResult: ...

    _binary_hint = _BINARIZER_HINT

    #: Whether the solver takes numeric columns (GOSDT, DL8.5): then a matrix that is
    #: not all 0/1 goes to the numeric search instead of being refused.
    _accepts_numeric = False

    def _validate_params(self) -> None:
        """scikit-learn's check of the parameters, once per parameter values
        (:func:`treeopt._base.validate_params_once`)."""
        validate_params_once(self, super()._validate_params)

    def _binary_input(self, X: ArrayLike) -> NDArray[Any]:
        """X for ``predict``/``predict_proba``/``apply``: any finite numbers for a solver
        that takes numeric columns (the tree tests ``x <= threshold``), else 0/1."""
        if not self._accepts_numeric:
            return super()._binary_input(X)
        return validate_numeric_data(self, X, reset=False, dtype="numeric")

    def _validate_fit_input(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None
    ) -> tuple[_SearchMatrix, NDArray[Any], NDArray[np.uint32], NDArray[np.float64] | None]:
        if self._accepts_numeric:
            X, y = validate_numeric_data(self, X, y, dtype="numeric", ensure_min_features=0)
        else:
            X, y = validate_data(
                self, X, y, dtype=None, ensure_all_finite=True, ensure_min_features=0
            )
        # Targets first: a one-row fit is reported as a one-class problem even when a
        # binarizer upstream produced no column from it.
        self.classes_, codes = encode_class_labels(y)
        y_encoded = np.ascontiguousarray(codes, dtype=np.uint32)
        require_features(X)
        weight, self._weight_unit = _fit_weights(self, X, y, sample_weight)
        return pack_features(self, X, weight, self._accepts_numeric), y, y_encoded, weight

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(
        self: _Classifier,
        X: ArrayLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        y_ref: ArrayLike | None = None,
    ) -> _Classifier:
        """Finds the optimal tree for the features X and labels y.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Finite numbers (GOSDT, DL8.5) or 0/1 (or boolean) features (all solvers).
            When every value is 0 or 1 the 0/1 search runs; otherwise every midpoint
            between consecutive distinct values of a column is a candidate split
            ``x <= threshold`` (at most ``max_thresholds`` per column when set). NaN and
            inf are refused with a ``ValueError``.
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; the objective uses weighted misclassification.
        y_ref : array-like of shape (n_samples,), default=None
            Predictions of a reference model (e.g. a boosted ensemble) on the training
            rows: turns on lower-bound guessing (McTavish et al. 2022, §4.3). Each
            subproblem is then assumed solved once it matches the reference's accuracy
            on its rows, which prunes most of the search; Theorem 4.3 bounds the loss:
            the objective is at most the reference's errors plus the optimal tree's
            errors on the rows the reference gets right, plus its leaf penalty.
            ``lower_bound_`` stays the proven bound.

        Returns
        -------
        self

        Raises
        ------
        KeyboardInterrupt
            On Ctrl-C during the search, after storing the best tree found so far as the
            fitted model (``status_ == "interrupted"``, ``lower_bound_`` still proven), so
            that a loop of fits or a grid search stops while a single fit can still be
            used::

                try:
                    clf.fit(X, y)
                except KeyboardInterrupt:
                    pass  # clf.tree_, clf.objective_, clf.lower_bound_: the best so far
        """
        refuse_booleans(self)
        if np.isnan(self.regularization):
            raise ValueError("regularization is NaN; pass a number >= 0 such as 0.01.")
        self._fit_started = time.perf_counter()
        Xb, y, y_encoded, weight = self._validate_fit_input(X, y, sample_weight)
        reference = (
            None
            if y_ref is None
            else _reference_errors(y, y_ref, self.classes_, weight, self._cost_matrix())
        )
        try:
            res = self._solve(Xb, y_encoded, weight, reference)
            self._set_result(res)
        finally:
            self._numeric_columns = self._binary_features = None  # fit-time only
        interrupt = res.interrupt
        if interrupt is not None:
            # Ctrl-C (or another signal handler's exception) during the search: the best
            # tree so far is stored above (status_ "interrupted"), and the exception goes
            # on to the caller, so that a loop of fits or a grid search stops too.
            raise interrupt
        return self

    def _cost_matrix(self) -> NDArray[np.float64] | None:
        """The validated ``misclassification_cost`` (a float64 square matrix over
        ``classes_``), or None for plain misclassification (and for solvers without it)."""
        cost = getattr(self, "misclassification_cost", None)
        return None if cost is None else cost_matrix(cost, self.classes_)

    def _fit_core(
        self, Xb: _SearchMatrix, y_encoded: NDArray[np.uint32], weight: NDArray[np.float64] | None, search: _Search
    ) -> _core.FitResult:
        """Runs ``search`` (a ``_core.GosdtSearch``, ``Dl85Search`` or ``OsdtSearch``)
        on the encoded data under this fit's limits: returns its ``_core.FitResult``."""
        return _core.fit(Xb, y_encoded, weight, search, n_classes=len(self.classes_), **self._search_limits())

    def _set_result(self, res: _core.FitResult) -> None:
        # The solver saw weights scaled to a largest weight of 1: node values go back to
        # the caller's units (weighted class totals) when those are representable.
        unit = getattr(self, "_weight_unit", 1.0)
        value = res.value
        if unit != 1.0:
            with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                scaled = res.value * unit
            positive = res.value > 0
            if np.all(np.isfinite(scaled)) and np.all(scaled[positive] >= np.finfo(float).tiny):
                value = scaled
        numeric = getattr(self, "_numeric_columns", None)
        threshold = res.threshold if numeric is None else numeric.thresholds(res.feature, res.threshold)
        self.tree_ = _tree_from_result(
            res,
            value,
            self.classes_,
            getattr(self, "feature_names_in_", None),
            self.n_features_in_,
            threshold,
            getattr(self, "_binary_features", True),
        )
        self._set_certificate(res)

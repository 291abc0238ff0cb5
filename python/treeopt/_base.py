"""What the estimators share beyond input checks: parameters and their constraints.

* :func:`validate_params_once`: scikit-learn's parameter check, once per class and
  parameter values; :func:`light_fit_context`: the check around a small fit;
* :func:`store_init_params`: the body of every estimator's ``__init__`` (scikit-learn
  estimators store their parameters unchanged, one attribute each);
* :data:`SEARCH_CONSTRAINTS`: the constraints of the parameters the solvers share
  (``regularization``, ``time_limit``, ``memory_limit``, ``class_weight``,
  ``verbose``), merged into each estimator's ``_parameter_constraints`` as
  scikit-learn merges its base classes' (``{**BASE, "max_depth": [...]}``);
* :func:`refuse_booleans` and :func:`saturated`: numeric parameters on their way to Rust;
* :func:`cost_matrix`: the ``misclassification_cost`` of GOSDT and DL8.5, checked
  against the classes seen in ``fit``, and :func:`row_major`: that matrix for Rust.

The certificate attributes (``objective_``, ``lower_bound_``, ``status_``) and the fit of
the Rust solvers live in :mod:`treeopt.optimal` (its ``_base``).
"""

from __future__ import annotations

import functools
import operator
import os
from numbers import Integral, Real
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn import get_config
from sklearn.utils._param_validation import Interval, StrOptions

__all__ = [
    "INT_SATURATION",
    "COST_AND_THRESHOLD_CONSTRAINTS",
    "N_JOBS_CONSTRAINTS",
    "SEARCH_CONSTRAINTS",
    "cost_matrix",
    "effective_n_jobs",
    "light_fit_context",
    "refuse_booleans",
    "row_major",
    "saturated",
    "store_init_params",
]

#: Constraints of the parameters shared by the solvers (a copy per estimator is made
#: by the ``{**SEARCH_CONSTRAINTS, ...}`` merge).
SEARCH_CONSTRAINTS: dict[str, list[Any]] = {
    "regularization": [Interval(Real, 0, None, closed="left")],
    "time_limit": [Interval(Real, 0, None, closed="neither"), None],
    "memory_limit": [Interval(Integral, 1, None, closed="left"), None],
    "class_weight": [dict, StrOptions({"balanced"}), None],
    "verbose": ["verbose"],
}

#: Constraints of the parameters GOSDT and DL8.5 share beyond those (the cost matrix
#: and the threshold cap of numeric columns; OSDT takes neither).
COST_AND_THRESHOLD_CONSTRAINTS: dict[str, list[Any]] = {
    "misclassification_cost": ["array-like", None],
    "max_thresholds": [Interval(Integral, 1, None, closed="left"), None],
}

#: Integer limits at or above this mean "no limit in practice" and are passed to Rust as
#: this value (they would not fit its 64-bit integers otherwise).
INT_SATURATION = np.iinfo(np.int64).max

if TYPE_CHECKING:
    from typing import Protocol

    class _Constrained(Protocol):
        """An estimator with scikit-learn's ``_parameter_constraints`` (a class attribute)."""

        _parameter_constraints: dict[str, list[Any]]


def store_init_params(estimator: object, params: dict[str, Any]) -> None:
    """Sets every argument of ``__init__`` as an attribute of the same name, unchanged.

    Called first in ``__init__`` as ``store_init_params(self, locals())``: ``params``
    then holds exactly the parameters of the signature (and ``self``).
    """
    for name, value in params.items():
        if name not in ("self", "__class__"):
            setattr(estimator, name, value)


#: The ``n_jobs`` of the searches that can use a second thread: scikit-learn's
#: convention (a positive count, or ``-1`` for every core, ``-2`` all but one, ...; None
#: is 1). 0 is refused.
N_JOBS_CONSTRAINTS: dict[str, list[Any]] = {
    "n_jobs": [Interval(Integral, 1, None, closed="left"), Interval(Integral, None, -1, closed="right"), None],
}


#: The numpydoc entry of ``n_jobs`` in the docstrings of the estimators that take it.
N_JOBS_DOC = """    n_jobs : int or None, default=None
        Threads the search may use, as in scikit-learn: None is 1, ``-1`` every core.
        The tree and its certificate do not depend on it. Today only the depth-two
        solver on numeric columns with few distinct values each uses a second thread
        (a helper that runs ahead over the root thresholds), and only on subproblems
        large enough to pay for it (thousands of rows); 0 is refused.
"""

def effective_n_jobs(n_jobs: int | None) -> int:
    """Threads for ``n_jobs`` (scikit-learn's convention): None is 1, a negative ``k``
    leaves ``-k - 1`` of the cores idle (at least one thread)."""
    if n_jobs is None:
        return 1
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))
    return int(n_jobs)


#: Parameters (estimator class, then type and value of each) that passed scikit-learn's
#: check (:func:`validate_params_once`); at most 64 kept.
_PASSED_PARAMS: set[tuple[Any, ...]] = set()

#: Per estimator class, a getter of its constrained parameters' values as a tuple (one
#: C call, where a generator of ``getattr`` costs several microseconds on a cold cache).
_PARAM_GETTERS: dict[type, Callable[[Any], tuple[Any, ...]]] = {}


def _values_getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function of an object returning the tuple of its attributes ``names``."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    return lambda obj: tuple(getattr(obj, name) for name in names)


def validate_params_once(est: _Constrained, check: Callable[[], None]) -> None:
    """Runs ``check`` (scikit-learn's ``_validate_params`` of ``est``) unless the same
    parameters (by type and value, and the estimator's class) passed it before: whether
    they pass is fixed by the class's constraints, and the check (~40-90 us, it reads
    the signature of ``__init__``) is a large part of a small fit, where a new
    estimator is often made for each fit. Unhashable values (arrays, dicts) are checked
    every time."""
    cls = type(est)
    getter = _PARAM_GETTERS.get(cls)
    if getter is None:
        getter = _PARAM_GETTERS[cls] = _values_getter(tuple(est._parameter_constraints))
    values = getter(est)
    key: tuple[object, ...] | None = (cls, values, tuple(map(type, values)))
    try:
        if key in _PASSED_PARAMS:
            return
    except TypeError:  # an unhashable value: checked every time
        key = None
    check()
    if key is not None:
        if len(_PASSED_PARAMS) >= 64:
            _PASSED_PARAMS.clear()
        _PASSED_PARAMS.add(key)


_Fit = TypeVar("_Fit", bound=Callable[..., Any])


def light_fit_context(fit: _Fit) -> _Fit:
    """scikit-learn's ``_fit_context(prefer_skip_nested_validation=True)`` for a ``fit``
    that calls no parameter-validated scikit-learn function and supports no callbacks:
    the parameters are checked (unless scikit-learn's configuration skips the check),
    without the two context managers around the call, which would skip nothing and
    cost an import and ~6 us a fit (a tenth of a small Rashomon set's)."""

    @functools.wraps(fit)
    def wrapper(estimator: Any, *args: Any, **kwargs: Any) -> Any:
        if not get_config()["skip_parameter_validation"]:
            estimator._validate_params()
        return fit(estimator, *args, **kwargs)

    return cast("_Fit", wrapper)


@overload
def saturated(value: None) -> None: ...
@overload
def saturated(value: int | np.integer[Any]) -> int: ...
@overload
def saturated(value: int | np.integer[Any] | None) -> int | None: ...
def saturated(value: int | np.integer[Any] | None) -> int | None:
    """An integer parameter for Rust: None stays None, huge values are capped."""
    return None if value is None else min(int(value), INT_SATURATION)


def refuse_booleans(est: _Constrained) -> None:
    """Booleans are integers to Python (``max_depth=True`` would be depth 1); a numeric
    parameter given a boolean is almost surely a mistake, so it is refused by name."""
    for name, constraints in type(est)._parameter_constraints.items():
        value = getattr(est, name, None)
        if not isinstance(value, (bool, np.bool_)):
            continue
        if any(isinstance(c, Interval) for c in constraints):
            raise ValueError(
                f"The {name!r} parameter of {type(est).__name__} is a number, got the "
                f"boolean {value!r}; pass a number (e.g. {name}=1)"
                + (" or None." if None in constraints else ".")
            )


def cost_matrix(cost: ArrayLike, classes: NDArray[Any]) -> NDArray[np.float64]:
    """``misclassification_cost`` checked against the fitted ``classes``: a float64
    ``(n_classes, n_classes)`` matrix, rows the true class and columns the predicted
    class in the order of ``classes``, finite, non-negative, with a zero diagonal.

    Raises ``ValueError`` naming the parameter and the first offending entry.
    """
    n = len(classes)
    try:
        matrix = np.array(cost, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"misclassification_cost must be a numeric (n_classes, n_classes) array, got "
            f"{cost!r:.80}"
        ) from None
    if matrix.shape != (n, n):
        raise ValueError(
            f"misclassification_cost has shape {matrix.shape} but y has {n} classes "
            f"{[c.item() if isinstance(c, np.generic) else c for c in classes]}: pass a "
            f"({n}, {n}) matrix, rows the true class and columns the predicted class, in "
            "the order of classes_."
        )
    bad = ~np.isfinite(matrix) | (matrix < 0)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(
            f"misclassification_cost[{i}, {j}] is {matrix[i, j]}; costs must be finite "
            "and >= 0."
        )
    diagonal = np.flatnonzero(np.diag(matrix) != 0)
    if diagonal.size:
        k = diagonal[0]
        raise ValueError(
            f"misclassification_cost[{k}, {k}] is {matrix[k, k]}; predicting the true "
            "class must cost 0 (zero diagonal)."
        )
    return matrix


def row_major(cost: NDArray[np.float64] | None) -> NDArray[np.float64] | None:
    """A checked cost matrix as Rust takes it: its rows one after the other, float64
    (None stays None)."""
    return None if cost is None else np.ascontiguousarray(cost, dtype=np.float64).ravel()

"""What the estimators share beyond input checks: parameters and their constraints.

* :func:`store_init_params`: the body of every estimator's ``__init__`` (scikit-learn
  estimators store their parameters unchanged, one attribute each);
* :data:`SEARCH_CONSTRAINTS`: the constraints of the parameters the solvers share
  (``regularization``, ``time_limit``, ``memory_limit``, ``class_weight``,
  ``verbose``), merged into each estimator's ``_parameter_constraints`` as
  scikit-learn merges its base classes' (``{**BASE, "max_depth": [...]}``);
* :func:`refuse_booleans` and :func:`saturated`: numeric parameters on their way to Rust.

The certificate attributes (``objective_``, ``lower_bound_``, ``status_``) and the fit of
the Rust solvers live in :mod:`treeopt.optimal` (its ``_base``).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

__all__ = [
    "INT_SATURATION",
    "SEARCH_CONSTRAINTS",
    "refuse_booleans",
    "saturated",
    "store_init_params",
]

#: Constraints of the parameters shared by the solvers (a copy per estimator is made
#: by the ``{**SEARCH_CONSTRAINTS, ...}`` merge).
SEARCH_CONSTRAINTS = {
    "regularization": [Interval(Real, 0, None, closed="left")],
    "time_limit": [Interval(Real, 0, None, closed="neither"), None],
    "memory_limit": [Interval(Integral, 1, None, closed="left"), None],
    "class_weight": [dict, StrOptions({"balanced"}), None],
    "verbose": ["verbose"],
}

#: Integer limits at or above this mean "no limit in practice" and are passed to Rust as
#: this value (they would not fit its 64-bit integers otherwise).
INT_SATURATION = np.iinfo(np.int64).max


def store_init_params(estimator, params):
    """Sets every argument of ``__init__`` as an attribute of the same name, unchanged.

    Called first in ``__init__`` as ``store_init_params(self, locals())``: ``params``
    then holds exactly the parameters of the signature (and ``self``).
    """
    for name, value in params.items():
        if name not in ("self", "__class__"):
            setattr(estimator, name, value)


def saturated(value):
    """An integer parameter for Rust: None stays None, huge values are capped."""
    return None if value is None else min(int(value), INT_SATURATION)


def refuse_booleans(est):
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

"""Input checks shared by the estimators: feature columns and class labels.

One place decides what a column may hold and what a user is told otherwise:

* numeric columns are used as they are;
* a pandas ``category`` / ``object`` column whose values are all 0/1 or True/False
  is a 0/1 column (as if it had been converted with ``.astype(int)``);
* any other string / categorical column is refused with a ``ValueError`` that names
  the column, shows an offending value and suggests an encoder
  (:class:`sklearn.preprocessing.OneHotEncoder` or :class:`treeopt.BinnedOneHotEncoder`);
* class labels that mix strings and numbers are refused by name instead of failing
  deep inside a sort.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from numbers import Real
from typing import TYPE_CHECKING, Any, Literal, cast, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils import get_tags
from sklearn.utils.validation import _check_n_features, _check_sample_weight
from sklearn.utils.validation import validate_data as _sklearn_validate_data

from . import _core

__all__ = [
    "ENCODER_HINT",
    "binary_matrix",
    "center_and_scale",
    "check_classification_labels",
    "column_label",
    "encode_class_labels",
    "sample_weights",
    "scaled_sample_weights",
    "scaled_to_max",
    "too_large_error",
    "validate_data",
    "validate_numeric_data",
    "zero_one_frame",
]

#: What to do with a categorical column, appended to every refusal.
ENCODER_HINT = (
    "encode categorical columns first, e.g. with sklearn.preprocessing.OneHotEncoder "
    "(in a ColumnTransformer) or treeopt.BinnedOneHotEncoder"
)


def column_label(j: int, feature_names: Sequence[Any] | NDArray[Any] | None = None) -> str:
    """``"column 'sex'"`` when the columns have names, else ``"column 3"``."""
    if feature_names is not None and j < len(feature_names):
        return f"column {str(feature_names[j])!r}"
    return f"column {j}"


def _is_zero_one(value: object) -> bool:
    """True for 0, 1, True and False (numbers or booleans, never strings)."""
    if isinstance(value, (bool, np.bool_)):
        return True
    if isinstance(value, (str, bytes)) or not isinstance(value, Real):
        return False
    return value == 0 or value == 1


def _is_missing(value: object) -> bool:
    try:
        return value is None or bool(value != value)
    except (TypeError, ValueError):
        return False


def _first_bad(values: Iterable[object], accept: Callable[[object], bool]) -> object:
    """The first value of ``values`` that ``accept`` refuses (missing values skipped)."""
    for v in values:
        if not _is_missing(v) and not accept(v):
            return v
    return None


def _is_real(value: object) -> bool:
    return isinstance(value, (Real, np.bool_)) and not isinstance(value, (str, bytes))


def _is_frame(X: object) -> bool:
    return hasattr(X, "dtypes") and hasattr(X, "columns") and hasattr(X, "iloc")


def _refusal(estimator: object, where: str, value: object, extra: str = "") -> ValueError:
    name = type(estimator).__name__ if estimator is not None else "treeopt"
    return ValueError(
        f"{name} needs numeric features, but {where} holds {value!r}{extra}; "
        f"{ENCODER_HINT}."
    )


def zero_one_frame(estimator: object, X: Any) -> Any:
    """``X`` with its 0/1 categorical columns made numeric; other non-numeric ones refused.

    Only pandas DataFrames are changed (a shallow copy, the column names kept): a
    ``category`` / ``object`` / ``string`` column whose values are all 0/1 or
    True/False becomes a ``uint8`` column (``float64`` if it has missing values, which
    the finiteness check then reports); an ``object`` column of other numbers becomes
    ``float64``. A ``category`` column of other numbers is refused (its categories are
    labels, not quantities) and so is any column that holds strings. Anything else is
    returned unchanged.
    """
    if not _is_frame(X):
        return X
    converted: dict[int, NDArray[Any]] = {}
    for j, (name, dtype) in enumerate(X.dtypes.items()):
        if getattr(dtype, "kind", "O") in "biuf":
            continue
        column = X.iloc[:, j]
        categorical = str(dtype) == "category"
        levels = column.cat.categories if categorical else column.unique()
        where = f"non-numeric column {str(name)!r}"
        if _first_bad(levels, _is_zero_one) is None:
            converted[j] = np.asarray(column.astype(object), dtype=np.float64)
            if not np.isnan(converted[j]).any():
                converted[j] = converted[j].astype(np.uint8)
            continue
        bad_string = _first_bad(levels, _is_real)
        if bad_string is not None:
            raise _refusal(estimator, where, bad_string, f" (dtype {dtype})")
        if categorical:
            value = _first_bad(levels, _is_zero_one)
            raise _refusal(
                estimator, where, value,
                f" (dtype {dtype}: categories are labels, not quantities; if they are "
                f"numbers, convert the column with X[{str(name)!r}].astype(float))",
            )
        converted[j] = np.asarray(column, dtype=np.float64)
    if not converted:
        return X
    X = X.copy(deep=False)
    for j, values in converted.items():
        X.isetitem(j, values)
    return X


def _locate_unconvertible(estimator: object, X: Any, exc: Exception) -> ValueError | None:
    """The ValueError naming the first column of an array that is not numeric."""
    try:
        arr = np.asarray(X, dtype=object)
    except Exception:  # pragma: no cover - X was already accepted by numpy
        return None
    if arr.ndim != 2:
        return None
    for j in range(arr.shape[1]):
        for v in arr[:, j]:
            try:
                float(v)
            except (TypeError, ValueError):
                return _refusal(estimator, f"non-numeric column {j} (X[:, {j}])", v)
    return None


#: Keyword arguments the plain-array path of :func:`validate_data` understands.
_PLAIN_ARRAY_PARAMS = {"dtype", "ensure_all_finite", "ensure_min_features", "y_numeric"}


def _plain_array(a: object, ndim: int, dtype: Any, finite: bool) -> NDArray[Any] | None:
    """``a`` converted as :func:`sklearn.utils.check_array` would, when it is a plain
    real ndarray of ``ndim`` dimensions that passes its checks; None otherwise (the
    caller then lets scikit-learn check it and word any error)."""
    if type(a) is not np.ndarray or a.ndim != ndim or a.dtype.kind not in "biuf":
        return None
    if isinstance(dtype, (list, tuple)):
        return None
    if dtype is not None and not (isinstance(dtype, str) and dtype == "numeric"):
        a = a.astype(dtype, copy=False)
    if finite and a.dtype.kind == "f" and not np.isfinite(a).all():
        return None
    return a


# What validate_data returns: X alone without a y to check ("no_validation" or None),
# else (X, y).
if TYPE_CHECKING:
    from typing import Union

    _Validated = Union[NDArray[Any], tuple[NDArray[Any], NDArray[Any]]]


@overload
def validate_data(
    estimator: object, X: Any, y: Literal["no_validation"] | None = ..., reset: bool = ..., **kwargs: Any
) -> NDArray[Any]: ...
@overload
def validate_data(
    estimator: object, X: Any, y: ArrayLike, reset: bool = ..., **kwargs: Any
) -> tuple[NDArray[Any], NDArray[Any]]: ...
def validate_data(
    estimator: object, X: Any, y: Any = "no_validation", reset: bool = True, **kwargs: Any
) -> _Validated:
    """:func:`sklearn.utils.validation.validate_data`, minus its first-call cost on
    plain arrays.

    scikit-learn asks narwhals whether ``X`` is a dataframe, and narwhals's first
    answer in a process scans every installed distribution's entry points (several
    milliseconds, more than a small fit). A plain 2-D real ``numpy.ndarray`` (with a
    plain 1-D real or string ``y``) that passes the checks is converted here exactly as
    ``check_X_y`` would and the estimator's ``n_features_in_`` / ``feature_names_in_``
    are set or checked the same way; anything else, and every error, goes through
    scikit-learn.
    """
    dtype = kwargs.get("dtype", "numeric")
    finite = kwargs.get("ensure_all_finite", True)
    plain = set(kwargs) <= _PLAIN_ARRAY_PARAMS and finite is True
    out = _plain_array(X, 2, dtype, finite) if plain else None
    checked: NDArray[Any] | tuple[NDArray[Any], NDArray[Any]] | None = None
    if out is not None and out.shape[0] >= 1 and out.shape[1] >= kwargs.get("ensure_min_features", 1):
        checked = out
        no_y = isinstance(y, str) and y == "no_validation"
        if y is None and get_tags(estimator).target_tags.required:
            checked = None  # scikit-learn's error
        elif not no_y and y is not None:
            # y_numeric converts only object targets: a real one passes unchanged, and
            # string targets are left to scikit-learn's wording.
            strings = type(y) is np.ndarray and y.dtype.kind == "U" and y.ndim == 1 and not kwargs.get("y_numeric")
            yy = y if strings else _plain_array(y, 1, None, True)
            if yy is None or len(yy) != out.shape[0]:
                checked = None
            else:
                checked = (out, yy)
    if checked is None:
        return cast("_Validated", _sklearn_validate_data(estimator, X, y, reset=reset, **kwargs))
    if reset:
        if hasattr(estimator, "feature_names_in_"):
            delattr(estimator, "feature_names_in_")
    elif getattr(estimator, "feature_names_in_", None) is not None:
        warnings.warn(
            "X does not have valid feature names, but"
            f" {estimator.__class__.__name__} was fitted with feature names"
        )
    _check_n_features(estimator, X, reset=reset)
    return checked


@overload
def validate_numeric_data(
    estimator: object, X: Any, y: Literal["no_validation"] | None = ..., **kwargs: Any
) -> NDArray[Any]: ...
@overload
def validate_numeric_data(
    estimator: object, X: Any, y: ArrayLike, **kwargs: Any
) -> tuple[NDArray[Any], NDArray[Any]]: ...
def validate_numeric_data(
    estimator: object, X: Any, y: Any = "no_validation", **kwargs: Any
) -> _Validated:
    """``validate_data`` to float64 with the column checks above.

    Keyword arguments go to :func:`sklearn.utils.validation.validate_data`
    (``dtype`` defaults to float64 and ``ensure_all_finite`` to True).
    """
    kwargs.setdefault("dtype", np.float64)
    kwargs.setdefault("ensure_all_finite", True)
    X = zero_one_frame(estimator, X)
    try:
        return cast("_Validated", validate_data(estimator, X, y, **kwargs))
    except ValueError as exc:
        text = str(exc)
        if "could not convert" in text or "convert string" in text:
            better = _locate_unconvertible(estimator, X, exc)
            if better is not None:
                raise better from None
        raise


def binary_matrix(
    X: ArrayLike, hint: str, feature_names: Sequence[Any] | NDArray[Any] | None = None
) -> NDArray[np.uint8]:
    """``X`` (validated, 2-D) as a C-contiguous uint8 0/1 matrix, or a ValueError.

    Booleans and numbers equal to 0 or 1 are accepted, also in an ``object`` array
    (a DataFrame with 0/1 or True/False categorical columns). The error names the
    column (by ``feature_names`` when given) and ends with ``hint``; a string value
    also gets the encoder suggestion.
    """
    X = np.asarray(X)
    if X.dtype == np.bool_:
        return np.ascontiguousarray(X, dtype=np.uint8)
    if X.dtype == object:
        for j in range(X.shape[1]):
            bad = _first_bad(X[:, j], _is_zero_one)
            if bad is None:
                continue
            row = next(i for i, v in enumerate(X[:, j]) if v is bad)
            where = column_label(j, feature_names)
            if isinstance(bad, (str, bytes)) or not _is_real(bad):
                raise ValueError(
                    f"X[{row}, {j}] ({where}) = {bad!r} is not 0 or 1; {hint}. For string "
                    f"or categorical columns: {ENCODER_HINT}."
                )
            raise ValueError(f"X[{row}, {j}] ({where}) = {bad!r} is not 0 or 1; {hint}.")
        X = np.asarray(X.astype(np.float64))
    elif not np.issubdtype(X.dtype, np.number):
        if X.dtype.kind in "USO":
            raise ValueError(
                f"X holds strings (dtype {X.dtype}); {hint}. For string or categorical "
                f"columns: {ENCODER_HINT}."
            )
        raise ValueError(f"X has dtype {X.dtype}; {hint}.")
    bad = (X != 0) & (X != 1)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        where = column_label(int(col), feature_names)
        raise ValueError(
            f"X[{row}, {col}] ({where}) = {X[row, col].item()!r} is not 0 or 1; {hint}."
        )
    return np.ascontiguousarray(X, dtype=np.uint8)


def too_large_error(X: NDArray[np.float64], j: int, purpose: str) -> ValueError:
    """ValueError: column ``j`` of ``X`` is too large for ``purpose``; rescale it."""
    return ValueError(
        f"column {j} of X has values too large {purpose} (largest |x| = "
        f"{float(np.abs(X[:, j]).max()):.3g}): they overflow float64. Rescale that "
        "column to moderate units first, e.g. with sklearn.preprocessing.StandardScaler "
        "in a Pipeline."
    )


def center_and_scale(X: ArrayLike, purpose: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Column means and standard deviations of ``X`` computed without overflow.

    Each column is divided by a power of two (exact) bringing its largest magnitude
    into [0.5, 1), so values up to the float limit give finite statistics; when the
    true mean, deviation or standardised values are beyond the float range, a
    ValueError names the column and says to rescale it (``purpose`` completes
    "values too large ...").
    """
    X = np.asarray(X, dtype=np.float64)
    peak = np.abs(X).max(axis=0) if X.shape[0] else np.zeros(X.shape[1])
    exponent = np.where(peak > 0, np.frexp(peak)[1], 0)
    unit = np.ldexp(X, -exponent)
    with np.errstate(over="ignore", invalid="ignore"):
        center = np.ldexp(unit.mean(axis=0), exponent)
        scale = np.ldexp(unit.std(axis=0), exponent)
        ok = np.isfinite(center) & np.isfinite(scale)
        safe = np.where(scale > 0, scale, 1.0)
        ok &= np.isfinite((X - center) / safe).all(axis=0)
    if not ok.all():
        raise too_large_error(X, int(np.flatnonzero(~ok)[0]), purpose)
    return center, scale


def check_classification_labels(y: ArrayLike) -> None:
    """``check_classification_targets`` plus a clear error for mixed label types."""
    y = np.asarray(y)
    if y.dtype == object:
        kinds = {isinstance(v, (str, bytes)) for v in y.ravel()}
        if len(kinds) > 1:
            text = next(v for v in y.ravel() if isinstance(v, (str, bytes)))
            number = next(v for v in y.ravel() if not isinstance(v, (str, bytes)))
            raise ValueError(
                f"y mixes strings and numbers (e.g. {text!r} and {number!r}); class "
                "labels must be all strings or all numbers: convert them, e.g. with "
                "y.astype(str)."
            )
    if not _plain_class_labels(y):
        check_classification_targets(y)


def _plain_class_labels(y: NDArray[Any]) -> bool:
    """True when ``y`` is a non-empty 1-D array of booleans, integers, strings or whole
    finite floats: binary or multiclass labels, which ``check_classification_targets``
    accepts (checked here without its first-call dataframe probe; any other ``y`` goes
    to scikit-learn)."""
    if y.ndim != 1 or y.size == 0:
        return False
    if y.dtype.kind in "biuU":
        return True
    if y.dtype.kind != "f":
        return False
    with np.errstate(invalid="ignore"):
        return bool((np.abs(y) < 2.0**52).all() and (y == np.trunc(y)).all())


def encode_class_labels(y: ArrayLike, needs: str | None = "a classifier") -> tuple[NDArray[Any], NDArray[np.intp]]:
    """``(classes, codes)``: the sorted class labels of ``y`` and each row's class index.

    The labels are checked by :func:`check_classification_labels`. ``needs`` names who
    needs two classes (``"a classifier"``): a ``y`` of a single class is then refused
    with that name; ``None`` accepts a single class.
    """
    check_classification_labels(y)
    classes, codes = _small_integer_classes(y)
    if needs is not None and len(classes) < 2:
        raise ValueError(
            f"y has only one class ({classes[0]!r}); {needs} needs at least 2 classes."
        )
    return classes, codes.ravel()


def _small_integer_classes(y: ArrayLike) -> tuple[NDArray[Any], NDArray[np.intp]]:
    """``np.unique(y, return_inverse=True)``; for a 1-D ``y`` of integers spanning at most
    a few values per row, by counting them in one pass in Rust (``_core.class_codes``)
    instead of sorting them (monk1's 124 labels: ~1 against 5.6 microseconds of a
    60-microsecond Rashomon fit)."""
    arr = np.asarray(y)
    if arr.ndim == 1 and arr.size and (arr.dtype.kind == "i" or (arr.dtype.kind == "u" and arr.dtype.itemsize < 8)):
        # Every such dtype fits int64 exactly.
        out = _core.class_codes(np.ascontiguousarray(arr, dtype=np.int64))
        if out is not None:
            classes, codes = out
            return classes.astype(arr.dtype, copy=False), codes.astype(np.intp, copy=False)
    return np.unique(y, return_inverse=True)


def plain_zero_one_problem(
    estimator: object, X: Any, y: Any
) -> tuple[NDArray[np.uint8], NDArray[Any], NDArray[np.uint32]] | None:
    """``(X, classes, codes)`` for the most common call, checked in a few steps: ``X`` a
    C-contiguous 2-D ``uint8`` (or bool) ndarray of 0s and 1s, ``y`` a 1-D integer
    ndarray of as many rows with at least two classes. ``X`` comes back as ``uint8``
    (not copied), ``classes`` sorted in ``y``'s dtype and ``codes`` each row's class
    index; the estimator's ``n_features_in_`` is set and ``feature_names_in_`` removed,
    as :func:`validate_data` does. Anything else returns None and goes the general way
    (:func:`validate_numeric_data`, :func:`encode_class_labels`), which words every
    error: a small fit (monk1, depth two: ~60 us) spent ~20 us in those checks."""
    if type(X) is not np.ndarray or type(y) is not np.ndarray:
        return None
    if X.ndim != 2 or X.dtype.itemsize != 1 or X.dtype.kind not in "bu" or not X.flags.c_contiguous:
        return None
    n, m = X.shape
    if n == 0 or m == 0 or y.ndim != 1 or len(y) != n:
        return None
    if not (y.dtype.kind == "i" or (y.dtype.kind == "u" and y.dtype.itemsize < 8)):
        return None
    # The 0/1 check and the class codes in one call: numpy's reductions and casts cost
    # more than the work on a cold cache (a fit run between other tools' fits).
    if X.dtype.kind == "b":
        X = X.view(np.uint8)
    out = _core.zero_one_problem(X, y if y.dtype == np.int64 else y.astype(np.int64))
    if out is None or len(out[0]) < 2:
        return None
    classes, codes = out
    vars(estimator).pop("feature_names_in_", None)
    estimator.n_features_in_ = m  # type: ignore[attr-defined]
    return X, classes.astype(y.dtype, copy=False), codes


def sample_weights(sample_weight: ArrayLike | None, X: Any) -> NDArray[np.float64]:
    """``sample_weight`` for the rows of ``X`` as float64: non-negative, finite, with a
    positive sum (all ones when None)."""
    if sample_weight is None and isinstance(X, np.ndarray) and X.ndim == 2 and X.shape[0] > 0:
        # What scikit-learn's check returns for None, without its ~25 us of checks (a
        # third of a small Rashomon set's fit, monk3 d3).
        return np.ones(X.shape[0], dtype=np.float64)
    weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    if not weight.sum() > 0:
        raise ValueError("sample_weight sums to zero; give some samples a positive weight.")
    return weight


def scaled_to_max(weight: NDArray[np.float64], name: str) -> NDArray[np.float64]:
    """``weight / weight.max()``: the solvers see weights in (0, 1], so that sums neither
    overflow (weights near 1e308) nor lose precision (weights near 1e-308) and results
    do not depend on a common scale. Zero-sum weights and positive weights too small,
    next to the largest, to be represented (a ratio under ~1e-308) are refused."""
    top = float(weight.max()) if weight.size else 0.0
    if not top > 0:
        raise ValueError(f"{name} sums to zero; give some samples a positive weight.")
    if not np.isfinite(top):
        raise ValueError(f"{name} contains infinity; pass finite weights.")
    scaled = weight / top
    lost = (weight > 0) & ~(scaled >= np.finfo(np.float64).tiny)
    if lost.any():
        i = int(np.flatnonzero(lost)[0])
        raise ValueError(
            f"{name}[{i}] = {weight[i]!r} is too small next to the largest weight {top!r}: "
            "their ratio cannot be represented. Pass weights within about 1e300 of each "
            "other (set negligible weights to 0)."
        )
    return scaled


def scaled_sample_weights(sample_weight: ArrayLike | None, X: Any) -> NDArray[np.float64] | None:
    """None for None, else :func:`sample_weights` scaled to a largest weight of 1, so that
    a model fitted on them does not depend on their common scale (1e-300 or 1e300)."""
    if sample_weight is None:
        return None
    return scaled_to_max(sample_weights(sample_weight, X), "sample_weight")

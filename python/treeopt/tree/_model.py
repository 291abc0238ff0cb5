"""The decision-tree model shared by every estimator in :mod:`treeopt`.

A :class:`Tree` stores a binary decision tree as parallel node arrays, in the
spirit of :class:`sklearn.tree._tree.Tree`. Node ``0`` is the root. An internal
node ``i`` sends a row ``x`` to ``children_left[i]`` when
``x[feature[i]] <= threshold[i]`` and to ``children_right[i]`` otherwise.

On a 0/1 feature the optimal solvers of :mod:`treeopt` use the threshold
``0.5``: the *left* branch is "feature is 0 / false", the *right* branch is
"feature is 1 / true"; on a numeric column (GOSDT, DL8.5) the threshold is the
midpoint between the two values it parts.

A node may instead carry an *oblique* (linear) test: ``feature[i] ==
TREE_OBLIQUE`` and a row of ``weights`` (one weight per input column), and the
row goes left when ``x @ weights[i] <= threshold[i]``. A tree built with
``task="regression"`` stores one column in ``value``, the node mean of the
target, and predicts that mean.

This module deliberately depends only on numpy and scikit-learn (and, lazily,
on matplotlib inside :meth:`Tree.plot`).
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, SupportsFloat, SupportsInt, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

__all__ = ["Tree", "TREE_LEAF", "TREE_UNDEFINED", "TREE_OBLIQUE"]

#: Child index of a leaf (same value as :mod:`sklearn.tree`).
TREE_LEAF = -1
#: ``feature`` / ``threshold`` value stored at a leaf (same as :mod:`sklearn.tree`).
TREE_UNDEFINED = -2
#: ``feature`` value of an internal node with an oblique test ``x @ weights[i] <= threshold[i]``.
TREE_OBLIQUE = -3

_SCHEMA = "treeopt.tree/1"

# Comparison operators recognised in feature names such as ``"age <= 23.5"``,
# longest first so that ``<=`` is not read as ``<`` followed by ``=``.
_OPERATOR_RE = re.compile(r"<=|>=|==|!=|<|>|=")
_NEGATED_OPERATOR = {
    "<=": ">",
    ">": "<=",
    "<": ">=",
    ">=": "<",
    "==": "!=",
    "=": "!=",
    "!=": "==",
}
_SIMPLE_NAME_RE = re.compile(r"^[\w.\[\]]+$")

# Light fill colours for leaves in :meth:`Tree.to_dot` / :meth:`Tree.plot`,
# indexed by the position of the predicted class.
_LEAF_COLOURS = (
    "#cfe2f3",
    "#f4cccc",
    "#d9ead3",
    "#fff2cc",
    "#d9d2e9",
    "#fce5cd",
    "#d0e0e3",
    "#ead1dc",
)


# --------------------------------------------------------------------------- #
# small helpers
# --------------------------------------------------------------------------- #
def _to_native(value: Any) -> Any:
    """Convert a numpy scalar (or anything with ``.item()``) to a Python native."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def _as_index_array(name: str, values: ArrayLike, n_nodes: int | None = None) -> NDArray[np.int64]:
    """Validate a 1-D integer array (``children_*``, ``feature``) as int64."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {arr.shape}")
    if n_nodes is not None and arr.shape[0] != n_nodes:
        raise ValueError(f"{name} has length {arr.shape[0]} but children_left has length {n_nodes}")
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64, copy=True)
    if arr.dtype.kind == "f" or (arr.dtype.kind == "O" and arr.size == 0):
        arr = arr.astype(np.float64)
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ValueError(f"{name} must contain integers")
        return arr.astype(np.int64)
    if arr.dtype.kind == "O":
        try:
            if all(
                isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) for v in arr
            ):
                return arr.astype(np.int64)
        except (TypeError, OverflowError):
            pass
    raise ValueError(f"{name} must be an integer array, got dtype {arr.dtype}")


def _as_float_array(name: str, values: ArrayLike, ndim: int) -> NDArray[np.float64]:
    try:
        arr = np.array(values, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array: {exc}") from None
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {arr.shape}")
    return arr


def _format_number(x: SupportsFloat, decimals: int | None) -> str:
    """Compact human-readable number: ``10`` not ``10.0``, ``0.3333`` for 1/3.

    ``decimals=None`` prints the number exactly (see :func:`_format_exact`).
    """
    if decimals is None:
        return _format_exact(x)
    x = float(x)
    if not math.isfinite(x):
        return str(x)
    if abs(x) >= 1e15:  # fixed point would print every digit of a huge float
        return format(x, f".{max(decimals, 1) + 2}g")
    if x.is_integer():
        return str(int(x))
    text = f"{x:.{decimals}f}".rstrip("0").rstrip(".")
    if text in ("0", "-0", ""):  # tiny non-zero number: keep significant digits
        text = format(x, f".{max(decimals, 1)}g")
    return text


def _format_exact(x: SupportsFloat) -> str:
    """The shortest text that reads back as exactly the float ``x``.

    ``10`` rather than ``10.0`` for integers below 1e15; otherwise ``repr`` (the
    shortest round-trip form). A threshold printed this way routes every value
    exactly as :meth:`Tree.predict` does, which a rounded one would not (a row
    between the rounded and the true threshold would take the other branch).
    """
    x = float(x)
    if math.isfinite(x) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def _format_linear(weights: NDArray[np.float64], names: list[str] | _DefaultNames) -> str:
    """``"0.5*age - 2*income"`` for an oblique test (zero weights are left out).

    A name that is not a plain identifier is put in parentheses:
    ``0.5*(mean radius)``.

    The terms are listed in column order with exact weights: the score is
    computed exactly in that order (see :meth:`Tree._goes_left`).
    """
    terms: list[str] = []
    for j in np.flatnonzero(weights):
        w, name = weights[j], names[j]
        if not _SIMPLE_NAME_RE.match(name):
            name = f"({name})"  # "0.5*(mean radius)": the term reads unambiguously
        mag = _format_exact(abs(w))
        term = name if mag == "1" else f"{mag}*{name}"
        if not terms:
            terms.append(term if w > 0 else f"-{term}")
        else:
            terms.append(f"+ {term}" if w > 0 else f"- {term}")
    return " ".join(terms) if terms else "0"


class _DefaultNames:
    """The names ``x[0], x[1], ...`` made on demand (no list of ``n_features`` strings)."""

    def __init__(self, n: int) -> None:
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, j: SupportsInt) -> str:
        j = int(j)
        if not 0 <= j < self._n:
            raise IndexError(j)
        return f"x[{j}]"


def binary_columns(X: Any) -> NDArray[np.bool_]:
    """Boolean mask of the columns of ``X`` whose values all lie in ``{0, 1}``.

    Estimators record it in :attr:`Tree.binary_features` at fit time, so that a
    test on such a column prints as a yes/no question.
    """
    X = _to_2d_array(X)
    if X.dtype.kind == "b":
        return np.ones(X.shape[1], dtype=bool)
    if X.dtype.kind in "iu" and X.size and X.min() >= 0 and X.max() <= 1:
        # Integers in [0, 1]: every column. Two whole-array reductions cost far less than
        # the per-column one (car_evaluation, 1,728 x 15: 3 against 80 microseconds).
        return np.ones(X.shape[1], dtype=bool)
    if X.dtype.kind == "u":  # one comparison instead of three
        return cast("NDArray[np.bool_]", np.all(X <= 1, axis=0))
    return cast("NDArray[np.bool_]", np.all((X == 0) | (X == 1), axis=0))


def _negate_condition(name: str) -> str:
    """Negate a condition-like feature name for the false (0) branch.

    ``"a <= t"`` -> ``"a > t"``, ``"a < t"`` -> ``"a >= t"``,
    ``"a == v"`` (or ``"a = v"``) -> ``"a != v"`` and vice versa; a plain
    identifier ``smoker`` -> ``not smoker``; anything else -> ``not (name)``.
    """
    matches = list(_OPERATOR_RE.finditer(name))
    if len(matches) == 1:
        m = matches[0]
        lhs, rhs = name[: m.start()], name[m.end() :]
        if lhs.strip() and rhs.strip():
            op = _NEGATED_OPERATOR[m.group()]
            # keep the user's spacing style around the operator
            if lhs.endswith(" ") or rhs.startswith(" "):
                return f"{lhs.rstrip()} {op} {rhs.lstrip()}"
            return f"{lhs}{op}{rhs}"
    if _SIMPLE_NAME_RE.match(name):
        return f"not {name}"
    return f"not ({name})"


def _refuse_inexact_integers(df: Any) -> None:
    """Refuse integer DataFrame columns that float64 (the common dtype) would round."""
    for name, dtype in zip(df.columns, df.dtypes):
        if cast(str, getattr(dtype, "kind", None)) in "iu":  # every dtype has a kind
            col = df[name].to_numpy()
            if col.size and (col.max() > 2**53 or col.min() < -(2**53)):
                raise ValueError(
                    f"column {name!r} holds integers beyond 2**53, which float64 (the "
                    "common dtype of this DataFrame's mixed columns) cannot represent "
                    "exactly; pass all-integer data as an int64 array, or scale the column"
                )


def _to_2d_array(X: Any) -> NDArray[Any]:
    """Convert X (array-like, DataFrame, sparse) to a 2-D numeric numpy array.

    The dtype is kept when it is boolean, integer or floating (no copy of a large
    uint8 matrix); anything else is converted to float64.
    """
    if hasattr(X, "toarray") and hasattr(X, "nnz"):  # scipy.sparse
        X = X.toarray()
    elif hasattr(X, "iloc") and hasattr(X, "to_numpy"):  # pandas DataFrame
        arr = X.to_numpy()
        if arr.dtype.kind not in "iu" and hasattr(X, "dtypes"):
            _refuse_inexact_integers(X)
        if arr.dtype.kind not in "biuf":
            try:
                arr = X.to_numpy(dtype=np.float64, na_value=np.nan)
            except (TypeError, ValueError) as exc:
                raise ValueError(
                    f"X must contain only numeric columns; conversion failed: {exc}"
                ) from None
        X = arr
    arr = np.asarray(X)
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"X must be numeric; conversion failed: {exc}") from None
    if arr.ndim != 2:
        raise ValueError(
            f"X must be a 2-D array of shape (n_samples, n_features), got shape {arr.shape}"
        )
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError("X contains NaN; treeopt.Tree does not support missing values")
    return arr


#: Largest ``n_features`` :meth:`Tree.from_dict` accepts (2**24 columns).
_MAX_FEATURES = 2**24


def _dict_int(v: object, what: str) -> int:
    """An integer field of a tree dict: a Python int (not bool, not 1.7, not "1")."""
    if isinstance(v, bool) or not isinstance(v, (numbers.Integral, float)):
        raise ValueError(f"tree dict {what} must be an integer, got {v!r:.80}")
    if isinstance(v, float):
        if not (math.isfinite(v) and v.is_integer()):
            raise ValueError(f"tree dict {what} must be an integer, got {v!r}")
        v = int(v)
    v = int(v)
    if not -(2**63) <= v < 2**63:
        raise ValueError(f"tree dict {what} is out of range: {v}")
    return v


def _dict_float(v: object, what: str) -> float:
    """A numeric field of a tree dict: an int or float (not bool, not a string)."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise ValueError(f"tree dict {what} must be a number, got {v!r:.80}")
    try:
        return float(v)
    except OverflowError:
        raise ValueError(f"tree dict {what} is too large for a float: {v!r:.80}") from None


def _dict_labels(
    ids: list[int], nodes: Sequence[Mapping[str, Any]], classes: NDArray[Any] | None
) -> NDArray[np.int64] | None:
    """The ``"label"`` entries of a tree dict's nodes (class indices, on every node of
    a classification tree or on none) as an array in id order, or None."""
    has = [node.get("label") is not None for node in nodes]
    if not any(has):
        return None
    if classes is None:
        raise ValueError("a regression tree dict has no node 'label' entries")
    if not all(has):
        raise ValueError("tree dict node 'label' entries must be given on every node or on none")
    labels = np.zeros(len(nodes), dtype=np.int64)
    for i, node in zip(ids, nodes):
        labels[i] = _dict_int(node["label"], f"'label' of node {i}")
        if not 0 <= labels[i] < len(classes):
            raise ValueError(
                f"'label' of node {i} is {labels[i]}; it must index classes, in [0, {len(classes)})"
            )
    return labels


def _dict_classes(classes: object) -> NDArray[Any]:
    """Class labels of a tree dict: all strings, all bools or all numbers (ints in int64)."""
    if not isinstance(classes, (list, tuple)) or len(classes) == 0:
        raise ValueError("tree dict 'classes' must be a non-empty list of labels")
    if all(isinstance(c, str) for c in classes):
        return np.array(classes, dtype=object if len(classes) == 0 else None)
    if all(isinstance(c, bool) for c in classes):
        return np.array(classes, dtype=bool)
    if any(isinstance(c, bool) or not isinstance(c, numbers.Real) for c in classes):
        kinds = sorted({type(c).__name__ for c in classes})
        raise ValueError(
            f"tree dict 'classes' must be all strings, all booleans or all numbers; got a "
            f"mix of {', '.join(kinds)}"
        )
    if all(isinstance(c, numbers.Integral) for c in classes):
        if any(not -(2**63) <= int(c) < 2**63 for c in classes):
            raise ValueError("tree dict 'classes' holds an integer outside the int64 range")
        return np.array(classes, dtype=np.int64)
    return np.array([float(c) for c in classes], dtype=np.float64)


# --------------------------------------------------------------------------- #
# the model
# --------------------------------------------------------------------------- #
def _node_labels(
    labels: ArrayLike | None, value: NDArray[np.float64], task: str
) -> NDArray[np.int64] | None:
    """``labels`` validated as class indices of a classification tree (int64), or None
    when absent or equal to the argmax of ``value`` at every node."""
    if labels is None:
        return None
    if task == "regression":
        raise ValueError("a regression tree predicts node means; pass labels=None")
    n_nodes, n_classes = value.shape
    labels = _as_index_array("labels", labels, n_nodes)
    if labels.size and (labels.min() < 0 or labels.max() >= n_classes):
        bad = int(np.flatnonzero((labels < 0) | (labels >= n_classes))[0])
        raise ValueError(
            f"labels[{bad}] is {labels[bad]}; labels are class indices in [0, {n_classes})"
        )
    if np.array_equal(labels, np.argmax(value, axis=1)):
        return None
    return labels


class Tree:
    """A fitted binary decision tree stored as node arrays.

    Parameters
    ----------
    children_left, children_right : array-like of int, shape (n_nodes,)
        Index of the left / right child of each node, ``-1`` (``TREE_LEAF``)
        for leaves. Node 0 is the root.
    feature : array-like of int, shape (n_nodes,)
        Feature tested at each internal node (``-2`` at leaves; whatever is
        given for a leaf is normalised to ``-2``).
    threshold : array-like of float, shape (n_nodes,)
        Threshold of each internal node (``-2.0`` at leaves, normalised). A row
        goes left when ``x[feature] <= threshold``, right otherwise. With 0/1
        features and threshold ``0.5``: left = false (0), right = true (1).
    value : array-like of float, shape (n_nodes, n_classes)
        Weighted class totals of the training rows reaching each node
        (finite, non-negative). ``(n_nodes, 1, n_classes)`` is also accepted.
    weighted_n_node_samples : array-like of float, shape (n_nodes,)
        Total training weight reaching each node.
    classes : array-like, shape (n_classes,), optional
        Class labels (unique); defaults to ``arange(n_classes)``.
    feature_names : sequence of str, optional
        Names of the ``n_features`` input columns.
    n_features : int, optional
        Number of input columns. Defaults to ``len(feature_names)`` when names
        are given, else ``weights.shape[1]`` when weights are given, else
        ``max(feature) + 1`` (``0`` for a root-only tree).
    weights : array-like of float, shape (n_nodes, n_features), optional
        Weights of the oblique tests: an internal node with ``feature ==
        TREE_OBLIQUE`` (-3) sends a row left when ``x @ weights[i] <=
        threshold[i]``. Rows of the other nodes are ignored (stored as zeros).
        Stored as ``None`` when no node is oblique.
    binary_features : None, True or array-like of bool, shape (n_features,)
        Which input columns are known to hold only 0 and 1 (recorded by the
        estimators at fit, from the training data or the binarizer). A test
        ``x[j] <= t`` with ``0 <= t < 1`` on such a column prints as the yes/no
        question ``if name:`` (true = the column is 1). ``None`` (unknown) makes
        every test print as ``name <= t``; ``True`` marks every column.
    weight_label : str, default="n"
        What ``weighted_n_node_samples`` and ``value`` measure, as printed at
        every node: ``n`` for (weighted) counts of training rows; a tree whose
        weights are something else says so (extracted trees store the
        probability mass of each node's region and print ``mass``).
    task : {"classification", "regression"}, default="classification"
        For ``"regression"``, ``value`` has one column holding the (weighted)
        mean target of the training rows reaching each node (any finite
        number), ``classes`` must be None and :meth:`predict` returns the leaf
        mean.
    labels : array-like of int, shape (n_nodes,), optional
        Index (into ``classes``) of the class each node predicts, for a tree
        fitted to an objective whose best label is not always the heaviest
        class (e.g. ``misclassification_cost`` of
        :class:`~treeopt.GOSDTClassifier`: a leaf predicts the class of least
        expected cost). :meth:`predict`, :attr:`prediction` and every printed
        form follow it; :meth:`predict_proba` still gives the class proportions
        of ``value``. ``None`` (the default): each node predicts
        ``argmax(value[i])``. Labels equal to that argmax everywhere are stored
        as ``None``.

    Raises
    ------
    ValueError
        If the arrays are inconsistent or do not describe a proper binary tree
        rooted at node 0.

    Notes
    -----
    All attributes are plain numpy arrays / Python objects, so trees pickle.
    Missing values (NaN) in ``X`` are rejected at prediction time.

    Examples
    --------
    A depth-1 tree on a 0/1 feature ``smoker``:

    >>> t = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2.0, -2.0],
    ...          [[6, 4], [5, 1], [1, 3]], [10, 6, 4], feature_names=["smoker"],
    ...          binary_features=True)
    >>> t.predict([[0], [1]]).tolist()
    [0, 1]
    >>> print(t.to_text())
    if smoker:
        predict 1  (n=4; 0: 1, 1: 3; p=0.75)
    else:  # not smoker
        predict 0  (n=6; 0: 5, 1: 1; p=0.8333)
    """

    children_left: NDArray[np.int64]
    children_right: NDArray[np.int64]
    feature: NDArray[np.int64]
    threshold: NDArray[np.float64]
    value: NDArray[np.float64]
    weighted_n_node_samples: NDArray[np.float64]
    #: None for a regression tree.
    classes: NDArray[Any] | None
    feature_names: list[str] | None
    n_features: int
    _node_depth: NDArray[np.int64]

    # Defaults for trees pickled before oblique tests and regression existed.
    weights: NDArray[np.float64] | None = None
    task: str = "classification"
    binary_features: NDArray[np.bool_] | None = None
    weight_label: str = "n"
    labels: NDArray[np.int64] | None = None

    def __init__(
        self,
        children_left: ArrayLike,
        children_right: ArrayLike,
        feature: ArrayLike,
        threshold: ArrayLike,
        value: ArrayLike,
        weighted_n_node_samples: ArrayLike,
        *,
        classes: ArrayLike | None = None,
        feature_names: Iterable[str] | None = None,
        n_features: int | np.integer[Any] | None = None,
        weights: ArrayLike | None = None,
        task: str = "classification",
        binary_features: ArrayLike | None = None,
        weight_label: str = "n",
        labels: ArrayLike | None = None,
    ) -> None:
        if task not in ("classification", "regression"):
            raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")
        children_left = _as_index_array("children_left", children_left)
        n_nodes = children_left.shape[0]
        if n_nodes == 0:
            raise ValueError("a tree needs at least one node (the root)")
        children_right = _as_index_array("children_right", children_right, n_nodes)
        feature = _as_index_array("feature", feature, n_nodes)
        threshold = _as_float_array("threshold", threshold, 1)
        if threshold.shape[0] != n_nodes:
            raise ValueError(
                f"threshold has length {threshold.shape[0]} but children_left has "
                f"length {n_nodes}"
            )
        value = _as_float_array("value", value, np.ndim(value))
        if value.ndim == 3 and value.shape[1] == 1:  # sklearn layout, one output
            value = value[:, 0, :]
        if value.ndim != 2:
            raise ValueError(
                f"value must be a 2-D array (n_nodes, n_classes), got shape {value.shape}"
            )
        if value.shape[0] != n_nodes:
            raise ValueError(
                f"value has {value.shape[0]} rows but children_left has length {n_nodes}"
            )
        if value.shape[1] == 0:
            raise ValueError("value must have at least one class column")
        if task == "regression":
            if value.shape[1] != 1:
                raise ValueError(
                    "a regression tree stores one value column (the node mean), got "
                    f"{value.shape[1]} columns"
                )
            if not np.all(np.isfinite(value)):
                raise ValueError("value must contain finite node means")
            if classes is not None:
                raise ValueError("a regression tree has no classes; pass classes=None")
        elif not np.all(np.isfinite(value)) or np.any(value < 0):
            raise ValueError("value must contain finite, non-negative class totals")
        weighted = _as_float_array("weighted_n_node_samples", weighted_n_node_samples, 1)
        if weighted.shape[0] != n_nodes:
            raise ValueError(
                f"weighted_n_node_samples has length {weighted.shape[0]} but "
                f"children_left has length {n_nodes}"
            )
        if not np.all(np.isfinite(weighted)) or np.any(weighted < 0):
            raise ValueError("weighted_n_node_samples must be finite and non-negative")

        # ---- structure ----------------------------------------------------
        is_leaf = children_left == TREE_LEAF
        if np.any(is_leaf != (children_right == TREE_LEAF)):
            bad = int(np.flatnonzero(is_leaf != (children_right == TREE_LEAF))[0])
            raise ValueError(
                f"node {bad} has exactly one child (children_left={children_left[bad]}, "
                f"children_right={children_right[bad]}); every node must have 0 or 2"
            )
        internal = ~is_leaf
        kids = np.concatenate([children_left[internal], children_right[internal]])
        if kids.size and (kids.min() < 1 or kids.max() >= n_nodes):
            raise ValueError(
                f"child indices must be in [1, {n_nodes - 1}] (node 0 is the root) "
                f"or -1 for leaves; got {kids.min() if kids.min() < 1 else kids.max()}"
            )
        n_parents = np.bincount(kids, minlength=n_nodes)
        if np.any(n_parents[1:] != 1):
            bad = int(np.flatnonzero(n_parents[1:] != 1)[0]) + 1
            raise ValueError(
                f"node {bad} has {n_parents[bad]} parents; every non-root node must "
                "have exactly one parent"
            )
        node_depth = np.full(n_nodes, -1, dtype=np.int64)
        frontier = np.array([0], dtype=np.int64)
        level = 0
        while frontier.size:
            node_depth[frontier] = level
            frontier = frontier[internal[frontier]]
            frontier = np.concatenate([children_left[frontier], children_right[frontier]])
            level += 1
        if np.any(node_depth < 0):
            bad = int(np.flatnonzero(node_depth < 0)[0])
            raise ValueError(
                f"node {bad} is not reachable from the root (the arrays contain a cycle)"
            )

        # ---- tests ----------------------------------------------------------
        feature = np.where(is_leaf, TREE_UNDEFINED, feature)
        threshold = np.where(is_leaf, float(TREE_UNDEFINED), threshold)
        oblique = internal & (feature == TREE_OBLIQUE)
        if oblique.any() and weights is None:
            bad = int(np.flatnonzero(oblique)[0])
            raise ValueError(
                f"internal node {bad} has an oblique test (feature={TREE_OBLIQUE}) but no "
                "weights were given"
            )
        if np.any(feature[internal & ~oblique] < 0):
            bad = int(np.flatnonzero(internal & ~oblique & (feature < 0))[0])
            raise ValueError(f"internal node {bad} has a negative feature index")
        if np.any(np.isnan(threshold)):
            raise ValueError("threshold must not contain NaN")
        axis = internal & ~oblique
        used = int(feature[axis].max()) + 1 if axis.any() else 0
        if weights is not None:
            weights = _as_float_array("weights", weights, 2)
            if weights.shape[0] != n_nodes:
                raise ValueError(
                    f"weights has {weights.shape[0]} rows but children_left has length {n_nodes}"
                )
            if not np.all(np.isfinite(weights[oblique])):
                raise ValueError("weights of oblique nodes must be finite")
            weights[~oblique] = 0.0
            n_cols = weights.shape[1]
            if not oblique.any():
                weights = None

        if feature_names is not None:
            if isinstance(feature_names, str):
                raise ValueError("feature_names must be a sequence of str, not a str")
            feature_names = [str(f) for f in feature_names]
        if n_features is None:
            if feature_names is not None:
                n_features = len(feature_names)
            elif weights is not None:
                n_features = n_cols
            else:
                n_features = used
        if (
            not isinstance(n_features, numbers.Integral)
            or isinstance(n_features, (bool, np.bool_))
            or n_features < 0
        ):
            raise ValueError(f"n_features must be a non-negative int, got {n_features!r}")
        n_features = int(n_features)
        if used > n_features:
            raise ValueError(f"the tree tests feature {used - 1} but n_features={n_features}")
        if weights is not None and weights.shape[1] != n_features:
            raise ValueError(
                f"weights has {weights.shape[1]} columns but n_features={n_features}"
            )
        if feature_names is not None and len(feature_names) != n_features:
            raise ValueError(
                f"feature_names has {len(feature_names)} names but n_features={n_features}"
            )

        if binary_features is not None:
            if binary_features is True:
                binary_features = np.ones(n_features, dtype=bool)
            else:
                bf = np.asarray(binary_features)
                if bf.ndim != 1 or bf.shape[0] != n_features or bf.dtype.kind not in "biu" or (
                    bf.dtype.kind != "b" and not np.all((bf == 0) | (bf == 1))
                ):
                    raise ValueError(
                        "binary_features must be None, True or one bool per feature "
                        f"(n_features={n_features}), got {binary_features!r:.80}"
                    )
                binary_features = bf.astype(bool)

        if not isinstance(weight_label, str) or not re.fullmatch(
            r"[A-Za-z_]\w{0,31}", weight_label
        ):
            raise ValueError(
                f"weight_label must be a short identifier such as 'n' or 'mass', got "
                f"{weight_label!r:.80}"
            )

        n_classes = value.shape[1]
        class_labels: NDArray[Any] | None = None  # stays None for a regression tree
        if task == "regression":
            pass
        elif classes is None:
            class_labels = np.arange(n_classes)
        else:
            class_labels = np.array(classes, copy=True)
            if class_labels.ndim != 1 or class_labels.shape[0] != n_classes:
                raise ValueError(
                    f"classes must be a 1-D array of length {n_classes} (the number of "
                    f"value columns), got shape {class_labels.shape}"
                )
            try:
                n_unique = len(set(_to_native(c) for c in class_labels))
            except TypeError:
                n_unique = n_classes
            if n_unique != n_classes:
                raise ValueError(f"classes must be unique, got {class_labels.tolist()}")
        labels = _node_labels(labels, value, task)

        self.children_left = children_left
        self.children_right = children_right
        self.feature = feature
        self.threshold = threshold
        self.value = value
        self.weighted_n_node_samples = weighted
        self.classes = class_labels
        self.feature_names = feature_names
        self.n_features = n_features
        self.weights = weights
        self.task = task
        self.binary_features = binary_features
        self.weight_label = weight_label
        self.labels = labels
        self._node_depth = node_depth

    @classmethod
    def _from_solver(
        cls,
        children_left: NDArray[np.int64],
        children_right: NDArray[np.int64],
        feature: NDArray[np.int64],
        threshold: NDArray[np.float64],
        value: NDArray[np.float64],
        *,
        classes: NDArray[Any] | None,
        feature_names: list[str] | None,
        n_features: int,
        binary_features: NDArray[np.bool_] | bool | None,
        labels: NDArray[np.int64] | None,
        node_depth: NDArray[np.int64],
    ) -> Tree:
        """A classification tree from node arrays a Rust solver built, without the
        checks of ``__init__``: the solver emits a proper binary tree rooted at node 0
        (leaves -1 / -2 / -2.0) with finite, non-negative class totals, and the
        estimator passes its own validated classes and features; ``node_depth`` is each
        node's depth, as the solver computed it. Internal:
        callers with arrays of any other origin use ``Tree(...)``."""
        tree = cls.__new__(cls)
        left = np.asarray(children_left, dtype=np.int64)
        right = np.asarray(children_right, dtype=np.int64)
        if binary_features is True:
            binary_features = np.ones(n_features, dtype=bool)
        elif binary_features is not None:
            binary_features = np.asarray(binary_features, dtype=bool)
        tree.children_left = left
        tree.children_right = right
        tree.feature = np.asarray(feature, dtype=np.int64)
        tree.threshold = np.asarray(threshold, dtype=np.float64)
        tree.value = value
        tree.weighted_n_node_samples = value.sum(axis=1)
        tree.classes = np.array(classes, copy=True) if classes is not None else np.arange(value.shape[1])
        tree.feature_names = feature_names
        tree.n_features = int(n_features)
        tree.weights = None
        tree.task = "classification"
        tree.binary_features = binary_features
        tree.weight_label = "n"
        labels = None if labels is None else np.asarray(labels, dtype=np.int64)
        if labels is not None and np.array_equal(labels, np.argmax(value, axis=1)):
            labels = None
        tree.labels = labels
        tree._node_depth = node_depth
        return tree

    # ------------------------------------------------------------------ #
    # structure
    # ------------------------------------------------------------------ #
    @property
    def node_count(self) -> int:
        """int : Number of nodes (internal nodes and leaves)."""
        return int(self.children_left.shape[0])

    @property
    def n_classes(self) -> int:
        """int : Number of classes (columns of ``value``)."""
        return int(self.value.shape[1])

    @property
    def is_leaf(self) -> NDArray[np.bool_]:
        """ndarray of bool, shape (n_nodes,) : True for leaves."""
        return cast("NDArray[np.bool_]", self.children_left == TREE_LEAF)

    @property
    def n_leaves(self) -> int:
        """int : Number of leaves."""
        return int(np.count_nonzero(self.is_leaf))

    @property
    def depth(self) -> int:
        """int : Length of the longest root-to-leaf path (a root-only tree has depth 0)."""
        return int(self._node_depth.max())

    @property
    def node_depth(self) -> NDArray[np.int64]:
        """ndarray of int64, shape (n_nodes,) : Depth of every node (root = 0)."""
        return self._node_depth.copy()

    @property
    def prediction(self) -> NDArray[Any]:
        """ndarray, shape (n_nodes,) : Class label predicted at every node.

        ``classes[labels[i]]`` when the tree has ``labels``, else
        ``classes[argmax(value[i])]`` (ties go to the first class). For a
        regression tree, the node mean ``value[i, 0]``.
        """
        if self.task == "regression":
            return self.value[:, 0].copy()
        return cast("NDArray[Any]", self.classes)[self._class_index()]

    def _class_index(self) -> NDArray[np.intp]:
        """Index into ``classes`` of the class every node predicts."""
        if self.labels is not None:
            return self.labels
        return cast("NDArray[np.intp]", np.argmax(self.value, axis=1))

    # ------------------------------------------------------------------ #
    # prediction
    # ------------------------------------------------------------------ #
    def _validate_X(self, X: Any) -> NDArray[Any]:
        rows = _to_2d_array(X)
        if rows.shape[1] < self.n_features:
            raise ValueError(
                f"X has {rows.shape[1]} features (columns) but the tree expects at least "
                f"{self.n_features}"
            )
        return rows

    def _goes_left(
        self, X: NDArray[Any], nodes: NDArray[np.int64], rows: NDArray[np.int64]
    ) -> NDArray[np.bool_]:
        """Evaluate the test of ``nodes[k]`` on row ``rows[k]`` of ``X``.

        This is the single place where a node test is computed; every
        traversal goes through it.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        nodes : ndarray of int64 - internal node reached by each selected row.
        rows : ndarray of int64 - the selected row indices.

        Returns
        -------
        ndarray of bool : True where the row goes to the left child.
        """
        feature = self.feature[nodes]
        if self.weights is None:
            return self._axis_left(X[rows, feature], nodes)
        axis = feature >= 0
        left = np.empty(nodes.shape[0], dtype=bool)
        left[axis] = self._axis_left(X[rows[axis], feature[axis]], nodes[axis])
        obl = ~axis
        if obl.any():
            # The score is summed in float64, term by term in column order over the
            # non-zero weights: exactly what the printed rule ``2*a - b <= t`` says.
            Xo = X[rows[obl], : self.n_features]
            W = self.weights[nodes[obl]]
            score = np.zeros(Xo.shape[0])
            for j in np.flatnonzero(np.any(W != 0, axis=0)):
                score += W[:, j] * np.asarray(Xo[:, j], dtype=np.float64)
            left[obl] = score <= self.threshold[nodes[obl]]
        return left

    def _axis_left(self, x: NDArray[Any], nodes: NDArray[np.int64]) -> NDArray[np.bool_]:
        """``x <= threshold[nodes]``, exact for integer ``x`` too.

        numpy would compare an int64 with a float64 threshold after rounding the
        integer to float64 (``2**53 + 1 <= 2**53`` would be True); an integer
        ``x`` is instead compared with ``floor(threshold)`` in integer arithmetic.
        """
        if x.dtype.kind not in "iu":
            return x <= self.threshold[nodes]
        below, above, bound = self._integer_thresholds(x.dtype)
        return ~below[nodes] & (above[nodes] | (x <= bound[nodes]))

    def _integer_thresholds(
        self, dtype: np.dtype[np.integer[Any]]
    ) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.integer[Any]]]:
        """Per node: (no value of ``dtype`` goes left, every value goes left, floor(t))."""
        info = np.iinfo(dtype)
        floor = np.floor(self.threshold)
        below = floor < int(info.min)
        above = floor >= int(info.max)
        clipped = np.where(below | above, 0.0, floor)
        # an integer-valued float strictly inside the dtype's range converts exactly
        bound = np.array([int(v) for v in clipped.tolist()], dtype=dtype)
        return below, above, bound

    def _apply(self, X: NDArray[Any]) -> NDArray[np.int64]:
        n = X.shape[0]
        node = np.zeros(n, dtype=np.int64)
        is_leaf = self.is_leaf
        active = np.arange(n, dtype=np.int64)
        for _ in range(self.depth):  # one vectorised step per level
            active = active[~is_leaf[node[active]]]
            if active.size == 0:
                break
            cur = node[active]
            left = self._goes_left(X, cur, active)
            node[active] = np.where(left, self.children_left[cur], self.children_right[cur])
        return node

    def apply(self, X: Any) -> NDArray[np.int64]:
        """Index of the leaf reached by every row.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_columns)
            ``n_columns >= n_features``; columns are used by position.

        Returns
        -------
        ndarray of int64, shape (n_samples,)
        """
        return self._apply(self._validate_X(X))

    def predict(self, X: Any) -> NDArray[Any]:
        """Predicted class label of every row (``classes[argmax(value[leaf])]``).

        A tree with ``labels`` predicts ``classes[labels[leaf]]`` (for a tree fitted
        with a cost matrix: the leaf's class of least expected cost, which need not be
        its most frequent class). For a regression tree, the mean ``value[leaf, 0]``
        of the leaf.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_columns)

        Returns
        -------
        ndarray, shape (n_samples,) with the dtype of ``classes`` (float64 for
        a regression tree).
        """
        leaves = self.apply(X)
        if self.task == "regression":
            return cast("NDArray[np.float64]", self.value[leaves, 0].copy())
        return cast("NDArray[Any]", self.classes)[self._class_index()[leaves]]

    def predict_proba(self, X: Any) -> NDArray[np.float64]:
        """Class proportions of the leaf reached by every row.

        A leaf with zero total weight predicts the uniform distribution. These are
        the proportions of ``value`` even in a tree with ``labels``: its
        :meth:`predict` follows the labels (e.g. the cost-minimising class), not
        necessarily the argmax of these proportions.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_columns)

        Returns
        -------
        ndarray of float64, shape (n_samples, n_classes)
            Columns follow the order of ``classes``.

        Raises
        ------
        ValueError
            For a regression tree (use :meth:`predict`).
        """
        if self.task == "regression":
            raise ValueError("predict_proba is only defined for classification trees; use predict")
        return self._node_proba()[self.apply(X)]

    def _node_proba(self) -> NDArray[np.float64]:
        # Scale each row by its largest entry first: totals such as 1e308 + 1e308
        # would overflow to inf and give proportions of 0.
        peak = self.value.max(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            scaled = self.value / peak
            proba: NDArray[np.float64] = scaled / scaled.sum(axis=1, keepdims=True)
        proba[peak[:, 0] <= 0] = 1.0 / self.n_classes
        return proba

    # ------------------------------------------------------------------ #
    # display helpers
    # ------------------------------------------------------------------ #
    def _resolve_feature_names(self, feature_names: Iterable[str] | None) -> list[str] | _DefaultNames:
        if feature_names is None:
            feature_names = self.feature_names
        if feature_names is None:
            return _DefaultNames(self.n_features)
        if isinstance(feature_names, str):
            raise ValueError("feature_names must be a sequence of str, not a str")
        names = [str(f) for f in feature_names]
        if len(names) != self.n_features:
            raise ValueError(
                f"feature_names has {len(names)} names but the tree has "
                f"n_features={self.n_features}"
            )
        return names

    def _resolve_class_names(self, class_names: Iterable[Any] | Mapping[Any, Any] | None) -> list[str]:
        if self.task == "regression":
            return []
        labels = [_to_native(c) for c in cast("NDArray[Any]", self.classes)]
        if class_names is None:
            return [str(c) for c in labels]
        if isinstance(class_names, Mapping):
            return [str(class_names.get(c, c)) for c in labels]
        if isinstance(class_names, str):
            raise ValueError("class_names must be a sequence or a mapping, not a str")
        names = [str(c) for c in class_names]
        if len(names) != self.n_classes:
            raise ValueError(
                f"class_names has {len(names)} names but the tree has " f"{self.n_classes} classes"
            )
        return names

    def _is_binary_test(self, node: int) -> bool:
        """True when the node tests a column known to be 0/1 with ``0 <= t < 1``.

        Only then does ``x <= t`` mean "the column is 0", i.e. the yes/no question
        "is the column 1?" is false.
        """
        f = int(self.feature[node])
        if f < 0 or self.binary_features is None or not self.binary_features[f]:
            return False
        t: float = self.threshold[node]
        return 0.0 <= t < 1.0

    def _branches(
        self, node: int, names: list[str] | _DefaultNames, decimals: int | None = None
    ) -> list[tuple[int, str]]:
        """``[(child, condition), (child, condition)]`` for an internal node.

        The first entry is the branch where the node's test reads as *true*:
        the right child for a yes/no test of a 0/1 column (the column is 1),
        the left child for a generic ``x <= t`` test. Thresholds and weights are
        printed exactly (``decimals`` does not round them). The second condition
        of an oblique test is short (``linear score > t``) instead of repeating
        every term.
        """
        left, right = int(self.children_left[node]), int(self.children_right[node])
        if self.feature[node] == TREE_OBLIQUE:
            lhs = _format_linear(cast("NDArray[np.float64]", self.weights)[node], names)
            t = _format_exact(self.threshold[node])
            return [(left, f"{lhs} <= {t}"), (right, f"linear score > {t}")]
        name = names[self.feature[node]]
        if self._is_binary_test(node):
            return [(right, name), (left, _negate_condition(name))]
        t = _format_exact(self.threshold[node])
        return [(left, f"{name} <= {t}"), (right, f"{name} > {t}")]

    def _leaf_summary(
        self, node: int, cnames: list[str], decimals: int | None
    ) -> tuple[str, str, str | None, str | None]:
        if self.task == "regression":
            n = _format_number(self.weighted_n_node_samples[node], decimals)
            return _format_number(self.value[node, 0], decimals), n, None, None
        k = int(self._class_index()[node])
        counts = ", ".join(
            f"{c}: {_format_number(v, decimals)}" for c, v in zip(cnames, self.value[node])
        )
        p = _format_number(self._node_proba()[node, k], decimals)
        n = _format_number(self.weighted_n_node_samples[node], decimals)
        return cnames[k], n, counts, p

    def to_text(
        self,
        feature_names: Iterable[str] | None = None,
        class_names: Iterable[Any] | Mapping[Any, Any] | None = None,
        decimals: int | None = 4,
    ) -> str:
        """Readable nested if/else rules.

        Parameters
        ----------
        feature_names : sequence of str, optional
            Overrides the stored ``feature_names``; default names are ``x[j]``.
        class_names : sequence of str or mapping, optional
            Names in the order of ``classes`` or a ``{label: name}`` mapping.
        decimals : int or None, default=4
            Decimals for counts, proportions and leaf means (``None``: exact). Thresholds and
            weights of tests are always printed exactly (the shortest text that
            reads back as the stored float), so that the rules route every row
            exactly as :meth:`predict` does.

        Returns
        -------
        str

        Notes
        -----
        The ``if`` line of every split is the branch where its test is *true*.
        A test of a column known to be 0/1 (see ``binary_features``) with a
        threshold in ``[0, 1)`` prints ``if name:`` (true = the column is 1) and
        ``else:  # <negation>``; when the name is itself a condition (as produced
        by :class:`~treeopt.NumericBinarizer`), the negation flips the operator:
        ``age <= 23.5`` / ``age > 23.5``, ``a < t`` / ``a >= t``,
        ``a == v`` / ``a != v``, otherwise ``not name``. Other tests print
        ``name <= t`` / ``name > t``; an oblique test prints
        ``if 0.5*a - 2*b <= t:`` (its score summed in float64, term by term in
        that order) and ``else:  # linear score > t``. Each leaf shows the predicted class, the
        node weight ``n``, the weighted class totals and the proportion ``p`` of
        the predicted class.

        Examples
        --------
        >>> t = Tree([1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [0, 1, -2, -2, -2],
        ...          [0.5, 0.5, -2, -2, -2],
        ...          [[50, 50], [40, 10], [10, 40], [30, 2], [10, 8]],
        ...          [100, 50, 50, 32, 18],
        ...          feature_names=["age <= 23.5", "priors > 2"], binary_features=True)
        >>> print(t.to_text(class_names=["no", "yes"]))
        if age <= 23.5:
            predict yes  (n=50; no: 10, yes: 40; p=0.8)
        else:  # age > 23.5
            if priors > 2:
                predict no  (n=18; no: 10, yes: 8; p=0.5556)
            else:  # priors <= 2
                predict no  (n=32; no: 30, yes: 2; p=0.9375)
        """
        names = self._resolve_feature_names(feature_names)
        cnames = self._resolve_class_names(class_names)
        wl = self.weight_label
        indent = "    "
        lines = []
        # ("line", text, level) or ("node", node id, level)
        stack: list[tuple[str, str | int, int]] = [("node", 0, 0)]
        while stack:
            kind, item, level = stack.pop()
            pad = indent * level
            if kind == "line":
                lines.append(pad + cast(str, item))
                continue
            node = cast(int, item)
            if self.children_left[node] == TREE_LEAF:
                label, n, counts, p = self._leaf_summary(node, cnames, decimals)
                if counts is None:  # regression: the leaf mean
                    lines.append(f"{pad}predict {label}  ({wl}={n})")
                else:
                    lines.append(f"{pad}predict {label}  ({wl}={n}; {counts}; p={p})")
                continue
            (first, cond), (second, neg) = self._branches(node, names, decimals)
            # pushed in reverse order of emission
            stack.append(("node", second, level + 1))
            stack.append(("line", f"else:  # {neg}", level))
            stack.append(("node", first, level + 1))
            stack.append(("line", f"if {cond}:", level))
        return "\n".join(lines)

    def to_dot(
        self,
        feature_names: Iterable[str] | None = None,
        class_names: Iterable[Any] | Mapping[Any, Any] | None = None,
    ) -> str:
        """Graphviz DOT source of the tree.

        Internal nodes show their test; edges are labelled ``true`` / ``false``
        (the true branch is drawn first, i.e. on the left). Leaves show the
        predicted class, weight and class totals, and are coloured by class.

        Parameters
        ----------
        feature_names : sequence of str, optional
        class_names : sequence of str or mapping, optional

        Returns
        -------
        str
            Render e.g. with ``dot -Tpng tree.dot -o tree.png``.
        """
        names = self._resolve_feature_names(feature_names)
        cnames = self._resolve_class_names(class_names)

        wl = self.weight_label

        def esc(s: str) -> str:
            return s.replace("\\", "\\\\").replace('"', '\\"')

        out = [
            "digraph Tree {",
            '    node [shape=box, style="rounded,filled", fillcolor="white", '
            'fontname="Helvetica"];',
            '    edge [fontname="Helvetica"];',
        ]
        stack = [0]
        while stack:
            node = stack.pop()
            n = _format_number(self.weighted_n_node_samples[node], 4)
            if self.task == "regression":
                counts = f"value = {_format_number(self.value[node, 0], 4)}"
            else:
                counts = ", ".join(
                    f"{c}: {_format_number(v, 4)}" for c, v in zip(cnames, self.value[node])
                )
            if self.children_left[node] == TREE_LEAF:
                if self.task == "regression":
                    out.append(
                        f'    {node} [label="{esc(counts)}\\n{self.weight_label} = {n}", '
                        f'fillcolor="{_LEAF_COLOURS[0]}"];'
                    )
                    continue
                k = int(self._class_index()[node])
                colour = _LEAF_COLOURS[k % len(_LEAF_COLOURS)]
                out.append(
                    f'    {node} [label="{esc(cnames[k])}\\n{wl} = {n}\\n[{esc(counts)}]", '
                    f'fillcolor="{colour}"];'
                )
                continue
            (first, cond), (second, _neg) = self._branches(node, names, 4)
            out.append(f'    {node} [label="{esc(cond)}\\n{wl} = {n}\\n[{esc(counts)}]"];')
            out.append(f'    {node} -> {first} [label="true"];')
            out.append(f'    {node} -> {second} [label="false"];')
            stack.append(second)
            stack.append(first)
        out.append("}")
        return "\n".join(out) + "\n"

    def plot(
        self,
        ax: Axes | None = None,
        feature_names: Iterable[str] | None = None,
        class_names: Iterable[Any] | Mapping[Any, Any] | None = None,
    ) -> Axes:
        """Draw the tree with matplotlib (boxes and lines).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Axes to draw on; a new figure is created when omitted.
        feature_names : sequence of str, optional
        class_names : sequence of str or mapping, optional

        Returns
        -------
        matplotlib.axes.Axes

        Raises
        ------
        ImportError
            If matplotlib is not installed (``pip install matplotlib``).
        """
        try:
            import matplotlib.pyplot as plt
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "Tree.plot requires matplotlib; install it with `pip install matplotlib`"
            ) from exc
        names = self._resolve_feature_names(feature_names)
        cnames = self._resolve_class_names(class_names)

        # Layout: leaves on consecutive x positions (true branch first), parents
        # centred above their children, one row per depth level.
        x_pos = np.zeros(self.node_count)
        order = []  # post-order
        edges = []  # (parent, child, "true"/"false")
        stack = [(0, False)]
        next_leaf = 0
        while stack:
            node, expanded = stack.pop()
            if self.children_left[node] == TREE_LEAF:
                x_pos[node] = next_leaf
                next_leaf += 1
                order.append(node)
                continue
            (first, _), (second, _) = self._branches(node, names, 4)
            if expanded:
                x_pos[node] = (x_pos[first] + x_pos[second]) / 2.0
                order.append(node)
                continue
            edges.append((node, first, "true"))
            edges.append((node, second, "false"))
            stack.append((node, True))
            stack.append((second, False))
            stack.append((first, False))
        y_pos = -self._node_depth.astype(float)

        if ax is None:
            width = max(4.0, 2.2 * self.n_leaves)
            height = max(2.5, 1.5 * (self.depth + 1))
            _fig, ax = plt.subplots(figsize=(width, height))

        for parent, child, label in edges:
            ax.plot(
                [x_pos[parent], x_pos[child]],
                [y_pos[parent], y_pos[child]],
                color="0.4",
                linewidth=1.0,
                zorder=1,
            )
            ax.text(
                (x_pos[parent] + x_pos[child]) / 2.0,
                (y_pos[parent] + y_pos[child]) / 2.0,
                label,
                ha="center",
                va="center",
                fontsize=8,
                color="0.3",
                bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none"),
                zorder=2,
            )
        for node in order:
            n = _format_number(self.weighted_n_node_samples[node], 4)
            if self.children_left[node] == TREE_LEAF and self.task == "regression":
                text = f"{_format_number(self.value[node, 0], 4)}\n{self.weight_label} = {n}"
                face = _LEAF_COLOURS[0]
            elif self.children_left[node] == TREE_LEAF:
                k = int(self._class_index()[node])
                text = f"{cnames[k]}\n{self.weight_label} = {n}"
                face = _LEAF_COLOURS[k % len(_LEAF_COLOURS)]
            else:
                (_, cond), _ = self._branches(node, names, 4)
                text = f"{cond}\n{self.weight_label} = {n}"
                face = "white"
            ax.text(
                x_pos[node],
                y_pos[node],
                text,
                ha="center",
                va="center",
                fontsize=9,
                bbox=dict(boxstyle="round,pad=0.4", fc=face, ec="0.3"),
                zorder=3,
            )
        ax.set_xlim(-0.7, max(next_leaf - 1, 0) + 0.7)
        ax.set_ylim(-self.depth - 0.6, 0.6)
        ax.set_axis_off()
        return ax

    # ------------------------------------------------------------------ #
    # serialisation
    # ------------------------------------------------------------------ #
    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable description of the tree (schema ``treeopt.tree/1``).

        Returns
        -------
        dict
            ``{"schema": "treeopt.tree/1", "n_features": int, "classes": [...],
            "feature_names": [...] or None, "nodes": [...]}`` where every node
            is ``{"id": int, "feature": int or None, "threshold": float or None,
            "left": int or None, "right": int or None, "value": [float, ...],
            "weight": float}``. Leaves have ``feature``, ``threshold``, ``left``
            and ``right`` set to ``None`` (JSON ``null``). Nodes are listed in
            id order. Class labels are Python natives (int/float/str/bool).

            Optional fields, present only when used: an oblique node has
            ``"feature": None`` and ``"weights": [float, ...]`` (one per
            feature); a regression tree has ``"task": "regression"``,
            ``"classes": None`` and one-entry ``value`` lists (the node mean);
            a tree that knows which columns are 0/1 has ``"binary_features":
            [bool, ...]`` (one per feature; absent means unknown); a tree whose
            node weights are not counts has ``"weight_label"`` (e.g. ``"mass"``);
            a tree with ``labels`` has ``"label": int`` at every node, the index
            in ``classes`` of the class the node predicts (absent: the class of
            the largest ``value`` entry, the first on ties).
        """
        nodes = []
        for i in range(self.node_count):
            leaf = bool(self.children_left[i] == TREE_LEAF)
            oblique = not leaf and self.feature[i] == TREE_OBLIQUE
            node = {
                "id": i,
                "feature": None if leaf or oblique else int(self.feature[i]),
                "threshold": None if leaf else float(self.threshold[i]),
                "left": None if leaf else int(self.children_left[i]),
                "right": None if leaf else int(self.children_right[i]),
                "value": [float(v) for v in self.value[i]],
                "weight": float(self.weighted_n_node_samples[i]),
            }
            if oblique:
                node["weights"] = [float(w) for w in cast("NDArray[np.float64]", self.weights)[i]]
            if self.labels is not None:
                node["label"] = int(self.labels[i])
            nodes.append(node)
        out = {
            "schema": _SCHEMA,
            "n_features": int(self.n_features),
            "classes": None
            if self.task == "regression"
            else [_to_native(c) for c in cast("NDArray[Any]", self.classes)],
            "feature_names": None if self.feature_names is None else list(self.feature_names),
            "nodes": nodes,
        }
        if self.task == "regression":
            out["task"] = "regression"
        if self.binary_features is not None:
            out["binary_features"] = [bool(b) for b in self.binary_features]
        if self.weight_label != "n":
            out["weight_label"] = self.weight_label
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Tree:
        """Rebuild a tree from :meth:`to_dict` output (e.g. after a JSON round trip).

        Parameters
        ----------
        d : dict

        Returns
        -------
        Tree

        Raises
        ------
        ValueError
            On an unknown schema or malformed nodes.
        """
        if not isinstance(d, Mapping):
            raise ValueError("from_dict expects a dict")
        if d.get("schema") != _SCHEMA:
            raise ValueError(f"unsupported tree schema {d.get('schema')!r}; expected {_SCHEMA!r}")
        task = d.get("task", "classification")
        if task not in ("classification", "regression"):
            raise ValueError(
                f"tree dict 'task' must be 'classification' or 'regression', got {task!r:.80}"
            )
        for key in ("nodes", "n_features") + (() if task == "regression" else ("classes",)):
            if key not in d:
                raise ValueError(f"tree dict is missing the key {key!r}")
        nodes = d["nodes"]
        if not isinstance(nodes, (list, tuple)):
            raise ValueError("tree dict 'nodes' must be a list of node dicts")
        n = len(nodes)
        if n == 0:
            raise ValueError("tree dict has no nodes")
        n_features = _dict_int(d["n_features"], "'n_features'")
        if not 0 <= n_features <= _MAX_FEATURES:
            raise ValueError(
                f"tree dict 'n_features' must be between 0 and {_MAX_FEATURES}, got {n_features}"
            )
        classes = None
        if task != "regression":
            classes = _dict_classes(d["classes"])
        n_values = 1 if classes is None else len(classes)
        names = d.get("feature_names")
        if names is not None:
            if not isinstance(names, (list, tuple)) or not all(isinstance(x, str) for x in names):
                raise ValueError("tree dict 'feature_names' must be null or a list of strings")
            if len(names) != n_features:
                raise ValueError(
                    f"tree dict 'feature_names' has {len(names)} names but n_features={n_features}"
                )
        binary = d.get("binary_features")
        if binary is not None:
            if not isinstance(binary, (list, tuple)) or not all(
                isinstance(b, bool) for b in binary
            ):
                raise ValueError("tree dict 'binary_features' must be null or a list of booleans")
            if len(binary) != n_features:
                raise ValueError(
                    f"tree dict 'binary_features' has {len(binary)} entries but "
                    f"n_features={n_features}"
                )
        for i, node in enumerate(nodes):
            if not isinstance(node, Mapping):
                raise ValueError(
                    f"tree dict 'nodes'[{i}] must be a dict, got {type(node).__name__}"
                )
        ids = [_dict_int(node.get("id"), f"'id' of nodes[{k}]") for k, node in enumerate(nodes)]
        if sorted(ids) != list(range(n)):
            raise ValueError("node ids must be 0, 1, ..., n_nodes - 1 (each exactly once)")
        left = np.full(n, TREE_LEAF, dtype=np.int64)
        right = np.full(n, TREE_LEAF, dtype=np.int64)
        feature = np.full(n, TREE_UNDEFINED, dtype=np.int64)
        threshold = np.full(n, float(TREE_UNDEFINED))
        value = np.zeros((n, n_values))
        weight = np.zeros(n)
        weights = {}
        labels = _dict_labels(ids, nodes, classes)
        for i, node in zip(ids, nodes):
            where = f"of node {i}"
            if node.get("left") is not None or node.get("right") is not None:
                left[i] = _dict_int(node.get("left"), f"'left' {where}")
                right[i] = _dict_int(node.get("right"), f"'right' {where}")
                if node.get("weights") is not None:
                    w = node["weights"]
                    if not isinstance(w, (list, tuple)) or len(w) != n_features:
                        raise ValueError(
                            f"'weights' {where} must be a list of n_features={n_features} numbers"
                        )
                    feature[i] = TREE_OBLIQUE
                    weights[i] = [_dict_float(x, f"'weights' {where}") for x in w]
                else:
                    feature[i] = _dict_int(node.get("feature"), f"'feature' {where}")
                    if not 0 <= feature[i] < n_features:
                        raise ValueError(
                            f"'feature' {where} is {feature[i]}, outside [0, n_features="
                            f"{n_features})"
                        )
                threshold[i] = _dict_float(node.get("threshold"), f"'threshold' {where}")
            v = node.get("value")
            if not isinstance(v, (list, tuple)) or len(v) != n_values:
                raise ValueError(
                    f"'value' {where} must be a list with one entry per class ({n_values})"
                )
            value[i] = [_dict_float(x, f"'value' {where}") for x in v]
            weight[i] = _dict_float(node.get("weight"), f"'weight' {where}")
        weight_matrix = None
        if weights:
            weight_matrix = np.zeros((n, n_features))
            for i, w in weights.items():
                weight_matrix[i] = w
        return cls(
            left, right, feature, threshold, value, weight,
            classes=classes,
            feature_names=names,
            n_features=n_features,
            weights=weight_matrix,
            task=task,
            binary_features=binary,
            weight_label=d.get("weight_label", "n"),
            labels=labels,
        )

    @classmethod
    def from_sklearn(
        cls,
        estimator: Any,
        feature_names: Iterable[str] | None = None,
        binary_features: ArrayLike | None = None,
    ) -> Tree:
        """Convert a fitted scikit-learn decision tree.

        Parameters
        ----------
        estimator : DecisionTreeClassifier, DecisionTreeRegressor (or ExtraTree*), or its ``tree_``
            A fitted single-output tree, or a raw ``sklearn.tree._tree.Tree``
            of a classifier (classes then default to ``arange(n_classes)``). A
            regressor gives a ``task="regression"`` tree.
        feature_names : sequence of str, optional
            Defaults to the estimator's ``feature_names_in_`` when present.
        binary_features : None, True or array-like of bool, optional
            Which columns hold only 0/1 (scikit-learn does not record it), e.g.
            ``treeopt._tree.binary_columns(X_train)``. Unknown (``None``) prints
            every split as ``name <= t``.

        Returns
        -------
        Tree

        Notes
        -----
        ``value`` is rebuilt as weighted class totals: scikit-learn >= 1.4 stores
        class fractions, older versions totals; both are normalised per node and
        multiplied by ``weighted_n_node_samples``. scikit-learn casts ``X`` to
        float32 before comparing with thresholds while :class:`Tree` compares in
        the dtype of ``X``; predictions are identical unless a value lies within
        float32 rounding of a threshold.
        """
        if hasattr(estimator, "tree_") or hasattr(estimator, "fit"):
            from sklearn.base import is_classifier, is_regressor
            from sklearn.utils.validation import check_is_fitted

            if not (is_classifier(estimator) or is_regressor(estimator)):
                raise ValueError(
                    "from_sklearn needs a classification or regression tree, got "
                    f"{type(estimator).__name__}"
                )
            check_is_fitted(estimator, "tree_")
            if getattr(estimator, "n_outputs_", 1) != 1:
                raise ValueError("multi-output trees are not supported")
            sk = estimator.tree_
            if is_regressor(estimator):
                return cls(
                    np.asarray(sk.children_left),
                    np.asarray(sk.children_right),
                    np.asarray(sk.feature),
                    np.asarray(sk.threshold),
                    np.asarray(sk.value, dtype=np.float64)[:, 0, :1],
                    np.asarray(sk.weighted_n_node_samples, dtype=np.float64),
                    feature_names=feature_names
                    if feature_names is not None
                    else (
                        [str(f) for f in estimator.feature_names_in_]
                        if hasattr(estimator, "feature_names_in_")
                        else None
                    ),
                    n_features=int(estimator.n_features_in_),
                    task="regression",
                    binary_features=binary_features,
                )
            classes = np.asarray(estimator.classes_)
            n_features = int(estimator.n_features_in_)
            if feature_names is None and hasattr(estimator, "feature_names_in_"):
                feature_names = [str(f) for f in estimator.feature_names_in_]
        elif hasattr(estimator, "children_left") and hasattr(estimator, "value"):
            sk = estimator
            classes = None
            n_features = int(sk.n_features)
        else:
            raise TypeError(
                "from_sklearn expects a fitted DecisionTreeClassifier or its tree_, "
                f"got {type(estimator).__name__}"
            )
        sk_value = np.asarray(sk.value, dtype=np.float64)
        if sk_value.ndim != 3 or sk_value.shape[1] != 1:
            raise ValueError("multi-output trees are not supported")
        sk_value = sk_value[:, 0, :]
        n_classes = int(np.asarray(sk.n_classes).ravel()[0])
        sk_value = sk_value[:, :n_classes]
        weighted = np.asarray(sk.weighted_n_node_samples, dtype=np.float64)
        totals = sk_value.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where(totals > 0, sk_value / totals * weighted[:, None], 0.0)
        return cls(
            np.asarray(sk.children_left),
            np.asarray(sk.children_right),
            np.asarray(sk.feature),
            np.asarray(sk.threshold),
            value,
            weighted,
            classes=classes,
            feature_names=feature_names,
            n_features=n_features,
            binary_features=binary_features,
        )

    # ------------------------------------------------------------------ #
    # dunder methods
    # ------------------------------------------------------------------ #
    def to_sklearn(self) -> DecisionTreeClassifier | DecisionTreeRegressor:
        """This tree as a fitted scikit-learn ``DecisionTreeClassifier`` / ``DecisionTreeRegressor``.

        The estimator's ``predict`` gives what :meth:`predict` gives, so scikit-learn's
        tree tools (``plot_tree``, ``export_text``, ``export_graphviz``) and the
        converters built on them (dtreeviz, skl2onnx) work on treeopt's trees.

        Returns
        -------
        DecisionTreeClassifier or DecisionTreeRegressor
            With ``classes_`` (classification), ``n_features_in_`` and, when the tree
            has feature names, ``feature_names_in_``. Node weights become
            ``weighted_n_node_samples`` (``n_node_samples`` is their rounded value);
            ``impurity`` is the Gini impurity of the class proportions, and NaN for a
            regression tree (treeopt keeps node means, not variances).

        Raises
        ------
        ValueError
            For a tree with oblique (linear) tests, which an axis-aligned scikit-learn
            tree cannot represent.

        Notes
        -----
        A leaf whose predicted class (``labels``, e.g. the cheapest class under a cost
        matrix) is not its most frequent one gets that class's indicator as its value,
        so that scikit-learn's argmax predicts it; elsewhere ``predict_proba`` agrees
        with treeopt's. scikit-learn casts ``X`` to float32 before comparing with the
        (float64) thresholds: inputs that float32 represents exactly (0/1 columns,
        integers up to 2**24, float32 data) predict identically, other values only
        differ within float32 rounding of a threshold.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.tree import export_text
        >>> from treeopt import DL85Classifier
        >>> X = np.array([[0, 1], [1, 1], [1, 0], [0, 0]] * 5)
        >>> clf = DL85Classifier(max_depth=1).fit(X, X[:, 0])
        >>> sk = clf.tree_.to_sklearn()
        >>> print(export_text(sk, feature_names=["a", "b"]))
        |--- a <= 0.50
        |   |--- class: 0
        |--- a >  0.50
        |   |--- class: 1
        <BLANKLINE>
        >>> bool((sk.predict(X) == clf.predict(X)).all())
        True
        """
        from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
        from sklearn.tree._tree import NODE_DTYPE
        from sklearn.tree._tree import Tree as SklearnTree

        if self.weights is not None:
            raise ValueError(
                "this tree has oblique (linear) tests, which a scikit-learn tree cannot "
                "represent; only axis-aligned trees convert"
            )
        regression = self.task == "regression"
        estimator: DecisionTreeClassifier | DecisionTreeRegressor
        n = self.node_count
        internal = ~self.is_leaf
        nodes = np.zeros(n, dtype=NODE_DTYPE)
        nodes["left_child"] = self.children_left
        nodes["right_child"] = self.children_right
        nodes["feature"] = np.where(internal, self.feature, TREE_UNDEFINED)
        nodes["threshold"] = np.where(internal, self.threshold, float(TREE_UNDEFINED))
        nodes["weighted_n_node_samples"] = self.weighted_n_node_samples
        nodes["n_node_samples"] = np.rint(np.clip(self.weighted_n_node_samples, 0, 2.0**62))
        if regression:
            value = self.value[:, :1]
            nodes["impurity"] = np.nan
            estimator = DecisionTreeRegressor()
        else:
            value = self._node_proba()
            nodes["impurity"] = 1.0 - np.sum(value**2, axis=1)
            label = self._class_index()
            off = np.argmax(value, axis=1) != label  # labels that are not the majority
            value[off] = np.eye(self.n_classes)[label[off]]
            estimator = DecisionTreeClassifier()
            estimator.classes_ = cast("NDArray[Any]", self.classes).copy()
            estimator.n_classes_ = self.n_classes
        if "missing_go_to_left" in cast("tuple[str, ...]", NODE_DTYPE.names):  # a structured dtype
            nodes["missing_go_to_left"] = 1
        n_outputs = np.array([value.shape[1]], dtype=np.intp)
        tree = SklearnTree(self.n_features, n_outputs, 1)
        tree.__setstate__(
            {"max_depth": self.depth, "node_count": n, "nodes": nodes,
             "values": np.ascontiguousarray(value[:, None, :], dtype=np.float64)}
        )
        estimator.tree_ = tree
        estimator.n_outputs_ = 1
        estimator.n_features_in_ = estimator.max_features_ = self.n_features
        if self.feature_names is not None:
            estimator.feature_names_in_ = np.asarray(self.feature_names, dtype=object)
        return estimator

    def __repr__(self) -> str:
        if self.task == "regression":
            what = "task='regression'"
        else:
            what = f"classes={[_to_native(c) for c in cast('NDArray[Any]', self.classes)]!r}"
        return (
            f"Tree(node_count={self.node_count}, n_leaves={self.n_leaves}, "
            f"depth={self.depth}, n_features={self.n_features}, {what})"
        )

    def __eq__(self, other: object) -> bool:
        """Structural equality: same arrays (labels included), classes, feature names and
        n_features."""
        if not isinstance(other, Tree):
            return NotImplemented
        if self.node_count != other.node_count or self.n_features != other.n_features:
            return False
        if self.task != other.task or (self.weights is None) != (other.weights is None):
            return False
        if self.weight_label != other.weight_label:
            return False
        # (each "b is not None" below follows from the test before it)
        a, b = self.labels, other.labels
        if (a is None) != (b is None) or (a is not None and b is not None and not np.array_equal(a, b)):
            return False
        fa, fb = self.binary_features, other.binary_features
        if (fa is None) != (fb is None) or (fa is not None and fb is not None and not np.array_equal(fa, fb)):
            return False
        if (
            self.weights is not None
            and other.weights is not None
            and not np.array_equal(self.weights, other.weights)
        ):
            return False
        if self.task == "regression":
            return (
                all(
                    np.array_equal(getattr(self, k), getattr(other, k))
                    for k in ("children_left", "children_right", "feature", "threshold",
                              "value", "weighted_n_node_samples")
                )
                and self.feature_names == other.feature_names
            )
        arrays = (
            "children_left",
            "children_right",
            "feature",
            "threshold",
            "value",
            "weighted_n_node_samples",
        )
        for name in arrays:
            a, b = getattr(self, name), getattr(other, name)
            if a.shape != b.shape or not np.array_equal(a, b):
                return False
        classes, other_classes = cast("NDArray[Any]", self.classes), cast("NDArray[Any]", other.classes)
        if classes.shape != other_classes.shape:
            return False
        if [_to_native(c) for c in classes] != [_to_native(c) for c in other_classes]:
            return False
        return self.feature_names == other.feature_names

    # mutable arrays: not hashable (declared as typeshed declares list's and dict's)
    __hash__ = None  # type: ignore[assignment]

"""Provably optimal sparse decision trees: scikit-learn estimators over the Rust solvers.

The estimators here validate input with scikit-learn's own helpers, pack the 0/1 matrix
once, run the solver in Rust without the GIL and expose the result as a
:class:`treeopt.Tree` with a certificate (``objective_``, ``lower_bound_``, ``status_``).
"""

from numbers import Integral, Real
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    _num_samples,
    column_or_1d,
    validate_data,
)

from . import _core
from ._binary import BinaryTreeClassifierMixin, as_binary_matrix
from ._tree import Tree

__all__ = ["DL85Classifier", "GOSDTClassifier"]

_BINARIZER_HINT = (
    "treeopt's optimal tree solvers need 0/1 features; binarize numeric columns first, "
    "e.g. with treeopt.NumericBinarizer (in a Pipeline)"
)


def _encode_targets(y):
    """Classes and class indices of y, with clear errors for unusable targets."""
    if y.dtype == object and len({isinstance(v, str) for v in y}) > 1:
        raise ValueError(
            "y mixes strings and numbers; use labels of one type "
            "(e.g. convert them all with y.astype(str))."
        )
    check_classification_targets(y)
    classes, encoded = np.unique(y, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(
            f"y has only one class ({classes[0]!r}); a classifier needs at least 2 classes."
        )
    return classes, np.ascontiguousarray(encoded, dtype=np.uint32)


def _fit_weights(est, X, y, sample_weight):
    """Sample weights combined with class weights, validated, as float64 (or None)."""
    if sample_weight is None and est.class_weight is None:
        return None
    weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    if est.class_weight is not None:
        weight = weight * compute_sample_weight(est.class_weight, y)
    if not weight.sum() > 0:
        raise ValueError("sample_weight sums to zero; give some samples a positive weight.")
    return np.ascontiguousarray(weight, dtype=np.float64)


def _reference_errors(y, y_ref, classes, weight):
    """Per row, the weight a reference model misclassifies (lower-bound guessing)."""
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
    wrong = (y_ref != y).astype(np.float64)
    return np.ascontiguousarray(wrong if weight is None else wrong * weight)


def _tree_from_result(res, classes, feature_names, n_features):
    """The shared Tree model from the arrays a Rust solver returned."""
    feature = res["feature"]
    value = res["value"]
    return Tree(
        res["children_left"],
        res["children_right"],
        feature,
        np.where(feature >= 0, 0.5, -2.0),
        value,
        value.sum(axis=1),
        classes=classes,
        feature_names=None if feature_names is None else list(feature_names),
        n_features=n_features,
    )


class _OptimalTreeClassifier(BinaryTreeClassifierMixin, ClassifierMixin, BaseEstimator):
    """Shared fit plumbing of the optimal tree classifiers over 0/1 features."""

    _binary_hint = _BINARIZER_HINT

    def _validate_fit_input(self, X, y, sample_weight):
        X, y = validate_data(
            self, X, y, dtype=None, ensure_all_finite=True, ensure_min_features=0
        )
        # Targets first: a one-row fit is reported as a one-class problem even when a
        # binarizer upstream produced no column from it.
        self.classes_, y_encoded = _encode_targets(y)
        if X.shape[1] == 0:
            raise ValueError(
                f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is "
                "required: pass at least one 0/1 feature."
            )
        weight = _fit_weights(self, X, y, sample_weight)
        return as_binary_matrix(X, _BINARIZER_HINT), y, y_encoded, weight

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None, y_ref=None):
        """Finds the optimal tree for the 0/1 matrix X and labels y.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            0/1 (or boolean) features.
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
        """
        if np.isnan(self.regularization):
            raise ValueError("regularization is NaN; pass a number >= 0 such as 0.01.")
        Xb, y, y_encoded, weight = self._validate_fit_input(X, y, sample_weight)
        reference = None if y_ref is None else _reference_errors(y, y_ref, self.classes_, weight)
        self._set_result(self._solve(Xb, y_encoded, weight, reference))
        return self

    def _set_result(self, res):
        self.tree_ = _tree_from_result(
            res, self.classes_, getattr(self, "feature_names_in_", None), self.n_features_in_
        )
        self.objective_ = float(res["objective"])
        self.lower_bound_ = float(res["lower_bound"])
        guess = res.get("guessed_lower_bound")
        self.guessed_lower_bound_ = None if guess is None else float(guess)
        self.status_ = str(res["status"])
        self.n_leaves_ = int(self.tree_.n_leaves)
        self.search_stats_ = {
            k: res[k] for k in ("subproblems", "expansions", "seconds", "memory_bytes")
        }
        if self.status_ == "interrupted":
            warnings.warn(
                "search interrupted; returning the best tree found so far "
                f"(objective {self.objective_:.6g}, lower bound {self.lower_bound_:.6g})",
                RuntimeWarning,
                stacklevel=4,
            )
        if self.verbose:
            print(
                f"[treeopt] {self.status_}: objective {self.objective_:.6f}, lower bound "
                f"{self.lower_bound_:.6f}, {self.n_leaves_} leaves, "
                f"{res['subproblems']} subproblems, {res['seconds']:.3f}s"
            )


class GOSDTClassifier(_OptimalTreeClassifier):
    """Provably optimal sparse decision tree (GOSDT) over 0/1 features.

    Minimises ``weighted misclassification / total weight + regularization * leaves``,
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
        Seconds after which the search stops and returns the best tree so far
        (``status_ == "time_limit"``).
    memory_limit : int or None, default=None
        Bytes the subproblem store may use; reaching it stops the search the same way
        (``status_ == "memory_limit"``).
    class_weight : dict, "balanced" or None, default=None
        Weights multiplying the sample weights of each class.
    verbose : bool, default=False
        Print the search progress (elapsed, lower bound, objective, gap, subproblems).

    Attributes
    ----------
    tree_ : treeopt.Tree
        The fitted tree.
    classes_ : ndarray
        Class labels.
    objective_ : float
        Objective of ``tree_`` on the training data.
    lower_bound_ : float
        Proven lower bound on the optimal objective.
    status_ : str
        ``"optimal"`` (proven), ``"matched_reference"`` (with ``y_ref``: the search
        closed on the guessed bound, see ``guessed_lower_bound_``), ``"time_limit"``,
        ``"memory_limit"`` or ``"interrupted"``.
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
    """

    _parameter_constraints = {
        "regularization": [Interval(Real, 0, None, closed="left")],
        "max_depth": [Interval(Integral, 0, None, closed="left"), None],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "memory_limit": [Interval(Integral, 1, None, closed="left"), None],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        regularization=0.01,
        max_depth=None,
        time_limit=None,
        memory_limit=None,
        class_weight=None,
        verbose=False,
    ):
        self.regularization = regularization
        self.max_depth = max_depth
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.class_weight = class_weight
        self.verbose = verbose

    def _solve(self, Xb, y_encoded, weight, reference):
        """Runs the Rust solver: returns its result dict."""
        return _core.gosdt_fit(
            Xb,
            y_encoded,
            len(self.classes_),
            weight,
            float(self.regularization),
            max_depth=self.max_depth,
            time_limit=None if self.time_limit is None else float(self.time_limit),
            memory_limit=self.memory_limit,
            verbose=bool(self.verbose),
            reference_errors=reference,
        )


class DL85Classifier(_OptimalTreeClassifier):
    """Optimal decision tree under a depth limit (DL8.5) over 0/1 features.

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
    time_limit : float or None, default=None
        Seconds after which the best tree so far is returned (``status_ == "time_limit"``).
    memory_limit : int or None, default=None
        Bytes the subproblem cache may use (``status_ == "memory_limit"`` when reached).
    class_weight : dict, "balanced" or None, default=None
        Weights multiplying the sample weights of each class.
    verbose : bool, default=False
        Print the search progress.

    Attributes
    ----------
    tree_, classes_, objective_, lower_bound_, guessed_lower_bound_, status_, n_leaves_, search_stats_
        As for :class:`GOSDTClassifier`; ``objective_`` is the weighted error rate
        (plus the leaf penalty when ``regularization > 0``).

    Examples
    --------
    >>> import numpy as np
    >>> from treeopt import DL85Classifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(200, 6))
    >>> y = (X[:, 0] & X[:, 1]) | X[:, 2]
    >>> clf = DL85Classifier(max_depth=3).fit(X, y)
    >>> clf.status_, clf.tree_.depth, clf.score(X, y)
    ('optimal', 3, 1.0)
    """

    _parameter_constraints = {
        "max_depth": [Interval(Integral, 0, None, closed="left")],
        "min_samples_leaf": [
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0, 1, closed="neither"),
        ],
        "regularization": [Interval(Real, 0, None, closed="left")],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "memory_limit": [Interval(Integral, 1, None, closed="left"), None],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        max_depth=3,
        min_samples_leaf=1,
        regularization=0.0,
        time_limit=None,
        memory_limit=None,
        class_weight=None,
        verbose=False,
    ):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.regularization = regularization
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.class_weight = class_weight
        self.verbose = verbose

    def _solve(self, Xb, y_encoded, weight, reference):
        # Rows of zero weight take no part in the fit, nor in the support counts.
        n_rows = Xb.shape[0] if weight is None else int(np.count_nonzero(weight))
        if isinstance(self.min_samples_leaf, Integral):
            min_leaf = int(self.min_samples_leaf)
        else:
            min_leaf = max(1, int(np.ceil(self.min_samples_leaf * n_rows)))
        if 2 * min_leaf > n_rows and self.max_depth > 0:
            warnings.warn(
                f"min_samples_leaf={self.min_samples_leaf} needs at least {2 * min_leaf} "
                f"rows for a split and there are {n_rows}: the tree is a single leaf.",
                UserWarning,
                stacklevel=4,
            )
        return _core.dl85_fit(
            Xb,
            y_encoded,
            len(self.classes_),
            weight,
            int(self.max_depth),
            min_leaf,
            float(self.regularization),
            time_limit=None if self.time_limit is None else float(self.time_limit),
            memory_limit=self.memory_limit,
            verbose=bool(self.verbose),
            reference_errors=reference,
        )

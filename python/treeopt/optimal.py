"""Provably optimal sparse decision trees: scikit-learn estimators over the Rust solvers.

The estimators here validate input with scikit-learn's own helpers, pack the 0/1 matrix
once, run the solver in Rust without the GIL and expose the result as a
:class:`treeopt.Tree` with a certificate (``objective_``, ``lower_bound_``, ``status_``).
"""

import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import (
    _num_samples,
    column_or_1d,
    validate_data,
)

from . import _core
from ._binary import BinaryTreeClassifierMixin, as_binary_matrix, distinct_rows
from .tree import Tree, best_pruning, subtree
from ._validation import encode_class_labels, sample_weights, scaled_to_max

__all__ = ["DL85Classifier", "GOSDTClassifier"]

_BINARIZER_HINT = (
    "treeopt's optimal tree solvers need 0/1 features; binarize numeric columns first, "
    "e.g. with treeopt.NumericBinarizer (in a Pipeline)"
)


#: Integer limits at or above this mean "no limit in practice" and are passed to Rust as
#: this value (they would not fit its 64-bit integers otherwise).
_INT_SATURATION = np.iinfo(np.int64).max


def _saturated(value):
    """An integer parameter for Rust: None stays None, huge values are capped."""
    return None if value is None else min(int(value), _INT_SATURATION)


def _refuse_booleans(est):
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


def _fit_weights(est, X, y, sample_weight):
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
        binary_features=True,  # the solvers only take 0/1 columns
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
        self.classes_, y_encoded = encode_class_labels(y)
        y_encoded = np.ascontiguousarray(y_encoded, dtype=np.uint32)
        if X.shape[1] == 0:
            raise ValueError(
                f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is "
                "required: pass at least one 0/1 feature."
            )
        weight, self._weight_unit = _fit_weights(self, X, y, sample_weight)
        names = getattr(self, "feature_names_in_", None)
        return as_binary_matrix(X, _BINARIZER_HINT, names), y, y_encoded, weight

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
        _refuse_booleans(self)
        if np.isnan(self.regularization):
            raise ValueError("regularization is NaN; pass a number >= 0 such as 0.01.")
        self._fit_started = time.perf_counter()
        Xb, y, y_encoded, weight = self._validate_fit_input(X, y, sample_weight)
        reference = None if y_ref is None else _reference_errors(y, y_ref, self.classes_, weight)
        res = self._solve(Xb, y_encoded, weight, reference)
        self._set_result(res)
        interrupt = res.get("interrupt")
        if interrupt is not None:
            # Ctrl-C (or another signal handler's exception) during the search: the best
            # tree so far is stored above (status_ "interrupted"), and the exception goes
            # on to the caller, so that a loop of fits or a grid search stops too.
            raise interrupt
        return self

    def _time_left(self):
        """Seconds of ``time_limit`` left for the search: the limit bounds the whole
        ``fit`` (input checks and warm start included), as the user times it."""
        if self.time_limit is None:
            return None
        spent = time.perf_counter() - getattr(self, "_fit_started", time.perf_counter())
        return max(float(self.time_limit) - spent, 1e-3)

    #: Seconds of search after which a fit with no time_limit warns that it is slow.
    _slow_fit_seconds = 10.0

    def _slow_fit_warning(self):
        """``(seconds, message)``: what to change, shown once through ``warnings`` when a
        fit with no ``time_limit`` is still searching after ``_slow_fit_seconds``
        (``None`` with a limit)."""
        if self.time_limit is not None:
            return None
        name = type(self).__name__
        return self._slow_fit_seconds, (
            f"{name}.fit has searched for {self._slow_fit_seconds:g} s with no time_limit and may run much "
            "longer. To get a tree sooner: set time_limit (seconds; the best tree so far "
            "is returned with status_ 'time_limit' and a proven lower_bound_), lower "
            "max_depth, raise regularization, or give fewer 0/1 columns (e.g. "
            "NumericBinarizer(max_thresholds=4), or treeopt.OptimalTreeClassifier on the "
            "raw columns). Ctrl-C stops the fit and keeps the best tree so far."
        )

    def _set_result(self, res):
        # The solver saw weights scaled to a largest weight of 1: node values go back to
        # the caller's units (weighted class totals) when those are representable.
        unit = getattr(self, "_weight_unit", 1.0)
        if unit != 1.0:
            with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                value = res["value"] * unit
            positive = res["value"] > 0
            if np.all(np.isfinite(value)) and np.all(value[positive] >= np.finfo(float).tiny):
                res = {**res, "value": value}
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
        if self.status_ == "memory_limit" and self.memory_limit is None:
            warnings.warn(
                f"{type(self).__name__} ran out of memory before proving its tree optimal: "
                f"the tree returned has objective {self.objective_:.6g} against a proven "
                f"lower bound of {self.lower_bound_:.6g}. To finish, set max_depth, raise "
                "regularization or give fewer 0/1 columns; set memory_limit (bytes) to "
                "stop sooner.",
                UserWarning,
                stacklevel=3,
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
        Seconds of ``fit`` (input checks included) after which the search stops and
        returns the best tree so far (``status_ == "time_limit"``). Without a limit, a
        search still running after 10 s warns once with what to change.
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
        Objective of ``tree_`` on the training data:
        ``sum(w[i] for misclassified rows i) / sum(w) + regularization * n_leaves_``
        with ``w[i] = sample_weight[i] * class_weight[y[i]]`` (each factor 1 when not
        given; ``"balanced"`` as in :func:`sklearn.utils.class_weight.compute_sample_weight`
        on the training ``y``), that is
        ``1 - clf.score(X, y, sample_weight=w) + regularization * n_leaves_``. Only the
        ratios of the weights matter (they are scaled to a largest weight of 1).
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
            max_depth=_saturated(self.max_depth),
            time_limit=self._time_left(),
            slow_fit_warning=self._slow_fit_warning(),
            memory_limit=_saturated(self.memory_limit),
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
        Seconds of ``fit`` after which the best tree so far is returned (``status_ ==
        "time_limit"``). Without a limit, a search still running after 10 s warns once
        with what to change.
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
            _saturated(self.max_depth),
            _saturated(min_leaf),
            float(self.regularization),
            time_limit=self._time_left(),
            slow_fit_warning=self._slow_fit_warning(),
            memory_limit=_saturated(self.memory_limit),
            verbose=bool(self.verbose),
            reference_errors=reference,
        )


# --------------------------------------------------------------------------- #
# OSDT
# --------------------------------------------------------------------------- #

#: Names of OSDT's bounds, for ``OSDTClassifier(bounds=...)`` (see its docstring).
OSDT_BOUNDS = tuple(_core.osdt_bound_names())
#: Names of OSDT's scheduling policies, for ``OSDTClassifier(policy=...)``.
OSDT_POLICIES = tuple(_core.osdt_policy_names())


def _prune_for_penalty(tree, regularization, total):
    """Node arrays of ``tree`` (a treeopt.Tree over 0/1 features) pruned bottom-up for
    the objective loss / total + regularization * leaves: a subtree becomes a leaf when
    the leaf is at least as good (the best pruning of this tree for that objective)."""
    value = np.asarray(tree.value, dtype=np.float64)
    leaf_cost = (value.sum(axis=1) - value.max(axis=1)) / total + regularization
    best, make_leaf = best_pruning(tree.children_left, tree.children_right, leaf_cost)
    pruned = subtree(tree, make_leaf)
    arrays = tuple(
        np.ascontiguousarray(a, dtype=np.int64)
        for a in (pruned.children_left, pruned.children_right, pruned.feature)
    )
    return float(best[0]), arrays


def _cart_warm_start(Xb, y_encoded, weight, regularization):
    """OSDT's warm start (paper §4): a scikit-learn CART tree grown best-first on the
    0/1 matrix (with the sample weights) to the most leaves an optimal tree can have
    (at most 64), pruned for the OSDT objective; returns its node arrays ``(left,
    right, feature)`` (a single leaf when no split pays its penalty)."""
    from sklearn.tree import DecisionTreeClassifier

    w = np.ones(len(y_encoded)) if weight is None else weight
    total = float(w.sum())
    # CART on the distinct (row, label) pairs with their summed weights: the same
    # weighted impurities, far fewer rows when rows repeat.
    first, inverse = distinct_rows(Xb, y_encoded)
    summed = np.bincount(inverse, weights=w, minlength=len(first))
    keep = summed > 0
    Xu, yu, wu = Xb[first[keep]], y_encoded[first[keep]], summed[keep]
    # No optimal tree has more than floor(R0 / lambda) leaves (R0 <= 1/2 + lambda).
    cap = min(64, len(yu))
    if regularization > 0 and 0.5 / regularization < cap:
        cap = int(np.floor(0.5 / regularization)) + 1
    cap = max(2, cap)
    # Best-first growth makes every smaller CART tree a pruning of this one, and the
    # pruning below is the best for the objective: one fit covers every leaf count.
    cart = DecisionTreeClassifier(max_leaf_nodes=cap, random_state=0)
    cart.fit(Xu, yu, sample_weight=wu)
    return _prune_for_penalty(Tree.from_sklearn(cart), regularization, total)[1]


def _check_binary_target(y):
    """Raises the multiclass error before any other validation (scikit-learn's contract
    for classifiers with ``multi_class=False``)."""
    from sklearn.utils.multiclass import type_of_target

    try:
        y_type = type_of_target(y, input_name="y")
    except (ValueError, TypeError):
        return  # the shared validation reports it
    if y_type.startswith("multiclass"):
        n = len(np.unique(np.asarray(y, dtype=object).ravel().astype(str)))
        raise ValueError(
            "Only binary classification is supported. The type of the target is "
            f"{y_type} ({n} classes): OSDT's bounds are proved for two classes. Use "
            "treeopt.GOSDTClassifier, which minimises the same objective for any number "
            "of classes."
        )


class OSDTClassifier(_OptimalTreeClassifier):
    """Provably optimal sparse decision tree by OSDT's leaf-set branch and bound.

    Minimises ``weighted misclassification / total weight + regularization * leaves``
    over all trees on 0/1 features, for two classes, by the search of Hu, Rudin and
    Seltzer (NeurIPS 2019): trees are sets of leaves, a priority queue orders them and
    the paper's bounds prune. It solves the same problem as :class:`GOSDTClassifier`
    (which is usually much faster; OSDT is here to cross-check it and to show what each
    bound buys). ``lower_bound_`` is a proven lower bound on the optimal objective, and
    ``status_ == "optimal"`` means it meets ``objective_``.

    Parameters
    ----------
    regularization : float, default=0.01
        Penalty per leaf (λ), as a fraction of the training weight. OSDT's search grows
        quickly as λ falls: the paper uses λ >= 0.005 on thousands of rows.
    policy : {"curiosity", "lower_bound", "objective", "breadth_first", \
"depth_first"}, default="curiosity"
        Which queued tree is expanded next (appendix G.2): CORELS' curiosity (the
        tree's lower bound over the fraction of the data its fixed leaves capture), the
        lower bound, the objective, first-in-first-out or last-in-first-out.
    bounds : "all" or collection of str, default="all"
        "all" uses every bound. A set (or list) of names switches those bounds off, for
        ablation; the optimum is the same, only the work changes. The names:

        - ``"hierarchical"``: the lower bound b(d_un) of a tree's fixed leaves (Thm 3.1);
        - ``"lookahead"``: its one-step look-ahead, λ per leaf still to split (Lemma 3.2);
        - ``"equivalent_points"``: rows with equal features and different labels are
          misclassified by every tree (Thm B.2);
        - ``"support"``: a leaf misclassifying at most λ is never split (Thm 3.3);
        - ``"incremental_accuracy"``: a split gaining at most λ must be split further
          (Thm 3.4);
        - ``"accurate_support"``: no leaf classifies at most λ correctly (Thm 3.5);
        - ``"leaf_count_apriori"``, ``"leaf_count_parent"``: the a-priori and the
          parent-specific upper bounds on the number of leaves (appendix C);
        - ``"permutation"``: the tree cache that skips leaf sets seen before (Cor. E.1).

    warm_start : "cart", None or treeopt.Tree, default="cart"
        Initial best tree (its objective starts the search's bound, as in the paper):
        "cart" fits scikit-learn CART trees with a few leaf counts on the 0/1 features
        (with the sample weights), prunes each for the objective and keeps the best; a
        fitted :class:`treeopt.Tree` over the same 0/1 features (threshold in [0, 1) at
        every test) is used as given. So a fit stopped by a limit is never worse than
        the warm start. None starts from the single leaf.
    time_limit : float or None, default=None
        Seconds of ``fit`` (input checks included) after which the search stops and
        returns the best tree so far (``status_ == "time_limit"``). Without a limit, a
        search still running after 10 s warns once with what to change.
    memory_limit : int or None, default=None
        Bytes the queue, the leaf cache and the tree cache may hold; reaching it stops
        the search the same way (``status_ == "memory_limit"``).
    class_weight : dict, "balanced" or None, default=None
        Weights multiplying the sample weights of each class.
    verbose : bool, default=False
        Print the search progress (elapsed, lower bound, objective, gap, trees evaluated).

    Attributes
    ----------
    tree_, classes_, objective_, lower_bound_, status_, n_leaves_
        As for :class:`GOSDTClassifier`.
    trees_evaluated_ : int
        Trees (a leaf set with the leaves to split next) whose lower bound was computed:
        the "#trees evaluated" of the paper's Table 2.
    trees_to_optimum_ : int
        ``trees_evaluated_`` when ``tree_`` was found (0: the warm start was optimal).
    time_to_optimum_ : float
        Seconds from the start of the search to finding ``tree_``.
    warm_start_objective_ : float or None
        Objective of the warm-start tree, when there was one.
    search_stats_ : dict
        ``subproblems`` (distinct child trees evaluated), ``expansions``, ``seconds``,
        ``memory_bytes`` and OSDT's counters: ``trees_evaluated``, ``trees_queued``,
        ``trees_to_optimum``, ``time_to_optimum``, ``leaves`` (leaf cache size),
        ``peak_queue`` and ``peak_bytes``.

    Examples
    --------
    >>> import numpy as np
    >>> from treeopt import OSDTClassifier
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
    >>> y = X[:, 0] ^ X[:, 1]
    >>> clf = OSDTClassifier(regularization=0.01).fit(X, y)
    >>> clf.status_, clf.n_leaves_, clf.score(X, y)
    ('optimal', 4, 1.0)
    >>> ablated = OSDTClassifier(bounds={"lookahead"}).fit(X, y)
    >>> ablated.objective_ == clf.objective_
    True
    """

    _parameter_constraints = {
        "regularization": [Interval(Real, 0, None, closed="left")],
        "policy": [StrOptions(set(OSDT_POLICIES))],
        "bounds": [StrOptions({"all"}), set, frozenset, list, tuple],
        "warm_start": [StrOptions({"cart"}), Tree, None],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "memory_limit": [Interval(Integral, 1, None, closed="left"), None],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        regularization=0.01,
        policy="curiosity",
        bounds="all",
        warm_start="cart",
        time_limit=None,
        memory_limit=None,
        class_weight=None,
        verbose=False,
    ):
        self.regularization = regularization
        self.policy = policy
        self.bounds = bounds
        self.warm_start = warm_start
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.class_weight = class_weight
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        """Finds the optimal tree for the 0/1 matrix X and binary labels y.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            0/1 (or boolean) features.
        y : array-like of shape (n_samples,)
            Class labels, exactly two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; the objective uses weighted misclassification.

        Returns
        -------
        self

        Raises
        ------
        KeyboardInterrupt
            On Ctrl-C, after storing the best tree so far (``status_ ==
            "interrupted"``), as for :meth:`GOSDTClassifier.fit`.
        """
        return super().fit(X, y, sample_weight=sample_weight)

    def _validate_fit_input(self, X, y, sample_weight):
        _check_binary_target(y)
        return super()._validate_fit_input(X, y, sample_weight)

    def _disabled_bounds(self):
        if isinstance(self.bounds, str):
            return []
        names = list(self.bounds)
        unknown = [b for b in names if not isinstance(b, str) or b not in OSDT_BOUNDS]
        if unknown:
            raise ValueError(
                f"unknown bound name(s) {unknown!r} in bounds; pass 'all' or a set of "
                f"bounds to switch off, from {list(OSDT_BOUNDS)}."
            )
        return sorted(set(names))

    def _warm_start_arrays(self, Xb, y_encoded, weight):
        if self.warm_start is None:
            return None
        if isinstance(self.warm_start, str):  # "cart"
            return _cart_warm_start(Xb, y_encoded, weight, float(self.regularization))
        tree = self.warm_start
        if tree.n_features != Xb.shape[1]:
            raise ValueError(
                f"warm_start is a tree over {tree.n_features} features but X has "
                f"{Xb.shape[1]}; pass a tree fitted on the same 0/1 columns."
            )
        internal = np.flatnonzero(tree.children_left >= 0)
        if np.any(tree.feature[internal] < 0):
            raise ValueError(
                "warm_start has an oblique (linear) test; OSDT needs a tree of single "
                "0/1 feature tests."
            )
        thresholds = tree.threshold[internal]
        bad = (thresholds < 0) | (thresholds >= 1)
        if bad.any():
            node = int(internal[np.flatnonzero(bad)[0]])
            raise ValueError(
                f"warm_start node {node} tests x[{int(tree.feature[node])}] <= "
                f"{float(tree.threshold[node])!r}; on 0/1 features every test needs a "
                "threshold in [0, 1) (0.5 in trees from treeopt)."
            )
        return tuple(
            np.ascontiguousarray(a, dtype=np.int64)
            for a in (tree.children_left, tree.children_right, tree.feature)
        )

    def _solve(self, Xb, y_encoded, weight, reference):
        """Runs the Rust solver: returns its result dict."""
        if reference is not None:  # only reachable through the base class
            raise ValueError(
                "OSDTClassifier has no lower-bound guessing (y_ref); use GOSDTClassifier."
            )
        disabled = self._disabled_bounds()
        warm = self._warm_start_arrays(Xb, y_encoded, weight)
        return _core.osdt_fit(
            Xb,
            y_encoded,
            len(self.classes_),
            weight,
            float(self.regularization),
            policy=self.policy,
            disabled_bounds=disabled,
            warm_start=warm,
            time_limit=self._time_left(),
            slow_fit_warning=self._slow_fit_warning(),
            memory_limit=_saturated(self.memory_limit),
            verbose=bool(self.verbose),
        )

    def _set_result(self, res):
        super()._set_result(res)
        self.trees_evaluated_ = int(res["trees_evaluated"])
        self.trees_to_optimum_ = int(res["trees_to_optimum"])
        self.time_to_optimum_ = float(res["time_to_optimum"])
        warm = res["warm_start_objective"]
        self.warm_start_objective_ = None if warm is None else float(warm)
        self.search_stats_.update(
            {
                k: res[k]
                for k in (
                    "trees_evaluated",
                    "trees_queued",
                    "trees_to_optimum",
                    "time_to_optimum",
                    "leaves",
                    "peak_queue",
                    "peak_bytes",
                )
            }
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


__all__ += ["OSDTClassifier"]

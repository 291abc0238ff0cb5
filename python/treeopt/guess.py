"""Guessing from a reference ensemble: thresholds, depth and lower bounds.

McTavish et al., "Fast Sparse Decision Tree Optimization via Reference Ensembles"
(AAAI 2022; ``../shared/papers/gosdt-guesses-reference-ensembles.txt``) speed up
optimal sparse trees with three guesses taken from a gradient-boosted reference
model:

* **thresholds** (§4.1): keep only the ``feature <= threshold`` splits the boosted
  trees use, then eliminate the least important ones while the refitted ensemble
  stays as accurate -- :class:`ThresholdGuessBinarizer`;
* **depth** (§4.2, Theorem 4.2): a depth at which single trees are at least as
  expressive (VC dimension) as the ensemble -- :func:`depth_for_ensemble`;
* **lower bounds** (§4.3, appendix G): the reference's errors on a subproblem as
  its guessed lower bound -- ``GOSDTClassifier.fit(..., y_ref=...)``.

:class:`OptimalTreeClassifier` chains the three on raw numeric data.

This module depends only on numpy, scikit-learn and :mod:`treeopt`.
"""

from __future__ import annotations

import copy
import math
import warnings
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Literal, Union, overload

import numpy as np
from numpy.random import RandomState
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .tree import Tree, best_pruning, binary_columns
from ._validation import encode_class_labels, scaled_sample_weights, validate_numeric_data
from .binarize._core import (
    BinarizerBase,
    threshold_column_names,
    threshold_columns,
    tree_on_raw_features,
)
from ._base import refuse_booleans, store_init_params
from ._docstrings import FITTED_ROWS, takes_rows
from .optimal import GOSDTClassifier

if TYPE_CHECKING:
    from sklearn.utils import Tags

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "OptimalTreeClassifier",
    "ThresholdGuessBinarizer",
    "depth_for_ensemble",
    "guess_max_depth",
]

#: Largest depth :func:`guess_max_depth` returns. Theorem 4.2 gives an upper bound
#: (10 or more for any ensemble of at least 3 trees) that the paper calls
#: conservative; its experiments use depth limits 2 to 5, and 5 is the depth of
#: its Tables 4 and 6.
DEFAULT_MAX_DEPTH = 5


# --------------------------------------------------------------------------- #
# Depth guess (Theorem 4.2)
# --------------------------------------------------------------------------- #
def _check_positive_int(name: str, value: object) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an int >= 1, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    return int(value)


def depth_for_ensemble(n_estimators: int, vc_dim_weak: int) -> int:
    """Depth at which single trees match an ensemble's VC dimension (Theorem 4.2).

    ``d = ceil(log2((K*V + K) * (3 ln(K*V + K) + 2)))`` for an ensemble
    ``sign(sum_k w_k h_k)`` of ``K`` weak classifiers from a class of VC
    dimension ``V``: trees of depth at most ``d`` have VC dimension ``>= 2**d``,
    which is at least the ensemble's (Shalev-Shwartz & Ben-David, Lemma 10.3).

    Parameters
    ----------
    n_estimators : int >= 1
        Number ``K`` of weak classifiers.
    vc_dim_weak : int >= 1
        VC dimension ``V`` of the weak classifiers' class. The paper counts a
        depth-``D`` tree as ``V = 2**D`` (the proof of Theorem 4.2 uses that
        ``2**d`` points can be shattered by depth-``d`` trees): ``V = 8`` for the
        depth-3 trees of the paper's examples, ``V = 2`` for stumps.

    Returns
    -------
    int
        The depth ``d``.

    Notes
    -----
    The lemma behind the theorem needs ``K >= 3`` and ``V >= 3``. Smaller values
    are raised to 3 here: the bound grows with both, an ensemble of fewer than 3
    members is one of 3 members with zero weights, and the Sauer-lemma step of
    the proof holds with 3 in place of a smaller VC dimension. The result is
    therefore still an upper bound on the depth needed, only a looser one.

    Examples
    --------
    The two special cases stated after Theorem 4.2 (depth-3 weak trees):

    >>> depth_for_ensemble(10, 8), depth_for_ensemble(100, 8)
    (11, 15)
    """
    k = max(_check_positive_int("n_estimators", n_estimators), 3)
    v = max(_check_positive_int("vc_dim_weak", vc_dim_weak), 3)
    m = k * v + k
    return int(math.ceil(math.log2(m * (3.0 * math.log(m) + 2.0))))


def guess_max_depth(n_estimators: int, estimator_depth: int) -> int:
    """Default ``max_depth`` of :class:`OptimalTreeClassifier` for a boosted reference.

    ``min(depth_for_ensemble(n_estimators, 2**estimator_depth), DEFAULT_MAX_DEPTH)``:
    the Theorem 4.2 depth of an ensemble of ``n_estimators`` trees of depth
    ``estimator_depth``, capped at :data:`DEFAULT_MAX_DEPTH` (5), the largest depth
    limit of the paper's experiments -- the theorem's value is an upper bound the
    paper itself calls conservative.

    Parameters
    ----------
    n_estimators : int >= 1
    estimator_depth : int >= 1

    Returns
    -------
    int

    Examples
    --------
    >>> guess_max_depth(40, 1)   # Theorem 4.2 gives 12 for 40 stumps
    5
    """
    depth = _check_positive_int("estimator_depth", estimator_depth)
    return min(depth_for_ensemble(n_estimators, 2**depth), DEFAULT_MAX_DEPTH)


# --------------------------------------------------------------------------- #
# Threshold guess (§4.1, column elimination)
# --------------------------------------------------------------------------- #
@overload
def _validate_numeric(
    estimator: BaseEstimator, X: ArrayLike, *, reset: bool = True
) -> NDArray[np.float64]: ...
@overload
def _validate_numeric(
    estimator: BaseEstimator, X: ArrayLike, y: ArrayLike, reset: bool = True
) -> tuple[NDArray[np.float64], NDArray[Any]]: ...
def _validate_numeric(
    estimator: BaseEstimator, X: ArrayLike, y: ArrayLike = "no_validation", reset: bool = True
) -> NDArray[np.float64] | tuple[NDArray[np.float64], NDArray[Any]]:
    """``validate_data`` to float64 with a clear error for non-numeric columns."""
    checked: NDArray[np.float64] | tuple[NDArray[np.float64], NDArray[Any]]
    checked = validate_numeric_data(estimator, X, y, reset=reset)
    return checked


#: The models :class:`ThresholdGuessBinarizer` fits (a prior when the ensemble made
#: no split).
_Reference = Union[GradientBoostingClassifier, DummyClassifier]


def _weighted_accuracy(
    model: _Reference, X: NDArray[Any], y: NDArray[Any], weight: NDArray[np.float64] | None
) -> float:
    correct: NDArray[np.bool_] = model.predict(X) == y
    if weight is None:
        return float(np.count_nonzero(correct)) / int(correct.shape[0])
    return float(weight[correct].sum()) / float(weight.sum())


def _split_importance(model: GradientBoostingClassifier, n_columns: int) -> NDArray[np.float64]:
    """Per column: summed weighted impurity decrease of every split on it (MDI).

    ``w(node) * impurity(node) - w(left) * impurity(left) - w(right) * impurity(right)``
    summed over all nodes of all trees of the boosted ``model`` that split on
    the column (the "Gini importance" of the paper; unnormalised).
    """
    importance = np.zeros(n_columns, dtype=np.float64)
    for tree in np.ravel(model.estimators_):
        t = tree.tree_
        left, right = t.children_left, t.children_right
        internal = np.flatnonzero(left >= 0)
        if internal.size == 0:
            continue
        w, imp = t.weighted_n_node_samples, t.impurity
        decrease = (
            w[internal] * imp[internal]
            - w[left[internal]] * imp[left[internal]]
            - w[right[internal]] * imp[right[internal]]
        )
        np.add.at(importance, t.feature[internal], decrease)
    return importance


class ThresholdGuessBinarizer(BinarizerBase):
    """Binarise numeric features with the thresholds a boosted ensemble uses (§4.1).

    Column elimination of McTavish et al. (2022, §4.1):

    1. fit a :class:`~sklearn.ensemble.GradientBoostingClassifier` ``T`` on the raw
       features and collect every ``(feature, threshold)`` pair its trees split on;
       each pair becomes a 0/1 column ``feature <= threshold``;
    2. refit the ensemble on these columns, rank them by importance (the summed
       weighted impurity decrease of the splits on the column) and remove the
       least important one;
    3. refit on the remaining columns and repeat while the refitted ensemble's
       training accuracy stays at least ``accuracy(T) - tolerance``. The last set
       of columns that met this bound is kept (at least one column).

    The ensemble refitted on the kept columns is the reference model ``T'`` of the
    paper (``reference_model_``): its predictions on the training rows are the
    ``y_ref`` of lower-bound guessing, and Theorem 4.1 relies on
    ``accuracy(T') >= accuracy(T) - tolerance``.

    Parameters
    ----------
    n_estimators : int, default=40
        Boosting stages of the reference ensemble.
    max_depth : int, default=1
        Depth of its trees (1: stumps).
    learning_rate : float, default=0.1
        Shrinkage of the ensemble.
    tolerance : float in [0, 1], default=0.0
        Training-accuracy loss allowed by the elimination (0: any drop stops it;
        the paper's setting).
    random_state : int, RandomState instance or None, default=0
        Seed of the ensemble (it breaks ties between equally good splits). Every
        refit uses the same seed.

    Attributes
    ----------
    thresholds_ : list of ndarray of float64
        Kept thresholds of each input column, ascending (possibly empty), as in
        :class:`~treeopt.NumericBinarizer`.
    output_columns_ : list of tuple
        ``(input column index, threshold)`` of every output column.
    candidate_columns_ : list of tuple
        Every ``(input column index, threshold)`` the initial ensemble used.
    initial_model_ : GradientBoostingClassifier
        The ensemble ``T`` fitted on the raw features.
    reference_model_ : GradientBoostingClassifier or DummyClassifier
        The ensemble ``T'`` refitted on the kept 0/1 columns; it predicts from
        ``transform(X)`` (see :meth:`reference_predict`). A
        :class:`~sklearn.dummy.DummyClassifier` (prior) when ``T`` made no split.
    initial_score_ : float
        Training accuracy of ``initial_model_`` (weighted when ``sample_weight``
        was given).
    reference_score_ : float
        Training accuracy of ``reference_model_``.
    n_features_in_, feature_names_in_ : as in scikit-learn
    n_features_out_ : int

    Notes
    -----
    Every column, including a 0/1 input column (threshold 0.5), is output as a
    ``feature <= threshold`` indicator, so a 0/1 column ``c`` appears as
    ``c <= 0.5`` (1 where ``c`` is 0). Comparisons are made in float64; the
    ensemble compares float32-cast values, which differs only for values within
    float32 rounding of a threshold. The output is ``uint8``.

    Compared with gosdt 1.0.4's ``ThresholdGuessBinarizer`` (same candidates, same
    refits, same elimination order): the accuracy to keep is ``T``'s on the raw
    features (the paper's Theorem 4.1; a refit on all candidate columns
    reproduces ``T`` exactly, so the two baselines agree), and the result is the
    last column set that kept it *together with the ensemble refitted on exactly
    that set*. gosdt re-appends the last removed column without refitting, and
    re-appends it even when elimination ended because one column was left.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    >>> b = ThresholdGuessBinarizer(n_estimators=10).fit(X, y)
    >>> b.n_features_out_ <= len(b.candidate_columns_)
    True
    >>> b.reference_score_ >= b.initial_score_
    True
    >>> b.get_feature_names_out()[:2].tolist()
    ['worst radius <= 16.795000076293945', 'worst perimeter <= 105.95000076293945']
    """

    _parameter_constraints: dict[str, list[Any]] = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "tolerance": [Interval(Real, 0, 1, closed="both")],
        "random_state": ["random_state"],
    }

    n_estimators: int
    max_depth: int
    learning_rate: float
    tolerance: float
    random_state: int | RandomState | None
    n_features_in_: int
    feature_names_in_: NDArray[np.object_]

    def __init__(
        self,
        n_estimators: int = 40,
        max_depth: int = 1,
        learning_rate: float = 0.1,
        tolerance: float = 0.0,
        random_state: int | RandomState | None = 0,
    ) -> None:
        store_init_params(self, locals())

    def _ensemble(self, seed: int) -> GradientBoostingClassifier:
        return GradientBoostingClassifier(
            n_estimators=self.n_estimators,
            max_depth=self.max_depth,
            learning_rate=self.learning_rate,
            random_state=seed,
        )

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> ThresholdGuessBinarizer:
        """Fit the ensemble and eliminate thresholds.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric features (no NaN / inf; categorical columns must be encoded).
        y : array-like of shape (n_samples,)
            Class labels, at least two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights passed to the ensemble; accuracies are then weighted.

        Returns
        -------
        self : ThresholdGuessBinarizer
        """
        X, y = _validate_numeric(self, X, y)
        encode_class_labels(y, needs="the reference ensemble")
        # Scaled to a largest weight of 1: the ensemble and GOSDT see the same weights
        # whatever their common scale (1e-300 or 1e300 broke the ensemble).
        weight = scaled_sample_weights(sample_weight, X)
        rs = self.random_state
        seed = rs if isinstance(rs, Integral) else int(
            check_random_state(rs).randint(np.iinfo(np.int32).max)
        )

        initial = self._ensemble(seed).fit(X, y, sample_weight=weight)
        self.initial_model_ = initial
        self.initial_score_ = _weighted_accuracy(initial, X, y, weight)
        pairs: set[tuple[int, float]] = set()
        for tree in np.ravel(initial.estimators_):
            t = tree.tree_
            internal = t.children_left >= 0
            pairs.update(zip(t.feature[internal].tolist(), t.threshold[internal].tolist()))
        candidates = sorted((int(j), float(t)) for j, t in pairs)
        self.candidate_columns_ = candidates

        kept: list[int]
        reference: _Reference
        if not candidates:
            kept = []
            reference = DummyClassifier(strategy="prior").fit(
                np.zeros((X.shape[0], 0)), y, sample_weight=weight
            )
            score = _weighted_accuracy(reference, np.zeros((X.shape[0], 0)), y, weight)
        else:
            Xb = np.column_stack([X[:, j] <= t for j, t in candidates]).astype(np.float64)
            floor = self.initial_score_ - float(self.tolerance) - 1e-12
            kept = list(range(len(candidates)))
            reference = self._ensemble(seed).fit(Xb, y, sample_weight=weight)
            score = _weighted_accuracy(reference, Xb, y, weight)
            while len(kept) > 1:
                importance = _split_importance(reference, len(kept))
                drop = int(np.argmin(importance))  # ties: the first (lowest) column
                trial = kept[:drop] + kept[drop + 1:]
                model = self._ensemble(seed).fit(Xb[:, trial], y, sample_weight=weight)
                trial_score = _weighted_accuracy(model, Xb[:, trial], y, weight)
                if trial_score < floor:
                    break
                kept, reference, score = trial, model, trial_score

        self.reference_model_ = reference
        self.reference_score_ = score
        self.output_columns_ = [candidates[i] for i in kept]
        thresholds: list[list[float]] = [[] for _ in range(X.shape[1])]
        for j, t in self.output_columns_:
            thresholds[j].append(t)
        self.thresholds_ = [np.asarray(t, dtype=np.float64) for t in thresholds]
        self.n_features_out_ = len(self.output_columns_)
        return self

    def _transform_input(self, X: ArrayLike) -> NDArray[np.float64]:
        return _validate_numeric(self, X, reset=False)

    def _encode(self, X: NDArray[np.float64]) -> NDArray[np.uint8]:
        """0/1 indicator columns ``X[:, j] <= t`` for the kept ``(j, t)``."""
        return threshold_columns(X, self.output_columns_)

    @takes_rows(
        "Predictions of ``reference_model_`` for raw rows ``X`` (the ``y_ref`` of §4.3).",
        "ndarray of shape (n_samples,)",
        x=FITTED_ROWS,
    )
    def reference_predict(self, X: ArrayLike) -> NDArray[Any]:
        return self.reference_model_.predict(np.asarray(self.transform(X)))

    def _output_names(self, input_features: NDArray[np.object_]) -> list[str]:
        """``"<feature> <= <threshold>"``, thresholds printed exactly as by
        :class:`~treeopt.NumericBinarizer`."""
        return threshold_column_names(self.output_columns_, input_features)

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


# --------------------------------------------------------------------------- #
# All three guesses + GOSDT on raw data
# --------------------------------------------------------------------------- #
def _replica_bound(
    Xb: NDArray[np.uint8],
    y: NDArray[Any],
    correct: NDArray[np.bool_],
    weight: NDArray[np.float64],
    regularization: float,
    max_depth: int | None,
) -> float:
    """Theorem 4.3's right-hand side for a concrete tree ``t`` mimicking the reference.

    ``t`` is a CART tree (depth <= ``max_depth``) grown on the rows the reference
    classifies correctly -- where ``y`` equals the reference's prediction -- then
    pruned exactly (bottom-up) to minimise
    ``sum_{i correct} w_i [y_i != t(x_i)] / W + regularization * leaves(t)``.
    Returns ``W_incorrect / W`` plus that minimum.
    """
    total = float(weight.sum())
    incorrect = float(weight[~correct].sum()) / total
    if not correct.any():
        return incorrect + regularization
    if Xb.shape[1] == 0:  # no column: the only tree is a leaf
        counts = np.unique(y[correct], return_inverse=True)[1]
        per_class = np.bincount(counts, weights=weight[correct])
        return incorrect + float(per_class.sum() - per_class.max()) / total + regularization
    cart = DecisionTreeClassifier(max_depth=max_depth, random_state=0)
    cart.fit(Xb[correct], y[correct], sample_weight=weight[correct])
    t = cart.tree_
    # Weighted class totals per node, recomputed from the rows (sklearn stores fractions).
    path = cart.decision_path(Xb[correct]).tocsc()
    codes = np.searchsorted(cart.classes_, y[correct])
    totals = np.zeros((t.node_count, cart.classes_.shape[0]))
    w_c = weight[correct]
    for node in range(t.node_count):
        rows = path.indices[path.indptr[node]:path.indptr[node + 1]]
        np.add.at(totals[node], codes[rows], w_c[rows])
    leaf_cost = (totals.sum(axis=1) - totals.max(axis=1)) / total + regularization
    best, _ = best_pruning(t.children_left, t.children_right, leaf_cost)
    return incorrect + float(best[0])


class OptimalTreeClassifier(ClassifierMixin, BaseEstimator):
    """Optimal sparse tree on raw numeric data with all three reference-ensemble guesses.

    ``fit`` runs the pipeline of McTavish et al. (2022):

    1. **threshold guess**: a :class:`ThresholdGuessBinarizer` (a boosted ensemble of
       ``n_estimators`` trees of depth ``estimator_depth``, column elimination)
       turns ``X`` into 0/1 columns ``feature <= threshold``;
    2. **lower-bound guess**: its refitted ensemble's predictions on the training
       rows are ``y_ref`` for :class:`~treeopt.GOSDTClassifier`;
    3. **depth guess**: ``max_depth="auto"`` uses :func:`guess_max_depth`;
    4. GOSDT minimises ``misclassification + regularization * leaves`` on the 0/1
       columns; the result is re-expressed on the raw features as ``tree_``.

    With ``thresholds="exact"`` step 1 only feeds the reference (steps 2 and 3): GOSDT
    searches the raw columns themselves, every midpoint between consecutive distinct
    values a candidate split (see :class:`~treeopt.GOSDTClassifier` on numeric
    columns), so no threshold is guessed; slower on columns with many values, and
    ``lower_bound_`` is then proven over all thresholds.

    Parameters
    ----------
    regularization : float, default=0.001
        Penalty per leaf (λ), a fraction of the training weight.
    max_depth : int, None or "auto", default="auto"
        Depth limit of the tree (a single leaf has depth 0); ``"auto"``: the
        Theorem 4.2 depth of the reference ensemble capped at 5
        (:func:`guess_max_depth`); ``None``: no limit.
    n_estimators : int, default=40
        Trees of the reference ensemble.
    estimator_depth : int, default=1
        Depth of the reference ensemble's trees (1: stumps).
    learning_rate : float, default=0.1
        Learning rate of the reference ensemble.
    tolerance : float in [0, 1], default=0.0
        Accuracy drop allowed by column elimination (see
        :class:`ThresholdGuessBinarizer`).
    lower_bound_guess : bool, default=True
        Pass the reference's predictions as ``y_ref`` (lower-bound guessing).
        With False, GOSDT proves optimality on the guessed thresholds (on every
        threshold with ``thresholds="exact"``).
    thresholds : {"guess", "exact"}, default="guess"
        ``"guess"``: GOSDT splits only at the ensemble's thresholds (step 1).
        ``"exact"``: GOSDT searches every threshold of the raw columns; the ensemble
        still gives ``y_ref`` and the ``"auto"`` depth.
    time_limit : float or None, default=None
        Seconds for the GOSDT search (the reference fit is not counted).
    memory_limit : int or None, default=None
        Bytes for the GOSDT search.
    random_state : int, RandomState instance or None, default=0
        Seed of the reference ensemble.
    verbose : bool, default=False
        Log the GOSDT search progress on the ``treeopt`` logger (on stderr when
        logging is not configured).

    Attributes
    ----------
    tree_ : treeopt.Tree
        The tree on the raw features (``x[j] <= t`` tests; ``predict`` takes raw rows).
    classes_, n_features_in_, feature_names_in_ : as in scikit-learn
    binarizer_ : ThresholdGuessBinarizer
        The fitted threshold guess.
    reference_model_ : estimator
        ``binarizer_.reference_model_``: the ensemble refitted on the kept columns.
    thresholds_ : list of ndarray
        Kept thresholds per input column (``binarizer_.thresholds_``).
    binary_feature_names_ : ndarray of str
        Names of the 0/1 columns GOSDT saw.
    reference_error_ : float
        Weighted training error of ``reference_model_``.
    max_depth_ : int or None
        Depth limit used.
    gosdt_ : GOSDTClassifier
        The fitted solver (on ``binarizer_.transform(X)``; on the raw ``X`` with
        ``thresholds="exact"``).
    objective_ : float
        ``misclassification + regularization * leaves`` of ``tree_`` on the training data.
    lower_bound_ : float
        Proven lower bound on the optimal objective over trees on the guessed
        columns (every threshold with ``thresholds="exact"``) within ``max_depth_``
        (``gosdt_.lower_bound_``).
    guessed_lower_bound_ : float or None
        Guessed lower bound at the root; None without lower-bound guessing.
    status_ : str
        ``"optimal"``, ``"matched_reference"`` (the search stopped because the
        guessed bound was met), ``"time_limit"``, ``"memory_limit"`` or
        ``"interrupted"`` (Ctrl-C during the search: ``fit`` stored GOSDT's best tree so
        far, then raised ``KeyboardInterrupt``; catch it to use that tree).
    used_lower_bound_guess_ : bool
        Whether ``y_ref`` was passed (False when ``lower_bound_guess=False`` or the
        reference predicts a single class).
    guarantee_ : float or None
        Theorem 4.3 with a concrete comparison tree ``t`` that mimics the
        reference: ``(reference errors + errors of t on the rows the reference gets
        right) / N + regularization * leaves(t)``, which ``objective_`` never
        exceeds. ``t`` is a CART tree within ``max_depth_`` grown on the rows the
        reference classifies correctly, pruned exactly to minimise that sum; when
        ``t`` replicates the reference it reads "reference error + λ · leaves".
        None when the search stopped on a limit (the theorem needs a finished search).
    n_leaves_ : int

    Notes
    -----
    A reference that predicts a single class on the training rows gives no
    guidance (its guessed bound is met by a single leaf at the root); the fit then
    warns and runs GOSDT without ``y_ref``. Theorem 4.3 bounds ``objective_`` by
    ``guarantee_`` in that case too, since the tree is then optimal (or the search
    stopped on a limit and ``guarantee_`` is None).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    >>> clf = OptimalTreeClassifier(regularization=0.01, max_depth=3).fit(X, y)
    >>> clf.status_ in ("optimal", "matched_reference")
    True
    >>> bool(clf.lower_bound_ <= clf.objective_ <= clf.guarantee_)
    True
    >>> print(clf.tree_.to_text().splitlines()[0])
    if worst area <= 928.5:
    """

    _parameter_constraints: dict[str, list[Any]] = {
        "regularization": [Interval(Real, 0, None, closed="left")],
        "max_depth": [Interval(Integral, 0, None, closed="left"), StrOptions({"auto"}), None],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "estimator_depth": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "tolerance": [Interval(Real, 0, 1, closed="both")],
        "lower_bound_guess": ["boolean"],
        "thresholds": [StrOptions({"guess", "exact"})],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "memory_limit": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    regularization: float
    max_depth: int | Literal["auto"] | None
    n_estimators: int
    estimator_depth: int
    learning_rate: float
    tolerance: float
    lower_bound_guess: bool
    time_limit: float | None
    memory_limit: int | None
    random_state: int | RandomState | None
    verbose: bool
    thresholds: Literal["guess", "exact"]
    n_features_in_: int
    feature_names_in_: NDArray[np.object_]
    classes_: NDArray[Any]
    tree_: Tree
    max_depth_: int | None
    gosdt_: GOSDTClassifier | None
    guessed_lower_bound_: float | None
    guarantee_: float | None

    def __init__(
        self,
        regularization: float = 0.001,
        max_depth: int | Literal["auto"] | None = "auto",
        n_estimators: int = 40,
        estimator_depth: int = 1,
        learning_rate: float = 0.1,
        tolerance: float = 0.0,
        lower_bound_guess: bool = True,
        time_limit: float | None = None,
        memory_limit: int | None = None,
        random_state: int | RandomState | None = 0,
        verbose: bool = False,
        thresholds: Literal["guess", "exact"] = "guess",
    ) -> None:
        store_init_params(self, locals())

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> OptimalTreeClassifier:
        """Guess thresholds, depth and lower bounds, then search with GOSDT.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric features (0/1 columns are fine); no NaN / inf.
        y : array-like of shape (n_samples,)
            Class labels, at least two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights, used by the reference ensemble and by GOSDT.

        Returns
        -------
        self
        """
        refuse_booleans(self)
        if np.isnan(self.regularization):
            raise ValueError("regularization is NaN; pass a number >= 0 such as 0.001.")
        X, y = _validate_numeric(self, X, y)
        self.classes_ = encode_class_labels(y)[0]
        weight = scaled_sample_weights(sample_weight, X)
        if weight is not None:
            if np.unique(y[weight > 0]).shape[0] < 2:
                raise ValueError(
                    "only 1 class has positive sample weight; a classifier needs at least "
                    "2 classes."
                )

        names = getattr(self, "feature_names_in_", None)
        names = [str(n) for n in names] if names is not None else [
            f"x{j}" for j in range(X.shape[1])
        ]
        binarizer = ThresholdGuessBinarizer(
            n_estimators=self.n_estimators,
            max_depth=self.estimator_depth,
            learning_rate=self.learning_rate,
            tolerance=self.tolerance,
            random_state=self.random_state,
        ).fit(X, y, sample_weight=weight)
        self.binarizer_ = binarizer
        self.reference_model_ = binarizer.reference_model_
        self.thresholds_ = binarizer.thresholds_
        self.binary_feature_names_ = binarizer.get_feature_names_out(names)
        Xb = binarizer.transform(X)
        y_ref = binarizer.reference_model_.predict(Xb)
        w = np.ones(X.shape[0]) if weight is None else weight
        correct = y_ref == y
        self.reference_error_ = float(w[~correct].sum()) / float(w.sum())

        self.max_depth_ = (
            guess_max_depth(self.n_estimators, self.estimator_depth)
            if self.max_depth == "auto" else self.max_depth
        )
        use_ref = bool(self.lower_bound_guess)
        if use_ref and np.unique(y_ref).shape[0] < 2:
            warnings.warn(
                f"the reference ensemble predicts a single class ({y_ref[0]!r}) on every "
                "training row, which carries no guidance for lower-bound guessing; fitting "
                "without y_ref (increase n_estimators or estimator_depth for a reference "
                "that separates the classes)",
                UserWarning,
                stacklevel=3,
            )
            use_ref = False
        self.used_lower_bound_guess_ = use_ref

        exact = self.thresholds == "exact"
        if Xb.shape[1] == 0 and not exact:
            self._fit_single_leaf(y, w)
            self.n_leaves_ = int(self.tree_.n_leaves)
        else:
            gosdt = GOSDTClassifier(
                regularization=self.regularization,
                max_depth=self.max_depth_,
                time_limit=self.time_limit,
                memory_limit=self.memory_limit,
                verbose=self.verbose,
            )
            # A private hook that GOSDT reads with getattr (not a declared attribute).
            setattr(
                gosdt,
                "_slow_fit_caller",
                (
                    "OptimalTreeClassifier",
                    "use thresholds='guess'" if exact else
                    "guess fewer columns (smaller n_estimators or estimator_depth)",
                ),
            )
            kwargs = {"y_ref": y_ref} if use_ref else {}
            try:
                gosdt.fit(X if exact else Xb, y, sample_weight=weight, **kwargs)
            except BaseException:
                # Ctrl-C: GOSDT stored its best tree before raising; keep it here too
                # (status_ "interrupted", no guarantee) and let the interrupt go on.
                if getattr(gosdt, "status_", None) == "interrupted":
                    self._store_search(gosdt, names, X)
                    self.guarantee_ = None
                raise
            self._store_search(gosdt, names, X)
        if self.status_ in ("optimal", "matched_reference"):
            self.guarantee_ = _replica_bound(
                Xb, y, correct, w, float(self.regularization), self.max_depth_
            )
        else:
            self.guarantee_ = None
        return self

    def _store_search(
        self, gosdt: GOSDTClassifier, names: list[str], X: NDArray[np.float64]
    ) -> None:
        """The fitted state from a (possibly interrupted) GOSDT search on raw ``X``."""
        self.gosdt_ = gosdt
        if self.thresholds == "exact":
            # GOSDT searched the raw columns: its tree already tests x[j] <= t.
            self.tree_ = copy.deepcopy(gosdt.tree_)
            self.tree_.feature_names = list(names)
            self.tree_.binary_features = binary_columns(X)
        else:
            # GOSDT's column k is x[j] <= t for (j, t) = binarizer_.output_columns_[k].
            self.tree_ = tree_on_raw_features(
                gosdt.tree_, self.binarizer_.output_columns_, self.classes_, feature_names=names,
                n_features=X.shape[1], binary_features=binary_columns(X),
            )
        self.objective_ = float(gosdt.objective_)
        self.lower_bound_ = float(gosdt.lower_bound_)
        self.guessed_lower_bound_ = getattr(gosdt, "guessed_lower_bound_", None)
        self.status_ = str(gosdt.status_)
        self.n_leaves_ = int(self.tree_.n_leaves)

    def _fit_single_leaf(self, y: NDArray[Any], w: NDArray[np.float64]) -> None:
        """No guessed column at all: the only tree is a single leaf."""
        codes = np.searchsorted(self.classes_, y)
        totals = np.bincount(codes, weights=w, minlength=self.classes_.shape[0])
        self.gosdt_ = None
        self.tree_ = Tree([-1], [-1], [-2], [-2.0], [totals], [totals.sum()],
                          classes=self.classes_, n_features=self.n_features_in_)
        self.objective_ = float((totals.sum() - totals.max()) / totals.sum()) + float(
            self.regularization
        )
        self.lower_bound_ = self.objective_
        self.guessed_lower_bound_ = None
        self.status_ = "optimal"

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """Predicted class of each raw row of ``X``."""
        check_is_fitted(self, "tree_")
        return self.tree_.predict(_validate_numeric(self, X, reset=False))

    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Class proportions (training weights) of the leaf each row reaches."""
        check_is_fitted(self, "tree_")
        return self.tree_.predict_proba(_validate_numeric(self, X, reset=False))

    def apply(self, X: ArrayLike) -> NDArray[np.intp]:
        """Index of the leaf of ``tree_`` each row reaches."""
        check_is_fitted(self, "tree_")
        return self.tree_.apply(_validate_numeric(self, X, reset=False))

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

"""Greedy, complexity-aware decision trees: EC4.5 and ECART.

Implements Algorithm 1 of Zhang & Gionis, "Regularized impurity reduction: accurate
decision trees with complexity guarantees" (``../shared/papers/
ec45-regularized-impurity-reduction.txt``). At every node ``S`` the test ``d`` with
the largest score

    Z(d) = (B(d) + E(d) + lam * D(d)) / c(d)

is chosen, where (section 4 of the paper)

* ``B(d) = p(S) - p(S_d^{v*})`` is the probability of every branch except the one
  holding the most objects (balance);
* ``E(d) = sum_{x_i in S} p(x_i) (f_i(D' + d) - f_i(D')) / (1 - f_i(D'))`` is the
  re-weighted marginal gain of the per-object submodular functions
  ``f_i = 1 - (1 - f_i^p)(1 - f_i^phi)``, with ``f_i^p`` the truncated probability of
  the objects separated from ``x_i`` and ``f_i^phi`` the fraction of heterogeneous
  (different-class) pairs separated (efficiency);
* ``D(d) = p(S) (h(S) - h(S | d))`` is the impurity reduction with the decomposable
  entropy (EC4.5) or Gini index (ECART) (discrimination);
* ``c(d)`` is the cost of the test.

With ``lam = 0`` this is the adaptive-submodular-ranking (ASR) greedy of Navidi et
al.; as ``lam -> inf`` it becomes (cost-benefit) C4.5 / CART. The expected cost of
classifying an object is within ``O(log n)`` of optimal (Theorem 1).

With uneven costs, dividing by the full cost trades much accuracy for cost whatever
``lam`` is (on the paper's datasets with random costs, 0.02-0.07 ROC AUC below C4.5), so
the estimators also accept ``cost_exponent`` (divide by ``c(d) ** omega``, the cost
weight of Nunez's EG2; ``1`` is the paper) and ``lam="auto"``, which picks both by
cross-validation: the cheapest setting whose AUC stays within ``auc_tolerance`` of the
cost-blind tree's.

Everything here is vectorised numpy: a node costs one pass over its rows times the
features (``O(|S| m)``, a matrix product of the node's 0/1 rows with a few per-object
columns); heterogeneous pairs are counted from class counts, never enumerated.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from numbers import Integral, Real
from typing import Any, Tuple, TypeVar, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.utils._param_validation import Interval, Options, StrOptions
from sklearn.utils.validation import check_is_fitted, check_random_state
from threadpoolctl import ThreadpoolController

from ._base import store_init_params
from ._binary import BinaryTreeClassifierMixin, as_binary_matrix, distinct_rows
from .tree import TREE_LEAF, TREE_UNDEFINED, Tree, best_pruning, subtree
from ._validation import encode_class_labels, sample_weights, validate_data, zero_one_frame
from .metrics import expected_cost

__all__ = [
    "CostAwareTreeClassifier",
    "EC45Classifier",
    "ECARTClassifier",
    "cost_complexity_prune",
]

_CRITERIA = ("entropy", "gini", "asr", "impure_pairs", "balance")

#: The node arrays of a grown tree, in the order of :class:`treeopt.Tree`'s arguments:
#: children_left, children_right, feature, threshold, value, weighted_n_node_samples.
_NodeArrays = Tuple[
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
]

_Classifier = TypeVar("_Classifier", bound="CostAwareTreeClassifier")

#: Default grid of pruning strengths (the paper: "a logspace from 1e-5 to 1").
DEFAULT_PRUNE_ALPHAS = np.logspace(-5, 0, 21)

#: ``lam`` values searched by ``lam="auto"``, from impurity reduction alone (C4.5 /
#: CART) down to an even mix with the identification terms ``B + E``.
AUTO_LAMS = (np.inf, 100.0, 30.0, 10.0, 3.0, 1.0)

#: ``cost_exponent`` values searched by ``lam="auto"``: from a gentle use of the costs
#: to the paper's score (1), which divides by the full cost. (0, cost-blind, is the
#: reference the search measures AUC against, not a candidate.)
AUTO_COST_EXPONENTS = (0.25, 0.5, 0.75, 1.0)

_BINARY_HINT = (
    "CostAwareTreeClassifier uses binary tests over 0/1 features; encode numeric or "
    "categorical columns first, e.g. with treeopt.BinnedOneHotEncoder "
    "(k-means bins + one-hot, as in the paper) in a Pipeline"
)

# Relative slack in the stopping rule p(S) <= theta, so that a node holding exactly
# theta of the probability (e.g. 2 of n equally weighted rows with theta = 2 / n)
# stops despite floating-point rounding of the sum.
_THETA_RTOL = 1e-9
# Rows per block when the node's 0/1 rows are multiplied with its per-object columns:
# bounds the float64 temporary to a few MB whatever the data size.
_BLOCK_ROWS = 8192


# --------------------------------------------------------------------------- #
# input preparation
# --------------------------------------------------------------------------- #
def _validate_test_costs(test_costs: ArrayLike | None, n_features: int) -> NDArray[np.float64]:
    """Positive finite costs, one per feature (None -> unit costs)."""
    if test_costs is None:
        return np.ones(n_features, dtype=np.float64)
    try:
        costs = np.asarray(test_costs, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"test_costs must be a 1-D array of {n_features} positive numbers (one per "
            "feature), or None for unit costs."
        ) from None
    if costs.ndim != 1 or costs.shape[0] != n_features:
        raise ValueError(
            f"test_costs has shape {costs.shape} but X has {n_features} features; pass "
            f"one positive cost per feature (length {n_features}), or None for unit costs."
        )
    if not np.all(np.isfinite(costs)) or np.any(costs <= 0):
        j = int(np.flatnonzero(~(np.isfinite(costs) & (costs > 0)))[0])
        raise ValueError(
            f"test_costs[{j}] = {float(costs[j])!r}; every test cost must be a finite "
            "number > 0 "
            "(the greedy score divides by it)."
        )
    return costs


def _merge_identical_rows(
    Xb: NDArray[np.uint8], y_idx: NDArray[np.int64], weight: NDArray[np.float64], n_classes: int
) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """Merge identical rows into objects, as the paper does.

    Returns ``(X_obj, totals)``: the distinct 0/1 rows (sorted by content, so the
    result does not depend on the row order) and, per object, the weighted totals of
    the original labels. Rows of zero weight must be removed beforehand.
    """
    first, inverse = distinct_rows(Xb)
    n_obj = first.shape[0]
    totals = cast(  # float64: bincount with weights (numpy's stub says intp)
        "NDArray[np.float64]",
        np.bincount(inverse * n_classes + y_idx, weights=weight, minlength=n_obj * n_classes),
    ).reshape(n_obj, n_classes)
    return np.ascontiguousarray(Xb[first]), totals


# --------------------------------------------------------------------------- #
# the greedy score of every test at one node
# --------------------------------------------------------------------------- #
def _weighted_impurity(pk: NDArray[np.float64], criterion: str) -> NDArray[np.float64]:
    """``p(S_v) * h(S_v)`` for rows of class probabilities ``pk`` (shape (..., K)).

    Entropy in bits (``h = -sum_l q_l log2 q_l``) or Gini (``h = 1 - sum_l q_l^2``),
    ``q_l = pk_l / p(S_v)``; both are decomposable as in Eq. (1) of the paper.
    """
    P = pk.sum(axis=-1)
    if criterion == "gini":
        with np.errstate(invalid="ignore", divide="ignore"):
            out: NDArray[np.float64] = P - np.where(P > 0, (pk * pk).sum(axis=-1) / P, 0.0)
        return out
    with np.errstate(invalid="ignore", divide="ignore"):
        plogp: NDArray[np.float64] = np.where(
            pk > 0, pk * np.log2(np.where(pk > 0, pk, 1.0)), 0.0
        ).sum(axis=-1)
        PlogP: NDArray[np.float64] = np.where(P > 0, P * np.log2(np.where(P > 0, P, 1.0)), 0.0)
    return PlogP - plogp


def _heterogeneous_pairs(counts: NDArray[np.float64]) -> NDArray[np.float64]:
    """Pairs of objects with different classes, from per-class object counts."""
    n: NDArray[np.float64] = counts.sum(axis=-1)
    same_class_pairs: NDArray[np.float64] = (counts * counts).sum(axis=-1)
    return 0.5 * (n * n - same_class_pairs)


def _node_scores(
    Xs: NDArray[np.uint8],
    labels: NDArray[np.intp],
    pk: NDArray[np.float64],
    costs: NDArray[np.float64],
    n_classes: int,
    criterion: str,
    lam: float,
    theta: float,
    log: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    """Score of every test at the node holding objects ``Xs`` (rows, 0/1).

    Parameters
    ----------
    Xs : ndarray of uint8, shape (n_S, m) -- the node's objects.
    labels : ndarray of int, shape (n_S,) -- their (majority) class indices, used by
        the identification terms (heterogeneous pairs, balance, E).
    pk : ndarray of float, shape (n_S, K) -- probability of each object split by the
        class used for the impurity: ``pk.sum(axis=1)`` is ``p(x_i)``.
    costs : ndarray of float, shape (m,) -- c(d).
    criterion, lam, theta : as in the estimator.
    log : bool, default=False
        Return ``log(numerator) - log(c)`` instead of ``numerator / c``: the same
        order, but finite for any positive finite costs (a cost of 5e-324 would make
        the quotient overflow). A zero numerator becomes ``-finfo.max`` (still
        above the ``-inf`` of the tests that do not split).

    Returns
    -------
    primary : ndarray of float, shape (m,)
        The score ``Z(d)``; ``-inf`` for tests that do not split the node (constant
        on it, which includes every test already used on the path).
    secondary : ndarray of float or None
        Only for ``lam = inf``: ``(B + E) / c``, the tie-break of the limit.
    """
    if log:
        log_costs = np.log(costs)

        def ratio(numerator: NDArray[np.float64]) -> NDArray[np.float64]:
            with np.errstate(divide="ignore", invalid="ignore"):
                out = np.log(np.maximum(numerator, 0.0)) - log_costs
            return np.where(numerator > 0, out, -np.finfo(np.float64).max)
    else:

        def ratio(numerator: NDArray[np.float64]) -> NDArray[np.float64]:
            return numerator / costs

    n_S, m = Xs.shape
    K = n_classes
    p = pk.sum(axis=1)
    P = float(p.sum())
    onehot = np.zeros((n_S, K), dtype=np.float64)
    onehot[np.arange(n_S), labels] = 1.0
    need_E = criterion in ("entropy", "gini", "asr")
    cols = [onehot, pk]
    if need_E:
        # 1 - f_i(D') = max(P - q_i, 0) / (1 - q_i) * phi(S) / phi(X) with
        # q_i = max(p(x_i), theta); the marginal-gain ratio of E(d) only needs
        # a_i = p_i / (P - q_i) and b_i = p_i q_i / (P - q_i) summed per branch.
        q = np.maximum(p, theta)
        a = p / (P - q)
        cols.append(a[:, None])
        cols.append((a * q)[:, None])
    W = np.hstack(cols)
    M = np.zeros((m, W.shape[1]), dtype=np.float64)
    for start in range(0, n_S, _BLOCK_ROWS):
        stop = start + _BLOCK_ROWS
        M += Xs[start:stop].astype(np.float64).T @ W[start:stop]
    total = W.sum(axis=0)

    cnt1 = M[:, :K]  # objects per class in the branch x_d = 1 (exact integers)
    cnt0 = total[:K] - cnt1
    pk1 = M[:, K : 2 * K]  # probability per class in the branch x_d = 1
    pk0 = np.maximum(total[K : 2 * K] - pk1, 0.0)
    n1 = cnt1.sum(axis=1)
    splits = (n1 > 0) & (n1 < n_S)
    P1 = pk1.sum(axis=1)
    P0 = pk0.sum(axis=1)

    with np.errstate(invalid="ignore", divide="ignore"):
        if criterion == "balance":
            primary = ratio(2.0 * np.minimum(P0, P1))
            return np.where(splits, primary, -np.inf), None
        phi = _heterogeneous_pairs(total[:K])
        phi1 = _heterogeneous_pairs(cnt1)
        phi0 = _heterogeneous_pairs(cnt0)
        if criterion == "impure_pairs":
            primary = ratio(phi - phi0 - phi1)
            return np.where(splits, primary, -np.inf), None

        # B(d): probability outside the branch with the most objects (ties: x_d = 0).
        B = np.where(n1 > n_S - n1, P0, P1)
        # E(d): a branch v keeps object i uncovered iff p(S_v) > theta and S_v is
        # impure; then (1 - f_i(D'+d)) / (1 - f_i(D')) =
        # (P_v - q_i) / (P - q_i) * phi(S_v) / phi(S).
        A1, B1 = M[:, 2 * K], M[:, 2 * K + 1]
        A0, B0 = total[2 * K] - A1, total[2 * K + 1] - B1
        limit = theta * (1.0 + _THETA_RTOL)
        keep1 = np.where(P1 > limit, phi1 / phi * (P1 * A1 - B1), 0.0)
        keep0 = np.where(P0 > limit, phi0 / phi * (P0 * A0 - B0), 0.0)
        E = P - keep0 - keep1
        BE = ratio(B + E)
        if criterion == "asr" or lam == 0:
            return np.where(splits, BE, -np.inf), None
        D = _weighted_impurity(total[K : 2 * K], criterion) - (
            _weighted_impurity(pk0, criterion) + _weighted_impurity(pk1, criterion)
        )
        D = np.maximum(D, 0.0)
        if np.isinf(lam):
            return np.where(splits, ratio(D), -np.inf), np.where(splits, BE, -np.inf)
        return np.where(splits, ratio(B + E + lam * D), -np.inf), None


# Scores within this relative distance of the maximum count as tied, so that tests
# inducing the same partition (equal scores up to the rounding of the matrix
# product) go deterministically to the lowest feature index.
_TIE_RTOL = 1e-12


_LOG_TIE: float = np.log1p(-_TIE_RTOL)


def _ties(scores: NDArray[np.float64], log: bool = False) -> NDArray[np.bool_]:
    best: float = scores.max()
    if log:  # s >= best * (1 - rtol) for positive scores, in logarithms
        return scores >= best + _LOG_TIE
    return scores >= best - _TIE_RTOL * abs(best)


def _best_test(primary: NDArray[np.float64], secondary: NDArray[np.float64] | None, log: bool = False) -> int:
    """Index of the best test (lowest index among ties), or -1 if none splits."""
    if not np.isfinite(primary.max()):
        return -1
    tied = _ties(primary, log)
    if secondary is not None:
        tied &= _ties(np.where(tied, secondary, -np.inf), log)
    return int(np.argmax(tied))


def _power_of_two_scale(values: NDArray[np.float64]) -> int:
    """Exponent ``e`` with ``values / 2**e`` exact and of largest magnitude in [0.5, 1).

    Dividing by a power of two only changes the exponent, so every common scale of
    ``values`` by a power of two gives the same scaled values (the results are then
    identical), and any other common scale gives values equal up to rounding. The
    smallest positive value is kept a normal float (the largest is then above 1 only
    for ratios beyond ~1e307).
    """
    positive = values[values > 0]
    if positive.size == 0:
        return 0
    e_max = int(np.frexp(positive.max())[1])
    e_min = int(np.frexp(positive.min())[1])
    return min(e_max, e_min + 1021)


# --------------------------------------------------------------------------- #
# growing the tree
# --------------------------------------------------------------------------- #
# one ThreadpoolController, made on first use (it scans the libraries)
_THREADPOOLS: list[ThreadpoolController] = []


def _one_blas_thread() -> AbstractContextManager[object]:
    """Context manager limiting BLAS to one thread (the node products are thin)."""
    if not _THREADPOOLS:
        _THREADPOOLS.append(ThreadpoolController())
    return _THREADPOOLS[0].limit(limits=1, user_api="blas")


def _grow(
    Xb: NDArray[np.uint8],
    y_idx: NDArray[np.int64],
    weight: NDArray[np.float64],
    n_classes: int,
    costs: NDArray[np.float64],
    criterion: str,
    lam: float,
    theta: float,
    impurity_labels: str = "rows",
) -> _NodeArrays:
    """Grow the greedy tree on 0/1 rows ``Xb`` (uint8) with class indices ``y_idx``.

    Rows of zero weight are ignored; identical rows are merged into one object whose
    probability is their total weight and whose class (used for purity, heterogeneous
    pairs, balance and E) is their weighted majority (ties: lowest class index). The
    impurity term D uses the class distribution of the rows
    (``impurity_labels="rows"``) or the majority classes (``"majority"``). ``value``
    of the returned arrays keeps the weighted totals of the original labels. Returns
    the six node arrays of :class:`treeopt.Tree`, in the order of its arguments
    (``weighted_n_node_samples`` being the row sums of ``value``).
    """
    positive = weight > 0
    X_obj, totals = _merge_identical_rows(
        Xb[positive], y_idx[positive], weight[positive], n_classes
    )
    labels = np.argmax(totals, axis=1)
    obj_weight = totals.sum(axis=1)
    p = obj_weight / obj_weight.sum()
    if impurity_labels == "rows":  # class distribution of the training rows
        pk = totals / obj_weight.sum()
    else:  # the paper's relabelled objects: all of p(x) on the majority class
        pk = np.zeros_like(totals)
        pk[np.arange(labels.shape[0]), labels] = p
    limit = theta * (1.0 + _THETA_RTOL)

    left: list[int] = []
    right: list[int] = []
    feature: list[int] = []
    value: list[NDArray[np.float64]] = []
    # Depth-first, left branch first; node ids are given in pre-order.
    stack = [(np.arange(X_obj.shape[0]), -1, False)]
    # The products are thin (a handful of columns): one BLAS thread is as fast, and
    # much faster than several threads spin-waiting on a busy machine.
    with _one_blas_thread():
        while stack:
            idx, parent, is_right = stack.pop()
            node = len(left)
            left.append(TREE_LEAF)
            right.append(TREE_LEAF)
            feature.append(TREE_UNDEFINED)
            value.append(totals[idx].sum(axis=0))
            if parent >= 0:
                (right if is_right else left)[parent] = node
            lab = labels[idx]
            p_S = p[idx]
            if lab.min() == lab.max() or p_S.sum() <= limit:
                continue  # homogeneous, or p(S) <= theta: a leaf
            Xs = X_obj[idx]
            primary, secondary = _node_scores(
                Xs, lab, pk[idx], costs, n_classes, criterion, lam, theta, log=True
            )
            d = _best_test(primary, secondary, log=True)
            if d < 0:  # cannot happen with merged rows; kept as a guard
                continue
            feature[node] = d
            ones = Xs[:, d].astype(bool)
            stack.append((idx[ones], node, True))
            stack.append((idx[~ones], node, False))

    feature_array = np.asarray(feature, dtype=np.int64)
    value_array = np.asarray(value, dtype=np.float64).reshape(len(left), n_classes)
    return (
        np.asarray(left, dtype=np.int64),
        np.asarray(right, dtype=np.int64),
        feature_array,
        np.where(feature_array >= 0, 0.5, float(TREE_UNDEFINED)),
        value_array,
        value_array.sum(axis=1),
    )


# --------------------------------------------------------------------------- #
# minimal cost-complexity pruning
# --------------------------------------------------------------------------- #
def _scale_weights(tree: Tree, exponent: int) -> Tree:
    """``tree`` with ``value`` and ``weighted_n_node_samples`` multiplied by ``2**exponent``.

    The exponent is lowered as far as needed for the totals to stay finite (training
    weights summing beyond the float range, ~1.8e308): the class proportions, and so
    every prediction, are the same.
    """
    root = float(tree.weighted_n_node_samples[0])
    if root > 0:
        exponent = min(exponent, 1024 - int(np.frexp(root)[1]))
    if exponent == 0:
        return tree
    return Tree(
        tree.children_left,
        tree.children_right,
        tree.feature,
        tree.threshold,
        np.ldexp(tree.value, exponent),
        np.ldexp(tree.weighted_n_node_samples, exponent),
        classes=tree.classes,
        feature_names=tree.feature_names,
        n_features=tree.n_features,
        binary_features=tree.binary_features,
    )


def cost_complexity_prune(tree: Tree, alpha: float, criterion: str = "entropy") -> Tree:
    """Minimal cost-complexity pruning (Breiman et al. 1984) of a :class:`Tree`.

    Returns the smallest subtree ``T`` (sharing the root) minimising
    ``R(T) + alpha * |leaves(T)|`` with ``R(T) = sum over leaves t of
    w(t) / w(root) * h(t)``, ``h`` the entropy (bits) or Gini index of the leaf's
    weighted class totals (``tree.value``) -- the same definition as scikit-learn's
    ``ccp_alpha``, so a given ``alpha`` prunes a tree the same way.

    Parameters
    ----------
    tree : treeopt.Tree
    alpha : float >= 0
    criterion : {"entropy", "gini"}, default="entropy"

    Returns
    -------
    treeopt.Tree

    Examples
    --------
    >>> from treeopt import Tree
    >>> t = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2],
    ...          [[6, 4], [5, 1], [1, 3]], [10, 6, 4])
    >>> cost_complexity_prune(t, 0.01).node_count, cost_complexity_prune(t, 0.5).node_count
    (3, 1)
    """
    if criterion not in ("entropy", "gini"):
        raise ValueError(f"criterion must be 'entropy' or 'gini', got {criterion!r}")
    if not (isinstance(alpha, Real) and alpha >= 0):
        raise ValueError(f"alpha must be a number >= 0, got {alpha!r}")
    total = float(tree.weighted_n_node_samples[0])
    r_node = (
        _weighted_impurity(tree.value, criterion) / total
        if total > 0
        else (np.zeros(tree.node_count))
    )
    # prune when not strictly better (ties: the smaller tree), with a relative
    # tolerance for the rounding of R.
    _, make_leaf = best_pruning(
        tree.children_left, tree.children_right, r_node + alpha, rtol=1e-12
    )
    return subtree(tree, make_leaf)


def _binary_auc(
    positive: NDArray[np.bool_], score: NDArray[np.float64], weight: NDArray[np.float64]
) -> float:
    """Weighted ROC AUC (ties count one half): the weighted share of (positive,
    negative) pairs the score orders correctly. Same value as scikit-learn's
    ``roc_auc_score``, without its input checks (it is called ~150 times a fit)."""
    order = np.argsort(score, kind="stable")
    s = score[order]
    w_pos = np.where(positive[order], weight[order], 0.0)
    w_neg = weight[order] - w_pos
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])  # groups of tied scores
    pos_g, neg_g = np.add.reduceat(w_pos, starts), np.add.reduceat(w_neg, starts)
    below = np.cumsum(neg_g) - neg_g  # negative weight scored strictly lower
    return float((pos_g * (below + 0.5 * neg_g)).sum() / (pos_g.sum() * neg_g.sum()))


def _weighted_auc(
    y_idx: NDArray[np.int64], proba: NDArray[np.float64], weight: NDArray[np.float64], n_classes: int
) -> float:
    """ROC AUC of class probabilities, weighted by ``weight``: of class 1 for two
    classes, else the mean one-vs-rest AUC over the classes that have weight on both
    sides. NaN when no class has (one class only)."""
    scores: list[float] = []
    for k in range(1, 2) if n_classes == 2 else range(n_classes):
        pos = y_idx == k
        if weight[pos].sum() > 0 and weight[~pos].sum() > 0:
            scores.append(_binary_auc(pos, proba[:, k], weight))
    return float(np.mean(scores)) if scores else np.nan


# --------------------------------------------------------------------------- #
# the estimators
# --------------------------------------------------------------------------- #
class CostAwareTreeClassifier(BinaryTreeClassifierMixin, ClassifierMixin, BaseEstimator):
    """Greedy decision tree with a guaranteed low expected test cost (EC4.5 / ECART).

    Implements Algorithm 1 of Zhang & Gionis (regularized impurity reduction). At
    every node the test ``d`` (a 0/1 feature not yet used on the path) maximising

        Z(d) = (B(d) + E(d) + lam * D(d)) / c(d)

    is chosen: ``B`` rewards balanced splits, ``E`` the progress of the per-object
    submodular functions of adaptive submodular ranking, ``D = p(S)(h(S) - h(S|d))``
    is the impurity reduction (entropy or Gini) and ``c(d)`` the test's cost. The
    expected cost of classifying an object is then within ``O(log n)`` of the
    optimal tree's. Identical rows are merged into one object (probability = their
    total weight, class = their weighted majority, as in the paper). A node becomes
    a leaf when its objects all have the same class or its probability ``p(S)`` is
    at most ``min_probability``.

    Parameters
    ----------
    criterion : {"entropy", "gini", "asr", "impure_pairs", "balance"}, default="entropy"
        ``"entropy"``: EC4.5; ``"gini"``: ECART; the others are the baselines of the
        paper's Table 2 -- ``"asr"``: ``(B + E) / c`` (same as ``lam=0``);
        ``"impure_pairs"`` (IP): heterogeneous pairs separated by the test, over its
        cost; ``"balance"`` (BAL): ``2 min(p(S_0), p(S_1)) / c``, i.e. the most even
        split by probability. ``lam`` only matters for entropy and gini.
    lam : float >= 0, numpy.inf or "auto", default=10.0
        Weight of the impurity reduction. ``0`` gives ASR; ``numpy.inf`` gives
        (cost-benefit) C4.5 / CART, maximising ``D / c`` with ties broken by
        ``(B + E) / c``. The score depends only on probabilities, so ``lam`` does
        not scale with the data size. ``"auto"`` chooses ``lam`` and
        ``cost_exponent`` by ``auto_cv``-fold cross-validation on the training data,
        among ``lam`` in ``greedy.AUTO_LAMS`` and ``cost_exponent`` in
        ``greedy.AUTO_COST_EXPONENTS`` (or the given exponent): the setting of lowest
        held-out expected test cost whose held-out ROC AUC is at most
        ``auc_tolerance`` below that of the cost-blind tree (``lam=inf``,
        ``cost_exponent=0``, i.e. C4.5 / CART), with a margin of one standard error
        of the fold-to-fold difference (the most accurate setting if none is within
        it). This costs ``auto_cv`` times 25 fits (6 with unit costs).
    test_costs : array-like of shape (n_features,), default=None
        Cost ``c(d) > 0`` of each test (feature); ``None`` means unit costs. Only
        the ratios matter: multiplying every cost by the same factor (anything from
        1e-300 to 1e300, or costs down to 5e-324) gives the same tree, and
        ``expected_cost_`` scales with it.
    cost_exponent : float >= 0 or None, default=None
        The score divides by ``c(d) ** cost_exponent`` (the cost weight ``omega`` of
        Nunez's EG2): ``1`` is the paper's score, ``0`` ignores the costs while
        growing, values between trade accuracy for cost more gently. ``None``: ``1``
        for a numeric ``lam``, searched for ``lam="auto"``.
    auc_tolerance : float in [0, 1], default=0.01
        ``lam="auto"`` only: how far the cross-validated ROC AUC (one-vs-rest mean
        for multiclass) of the chosen setting may lie below the cost-blind tree's.
    auto_cv : int >= 2, default=5
        ``lam="auto"`` only: folds of its cross-validation (stratified when every
        class has that many rows).
    min_probability : float in [0, 1), default=0.005
        ``theta``: a node whose probability (share of the training weight) is at
        most this is not split. ``0`` grows the tree until every leaf is pure.
    impurity_labels : {"rows", "majority"}, default="rows"
        Class distribution used by the impurity term ``D``. Identical rows are
        always merged into one object labelled by its weighted majority class (the
        paper's pre-processing), and those labels define purity, heterogeneous pairs
        and ``E``. ``"rows"`` computes ``h`` from the labels of the training rows
        themselves, so that with ``lam = inf`` the tree is scikit-learn's C4.5/CART
        even when identical rows disagree; ``"majority"`` computes it from the
        relabelled objects, literally as the paper's code. Both coincide when no two
        identical rows have different labels.
    post_prune : bool, default=False
        Apply minimal cost-complexity pruning after growing, with ``alpha`` chosen
        by ``prune_cv``-fold cross-validated accuracy over ``prune_alphas``.
    prune_alphas : array-like of float >= 0, default=None
        Candidate pruning strengths; ``None`` means ``numpy.logspace(-5, 0, 21)``
        (the paper's grid). ``alpha`` has scikit-learn's ``ccp_alpha`` meaning.
    prune_cv : int >= 2, default=5
        Folds of the pruning cross-validation (stratified when every class has
        that many rows).
    random_state : int, RandomState instance or None, default=None
        Shuffling of the folds of ``lam="auto"`` and of the pruning. The growing
        itself is deterministic (ties go to the lowest feature index).

    Attributes
    ----------
    tree_ : treeopt.Tree
        The fitted tree: 0/1 tests with threshold 0.5, left = feature is 0;
        ``value`` holds the weighted totals of the training labels (original
        labels, not the merged majority labels) reaching each node.
    classes_ : ndarray
        Class labels.
    n_features_in_, feature_names_in_ :
        As in scikit-learn.
    test_costs_ : ndarray of shape (n_features_in_,)
        The validated costs used.
    expected_cost_ : float
        Expected test cost of classifying a training row (weighted by
        ``sample_weight``): :func:`treeopt.metrics.expected_cost` on the training data.
    ccp_alpha_ : float
        Pruning strength applied (``0.0`` when ``post_prune=False``).
    lam_ : float
        ``lam`` the tree was grown with (the chosen one for ``lam="auto"``).
    cost_exponent_ : float
        ``cost_exponent`` the tree was grown with.
    search_results_ : list of dict
        Only for ``lam="auto"``: per setting tried (the candidates, then the
        cost-blind reference), ``lam``, ``cost_exponent`` and the cross-validated
        ``auc`` and ``expected_cost``.

    See Also
    --------
    EC45Classifier : ``criterion="entropy"``.
    ECARTClassifier : ``criterion="gini"``.
    treeopt.BinnedOneHotEncoder : the paper's encoding of raw data.

    Examples
    --------
    >>> import numpy as np
    >>> from treeopt import CostAwareTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(200, 6))
    >>> y = X[:, 0] | (X[:, 1] & X[:, 2])
    >>> clf = CostAwareTreeClassifier(lam=10, test_costs=[1, 1, 1, 5, 5, 5]).fit(X, y)
    >>> clf.score(X, y), clf.tree_.n_leaves
    (1.0, 4)
    >>> round(clf.expected_cost_, 3)
    1.67
    """

    _fixed_criterion: str | None = None

    _binary_hint = _BINARY_HINT

    _parameter_constraints: dict[str, list[Any]] = {
        "criterion": [StrOptions(set(_CRITERIA))],
        "lam": [
            Interval(Real, 0, None, closed="left"),
            Options(Real, {np.inf}),
            StrOptions({"auto"}),
        ],
        "test_costs": ["array-like", None],
        "cost_exponent": [Interval(Real, 0, None, closed="left"), None],
        "auc_tolerance": [Interval(Real, 0, 1, closed="both")],
        "auto_cv": [Interval(Integral, 2, None, closed="left")],
        "min_probability": [Interval(Real, 0, 1, closed="left")],
        "impurity_labels": [StrOptions({"rows", "majority"})],
        "post_prune": ["boolean"],
        "prune_alphas": ["array-like", None],
        "prune_cv": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    }

    # the parameters (set by __init__)
    criterion: str
    lam: float | str
    test_costs: ArrayLike | None
    cost_exponent: float | None
    auc_tolerance: float
    auto_cv: int
    min_probability: float
    impurity_labels: str
    post_prune: bool
    prune_alphas: ArrayLike | None
    prune_cv: int
    random_state: int | np.random.RandomState | None

    # the fitted attributes (set by fit)
    tree_: Tree
    classes_: NDArray[Any]
    n_features_in_: int
    test_costs_: NDArray[np.float64]
    expected_cost_: float
    ccp_alpha_: float
    lam_: float
    cost_exponent_: float
    search_results_: list[dict[str, float]]

    def __init__(
        self,
        criterion: str = "entropy",
        lam: float | str = 10.0,
        test_costs: ArrayLike | None = None,
        cost_exponent: float | None = None,
        auc_tolerance: float = 0.01,
        auto_cv: int = 5,
        min_probability: float = 0.005,
        impurity_labels: str = "rows",
        post_prune: bool = False,
        prune_alphas: ArrayLike | None = None,
        prune_cv: int = 5,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        store_init_params(self, locals())

    # ------------------------------------------------------------------ #
    def _get_criterion(self) -> str:
        return self._fixed_criterion or self.criterion

    def _prune_alphas(self) -> NDArray[np.float64]:
        if self.prune_alphas is None:
            return DEFAULT_PRUNE_ALPHAS.copy()
        try:
            alphas = np.asarray(self.prune_alphas, dtype=np.float64).ravel()
        except (TypeError, ValueError):
            alphas = np.array([np.nan])
        if alphas.size == 0 or not np.all(np.isfinite(alphas)) or np.any(alphas < 0):
            raise ValueError(
                "prune_alphas must be a non-empty list of finite numbers >= 0 "
                f"(got {self.prune_alphas!r}); or None for numpy.logspace(-5, 0, 21)."
            )
        return np.unique(alphas)

    def _make_tree(
        self,
        Xb: NDArray[np.uint8],
        y_idx: NDArray[np.int64],
        weight: NDArray[np.float64],
        costs: NDArray[np.float64],
        lam: float,
    ) -> Tree:
        """The greedy tree grown with ``lam`` and the (already exponentiated) ``costs``."""
        arrays = _grow(
            Xb,
            y_idx,
            weight,
            len(self.classes_),
            costs,
            self._get_criterion(),
            float(lam),
            float(self.min_probability),
            self.impurity_labels,
        )
        names = getattr(self, "feature_names_in_", None)
        return Tree(
            *arrays,
            classes=self.classes_,
            feature_names=None if names is None else [str(f) for f in names],
            n_features=self.n_features_in_,
            binary_features=True,  # grown on 0/1 columns with threshold 0.5
        )

    def _pruning_impurity(self) -> str:
        return "gini" if self._get_criterion() == "gini" else "entropy"

    def _folds(
        self,
        Xb: NDArray[np.uint8],
        y_idx: NDArray[np.int64],
        weight: NDArray[np.float64],
        n_splits: int,
        seed: int,
    ) -> list[tuple[NDArray[np.intp], NDArray[np.intp]]]:
        """(train, test) index pairs: stratified when every class has ``n_splits`` rows."""
        class_counts = np.bincount(y_idx[weight > 0], minlength=len(self.classes_))
        present = class_counts[class_counts > 0]
        folds: KFold
        if present.size >= 2 and present.min() >= n_splits:
            folds = StratifiedKFold(n_splits, shuffle=True, random_state=seed)
        else:
            folds = KFold(min(n_splits, Xb.shape[0]), shuffle=True, random_state=seed)
        return [(tr, te) for tr, te in folds.split(Xb, y_idx) if weight[tr].sum() > 0]

    def _choose_setting(
        self,
        Xb: NDArray[np.uint8],
        y_idx: NDArray[np.int64],
        weight: NDArray[np.float64],
        costs: NDArray[np.float64],
        real_costs: NDArray[np.float64],
        seed: int,
    ) -> tuple[float, float, list[dict[str, float]]]:
        """``(lam, cost_exponent, results)`` of ``lam="auto"`` (see the class docstring).

        Every candidate of ``AUTO_LAMS x`` the exponents and the cost-blind reference
        (``lam=inf``, exponent 0: C4.5 / CART) are grown on the same ``auto_cv`` folds
        and scored on the held-out rows by weighted ROC AUC and expected test cost
        (with ``real_costs``; ``costs`` are the scaled ones the trees grow with). A
        candidate qualifies when its AUC difference to the reference, averaged over
        the folds, less one standard error of that mean, is at least
        ``-auc_tolerance``: the margin keeps fold noise from letting through a setting
        that only looked accurate enough, which picking the cheapest of ~20 would
        otherwise favour. The cheapest qualifying candidate is chosen (ties: higher
        AUC, then earlier in the grid), else the candidate of highest AUC.
        """
        equal = bool(np.all(costs == costs[0]))  # then every exponent grows the same tree
        exponents: tuple[float, ...]
        if self.cost_exponent is not None:
            exponents = (float(self.cost_exponent),)
        else:
            exponents = (1.0,) if equal else AUTO_COST_EXPONENTS
        candidates = [(lam, w) for w in exponents for lam in AUTO_LAMS]
        blind = (np.inf, exponents[0] if equal else 0.0)
        settings = candidates + [blind] * (blind not in candidates)
        folds = self._folds(Xb, y_idx, weight, self.auto_cv, seed) if Xb.shape[0] >= 2 else []
        n_classes = len(self.classes_)
        auc = np.full((len(settings), len(folds)), np.nan)
        cost = np.zeros((len(settings), len(folds)))
        for f, (train, test) in enumerate(folds):
            for k, (lam, w) in enumerate(settings):
                tree = self._make_tree(Xb[train], y_idx[train], weight[train], costs**w, lam)
                auc[k, f] = _weighted_auc(
                    y_idx[test], tree.predict_proba(Xb[test]), weight[test], n_classes
                )
                cost[k, f] = expected_cost(tree, Xb[test], real_costs, sample_weight=weight[test])
        valid = ~np.isnan(auc).any(axis=0)  # folds holding out two classes or more
        auc, n_valid = auc[:, valid], int(valid.sum())
        zeros = np.zeros(len(settings))
        mean_auc = auc.mean(axis=1) if n_valid else zeros
        mean_cost = cost.mean(axis=1) if folds else zeros
        ref = settings.index(blind)
        diff = auc - auc[ref]  # paired: the same folds
        se = diff.std(axis=1, ddof=1) / np.sqrt(n_valid) if n_valid > 1 else zeros
        lower = (diff.mean(axis=1) if n_valid else zeros) - se
        results = [
            {"lam": lam, "cost_exponent": w, "auc": float(a), "expected_cost": float(c)}
            for (lam, w), a, c in zip(settings, mean_auc, mean_cost)
        ]
        n = len(candidates)
        eligible = [k for k in range(n) if lower[k] >= -self.auc_tolerance]
        if eligible:
            best = min(eligible, key=lambda k: (mean_cost[k], -mean_auc[k], k))
        else:
            best = min(range(n), key=lambda k: (-mean_auc[k], k))
        lam, w = candidates[best]
        return float(lam), float(w), results

    def _choose_alpha(
        self,
        Xb: NDArray[np.uint8],
        y_idx: NDArray[np.int64],
        weight: NDArray[np.float64],
        costs: NDArray[np.float64],
        lam: float,
        alphas: NDArray[np.float64],
        seed: int,
    ) -> float:
        """alpha with the best cross-validated weighted accuracy (ties: larger alpha)."""
        if Xb.shape[0] < 2:
            return 0.0
        impurity = self._pruning_impurity()
        correct = np.zeros(alphas.shape[0])
        for train, test in self._folds(Xb, y_idx, weight, self.prune_cv, seed):
            full = self._make_tree(Xb[train], y_idx[train], weight[train], costs, lam)
            for k, alpha in enumerate(alphas):
                pruned = cost_complexity_prune(full, float(alpha), impurity)
                hit = np.argmax(pruned.value, axis=1)[pruned.apply(Xb[test])] == y_idx[test]
                correct[k] += weight[test][hit].sum()
        best = np.flatnonzero(correct >= correct.max() * (1 - 1e-12))
        return float(alphas[best[-1]])

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(
        self: _Classifier, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> _Classifier:
        """Grow the tree on 0/1 features.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            0/1 (or boolean) features; encode other data first with
            :class:`treeopt.BinnedOneHotEncoder`.
        y : array-like of shape (n_samples,)
            Class labels (binary or multiclass).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; object probabilities are proportional to them, so
            multiplying all weights by the same factor gives the same tree (``value``
            then holds the scaled totals, divided by a power of two if they would
            exceed the float range).

        Returns
        -------
        self
        """
        X = zero_one_frame(self, X)
        X, y = validate_data(self, X, y, dtype=None, ensure_all_finite=True)
        self.classes_, y_idx = encode_class_labels(y, needs=None)
        y_idx = y_idx.astype(np.int64)
        weight = sample_weights(sample_weight, X)
        Xb = as_binary_matrix(X, _BINARY_HINT, getattr(self, "feature_names_in_", None))
        costs = _validate_test_costs(self.test_costs, self.n_features_in_)
        alphas = self._prune_alphas() if self.post_prune else None

        # Weights and costs divided by powers of two (exact) to largest values in
        # [0.5, 1): a common scale of either, 1e-300 or 1e300, gives the same tree,
        # and no sum of weights or ratio of scores overflows.
        weight_exp = _power_of_two_scale(weight)
        unit_weight = np.ldexp(weight, -weight_exp)
        unit_costs = np.ldexp(costs, -_power_of_two_scale(costs))
        rng = check_random_state(self.random_state)
        if isinstance(self.lam, str):  # "auto"
            seed = rng.randint(np.iinfo(np.int32).max)
            self.lam_, self.cost_exponent_, self.search_results_ = self._choose_setting(
                Xb, y_idx, unit_weight, unit_costs, costs, seed
            )
        else:
            self.lam_ = float(self.lam)
            self.cost_exponent_ = 1.0 if self.cost_exponent is None else float(self.cost_exponent)
        grow_costs = unit_costs**self.cost_exponent_
        tree = self._make_tree(Xb, y_idx, unit_weight, grow_costs, self.lam_)
        self.ccp_alpha_ = 0.0
        if alphas is not None:  # post_prune
            seed = rng.randint(np.iinfo(np.int32).max)
            self.ccp_alpha_ = self._choose_alpha(
                Xb, y_idx, unit_weight, grow_costs, self.lam_, alphas, seed
            )
            tree = cost_complexity_prune(tree, self.ccp_alpha_, self._pruning_impurity())
        self.tree_ = _scale_weights(tree, weight_exp)
        self.test_costs_ = costs
        self.expected_cost_ = float(expected_cost(tree, Xb, costs, sample_weight=weight))
        return self

    # ------------------------------------------------------------------ #
    def get_depth(self) -> int:
        """Depth of ``tree_`` (a single leaf has depth 0)."""
        check_is_fitted(self, "tree_")
        return self.tree_.depth

    def get_n_leaves(self) -> int:
        """Number of leaves of ``tree_``."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves



def _without_criterion(constraints: dict[str, list[Any]]) -> dict[str, list[Any]]:
    return {k: v for k, v in constraints.items() if k != "criterion"}


class EC45Classifier(CostAwareTreeClassifier):
    """Enhanced C4.5: :class:`CostAwareTreeClassifier` with ``criterion="entropy"``.

    Parameters are those of :class:`CostAwareTreeClassifier` except ``criterion``.

    Examples
    --------
    >>> import numpy as np
    >>> from treeopt import EC45Classifier
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 10)
    >>> EC45Classifier().fit(X, X[:, 0] ^ X[:, 1]).tree_.n_leaves
    4
    """

    _fixed_criterion = "entropy"
    _parameter_constraints = _without_criterion(CostAwareTreeClassifier._parameter_constraints)

    def __init__(
        self,
        lam: float | str = 10.0,
        test_costs: ArrayLike | None = None,
        cost_exponent: float | None = None,
        auc_tolerance: float = 0.01,
        auto_cv: int = 5,
        min_probability: float = 0.005,
        impurity_labels: str = "rows",
        post_prune: bool = False,
        prune_alphas: ArrayLike | None = None,
        prune_cv: int = 5,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        store_init_params(self, locals())


class ECARTClassifier(EC45Classifier):
    """Enhanced CART: :class:`CostAwareTreeClassifier` with ``criterion="gini"``.

    Parameters are those of :class:`CostAwareTreeClassifier` except ``criterion``.

    Examples
    --------
    >>> import numpy as np
    >>> from treeopt import ECARTClassifier
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 10)
    >>> ECARTClassifier().fit(X, X[:, 0] & X[:, 1]).predict([[1, 1], [0, 1]]).tolist()
    [1, 0]
    """

    _fixed_criterion = "gini"

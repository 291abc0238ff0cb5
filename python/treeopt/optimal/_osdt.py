"""OSDT: the leaf-set branch and bound of Hu, Rudin and Seltzer (NeurIPS 2019) in Rust."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils._param_validation import StrOptions

from .. import _core
from .._base import SEARCH_CONSTRAINTS, store_init_params
from .._binary import distinct_rows
from ..tree import Tree, best_pruning, subtree
from ._base import CertifiedTreeClassifier, _fields

if TYPE_CHECKING:
    from sklearn.utils import ClassifierTags, Tags

    from ._base import _SearchMatrix

    #: A warm start for the Rust search: ``(children_left, children_right, feature)``.
    _NodeArrays = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]

__all__ = ["OSDT_BOUNDS", "OSDT_POLICIES", "OSDTClassifier"]

#: Names of OSDT's bounds, for ``OSDTClassifier(bounds=...)`` (see its docstring).
OSDT_BOUNDS = tuple(_core.osdt_bound_names())
#: Names of OSDT's scheduling policies, for ``OSDTClassifier(policy=...)``.
OSDT_POLICIES = tuple(_core.osdt_policy_names())


def _prune_for_penalty(tree: Tree, regularization: float, total: float) -> tuple[float, _NodeArrays]:
    """Node arrays of ``tree`` (a treeopt.Tree over 0/1 features) pruned bottom-up for
    the objective loss / total + regularization * leaves: a subtree becomes a leaf when
    the leaf is at least as good (the best pruning of this tree for that objective)."""
    value = np.asarray(tree.value, dtype=np.float64)
    leaf_cost = (value.sum(axis=1) - value.max(axis=1)) / total + regularization
    best, make_leaf = best_pruning(tree.children_left, tree.children_right, leaf_cost)
    pruned = subtree(tree, make_leaf)
    arrays = cast("_NodeArrays", tuple(
        np.ascontiguousarray(a, dtype=np.int64)
        for a in (pruned.children_left, pruned.children_right, pruned.feature)
    ))
    return float(best[0]), arrays


def _cart_warm_start(
    Xb: NDArray[np.uint8], y_encoded: NDArray[np.uint32], weight: NDArray[np.float64] | None, regularization: float
) -> _NodeArrays:
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


def _check_binary_target(y: ArrayLike) -> None:
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


class OSDTClassifier(CertifiedTreeClassifier):
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
        Log the search progress (elapsed, lower bound, objective, gap, subproblems) on
        the ``treeopt`` logger (on stderr when logging is not configured).

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
    >>> X = np.array([[0, 0, 1], [0, 1, 0], [1, 0, 1], [1, 1, 0]] * 5)
    >>> y = X[:, 0] & X[:, 1]  # the third column does not help
    >>> clf = OSDTClassifier(regularization=0.01).fit(X, y)
    >>> print(clf.tree_.to_text())
    if x[1]:
        if x[0]:
            predict 1  (n=5; 0: 0, 1: 5; p=1)
        else:  # not x[0]
            predict 0  (n=5; 0: 5, 1: 0; p=1)
    else:  # not x[1]
        predict 0  (n=10; 0: 10, 1: 0; p=1)
    >>> ablated = OSDTClassifier(bounds={"lookahead"}).fit(X, y)
    >>> ablated.objective_ == clf.objective_
    True
    """

    _parameter_constraints: dict[str, list[Any]] = {
        **SEARCH_CONSTRAINTS,
        "policy": [StrOptions(set(OSDT_POLICIES))],
        "bounds": [StrOptions({"all"}), set, frozenset, list, tuple],
        "warm_start": [StrOptions({"cart"}), Tree, None],
    }

    policy: str
    bounds: str | Iterable[str]
    warm_start: str | Tree | None
    trees_evaluated_: int
    trees_to_optimum_: int
    time_to_optimum_: float
    warm_start_objective_: float | None

    def __init__(
        self,
        regularization: float = 0.01,
        policy: str = "curiosity",
        bounds: str | Iterable[str] = "all",
        warm_start: str | Tree | None = "cart",
        time_limit: float | None = None,
        memory_limit: int | None = None,
        class_weight: dict[Any, float] | str | None = None,
        verbose: bool = False,
    ) -> None:
        store_init_params(self, locals())

    # OSDT has no lower-bound guessing: its fit leaves out the base's y_ref on purpose.
    def fit(  # type: ignore[override]
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> OSDTClassifier:
        """Finds the optimal tree for the 0/1 matrix X and binary labels y; returns self.

        On Ctrl-C the best tree so far is stored (``status_ == "interrupted"``) before
        ``KeyboardInterrupt`` goes on, as for :meth:`GOSDTClassifier.fit`.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            0/1 (or boolean) features.
        y : array-like of shape (n_samples,)
            Class labels, exactly two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; the objective uses weighted misclassification.
        """
        return super().fit(X, y, sample_weight=sample_weight)

    def _validate_fit_input(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None
    ) -> tuple[_SearchMatrix, NDArray[Any], NDArray[np.uint32], NDArray[np.float64] | None]:
        _check_binary_target(y)
        return super()._validate_fit_input(X, y, sample_weight)

    def _disabled_bounds(self) -> list[str]:
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

    def _warm_start_arrays(
        self, Xb: NDArray[np.uint8], y_encoded: NDArray[np.uint32], weight: NDArray[np.float64] | None
    ) -> _NodeArrays | None:
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
        return cast("_NodeArrays", tuple(
            np.ascontiguousarray(a, dtype=np.int64)
            for a in (tree.children_left, tree.children_right, tree.feature)
        ))

    def _solve(
        self,
        Xb: _SearchMatrix,
        y_encoded: NDArray[np.uint32],
        weight: NDArray[np.float64] | None,
        reference: NDArray[np.float64] | None,
    ) -> _core.FitResult:
        """Runs the Rust solver: returns its ``_core.FitResult``."""
        if reference is not None:  # only reachable through the base class
            raise ValueError(
                "OSDTClassifier has no lower-bound guessing (y_ref); use GOSDTClassifier."
            )
        disabled = self._disabled_bounds()
        warm = self._warm_start_arrays(cast("NDArray[np.uint8]", Xb), y_encoded, weight)  # 0/1 only
        search = _core.OsdtSearch(
            float(self.regularization),
            policy=self.policy,
            disabled_bounds=disabled,
            warm_start=warm,
        )
        return self._fit_core(Xb, y_encoded, weight, search)

    def _set_result(self, res: _core.FitResult) -> None:
        super()._set_result(res)
        osdt = cast("_core.OsdtStats", res.osdt)  # set by every OSDT search
        self.trees_evaluated_ = int(osdt.trees_evaluated)
        self.trees_to_optimum_ = int(osdt.trees_to_optimum)
        self.time_to_optimum_ = float(osdt.time_to_optimum)
        warm = osdt.warm_start_objective
        self.warm_start_objective_ = None if warm is None else float(warm)
        self.search_stats_.update(
            _fields(
                osdt,
                (
                    "trees_evaluated",
                    "trees_queued",
                    "trees_to_optimum",
                    "time_to_optimum",
                    "leaves",
                    "peak_queue",
                    "peak_bytes",
                ),
            )
        )

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        cast("ClassifierTags", tags.classifier_tags).multi_class = False
        return tags

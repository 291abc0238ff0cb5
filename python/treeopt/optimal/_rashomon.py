"""The Rashomon set: every tree whose objective is within a bound of the optimum.

:class:`RashomonSet` hands the problem to the Rust core (``_core.rashomon_set``), which
proves the optimum with the GOSDT search and then builds an and/or graph of subproblems
within their budgets: a subproblem (the training rows a node holds, and the depth left)
keeps each of its trees' costs as *levels* (distinct costs, ascending), and each level
the ways to reach it, a leaf predicting one class or a split whose two sides reach a
level each. A split's sides are built only once the search has proved both sides'
optima within the budget, each with the budget less its sibling's optimum, so every
tree within the bound is reached and no node is built that no member passes through.
Counting, indexing, the trees' average prediction and their feature usage are exact
dynamic programmes over this graph (in Rust), never a list of the trees.
"""

from __future__ import annotations

import bisect
import itertools
import time
from collections.abc import Iterable, Iterator
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, SupportsInt, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, check_random_state

from .. import _core
from .._base import light_fit_context, saturated, store_init_params, validate_params_once
from .._validation import encode_class_labels, plain_zero_one_problem, sample_weights, validate_numeric_data
from ..tree import Tree
from ..tree._model import binary_columns

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["RashomonSet"]

class RashomonSet(ClassifierMixin, BaseEstimator):
    """Every decision tree whose objective is within a bound of the optimal one (the
    Rashomon set; Xin et al., NeurIPS 2022), exact, counted and sampled without being
    listed.

    The objective is GOSDT's: ``weighted misclassification / total weight +
    regularization * leaves``. After ``fit`` the set holds, literally, every tree over
    the training columns such that

    * every split ``x[j] <= t`` has ``t`` the midpoint between two consecutive distinct
      values of column ``j`` among the training rows its node holds (one threshold, 0.5,
      for a 0/1 column) and sends at least one row (and at least
      ``min_samples_leaf`` rows) each way; rows of weight 0 take no part;
    * each leaf predicts any one class (not necessarily its majority);
    * the depth is at most ``max_depth`` (a single leaf has depth 0);
    * the objective is at most ``(1 + rashomon_bound) * optimum``
      (``bound_type="multiplicative"``) or ``optimum + rashomon_bound`` (``"additive"``),
      within 1e-9.

    Two trees are distinct when their structure (the split at some node) or a leaf's
    class differs.

    Parameters
    ----------
    regularization : float, default=0.01
        Penalty per leaf, as a fraction of the total weight (λ).
    rashomon_bound : float, default=0.05
        How far above the optimum a member may be (see ``bound_type``).
    bound_type : {"multiplicative", "additive"}, default="multiplicative"
        Whether the bound is a fraction of the optimum or an objective difference.
    max_depth : int or None, default=None
        Maximum depth of the trees (None: only the bound and ``min_samples_leaf`` limit
        them; with ``regularization=0`` give a depth).
    min_samples_leaf : int, default=1
        Minimum training rows in every leaf.
    time_limit : float or None, default=None
        Seconds the fit may take; past them it raises ``TimeoutError`` (a partial set
        would not be the Rashomon set).
    memory_limit : int or None, default=None
        Bytes the search and the graph may hold; past them the fit raises
        ``MemoryError``.

    Attributes
    ----------
    n_trees_ : int
        Number of trees in the set (a Python int: it may exceed 2**64).
    optimal_objective_ : float
        The optimum (proved by the GOSDT search).
    objective_bound_ : float
        The largest objective a member may have.
    classes_ : ndarray
        The class labels.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When X has string column names.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from treeopt import RashomonSet
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.integers(0, 2, size=(200, 4)), columns=["smoker", "over_60", "diabetic", "male"])
    >>> y = (X.smoker | X.over_60) ^ (rng.random(200) < 0.1)
    >>> rs = RashomonSet(regularization=0.01, rashomon_bound=0.5, max_depth=2).fit(X, y)
    >>> rs.n_trees_, round(rs.optimal_objective_, 3), round(rs.objective(7), 3)
    (8, 0.09, 0.1)
    >>> print(rs[0].to_text())
    if smoker:
        predict True  (n=114; False: 8, True: 106; p=0.9298)
    else:  # not smoker
        if over_60:
            predict True  (n=50; False: 2, True: 48; p=0.96)
        else:  # not over_60
            predict False  (n=36; False: 34, True: 2; p=0.9444)
    >>> dict(zip(X.columns, rs.feature_usage().tolist()))  # share of the 8 trees using each
    {'smoker': 1.0, 'over_60': 1.0, 'diabetic': 0.25, 'male': 0.25}
    """

    _parameter_constraints: dict[str, list[Any]] = {
        "regularization": [Interval(Real, 0, None, closed="left")],
        "rashomon_bound": [Interval(Real, 0, None, closed="left")],
        "bound_type": [StrOptions({"multiplicative", "additive"})],
        "max_depth": [Interval(Integral, 0, None, closed="left"), None],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "memory_limit": [Interval(Integral, 1, None, closed="left"), None],
    }

    regularization: float
    rashomon_bound: float
    bound_type: str
    max_depth: int | None
    min_samples_leaf: int
    time_limit: float | None
    memory_limit: int | None
    classes_: NDArray[Any]
    n_features_in_: int
    optimal_objective_: float
    objective_bound_: float
    n_trees_: int
    _graph: _core.RashomonGraph
    _binary_features: NDArray[np.bool_] | bool
    _total: float
    _train_rows: tuple[NDArray[Any], NDArray[Any], NDArray[np.float64] | None]
    _grouped: tuple[NDArray[np.float64], NDArray[np.float64]] | None
    _levels: list[tuple[float, int]]
    _starts: list[int] | None

    def __init__(
        self,
        regularization: float = 0.01,
        rashomon_bound: float = 0.05,
        bound_type: str = "multiplicative",
        max_depth: int | None = None,
        min_samples_leaf: int = 1,
        time_limit: float | None = None,
        memory_limit: int | None = None,
    ) -> None:
        store_init_params(self, locals())

    def _validate_params(self) -> None:
        """scikit-learn's check of the parameters, once per parameter values
        (:func:`treeopt._base.validate_params_once`)."""
        validate_params_once(self, super()._validate_params)

    @light_fit_context
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> RashomonSet:
        """Finds the optimum, then every tree within the bound.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Finite numbers (0/1 columns split once, numeric ones at every midpoint).
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the misclassified rows.

        Returns
        -------
        self : RashomonSet
        """
        if self.regularization == 0 and self.max_depth is None:
            raise ValueError(
                "regularization=0 with max_depth=None makes every split free: pass a "
                "max_depth or a regularization > 0."
            )
        start = time.monotonic()
        plain = plain_zero_one_problem(self, X, y) if sample_weight is None else None
        matrix: NDArray[np.uint8] | NDArray[np.float64]
        y_encoded: NDArray[np.uint32] | NDArray[np.intp]
        w: NDArray[np.float64] | None
        if plain is not None:
            # 0/1 uint8 rows and integer labels, unweighted: checked in a few steps, and
            # the core weighs every row 1.
            matrix, self.classes_, y_encoded = plain
            w = None
            self._binary_features = True
        else:
            matrix, y_encoded, w = self._general_inputs(X, y, sample_weight)
        time_left = None
        if self.time_limit is not None:
            time_left = max(self.time_limit - (time.monotonic() - start), 1e-6)
        try:
            self._graph = _core.rashomon_set(
                matrix, np.ascontiguousarray(y_encoded, dtype=np.uint32), len(self.classes_),
                None if w is None else np.ascontiguousarray(w / w.max()),
                float(self.regularization), float(self.rashomon_bound),
                self.bound_type, max_depth=saturated(self.max_depth),
                min_samples_leaf=saturated(self.min_samples_leaf), time_limit=time_left,
                memory_limit=None if self.memory_limit is None else int(self.memory_limit))
        except TimeoutError:
            raise TimeoutError(
                f"the Rashomon set took more than time_limit={self.time_limit} s; raise "
                "time_limit, or shrink the set (smaller rashomon_bound, max_depth, larger "
                "regularization)."
            ) from None
        except MemoryError:
            raise MemoryError(
                f"the Rashomon set needs more than memory_limit={self.memory_limit} bytes; "
                "raise memory_limit, or shrink the set (smaller rashomon_bound, max_depth, "
                "larger regularization)."
            ) from None
        self.optimal_objective_ = float(self._graph.optimal_objective)
        self.objective_bound_ = float(self._graph.objective_bound)
        self._total = float(self._graph.total_weight)
        # The training rows, grouped into the trees' node values on the first tree asked
        # for (``_groups``): grouping costs more than many a whole build. The caller's
        # own array (or a view of it) is copied, so that the values stay the fit's if the
        # caller changes it later.
        if matrix is X or not matrix.flags.owndata:
            matrix = matrix.copy()
        self._train_rows = (matrix, y_encoded, w)
        self._grouped = None
        self._levels = self._graph.levels()
        self._starts = None
        self.n_trees_ = sum(count for _, count in self._levels)
        return self

    def _general_inputs(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None
    ) -> tuple[NDArray[np.uint8] | NDArray[np.float64], NDArray[np.intp], NDArray[np.float64] | None]:
        """Any input ``fit`` takes, checked and converted: the matrix the core reads (0/1
        ``uint8``, else float64), the class codes and the weights (None when not given;
        rows of zero weight dropped); sets ``classes_``, ``n_features_in_`` and the
        binary columns."""
        X, y = validate_numeric_data(self, X, y, dtype="numeric")
        self.classes_, y_encoded = encode_class_labels(y)
        w = None
        if sample_weight is not None:
            w = sample_weights(sample_weight, X)
            keep = w > 0
            if not keep.any():
                raise ValueError("every sample_weight is 0; give some rows a positive weight.")
            if not keep.all():
                X, y_encoded, w = X[keep], y_encoded[keep], w[keep]
        # Integer columns go to the core as they are (0/1) or as floats; copying every
        # matrix to floats first cost more than a small build (occupancy d3: 1.4 ms of 2).
        if X.dtype.kind not in "biu":
            X = X.astype(np.float64)
        if X.dtype.kind in "bu" and X.size and (X.dtype.kind == "b" or X.max() <= 1):
            # Booleans, or unsigned integers of at most 1: every column is 0/1, known
            # from one reduction (the common 0/1 uint8 matrix; the general test makes
            # three passes and a per-column one).
            self._binary_features = True
            zero_one = True
        else:
            binary = binary_columns(X)
            self._binary_features = binary
            zero_one = bool(binary.all())
        matrix = cast(
            "NDArray[np.uint8] | NDArray[np.float64]",
            np.ascontiguousarray(X, dtype=np.uint8 if zero_one else np.float64),
        )
        return matrix, y_encoded, w

    # ------------------------------------------------------------------ #
    def _locate(self, i: SupportsInt) -> tuple[int, int]:
        """The (level, index within the level) of tree ``i``."""
        check_is_fitted(self, "n_trees_")
        i = int(i)
        if i < 0:
            i += self.n_trees_
        if not 0 <= i < self.n_trees_:
            raise IndexError(f"tree index {i} out of range for a set of {self.n_trees_} trees")
        if self._starts is None:
            self._starts = list(itertools.accumulate((count for _, count in self._levels), initial=0))
        pos = bisect.bisect_right(self._starts, i) - 1
        return pos, i - self._starts[pos]

    def objective(self, i: SupportsInt) -> float:
        """The objective of tree ``i`` (trees are ordered by objective)."""
        level, _ = self._locate(i)
        return self._levels[level][0] / self._total

    def __getitem__(self, i: SupportsInt) -> Tree:
        """Tree ``i`` as a :class:`treeopt.Tree` (0: an optimal tree; ascending
        objective, ties in a fixed order)."""
        level, j = self._locate(i)
        return self._as_tree(self._graph.tree(level, j))

    def __iter__(self) -> Iterator[Tree]:
        """The trees in index order (use :meth:`sample` on large sets)."""
        for i in range(self.n_trees_):
            yield self[i]

    def sample(self, k: SupportsInt, random_state: int | np.random.RandomState | None = None) -> list[int]:
        """``k`` tree indices drawn uniformly from the set, with replacement (a Python
        ``list`` of ints, usable with ``rs[i]``); the set is never listed."""
        rng = check_random_state(random_state)
        return [_uniform_int(rng, self.n_trees_) for _ in range(int(k))]

    def _as_tree(self, records: list[tuple[int, float, int, int, int]]) -> Tree:
        """A :class:`treeopt.Tree` from the graph's preorder records ``(column,
        threshold, left, right, label)`` (column -1 on leaves), with each node's training
        class weights."""
        n = len(records)
        left = np.full(n, -1)
        right = np.full(n, -1)
        feature = np.full(n, -2)
        threshold = np.full(n, -2.0)
        labels = np.zeros(n, dtype=np.int64)
        for at, (column, t, lo, hi, label) in enumerate(records):
            if column >= 0:
                feature[at], threshold[at], left[at], right[at] = column, t, lo, hi
            else:
                labels[at] = label
        # Each node's training class weights, by routing the groups down the tree.
        values, class_weight = self._groups()
        value = np.zeros((n, len(self.classes_)))
        masks = [np.ones(values.shape[0], dtype=bool)] + [None] * (n - 1)
        for at in range(n):
            value[at] = class_weight[masks[at]].sum(axis=0)
            if feature[at] >= 0:
                goes_left = values[:, feature[at]] <= threshold[at]
                masks[left[at]] = masks[at] & goes_left
                masks[right[at]] = masks[at] & ~goes_left
        names = getattr(self, "feature_names_in_", None)
        return Tree(left, right, feature, threshold, value, value.sum(axis=1), labels=labels,
                    classes=self.classes_, feature_names=None if names is None else list(names),
                    n_features=self.n_features_in_, binary_features=self._binary_features)

    def _groups(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The distinct training feature vectors and, per vector, the class weights of
        its rows (computed once, on the first call)."""
        if self._grouped is None:
            matrix, y_encoded, weights = self._train_rows
            if weights is None:
                weights = np.ones(len(y_encoded))
            values, inverse = np.unique(matrix, axis=0, return_inverse=True)
            class_weight = np.zeros((values.shape[0], len(self.classes_)))
            np.add.at(class_weight, (inverse.reshape(-1), y_encoded), weights)
            grouped = (values.astype(np.float64), class_weight)
            self._grouped = grouped
            return grouped
        return self._grouped

    # ------------------------------------------------------------------ #
    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Per row of X, the share of the set's trees that predict each class (every tree
        counted once, exactly)."""
        check_is_fitted(self, "n_trees_")
        X = validate_numeric_data(self, X, reset=False, dtype="numeric")
        votes = self._graph.votes(np.ascontiguousarray(X, dtype=np.float64))
        return votes / float(self.n_trees_)

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """The class most of the set's trees predict for each row of X."""
        share = self.predict_proba(X)
        return cast("NDArray[Any]", self.classes_[np.argmax(share, axis=1)])

    def disagreement(self, X: ArrayLike) -> NDArray[np.float64]:
        """Per row of X, the share of the set's trees that predict another class than
        the majority of them."""
        return cast("NDArray[np.float64]", 1.0 - self.predict_proba(X).max(axis=1))

    def feature_usage(self) -> NDArray[np.float64]:
        """Per feature, the share of the set's trees that split on it."""
        check_is_fitted(self, "n_trees_")
        return np.array([1 - int(u) / self.n_trees_ for u in self._graph.unused()])

    def rashomon_importance(
        self,
        X: ArrayLike,
        y: ArrayLike,
        n_trees: int = 100,
        n_repeats: int = 5,
        random_state: int | np.random.RandomState | None = None,
    ) -> dict[str, Any]:
        """The range of each feature's permutation importance over a uniform sample of
        the set (Rashomon importance; Donnelly, Katta, Rudin and Browne, NeurIPS 2023).

        For each of ``n_trees`` trees drawn uniformly from the set (with replacement),
        a feature's importance is the mean rise of the tree's error rate on ``(X, y)``
        when that column is shuffled (``n_repeats`` shuffles); a feature the tree does
        not split on has importance 0 in it.

        Returns
        -------
        dict
            ``"feature"`` (names, or ``x[j]``), and per feature ``"min"``, ``"mean"``,
            ``"max"`` of its importance over the sampled trees and ``"usage"``, the
            share of the whole set's trees that split on it (exact).
        """
        check_is_fitted(self, "n_trees_")
        X = validate_numeric_data(self, X, reset=False, dtype="numeric")
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y must hold one label per row of X ({X.shape[0]}), got shape {y.shape}")
        rng = check_random_state(random_state)
        importance = np.zeros((int(n_trees), X.shape[1]))
        for t, i in enumerate(self.sample(n_trees, random_state=rng)):
            tree = self[i]
            base = np.mean(tree.predict(X) != y)
            for j in np.unique(tree.feature[tree.feature >= 0]):
                shuffled = X.copy()
                rises = []
                for _ in range(int(n_repeats)):
                    shuffled[:, j] = X[rng.permutation(X.shape[0]), j]
                    rises.append(np.mean(tree.predict(shuffled) != y) - base)
                importance[t, j] = np.mean(rises)
        names = getattr(self, "feature_names_in_", None)
        names = [f"x[{j}]" for j in range(X.shape[1])] if names is None else list(names)
        return {"feature": names, "min": importance.min(axis=0), "mean": importance.mean(axis=0),
                "max": importance.max(axis=0), "usage": self.feature_usage()}

    def plot(self, axes: Iterable[Axes] | None = None) -> Iterable[Axes]:
        """Draws the set: the number of trees at each objective (one bar per distinct
        objective) and the share of the trees splitting on each feature.

        Parameters
        ----------
        axes : pair of matplotlib Axes, optional
            Where to draw; a new figure with two panels when omitted.

        Returns
        -------
        axes : the pair of Axes drawn on.
        """
        check_is_fitted(self, "n_trees_")
        try:
            import matplotlib.pyplot as plt
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("RashomonSet.plot needs matplotlib (pip install matplotlib)") from exc
        if axes is None:
            _, axes = plt.subplots(1, 2, figsize=(10, 3.5))
        histogram, usage = axes
        objectives = [cost / self._total for cost, _ in self._levels]
        counts = [float(count) for _, count in self._levels]
        width = (max(objectives) - min(objectives)) / max(4 * len(objectives), 1) or 1e-3
        histogram.bar(objectives, counts, width=width)
        histogram.axvline(self.objective_bound_, color="grey", linestyle="--", label="bound")
        histogram.set_xlabel("objective")
        histogram.set_ylabel("trees")
        histogram.set_title(f"{self.n_trees_} trees within the bound")
        names = getattr(self, "feature_names_in_", None)
        names = [f"x[{j}]" for j in range(self.n_features_in_)] if names is None else list(names)
        usage.barh(names, self.feature_usage())
        usage.set_xlim(0, 1)
        usage.set_xlabel("share of the trees splitting on it")
        return axes


def _uniform_int(rng: np.random.RandomState, n: int) -> int:
    """A uniform integer in ``[0, n)`` for any Python int ``n`` (beyond 64 bits too)."""
    bits = max(1, (n - 1).bit_length())
    while True:
        draw = 0
        for shift in range(0, bits, 32):
            draw |= int(rng.randint(0, 2**32, dtype=np.uint64)) << shift
        draw &= (1 << bits) - 1
        if draw < n:
            return draw

"""The Rashomon set: every tree whose objective is within a bound of the optimum.

:class:`RashomonSet` finds the optimum with the GOSDT search (proved, as
:class:`treeopt.GOSDTClassifier` does), then builds an and/or graph of subproblems
within their budgets: a subproblem (the training rows a node holds, and the depth left)
keeps each of its trees' costs as *levels* (distinct costs, ascending), and each level
the ways to reach it, a leaf predicting one class or a split whose two sides reach a
level each. Counting, indexing, uniform sampling, the trees' average prediction and
their feature usage are exact dynamic programmes over this graph, never a list of the
trees. A side's budget is the parent's less a lower bound of the other side (its best
leaf, or its equivalent-points floor plus two leaves, then the cheapest tree the first
side built), so
every tree within the bound is reached and nothing above it is kept.

This first version builds the graph in Python: exact on any data, practical on small
and medium problems (the search for the optimum runs in Rust).
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, check_random_state

from .. import _core
from .._base import saturated, store_init_params
from .._validation import encode_class_labels, sample_weights, validate_numeric_data
from ..tree import Tree
from ..tree._model import binary_columns
from ._numeric import _midpoints

__all__ = ["RashomonSet"]

#: Objectives within this of the bound count as within it (rounding of float sums).
_TOLERANCE = 1e-9


class _Level:
    """All the trees of one subproblem that cost exactly ``cost`` (weight units plus the
    penalties): ``count`` of them, reached by ``ways``, each ``(n, kind)`` with
    ``kind`` either ``("leaf", k)`` or ``("split", j, t, left, li, right, ri)``: the
    left node's level ``li`` times the right node's level ``ri``."""

    __slots__ = ("cost", "count", "ways")

    def __init__(self, cost):
        self.cost = cost
        self.count = 0
        self.ways = []


class _Node:
    """One subproblem's trees within ``budget``, as levels of ascending cost."""

    __slots__ = ("budget", "levels")

    def __init__(self, budget, levels):
        self.budget = budget
        self.levels = levels

    @property
    def min_cost(self):
        return self.levels[0].cost if self.levels else np.inf


class _Graph:
    """Builds the and/or graph of a fitted problem: rows merged into groups of equal
    feature vectors, with per-class weights and row counts."""

    def __init__(self, X, y, w, n_classes, penalty, min_leaf, deadline):
        self.values, inverse = np.unique(X, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        n_groups = self.values.shape[0]
        self.class_weight = np.zeros((n_groups, n_classes))
        np.add.at(self.class_weight, (inverse, y), w)
        self.rows = np.bincount(inverse, minlength=n_groups)
        self.floor = self.class_weight.sum(axis=1) - self.class_weight.max(axis=1)
        self.penalty = penalty
        self.min_leaf = min_leaf
        self.deadline = deadline
        self.tol = _TOLERANCE * max(1.0, float(w.sum()))
        self.memo = {}

    def splits(self, mask, depth, budget):
        """The splits of the groups ``mask`` whose sides (with ``depth`` levels left
        each) may together cost at most ``budget``: (column, threshold, left mask, right
        mask, lower bound of the right side), at every midpoint between consecutive
        distinct values the groups hold, each side holding at least ``min_leaf`` rows.
        The sides' bounds (see :meth:`side_bounds`) come from prefix sums over each
        column's order, so thresholds that cannot fit cost no mask."""
        members = np.flatnonzero(mask)
        for j in range(self.values.shape[1]):
            column = self.values[:, j]
            order = members[np.argsort(column[members], kind="stable")]
            values = column[order]
            cuts = np.flatnonzero(values[1:] != values[:-1])  # last member going left
            if cuts.size == 0:
                continue
            left = self.side_bounds(order, cuts, depth)
            right = self.side_bounds(order[::-1], order.size - 2 - cuts, depth)
            fits = left + right <= budget + self.tol
            for c, bound_right in zip(cuts[fits], right[fits]):
                t = float(_midpoints(values[c], values[c + 1]))
                goes_left = mask & (column <= t)
                yield j, t, goes_left, mask & ~goes_left, float(bound_right)

    def side_bounds(self, order, ends, depth):
        """Lower bounds on any tree, with ``depth`` levels left, of each prefix
        ``order[:end + 1]`` of the groups (``inf`` where it holds fewer than
        ``min_leaf`` rows): the cheaper of its best leaf and, when it may split, its
        equivalent-points floor plus two leaves' penalties."""
        totals = np.cumsum(self.class_weight[order], axis=0)[ends]
        rows = np.cumsum(self.rows[order])[ends]
        leaf = totals.sum(axis=1) - totals.max(axis=1) + self.penalty
        bound = leaf
        if depth != 0:
            floor = np.cumsum(self.floor[order])[ends] + 2 * self.penalty
            bound = np.where(rows >= 2 * self.min_leaf, np.minimum(leaf, floor), leaf)
        return np.where(rows >= self.min_leaf, bound, np.inf)

    def build(self, mask, depth, budget):
        """The node of the groups ``mask`` with ``depth`` levels left (None: no limit),
        holding every tree that costs at most ``budget``."""
        key = (mask.tobytes(), depth)
        node = self.memo.get(key)
        if node is not None and node.budget >= budget:
            return node
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimeoutError
        levels = {}

        def add(cost, count, kind):
            level = levels.get(cost)
            if level is None:
                level = levels[cost] = _Level(cost)
            level.count += count
            level.ways.append((count, kind))

        totals = self.class_weight[mask].sum(axis=0)
        for k in range(totals.shape[0]):
            cost = float(totals.sum() - totals[k]) + self.penalty
            if cost <= budget + self.tol:
                add(cost, 1, ("leaf", k))
        if depth != 0 and self.rows[mask].sum() >= 2 * self.min_leaf:
            below = None if depth is None else depth - 1
            for j, t, left, right, bound_right in self.splits(mask, below, budget):
                lnode = self.build(left, below, budget - bound_right)
                if not lnode.levels:
                    continue
                rnode = self.build(right, below, budget - lnode.min_cost)
                for li, ll in enumerate(lnode.levels):
                    if ll.cost + rnode.min_cost > budget + self.tol:
                        break
                    for ri, rl in enumerate(rnode.levels):
                        cost = ll.cost + rl.cost
                        if cost > budget + self.tol:
                            break
                        add(cost, ll.count * rl.count, ("split", j, t, lnode, li, rnode, ri))
        node = _Node(budget, [levels[c] for c in sorted(levels)])
        self.memo[key] = node
        return node


def _nth_tree(node, li, i, out):
    """Appends to ``out`` (preorder node records) the ``i``-th tree of level ``li`` of
    ``node``, in the order of its ways; returns the record's index."""
    for count, kind in node.levels[li].ways:
        if i >= count:
            i -= count
            continue
        at = len(out)
        if kind[0] == "leaf":
            out.append(["leaf", kind[1]])
            return at
        _, j, t, lnode, lli, rnode, rli = kind
        n_right = rnode.levels[rli].count
        out.append(["split", j, t, None, None])
        out[at][3] = _nth_tree(lnode, lli, i // n_right, out)
        out[at][4] = _nth_tree(rnode, rli, i % n_right, out)
        return at
    raise IndexError(i)


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

    _parameter_constraints = {
        "regularization": [Interval(Real, 0, None, closed="left")],
        "rashomon_bound": [Interval(Real, 0, None, closed="left")],
        "bound_type": [StrOptions({"multiplicative", "additive"})],
        "max_depth": [Interval(Integral, 0, None, closed="left"), None],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(
        self,
        regularization=0.01,
        rashomon_bound=0.05,
        bound_type="multiplicative",
        max_depth=None,
        min_samples_leaf=1,
        time_limit=None,
    ):
        store_init_params(self, locals())

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
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
        X, y = validate_numeric_data(self, X, y, dtype="numeric")
        self.classes_, y_encoded = encode_class_labels(y)
        w = sample_weights(sample_weight, X)
        keep = w > 0
        if not keep.any():
            raise ValueError("every sample_weight is 0; give some rows a positive weight.")
        unit = float(w.max())
        X, y_encoded, w = X[keep].astype(np.float64), y_encoded[keep], w[keep] / unit
        total = float(w.sum())
        self._binary_features = binary_columns(X)
        self.optimal_objective_ = self._optimum(X, y_encoded, w)
        bound = (
            self.optimal_objective_ * (1.0 + self.rashomon_bound)
            if self.bound_type == "multiplicative"
            else self.optimal_objective_ + self.rashomon_bound
        )
        self.objective_bound_ = float(bound)
        deadline = None if self.time_limit is None else start + self.time_limit
        graph = _Graph(X, y_encoded, w, len(self.classes_), self.regularization * total,
                       self.min_samples_leaf, deadline)
        try:
            root = graph.build(np.ones(graph.values.shape[0], dtype=bool), self.max_depth,
                               (bound + _TOLERANCE) * total)
        except TimeoutError:
            raise TimeoutError(
                f"the Rashomon set took more than time_limit={self.time_limit} s; raise "
                "time_limit, or shrink the set (smaller rashomon_bound, max_depth, larger "
                "regularization)."
            ) from None
        self._total = total
        self._values, self._class_weight = graph.values, graph.class_weight * unit
        self._levels = [(root, li) for li, level in enumerate(root.levels)
                        if level.cost <= (bound + _TOLERANCE) * total]
        self._starts = np.cumsum([0] + [root.levels[li].count for _, li in self._levels]).tolist()
        self.n_trees_ = int(self._starts[-1])
        return self

    def _optimum(self, X, y_encoded, w):
        """The optimal objective, proved by the GOSDT search over the same trees."""
        zero_one = bool(np.all(self._binary_features))
        matrix = np.ascontiguousarray(X, dtype=np.uint8 if zero_one else np.float64)
        search = _core.GosdtSearch(float(self.regularization), max_depth=saturated(self.max_depth),
                                   min_samples_leaf=saturated(self.min_samples_leaf))
        res = _core.fit(matrix, np.ascontiguousarray(y_encoded, dtype=np.uint32), w, search,
                        n_classes=len(self.classes_))
        if res.status != "optimal":
            raise RuntimeError(f"the search for the optimum ended with status {res.status!r}")
        return float(res.objective)

    # ------------------------------------------------------------------ #
    def _locate(self, i):
        """The (root, level, index within the level) of tree ``i``."""
        check_is_fitted(self, "n_trees_")
        i = int(i)
        if i < 0:
            i += self.n_trees_
        if not 0 <= i < self.n_trees_:
            raise IndexError(f"tree index {i} out of range for a set of {self.n_trees_} trees")
        pos = int(np.searchsorted(self._starts, i, side="right")) - 1
        root, li = self._levels[pos]
        return root, li, i - self._starts[pos]

    def objective(self, i):
        """The objective of tree ``i`` (trees are ordered by objective)."""
        root, li, _ = self._locate(i)
        return root.levels[li].cost / self._total

    def __getitem__(self, i):
        """Tree ``i`` as a :class:`treeopt.Tree` (0: an optimal tree; ascending
        objective, ties in a fixed order)."""
        root, li, j = self._locate(i)
        records = []
        _nth_tree(root, li, j, records)
        return self._as_tree(records)

    def __iter__(self):
        """The trees in index order (use :meth:`sample` on large sets)."""
        for i in range(self.n_trees_):
            yield self[i]

    def sample(self, k, random_state=None):
        """``k`` tree indices drawn uniformly from the set, with replacement (a Python
        ``list`` of ints, usable with ``rs[i]``); the set is never listed."""
        rng = check_random_state(random_state)
        return [_uniform_int(rng, self.n_trees_) for _ in range(int(k))]

    def _as_tree(self, records):
        n = len(records)
        left = np.full(n, -1)
        right = np.full(n, -1)
        feature = np.full(n, -2)
        threshold = np.full(n, -2.0)
        labels = np.zeros(n, dtype=np.int64)
        for at, rec in enumerate(records):
            if rec[0] == "split":
                _, feature[at], threshold[at], left[at], right[at] = rec
            else:
                labels[at] = rec[1]
        # Each node's training class weights, by routing the groups down the tree.
        value = np.zeros((n, len(self.classes_)))
        masks = [np.ones(self._values.shape[0], dtype=bool)] + [None] * (n - 1)
        for at, rec in enumerate(records):
            value[at] = self._class_weight[masks[at]].sum(axis=0)
            if rec[0] == "split":
                goes_left = self._values[:, feature[at]] <= threshold[at]
                masks[left[at]] = masks[at] & goes_left
                masks[right[at]] = masks[at] & ~goes_left
        names = getattr(self, "feature_names_in_", None)
        return Tree(left, right, feature, threshold, value, value.sum(axis=1), labels=labels,
                    classes=self.classes_, feature_names=None if names is None else list(names),
                    n_features=self.n_features_in_, binary_features=self._binary_features)

    # ------------------------------------------------------------------ #
    def predict_proba(self, X):
        """Per row of X, the share of the set's trees that predict each class (every tree
        counted once, exactly)."""
        check_is_fitted(self, "n_trees_")
        X = validate_numeric_data(self, X, reset=False, dtype="numeric")
        memo = {}
        out = np.zeros((X.shape[0], len(self.classes_)))
        for root, li in self._levels:
            out += _level_votes(root, li, X, memo, len(self.classes_))
        return out / self.n_trees_

    def predict(self, X):
        """The class most of the set's trees predict for each row of X."""
        share = self.predict_proba(X)
        return self.classes_[np.argmax(share, axis=1)]

    def disagreement(self, X):
        """Per row of X, the share of the set's trees that predict another class than
        the majority of them."""
        return 1.0 - self.predict_proba(X).max(axis=1)

    def feature_usage(self):
        """Per feature, the share of the set's trees that split on it."""
        check_is_fitted(self, "n_trees_")
        memo = {}
        unused = np.zeros(self.n_features_in_, dtype=object)
        for root, li in self._levels:
            unused += _level_unused(root, li, self.n_features_in_, memo)
        return np.array([1 - int(u) / self.n_trees_ for u in unused])


def _uniform_int(rng, n):
    """A uniform integer in ``[0, n)`` for any Python int ``n`` (beyond 64 bits too)."""
    bits = max(1, (n - 1).bit_length())
    while True:
        draw = 0
        for shift in range(0, bits, 32):
            draw |= int(rng.randint(0, 2**32, dtype=np.uint64)) << shift
        draw &= (1 << bits) - 1
        if draw < n:
            return draw


def _level_votes(node, li, X, memo, n_classes):
    """Per row of X, how many trees of level ``li`` of ``node`` predict each class (as
    floats: counts beyond 2**53 lose only their low digits)."""
    key = (id(node), li)
    if key in memo:
        return memo[key]
    votes = np.zeros((X.shape[0], n_classes))
    for count, kind in node.levels[li].ways:
        if kind[0] == "leaf":
            votes[:, kind[1]] += count
            continue
        _, j, t, lnode, lli, rnode, rli = kind
        go_left = X[:, j] <= t
        n_left, n_right = lnode.levels[lli].count, rnode.levels[rli].count
        left = _level_votes(lnode, lli, X, memo, n_classes)
        right = _level_votes(rnode, rli, X, memo, n_classes)
        votes += np.where(go_left[:, None], left * float(n_right), right * float(n_left))
    memo[key] = votes
    return votes


def _level_unused(node, li, n_features, memo):
    """Per feature, how many trees of level ``li`` of ``node`` do not split on it
    (exact Python ints)."""
    key = (id(node), li)
    if key in memo:
        return memo[key]
    unused = np.zeros(n_features, dtype=object)
    for count, kind in node.levels[li].ways:
        if kind[0] == "leaf":
            unused += count
            continue
        _, j, _, lnode, lli, rnode, rli = kind
        both = (_level_unused(lnode, lli, n_features, memo)
                * _level_unused(rnode, rli, n_features, memo))
        both[j] = 0
        unused += both
    memo[key] = unused
    return unused

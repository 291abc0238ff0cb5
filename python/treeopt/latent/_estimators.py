"""The latent-tree estimators: training loop, prediction and export (see :mod:`treeopt.latent`)."""


from __future__ import annotations

from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Sequence, Tuple, TypeVar, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from .._base import store_init_params
from .._docstrings import takes_rows
from .._progress import report
from ..tree import TREE_LEAF, TREE_OBLIQUE, TREE_UNDEFINED, Tree
from .._validation import (
    center_and_scale,
    encode_class_labels,
    sample_weights,
    validate_numeric_data,
)
from ..isotonic import TreePAV

from ._model import (
    _CELLS,
    MAX_DEPTH,
    Q_ROOT,
    _Adam,
    _chunks,
    _level,
    _log_softmax,
    node_scores,
    node_scores_backward,
)

if TYPE_CHECKING:
    from sklearn.utils import Tags

__all__ = ["LatentTreeClassifier", "LatentTreeRegressor"]

#: What ``_forward`` keeps for ``_backward``: the standardised rows, the predictor's
#: input, where each node score is the node's own split term, and the shape of ``z``.
_ForwardCache = Tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_], Tuple[int, ...]]

_Estimator = TypeVar("_Estimator", bound="_BaseLatentTree")

# --------------------------------------------------------------------------- #
# shared estimator logic
# --------------------------------------------------------------------------- #
class _BaseLatentTree(BaseEstimator):
    """Training loop, prediction and tree export shared by the two estimators."""

    _parameter_constraints: dict[str, list[Any]] = {
        "depth": [Interval(Integral, 1, MAX_DEPTH, closed="both")],
        "pruning": [Interval(Real, 0, None, closed="left")],
        "predictor_input": [StrOptions({"x_and_leaves", "leaves"})],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "lr_patience": [Interval(Integral, 1, None, closed="left")],
        "lr_factor": [Interval(Real, 0, 1, closed="neither")],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    # the parameters (set by __init__)
    depth: int
    pruning: float
    predictor_input: str
    learning_rate: float
    batch_size: int
    max_epochs: int
    lr_patience: int
    lr_factor: float
    early_stopping: bool
    validation_fraction: float
    n_iter_no_change: int
    tol: float
    random_state: int | np.random.RandomState | None
    verbose: bool

    # the fitted attributes (set by fit)
    x_mean_: NDArray[np.float64]
    x_scale_: NDArray[np.float64]
    loss_curve_: list[float]
    validation_loss_curve_: list[float]
    n_epochs_: int
    best_epoch_: int
    best_validation_loss_: float
    split_weights_: NDArray[np.float64]
    split_biases_: NDArray[np.float64]
    coef_: NDArray[np.float64]
    intercept_: NDArray[np.float64]
    node_values_: NDArray[np.float64]
    active_nodes_: NDArray[np.bool_]
    n_active_nodes_: int
    tree_: Tree
    tree_node_origin_: NDArray[np.int64]
    n_leaves_: int

    def __init__(
        self,
        depth: int = 3,
        pruning: float = 1.0,
        *,
        predictor_input: str = "x_and_leaves",
        learning_rate: float = 0.01,
        batch_size: int = 512,
        max_epochs: int = 100,
        lr_patience: int = 2,
        lr_factor: float = 0.1,
        early_stopping: bool = True,
        validation_fraction: float = 0.2,
        n_iter_no_change: int = 10,
        tol: float = 1e-4,
        random_state: int | np.random.RandomState | None = None,
        verbose: bool = False,
    ) -> None:
        store_init_params(self, locals())

    # ---- hooks of the subclasses (declared here for the type checker only) ----
    if TYPE_CHECKING:

        def _n_outputs(self) -> int: ...

        def _loss_and_grad(
            self, out: NDArray[np.float64], target: NDArray[Any], w: NDArray[np.float64]
        ) -> tuple[float, NDArray[np.float64]]: ...

        def _init_intercept(self, target: NDArray[Any], w: NDArray[np.float64]) -> NDArray[np.float64]: ...

        def _split_validation(
            self, n: int, target: NDArray[Any], rng: np.random.RandomState
        ) -> tuple[NDArray[np.intp], NDArray[np.intp] | None]: ...

        def _export_values(
            self,
            leaf: NDArray[np.int64],
            target: NDArray[Any],
            w: NDArray[np.float64],
            left: NDArray[np.intp],
            right: NDArray[np.intp],
            n_nodes: int,
        ) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...

        def _check_target(self, y: NDArray[Any]) -> NDArray[Any]: ...

        def _training_target(self, y: NDArray[Any], w: NDArray[np.float64]) -> NDArray[Any]: ...

        def _n_value_columns(self) -> int: ...

        def _tree_kwargs(self) -> dict[str, Any]: ...

        def _prediction(self, out: NDArray[np.float64]) -> NDArray[Any]: ...

    # ---- model -------------------------------------------------------------
    def _features(self, Xs: NDArray[np.float64], z_leaves: NDArray[np.float64]) -> NDArray[np.float64]:
        if self.predictor_input == "leaves":
            return z_leaves
        return np.hstack([Xs, z_leaves])

    def _forward(
        self,
        params: Sequence[NDArray[np.float64]],
        Xs: NDArray[np.float64],
        node_values: NDArray[np.float64] | None = None,
        solver: TreePAV | None = None,
        lam: float | None = None,
    ) -> tuple[NDArray[np.float64], _ForwardCache]:
        """Outputs for standardised rows; with ``solver``, also the backward cache."""
        W, b, coef, intercept = params
        depth = self.depth
        n_branch = (1 << depth) - 1
        S = Xs @ W.T + b
        q, own = node_scores(S, depth)
        if solver is not None:
            _, z = solver.forward(q, cast(float, lam))  # given with the solver
        else:
            z = np.clip(q + 0.5, 0.0, node_values)
        H = self._features(Xs, z[:, n_branch:])
        out = H @ coef.T + intercept
        return out, (Xs, H, own, z.shape)

    def _backward(
        self,
        params: Sequence[NDArray[np.float64]],
        cache: _ForwardCache,
        grad_out: NDArray[np.float64],
        solver: TreePAV,
    ) -> list[NDArray[np.float64]]:
        W, b, coef, intercept = params
        Xs, H, own, z_shape = cache
        n_branch = (1 << self.depth) - 1
        grad_coef = grad_out.T @ H
        grad_intercept = grad_out.sum(axis=0)
        grad_H = grad_out @ coef
        grad_z = np.zeros(z_shape)
        grad_z[:, n_branch:] = grad_H[:, -(z_shape[1] - n_branch):]
        grad_q = solver.backward(None, grad_z)
        grad_S = node_scores_backward(grad_q, own, self.depth)
        return [grad_S.T @ Xs, grad_S.sum(axis=0), grad_coef, grad_intercept]

    def _node_values(
        self,
        params: Sequence[NDArray[np.float64]],
        Xs: NDArray[np.float64],
        solver: TreePAV,
        lam_per_row: float,
    ) -> NDArray[np.float64]:
        """Average over the training rows (in batches) of the solver's node values."""
        W, b, _, _ = params
        total = np.zeros((1 << (self.depth + 1)) - 1)
        n: int = Xs.shape[0]
        for start in range(0, n, self.batch_size):
            Xb = Xs[start : start + self.batch_size]
            q, _ = node_scores(Xb @ W.T + b, self.depth)
            a, _ = solver.forward(q, lam_per_row * Xb.shape[0])
            total += a * Xb.shape[0]
        return total / n

    def _init_biases(
        self, W: NDArray[np.float64], Xs: NDArray[np.float64], rng: np.random.RandomState
    ) -> NDArray[np.float64]:
        """Appendix A.4: b_t = -mean of w_t . x over the rows reaching node t."""
        depth = self.depth
        n_branch = (1 << depth) - 1
        rows = Xs
        limit = max(1, _CELLS >> depth)
        if rows.shape[0] > limit:
            rows = rows[np.sort(rng.choice(rows.shape[0], limit, replace=False))]
        S0 = rows @ W.T
        b = np.zeros(n_branch)
        q_level = np.full((rows.shape[0], 1), Q_ROOT)
        for d in range(depth):
            lo, hi = _level(d)
            reach = q_level > 0
            counts = reach.sum(axis=0)
            sums = np.where(reach, S0[:, lo:hi], 0.0).sum(axis=0)
            b[lo:hi] = -np.divide(sums, counts, out=np.zeros(hi - lo), where=counts > 0)
            s = S0[:, lo:hi] + b[lo:hi]
            parent = np.repeat(q_level, 2, axis=1)
            cand = np.empty_like(parent)
            cand[:, 0::2] = -s
            cand[:, 1::2] = s
            q_level = np.minimum(parent, cand)
        return b

    # ---- fitting -------------------------------------------------------------
    def _fit(self, X: NDArray[np.float64], target: NDArray[Any], sample_weight: NDArray[np.float64]) -> None:
        # The matrices are small: BLAS threads only add wake-up latency.
        with threadpool_limits(limits=1, user_api="blas"):
            self._fit_single_thread(X, target, sample_weight)

    def _fit_single_thread(
        self, X: NDArray[np.float64], target: NDArray[Any], sample_weight: NDArray[np.float64]
    ) -> None:
        rng = check_random_state(self.random_state)
        n, n_features = X.shape
        self.x_mean_, scale = center_and_scale(X, "for the linear splits of a latent tree")
        scale[~(scale > 1e-12 * np.maximum(1.0, np.abs(self.x_mean_)))] = 1.0
        self.x_scale_ = scale
        Xs = (X - self.x_mean_) / self.x_scale_
        w = sample_weight

        train, val = self._split_validation(n, target, rng)
        X_tr, t_tr, w_tr = Xs[train], target[train], w[train]
        if val is not None:
            X_val, t_val, w_val = Xs[val], target[val], w[val]
        else:  # too few rows to hold some out: monitor the training loss
            X_val, t_val, w_val = X_tr, t_tr, w_tr

        depth = self.depth
        n_branch = (1 << depth) - 1
        n_leaves = 1 << depth
        n_in = n_leaves + (0 if self.predictor_input == "leaves" else n_features)
        k = self._n_outputs()
        W = rng.normal(0.0, 1.0 / np.sqrt(n_features), size=(n_branch, n_features))
        b = self._init_biases(W, X_tr, rng)
        coef = np.zeros((k, n_in))
        intercept = self._init_intercept(t_tr, w_tr)
        params = [W, b, coef, intercept]
        adam = _Adam(params, float(self.learning_rate))
        solver = TreePAV()
        lam_per_row = float(self.pruning) / self.batch_size

        # (validation loss, parameters, node values, epoch) of the best epoch so far
        best: tuple[float, list[NDArray[np.float64]], NDArray[np.float64] | None, int]
        best = (np.inf, [p.copy() for p in params], None, 0)
        bad_epochs = bad_epochs_lr = 0
        self.loss_curve_, self.validation_loss_curve_ = [], []
        n_tr = X_tr.shape[0]
        for epoch in range(self.max_epochs):
            order = rng.permutation(n_tr)
            epoch_loss = 0.0
            for start in range(0, n_tr, self.batch_size):
                idx = order[start : start + self.batch_size]
                wb = w_tr[idx]
                if not wb.sum() > 0:
                    continue
                out, cache = self._forward(params, X_tr[idx], solver=solver, lam=lam_per_row * len(idx))
                loss, grad_out = self._loss_and_grad(out, t_tr[idx], wb)
                adam.step(self._backward(params, cache, grad_out, solver))
                epoch_loss += loss * wb.sum()
            self.loss_curve_.append(epoch_loss / w_tr.sum())
            node_values: NDArray[np.float64] | None = self._node_values(params, X_tr, solver, lam_per_row)
            out, _ = self._forward(params, X_val, node_values=node_values)
            val_loss, _ = self._loss_and_grad(out, t_val, w_val)
            self.validation_loss_curve_.append(val_loss)
            if self.verbose:
                report(
                    "epoch %3d  train loss %.5f  validation loss %.5f  lr %.2e",
                    epoch + 1, self.loss_curve_[-1], val_loss, adam.lr,
                )
            if val_loss < best[0] - self.tol:
                best = (val_loss, [p.copy() for p in params], node_values, epoch + 1)
                bad_epochs = bad_epochs_lr = 0
            else:
                bad_epochs += 1
                bad_epochs_lr += 1
                if bad_epochs_lr >= self.lr_patience:
                    adam.lr *= self.lr_factor
                    bad_epochs_lr = 0
                if self.early_stopping and bad_epochs >= self.n_iter_no_change:
                    break
            if not np.isfinite(self.loss_curve_[-1]):
                break

        self.n_epochs_ = len(self.loss_curve_)
        self.best_epoch_ = best[3]
        self.best_validation_loss_ = float(best[0])
        W, b, coef, intercept = best[1]
        node_values = best[2]
        if node_values is None:  # no finite validation loss: keep the last parameters
            W, b, coef, intercept = params
            node_values = self._node_values(params, X_tr, solver, lam_per_row)
        self.split_weights_, self.split_biases_ = W, b
        self.coef_, self.intercept_ = coef, intercept
        self.node_values_ = node_values
        # a_t relaxes the binary keep/prune variable of problem (2); round it.
        self.active_nodes_ = node_values >= 0.5
        self.n_active_nodes_ = int(np.count_nonzero(self.active_nodes_))

    def _decision(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """Raw outputs of the fitted model, computed in chunks of rows."""
        Xs = (X - self.x_mean_) / self.x_scale_
        params = [self.split_weights_, self.split_biases_, self.coef_, self.intercept_]
        with threadpool_limits(limits=1, user_api="blas"):
            parts = [
                self._forward(params, Xs[sl], node_values=self.node_values_)[0]
                for sl in _chunks(Xs.shape[0], self.node_values_.shape[0])
            ]
        return np.vstack(parts) if parts else np.zeros((0, self.coef_.shape[0]))

    # ---- the exported tree ---------------------------------------------------
    def _tree_skeleton(
        self,
    ) -> tuple[list[int], list[int], list[int], list[float], NDArray[np.float64], list[int]]:
        """Node arrays of the hard tree: oblique tests in original units, pruned removed.

        A node is kept when its relaxed pruning variable rounds to 1
        (``node_values_ >= 1/2``, see :attr:`active_nodes_`). A kept branching node
        stays a split when at least one of its children is kept; a pruned child of a
        split becomes a leaf, and the rest of its subtree is removed.
        """
        depth = self.depth
        n_branch = (1 << depth) - 1
        active = self.active_nodes_
        W = self.split_weights_ / self.x_scale_
        thresholds = (self.split_weights_ * (self.x_mean_ / self.x_scale_)).sum(axis=1) - self.split_biases_
        left: list[int] = []
        right: list[int] = []
        feature: list[int] = []
        threshold: list[float] = []
        weights: list[NDArray[np.float64]] = []
        origin: list[int] = []

        def add(t: int) -> int:
            i = len(left)
            left.append(TREE_LEAF)
            right.append(TREE_LEAF)
            feature.append(TREE_UNDEFINED)
            threshold.append(float(TREE_UNDEFINED))
            weights.append(np.zeros(W.shape[1]))
            origin.append(t)
            return i

        root = add(0)
        stack = [(0, root)]
        while stack:
            t, i = stack.pop()
            if t >= n_branch or not active[t]:
                continue
            lc, rc = 2 * t + 1, 2 * t + 2
            if not (active[lc] or active[rc]):
                continue
            feature[i] = TREE_OBLIQUE
            threshold[i] = float(thresholds[t])
            weights[i] = W[t]
            left[i] = add(lc)
            right[i] = add(rc)
            stack.append((rc, right[i]))
            stack.append((lc, left[i]))
        return left, right, feature, threshold, np.array(weights), origin

    def _export_tree(
        self,
        X: NDArray[np.float64],
        y: NDArray[Any],
        w: NDArray[np.float64],
        feature_names: NDArray[np.object_] | None,
    ) -> None:
        left, right, feature, threshold, weights, origin = self._tree_skeleton()
        n_nodes = len(left)
        kw: dict[str, Any] = dict(feature_names=feature_names, n_features=X.shape[1], weights=weights)
        # Route the training rows with the Tree itself, so the counts match its tests.
        k = self._n_value_columns()
        probe = Tree(left, right, feature, threshold, np.zeros((n_nodes, k)), np.zeros(n_nodes),
                     **self._tree_kwargs(), **kw)
        leaf = probe.apply(X)
        value, weight = self._export_values(leaf, y, w, np.array(left), np.array(right), n_nodes)
        self.tree_ = Tree(left, right, feature, threshold, value, weight, **self._tree_kwargs(), **kw)
        self.tree_node_origin_ = np.array(origin, dtype=np.int64)

    @staticmethod
    def _subtree_totals(
        leaf_totals: NDArray[np.float64], left: NDArray[np.intp], right: NDArray[np.intp]
    ) -> NDArray[np.float64]:
        """Add leaf totals up to every internal node (children have larger ids)."""
        totals = leaf_totals.copy()
        for i in range(len(left) - 1, -1, -1):
            if left[i] != TREE_LEAF:
                totals[i] = totals[left[i]] + totals[right[i]]
        return totals

    @takes_rows(
        "Index of the leaf of ``tree_`` each row of X reaches (hard routing).",
        "ndarray of int64, shape (n_samples,)",
    )
    def apply(self, X: ArrayLike) -> NDArray[np.int64]:
        X = self._input(X)  # first: it says when the estimator is not fitted
        return self.tree_.apply(X)

    def _input(self, X: ArrayLike) -> NDArray[np.float64]:
        check_is_fitted(self, "tree_")
        return validate_numeric_data(self, X, reset=False, dtype=np.float64)

    @takes_rows(
        "Predicted class (classifier) or target (regressor) of each row.",
        "ndarray of shape (n_samples,)",
    )
    def predict(self, X: ArrayLike) -> NDArray[Any]:
        return self._prediction(self._decision(self._input(X)))

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

    #: Extra target checks of ``validate_data`` (the regressor's ``y_numeric``).
    _y_check: dict[str, Any] = {}

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(
        self: _Estimator, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> _Estimator:
        """Learn the tree and the predictor.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric features (no NaN).
        y : array-like of shape (n_samples,)
            Class labels (at least two classes) for :class:`LatentTreeClassifier`,
            target values for :class:`LatentTreeRegressor`.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the loss terms.

        Returns
        -------
        self
        """
        self._validate_common()
        X, y = validate_numeric_data(
            self, X, y, dtype=np.float64, ensure_min_features=1, **self._y_check
        )
        y = self._check_target(y)  # the classifier's class indices, the regressor's floats
        w = sample_weights(sample_weight, X)
        self._fit(X, self._training_target(y, w), w)
        self._export_tree(X, y, w, getattr(self, "feature_names_in_", None))
        self.n_leaves_ = int(self.tree_.n_leaves)
        return self

    def _validate_common(self) -> None:
        if not np.isfinite(self.pruning):
            raise ValueError(f"pruning must be a finite number >= 0, got {self.pruning}")
        if not np.isfinite(self.learning_rate):
            raise ValueError(f"learning_rate must be a finite positive number, got {self.learning_rate}")


# --------------------------------------------------------------------------- #
# the estimators
# --------------------------------------------------------------------------- #
_COMMON_PARAMS_DOC = """
    Parameters
    ----------
    depth : int, default=3
        Depth ``D`` of the complete tree the splits are learned on (1 to 12); the
        tree has ``2**D - 1`` splits and ``2**D`` leaves before pruning.
    pruning : float, default=1.0
        ``lambda`` of problem (3) for a mini-batch of ``batch_size`` rows (``>= 0``).
        Larger values shrink the node values ``a`` and, through training, prune
        more nodes. The paper tunes it in ``[1e-3, 1e3]``.
    predictor_input : {"x_and_leaves", "leaves"}, default="x_and_leaves"
        Input of the linear predictor: the standardised features and the leaf
        traversals ``[x; z_leaves]``, or ``z_leaves`` only.
    learning_rate : float, default=0.01
        Initial Adam learning rate (the paper uses 0.001 with 100 epochs on large
        data; 0.01 also trains small data sets in a few hundred steps).
    batch_size : int, default=512
        Rows per mini-batch.
    max_epochs : int, default=100
        Passes over the training rows.
    lr_patience : int, default=2
        Epochs without validation improvement after which the learning rate is
        multiplied by ``lr_factor``.
    lr_factor : float, default=0.1
        Learning-rate reduction factor.
    early_stopping : bool, default=True
        Stop after ``n_iter_no_change`` epochs without validation improvement. The
        parameters of the best epoch are kept in any case.
    validation_fraction : float, default=0.2
        Fraction of the training rows held out (stratified for the classifier) to
        monitor the loss. With too few rows to hold any out, the training loss is
        monitored instead.
    n_iter_no_change : int, default=10
        Patience of early stopping, in epochs.
    tol : float, default=1e-4
        Minimum decrease of the validation loss that counts as an improvement.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation, the shuffling and the validation split; an int
        makes ``fit`` reproducible bit for bit.
    verbose : bool, default=False
        Log the training and validation loss of every epoch (``INFO`` on the
        ``treeopt`` logger; shown on stderr when logging is not configured).
"""

_COMMON_ATTRIBUTES_DOC = """
    tree_ : treeopt.Tree
        The learned tree, with oblique tests ``w . x <= threshold`` in the original
        feature units and the pruned nodes removed; leaf values from the training
        rows routed along their hard paths.
    node_values_ : ndarray of shape (2**(depth+1) - 1,)
        Node values ``a`` of the complete tree (breadth-first), averaged over the
        training rows; 0 means pruned. Prediction uses them.
    n_active_nodes_ : int
        Nodes with ``node_values_ > 0``.
    split_weights_, split_biases_ : ndarray
        Split functions ``s_t(x) = split_weights_[t] . x_std + split_biases_[t]`` of
        the branching nodes, on standardised features ``x_std = (x - x_mean_) / x_scale_``.
    x_mean_, x_scale_ : ndarray of shape (n_features,)
        Standardisation statistics of the training data.
    coef_, intercept_ : ndarray
        Linear predictor on ``[x_std; z_leaves]`` (or ``z_leaves``).
    n_epochs_, best_epoch_ : int
        Epochs run and epoch whose parameters were kept.
    loss_curve_, validation_loss_curve_ : list of float
        Training and validation loss per epoch.
    best_validation_loss_ : float
    tree_node_origin_ : ndarray of int
        For each node of ``tree_``, its index in the complete tree.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        With pandas input.
"""


class LatentTreeClassifier(ClassifierMixin, _BaseLatentTree):
    __doc__ = (
        """Latent decision tree classifier learned by argmin differentiation.

    Learns a depth-``D`` binary tree with linear (oblique) splits, its pruning and a
    linear predictor on ``[x; z_leaves]`` by mini-batch Adam on the binary or softmax
    cross-entropy, with the tree-structured isotonic layer of Zantedeschi, Kusner and
    Niculae (ICML 2021) solved and differentiated exactly in Rust. See
    :mod:`treeopt.latent` for the model.
"""
        + _COMMON_PARAMS_DOC
        + """
    Attributes
    ----------
    classes_ : ndarray
        Class labels."""
        + _COMMON_ATTRIBUTES_DOC
        + """
    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from treeopt import LatentTreeClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = LatentTreeClassifier(depth=2, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    >>> clf.tree_.n_leaves <= 4
    True
    """
    )

    classes_: NDArray[Any]

    def _check_target(self, y: NDArray[Any]) -> NDArray[Any]:
        self.classes_, encoded = encode_class_labels(y)
        return encoded

    def _training_target(self, encoded: NDArray[Any], w: NDArray[np.float64]) -> NDArray[Any]:
        return encoded

    # ---- hooks ---------------------------------------------------------------
    def _n_outputs(self) -> int:
        return 1 if len(self.classes_) == 2 else len(self.classes_)

    def _init_intercept(self, target: NDArray[Any], w: NDArray[np.float64]) -> NDArray[np.float64]:
        prior = np.bincount(target, weights=w, minlength=len(self.classes_)) + 1e-3
        prior /= prior.sum()
        if len(self.classes_) == 2:
            return np.array([np.log(prior[1] / prior[0])])
        log_prior: NDArray[np.float64] = np.log(prior)
        return log_prior

    def _loss_and_grad(
        self, out: NDArray[np.float64], target: NDArray[Any], w: NDArray[np.float64]
    ) -> tuple[float, NDArray[np.float64]]:
        total = w.sum()
        if out.shape[1] == 1:  # binary cross-entropy on one logit
            o = out[:, 0]
            loss = (w * (np.logaddexp(0.0, o) - target * o)).sum() / total
            p = 0.5 * (1.0 + np.tanh(0.5 * o))  # stable sigmoid
            return float(loss), ((w * (p - target)) / total)[:, None]
        logp = _log_softmax(out)
        loss = -(w * logp[np.arange(len(target)), target]).sum() / total
        grad = np.exp(logp)
        grad[np.arange(len(target)), target] -= 1.0
        return float(loss), grad * (w / total)[:, None]

    def _split_validation(
        self, n: int, target: NDArray[Any], rng: np.random.RandomState
    ) -> tuple[NDArray[np.intp], NDArray[np.intp] | None]:
        if not self.early_stopping:
            return np.arange(n), None
        counts = np.bincount(target)
        n_val = int(np.ceil(self.validation_fraction * n))
        n_classes = len(counts)
        if counts.min() < 2 or n_val < n_classes or n - n_val < n_classes:
            return np.arange(n), None
        train, val = train_test_split(
            np.arange(n), test_size=n_val, stratify=target, random_state=rng.randint(2**31 - 1)
        )
        return np.sort(train), np.sort(val)

    def _n_value_columns(self) -> int:
        return len(self.classes_)

    def _tree_kwargs(self) -> dict[str, Any]:
        return {"classes": self.classes_}

    def _export_values(
        self,
        leaf: NDArray[np.int64],
        target: NDArray[Any],
        w: NDArray[np.float64],
        left: NDArray[np.intp],
        right: NDArray[np.intp],
        n_nodes: int,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        k = len(self.classes_)
        totals = np.zeros((n_nodes, k))
        np.add.at(totals, (leaf, target), w)
        totals = self._subtree_totals(totals, left, right)
        return totals, totals.sum(axis=1)

    # ---- prediction ------------------------------------------------------------
    @takes_rows(
        "Logits of the predictor (one column for two classes).",
        "ndarray of shape (n_samples,) or (n_samples, n_classes)",
    )
    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        out = self._decision(self._input(X))
        return out[:, 0] if out.shape[1] == 1 else out

    @takes_rows("Class probabilities of the predictor.", "ndarray of shape (n_samples, n_classes)")
    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        out = self._decision(self._input(X))
        if out.shape[1] == 1:
            p = 0.5 * (1.0 + np.tanh(0.5 * out[:, 0]))
            return np.column_stack([1.0 - p, p])
        return np.exp(_log_softmax(out))

    def _prediction(self, out: NDArray[np.float64]) -> NDArray[Any]:
        if out.shape[1] == 1:
            return self.classes_[(out[:, 0] > 0).astype(np.int64)]
        labels: NDArray[Any] = self.classes_[np.argmax(out, axis=1)]
        return labels


class LatentTreeRegressor(RegressorMixin, _BaseLatentTree):
    __doc__ = (
        """Latent decision tree regressor learned by argmin differentiation.

    Learns a depth-``D`` binary tree with linear (oblique) splits, its pruning and a
    linear predictor on ``[x; z_leaves]`` by mini-batch Adam on the squared error (of
    the standardised target), with the tree-structured isotonic layer of Zantedeschi,
    Kusner and Niculae (ICML 2021) solved and differentiated exactly in Rust. See
    :mod:`treeopt.latent` for the model. ``tree_`` is a regression
    :class:`treeopt.Tree`: its ``value`` column holds the training mean of each node.
"""
        + _COMMON_PARAMS_DOC
        + """
    Attributes
    ----------
    y_mean_, y_scale_ : float
        Standardisation of the target."""
        + _COMMON_ATTRIBUTES_DOC
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from treeopt import LatentTreeRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, size=(400, 2))
    >>> y = np.where(X[:, 0] > 0, 2.0, -1.0) + 0.5 * X[:, 1]
    >>> reg = LatentTreeRegressor(depth=2, random_state=0).fit(X, y)
    >>> reg.score(X, y) > 0.9
    True
    """
    )

    y_mean_: float
    y_scale_: float

    _y_check = {"y_numeric": True}

    def _check_target(self, y: NDArray[Any]) -> NDArray[Any]:
        return np.asarray(y, dtype=np.float64)

    def _training_target(self, y: NDArray[Any], w: NDArray[np.float64]) -> NDArray[Any]:
        """``y`` standardised with its weighted mean and deviation (kept for predict)."""
        self.y_mean_ = float(np.average(y, weights=w))
        scale = float(np.sqrt(np.average((y - self.y_mean_) ** 2, weights=w)))
        self.y_scale_ = scale if scale > 1e-12 * max(1.0, abs(self.y_mean_)) else 1.0
        return (y - self.y_mean_) / self.y_scale_

    # ---- hooks ---------------------------------------------------------------
    def _n_outputs(self) -> int:
        return 1

    def _init_intercept(self, target: NDArray[Any], w: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.array([np.average(target, weights=w) if w.sum() > 0 else 0.0])

    def _loss_and_grad(
        self, out: NDArray[np.float64], target: NDArray[Any], w: NDArray[np.float64]
    ) -> tuple[float, NDArray[np.float64]]:
        total = w.sum()
        r = out[:, 0] - target
        loss = (w * r * r).sum() / total
        return float(loss), (2.0 * w * r / total)[:, None]

    def _split_validation(
        self, n: int, target: NDArray[Any], rng: np.random.RandomState
    ) -> tuple[NDArray[np.intp], NDArray[np.intp] | None]:
        n_val = int(np.ceil(self.validation_fraction * n))
        if not self.early_stopping or n - n_val < 1 or n_val < 1 or n < 2:
            return np.arange(n), None
        perm = rng.permutation(n)
        return np.sort(perm[n_val:]), np.sort(perm[:n_val])

    def _n_value_columns(self) -> int:
        return 1

    def _tree_kwargs(self) -> dict[str, Any]:
        return {"task": "regression"}

    def _export_values(
        self,
        leaf: NDArray[np.int64],
        y: NDArray[Any],
        w: NDArray[np.float64],
        left: NDArray[np.intp],
        right: NDArray[np.intp],
        n_nodes: int,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        wsum = np.zeros(n_nodes)
        wy = np.zeros(n_nodes)
        np.add.at(wsum, leaf, w)
        np.add.at(wy, leaf, w * y)
        wsum = self._subtree_totals(wsum, left, right)
        wy = self._subtree_totals(wy, left, right)
        parent = np.full(n_nodes, -1)
        internal = np.flatnonzero(left != TREE_LEAF)
        parent[left[internal]] = internal
        parent[right[internal]] = internal
        mean = np.empty(n_nodes)
        for i in range(n_nodes):  # parents first: an empty node takes its parent's mean
            if wsum[i] > 0:
                mean[i] = wy[i] / wsum[i]
            else:
                mean[i] = mean[parent[i]] if parent[i] >= 0 else self.y_mean_
        return mean[:, None], wsum

    # ---- prediction ------------------------------------------------------------
    def _prediction(self, out: NDArray[np.float64]) -> NDArray[Any]:
        return out[:, 0] * self.y_scale_ + self.y_mean_

"""Model extraction: explain a black-box model with a decision tree learned by active sampling.

This implements section 3 of Bastani, Kim and Bastani, *Interpreting Blackbox Models via
Model Extraction* (``../shared/papers/model-extraction-active-sampling.txt``):

1. **Input distribution.** A mixture of axis-aligned Gaussians is fitted to the training
   inputs by EM (scikit-learn's ``GaussianMixture(covariance_type="diag")``).
2. **Conditional sampling.** To sample inside a node's box ``s_i < x_i <= t_i``, every
   component ``j`` is reweighted by ``phi_j * prod_i (Phi((t_i - mu_ji) / sigma_ji) -
   Phi((s_i - mu_ji) / sigma_ji))``; a component is drawn from the reweighted mixture and
   every coordinate from its truncated normal (the inverse-CDF formula of
   ``scipy.stats.truncnorm``, vectorised).
3. **Greedy extraction.** Best-first growth: for every leaf, ``n`` fresh samples of the
   leaf's region, labelled by the black box, give the best ``(feature, threshold)``; ``n``
   *additional* samples estimate that split's gain ``Pr[C_N] * (impurity decrease)`` (Gini
   for classification, variance for regression). The leaf with the highest gain is split,
   until ``max_leaves`` leaves or zero gain.

:class:`ExtractedTreeClassifier` and :class:`ExtractedTreeRegressor` wrap this in a
scikit-learn estimator (a numeric ``train_weight``); the result is the shared
:class:`treeopt.Tree` (``tree_``). Their default, ``train_weight="auto"``, draws one
pool of inputs from a :class:`CopulaGaussianMixture` (a full-covariance mixture of the
columns' normal scores, which an axis-aligned mixture cannot condition on a box but
models correlated columns far better) and fits CART to the training rows and the pool,
labelled by the black box and weighted, where that tree agrees clearly better with the
black box than CART on the rows alone, on inputs drawn between neighbouring rows and on
rows held out of a cross-validation; otherwise the tree is CART's on the rows.
:class:`ExtractedTreeClassifier` can hand the sampled data to
:class:`treeopt.GOSDTClassifier` (``refine="gosdt"``) for a provably optimal sparse tree
of the black box over the thresholds the extraction found.
"""

from __future__ import annotations

import copy
import heapq
import inspect
import time
from collections.abc import Callable, Sequence
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Literal, TypeVar, Union, cast

import numpy as np
from numpy.random import RandomState
from numpy.typing import ArrayLike, NDArray
from scipy.special import log_ndtr, ndtri, ndtri_exp
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    _fit_context,
    clone,
)
from sklearn.exceptions import NotFittedError
from sklearn.metrics import accuracy_score, f1_score, mean_squared_error
from sklearn.mixture import GaussianMixture
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ._base import store_init_params
from .tree import TREE_LEAF, TREE_UNDEFINED, Tree, binary_columns
from ._validation import center_and_scale, too_large_error, validate_numeric_data
from .binarize._core import (
    midpoints,
    threshold_column_names,
    threshold_columns,
    tree_on_raw_features,
)

if TYPE_CHECKING:
    import pandas as pd
    from sklearn.utils import Tags

    from .optimal import GOSDTClassifier, GOSDTRegressor

__all__ = [
    "BoxGaussianMixture",
    "CopulaGaussianMixture",
    "ExtractedTreeClassifier",
    "ExtractedTreeRegressor",
]

#: A seed or a source of random numbers (``Generator`` only where it is accepted).
_RandomState = Union[int, RandomState, None]
#: A node of the tree being grown: its box, its rows and samples with their labels,
#: its children and its best split (see :meth:`_BaseExtractedTree._new_node`).
_Node = dict[str, Any]


# --------------------------------------------------------------------------- #
# the input distribution: a diagonal Gaussian mixture conditioned on boxes
# --------------------------------------------------------------------------- #
def _logsumexp(values: NDArray[np.float64]) -> float:
    """``log(sum(exp(values)))`` of a 1-D array (``-inf`` when every value is ``-inf``).

    A plain numpy version: ``scipy.special.logsumexp`` costs ~0.3 ms per call, about
    as much as sampling a node, and it is called several times per node.
    """
    top = np.max(values)
    if not np.isfinite(top):
        return float(top)
    return float(top + np.log(np.sum(np.exp(values - top))))


def _log_ndtr_diff(alpha: ArrayLike, beta: ArrayLike) -> NDArray[np.float64]:
    """``log(Phi(beta) - Phi(alpha))`` elementwise, stable far in both tails.

    ``alpha <= beta`` is expected; an empty interval (``alpha >= beta``) gives ``-inf``.
    In the upper tail the symmetry ``Phi(b) - Phi(a) = Phi(-a) - Phi(-b)`` keeps the
    difference of two numbers close to 1 from cancelling.
    """
    alpha, beta = np.broadcast_arrays(np.asarray(alpha, float), np.asarray(beta, float))
    flip = alpha > 0
    lo = np.where(flip, -beta, alpha)
    hi = np.where(flip, -alpha, beta)
    out = np.full(alpha.shape, -np.inf)
    ok = lo < hi
    log_lo, log_hi = log_ndtr(lo[ok]), log_ndtr(hi[ok])
    with np.errstate(divide="ignore"):
        out[ok] = log_hi + np.log1p(-np.exp(log_lo - log_hi))
    return out


#: ``train_weight="auto"`` counts its pool of sampled inputs as this many training rows
#: by default: ``n`` rows get the share ``n / (n + _AUTO_POOL_ROWS)``. The pool fills in
#: where rows are few and its weight fades as they grow: a sampled input only
#: approximates the data's distribution, the rows are exact draws of it.
_AUTO_POOL_ROWS = 100.0

#: The rows' shares that ``train_weight="auto"`` tries besides 1 (the rows alone, CART).
_AUTO_SHARES = (0.9, 0.75, 0.5)

#: How many standard errors below the rows alone's a pooled tree's mean loss must be,
#: on the check inputs and the rows held out of their folds together, for
#: ``train_weight="auto"`` to keep it instead of CART (a one-sided paired z-test at
#: about 2.3%: a noisy difference never moves the tree away from CART).
_AUTO_MARGIN = 2.0

#: Folds of the rows' cross-validation with which ``train_weight="auto"`` confirms a
#: pooled tree against the rows alone.
_AUTO_FOLDS = 5


def _clearly_lower(
    loss: NDArray[np.float64], base: NDArray[np.float64], margin: float = _AUTO_MARGIN
) -> bool:
    """Whether the losses ``loss`` are lower than ``base`` on the same inputs by more
    than ``margin`` standard errors of their mean paired difference."""
    diff = loss - base
    if diff.size < 2:
        return bool(diff.sum() < 0)
    spread = float(diff.std(ddof=1))
    return bool(diff.mean() < -margin * spread / np.sqrt(diff.size))

_GMM_PURPOSE = "to fit a Gaussian mixture and sample from it"


def _check_not_too_large(X: NDArray[np.float64], ok: NDArray[np.bool_] | np.bool_) -> None:
    """A ValueError naming the first column whose magnitude ``ok`` says is too large."""
    if not np.all(ok):
        raise too_large_error(X, int(np.flatnonzero(~ok)[0]), _GMM_PURPOSE)


def _standardised(
    X: NDArray[np.float64], center: NDArray[np.float64], scale: NDArray[np.float64]
) -> NDArray[np.float64]:
    with np.errstate(over="ignore", invalid="ignore"):
        return (X - center) / scale


class BoxGaussianMixture:
    """A mixture of axis-aligned Gaussians that can be conditioned on a box and sampled.

    The density is ``sum_j weights[j] * prod_i N(x_i; means[j, i], stds[j, i] ** 2)``
    (section 3 of the model-extraction paper). *Discrete* columns take values on an
    arithmetic grid ``grid_min + step * k`` (``k = 0 .. grid_size - 1``): their Gaussian is
    discretised, value ``v`` receiving the mass of the cell ``[v - step/2, v + step/2]``,
    so samples only ever take valid values (integers, the two values of a binary column,
    the single value of a constant column).

    A box is a pair of arrays ``lower``, ``upper`` meaning ``lower[i] < x_i <= upper[i]``
    (``-inf`` / ``+inf`` for no bound), the region of a decision-tree node.

    Parameters
    ----------
    weights : array-like of shape (n_components,)
        Mixing proportions (non-negative, normalised internally).
    means, stds : array-like of shape (n_components, n_features)
        Per-component, per-feature means and standard deviations (``stds > 0``).
    grid_min, grid_max, grid_size : array-like of shape (n_features,), optional
        Grid of every discrete column: ``grid_size`` equally spaced values from
        ``grid_min`` to ``grid_max`` (``grid_size == 0`` marks a continuous column).
        Default: every column continuous.

    Examples
    --------
    >>> import numpy as np
    >>> from treeopt.extract import BoxGaussianMixture
    >>> mix = BoxGaussianMixture([0.5, 0.5], [[-2.0], [2.0]], [[1.0], [1.0]])
    >>> x = mix.sample([0.0], [1.0], 1000, random_state=0)   # 0 < x <= 1
    >>> bool(((x > 0) & (x <= 1)).all())
    True
    >>> round(mix.probability([-np.inf], [0.0]), 6)          # P(x <= 0), by symmetry
    0.5
    """

    weights: NDArray[np.float64]
    means: NDArray[np.float64]
    stds: NDArray[np.float64]
    grid_min: NDArray[np.float64]
    grid_max: NDArray[np.float64]
    grid_size: NDArray[np.float64]
    grid_step: NDArray[np.float64]

    def __init__(
        self,
        weights: ArrayLike,
        means: ArrayLike,
        stds: ArrayLike,
        grid_min: ArrayLike | None = None,
        grid_max: ArrayLike | None = None,
        grid_size: ArrayLike | None = None,
    ) -> None:
        weights = np.asarray(weights, dtype=np.float64)
        means = np.atleast_2d(np.asarray(means, dtype=np.float64))
        stds = np.atleast_2d(np.asarray(stds, dtype=np.float64))
        if weights.ndim != 1 or means.shape != stds.shape or means.shape[0] != weights.size:
            raise ValueError(
                "weights must have shape (n_components,) and means / stds shape "
                f"(n_components, n_features); got {weights.shape}, {means.shape}, {stds.shape}"
            )
        if np.any(weights < 0) or not weights.sum() > 0 or not np.all(np.isfinite(weights)):
            raise ValueError("weights must be finite, non-negative and not all zero")
        if not (np.all(np.isfinite(means)) and np.all(np.isfinite(stds)) and np.all(stds > 0)):
            raise ValueError("means must be finite and stds finite and positive")
        d = means.shape[1]
        self.weights = weights / weights.sum()
        self.means = means
        self.stds = stds
        self.grid_min = np.zeros(d) if grid_min is None else np.asarray(grid_min, float)
        self.grid_max = np.zeros(d) if grid_max is None else np.asarray(grid_max, float)
        self.grid_size = np.zeros(d) if grid_size is None else np.asarray(grid_size, float)
        for name in ("grid_min", "grid_max", "grid_size"):
            if getattr(self, name).shape != (d,):
                raise ValueError(f"{name} must have shape ({d},)")
        discrete = self.grid_size > 0
        if (
            np.any(self.grid_size < 0)
            or np.any(self.grid_size != np.round(self.grid_size))
            or np.any(~np.isfinite(self.grid_min[discrete]))
            or np.any(~np.isfinite(self.grid_max[discrete]))
            or np.any((self.grid_max <= self.grid_min)[self.grid_size > 1])
            or np.any((self.grid_max != self.grid_min)[self.grid_size == 1])
        ):
            raise ValueError(
                "grid_size must be a non-negative integer, and a discrete column's grid "
                "needs finite grid_min <= grid_max (equal for a one-point grid)"
            )
        # Spacing of each grid; the largest value is grid_max itself, not
        # grid_min + step * (size - 1), which may be one ulp off.
        self.grid_step = np.where(
            self.grid_size > 1,
            (self.grid_max - self.grid_min) / np.maximum(self.grid_size - 1, 1),
            1.0,
        )
        self._log_root_mass = _logsumexp(self._log_component_mass(*self._root()))

    # ---- construction ---------------------------------------------------------- #
    @classmethod
    def fit(
        cls,
        X: ArrayLike,
        n_components: int = 10,
        random_state: _RandomState = None,
        reg_covar: float = 1e-6,
        max_iter: int = 100,
    ) -> BoxGaussianMixture:
        """Fit the mixture to the rows of ``X`` with ``GaussianMixture(covariance_type="diag")``.

        Columns are standardised before EM and the parameters mapped back, so that the
        fit does not depend on the units of the columns. Constant columns, columns with
        exactly two distinct values and integer-valued columns become discrete columns.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Finite training inputs.
        n_components : int, default=10
            Number of mixture components (capped at the number of rows).
        random_state : int, RandomState or None
            Seed of the EM initialisation.
        reg_covar : float, default=1e-6
            Added to the variances (in standardised units) by ``GaussianMixture``.
        max_iter : int, default=100
            EM iterations.

        Returns
        -------
        BoxGaussianMixture
        """
        X = np.asarray(X, dtype=np.float64)
        center, scale = center_and_scale(X, _GMM_PURPOSE)
        scale[~(scale > 0)] = 1.0
        gmm = GaussianMixture(
            n_components=int(min(n_components, X.shape[0])),
            covariance_type="diag",
            reg_covar=reg_covar,
            max_iter=max_iter,
            init_params="k-means++",  # k-means++ seeding, no Lloyd iterations before EM
            random_state=random_state,
        ).fit(_standardised(X, center, scale))
        low, high, size = _discrete_grids(X)
        with np.errstate(over="ignore", invalid="ignore"):
            means = gmm.means_ * scale + center
            stds = np.sqrt(gmm.covariances_) * scale
            # sampling reaches a few standard deviations beyond the means
            reach = np.abs(means) + 40.0 * stds
        _check_not_too_large(X, np.isfinite(reach).all(axis=0))
        return cls(gmm.weights_, means, stds, low, high, size)

    # ---- properties ----------------------------------------------------------- #
    @property
    def n_components(self) -> int:
        """int : Number of mixture components."""
        return int(self.weights.size)

    @property
    def n_features(self) -> int:
        """int : Number of columns."""
        return int(self.means.shape[1])

    @property
    def discrete(self) -> NDArray[np.bool_]:
        """ndarray of bool : True for the discrete (grid-valued) columns."""
        return self.grid_size > 0

    # ---- boxes ------------------------------------------------------------------ #
    def _root(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        d = self.n_features
        return np.full(d, -np.inf), np.full(d, np.inf)

    def _check_box(
        self, lower: ArrayLike, upper: ArrayLike
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        lower = np.asarray(lower, dtype=np.float64).reshape(-1)
        upper = np.asarray(upper, dtype=np.float64).reshape(-1)
        if lower.shape != (self.n_features,) or upper.shape != (self.n_features,):
            raise ValueError(
                f"lower and upper must have shape ({self.n_features},); got "
                f"{lower.shape} and {upper.shape}"
            )
        if np.isnan(lower).any() or np.isnan(upper).any():
            raise ValueError("box bounds must not be NaN (use -inf / inf for no bound)")
        return lower, upper

    def _intervals(
        self, lower: NDArray[np.float64], upper: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Sampling interval ``[a, b]`` of every column and the grid indices of the box.

        Continuous columns: ``[lower, upper]``. Discrete columns: the union of the cells
        of the valid values ``v`` with ``lower < v <= upper``, i.e.
        ``[v(k_lo) - step/2, v(k_hi) + step/2]``; empty when ``k_lo > k_hi``.
        """
        disc = self.discrete
        a, b = lower.copy(), upper.copy()
        k_lo = np.zeros(self.n_features)
        k_hi = np.zeros(self.n_features)
        if disc.any():
            o, h, m = self.grid_min[disc], self.grid_step[disc], self.grid_size[disc]
            with np.errstate(invalid="ignore", over="ignore"):
                lo = np.floor((lower[disc] - o) / h) + 1.0  # smallest k with v(k) > lower
                hi = np.floor((upper[disc] - o) / h)  # largest k with v(k) <= upper
            lo = np.clip(np.nan_to_num(lo, nan=0.0, neginf=0.0), 0.0, m)
            # +inf becomes the largest float, which the clip brings to m - 1
            hi = np.clip(np.nan_to_num(hi, nan=-1.0), -1.0, m - 1)
            k_lo[disc], k_hi[disc] = lo, hi
            a[disc] = o + (lo - 0.5) * h
            b[disc] = o + (hi + 0.5) * h
            b[disc] = np.where(lo > hi, a[disc], b[disc])  # empty: zero-width interval
        return a, b, k_lo, k_hi

    def _log_component_mass(
        self, lower: NDArray[np.float64], upper: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """``log(weights[j] * P_j(box))`` for every component (``-inf`` when empty)."""
        a, b, _, _ = self._intervals(lower, upper)
        alpha = (a[None, :] - self.means) / self.stds
        beta = (b[None, :] - self.means) / self.stds
        with np.errstate(divide="ignore"):
            log_mass: NDArray[np.float64] = np.log(self.weights) + _log_ndtr_diff(
                alpha, beta
            ).sum(axis=1)
            return log_mass

    def component_probabilities(self, lower: ArrayLike, upper: ArrayLike) -> NDArray[np.float64]:
        """Component probabilities conditioned on the box (section 3's ``phi~``).

        Parameters
        ----------
        lower, upper : array-like of shape (n_features,)

        Returns
        -------
        ndarray of shape (n_components,)
            Sums to 1; all zeros when the box has zero probability.
        """
        log_mass = self._log_component_mass(*self._check_box(lower, upper))
        total = _logsumexp(log_mass)
        if not np.isfinite(total):
            return np.zeros(self.n_components)
        return np.exp(log_mass - total)

    def log_probability(self, lower: ArrayLike, upper: ArrayLike) -> float:
        """``log P(lower < x <= upper)`` under the mixture (``-inf`` for an empty box)."""
        log_mass = self._log_component_mass(*self._check_box(lower, upper))
        with np.errstate(divide="ignore"):
            return float(_logsumexp(log_mass) - self._log_root_mass)

    def probability(self, lower: ArrayLike, upper: ArrayLike) -> float:
        """``P(lower < x <= upper)`` under the mixture."""
        return float(np.exp(self.log_probability(lower, upper)))

    # ---- sampling ------------------------------------------------------------ #
    def sample(
        self,
        lower: ArrayLike,
        upper: ArrayLike,
        n_samples: int,
        random_state: _RandomState | np.random.Generator = None,
    ) -> NDArray[np.float64]:
        """Draw ``n_samples`` i.i.d. rows from the mixture conditioned on the box.

        A component is drawn from :meth:`component_probabilities`, then every coordinate
        from that component's normal truncated to the box. For speed, a coordinate is
        first drawn from the untruncated normal and kept if it lands inside its
        interval; the others are drawn by the inverse CDF of the truncated normal (the
        formula of ``scipy.stats.truncnorm.ppf``, see :func:`_truncnorm_ppf`). This is
        exact: a normal draw conditioned on landing inside the interval *is* a draw of
        the truncated normal, so both ways of reaching a value have the truncated
        normal's distribution. Discrete columns are rounded to their grid, within the
        box.

        Parameters
        ----------
        lower, upper : array-like of shape (n_features,)
            The box ``lower < x <= upper``.
        n_samples : int
        random_state : int, RandomState, Generator or None

        Returns
        -------
        ndarray of shape (n_samples, n_features)
            Every row satisfies ``lower < x <= upper``.

        Raises
        ------
        ValueError
            If the box has zero probability (for instance no valid value of a discrete
            column lies inside it).
        """
        lower, upper = self._check_box(lower, upper)
        return self.sample_boxes(lower[None, :], upper[None, :], n_samples, random_state)

    def sample_boxes(
        self,
        lowers: ArrayLike,
        uppers: ArrayLike,
        n_samples: int,
        random_state: _RandomState | np.random.Generator = None,
    ) -> NDArray[np.float64]:
        """:meth:`sample` for several boxes at once (one vectorised pass).

        Parameters
        ----------
        lowers, uppers : array-like of shape (n_boxes, n_features)
        n_samples : int
            Rows drawn per box.
        random_state : int, RandomState, Generator or None

        Returns
        -------
        ndarray of shape (n_boxes * n_samples, n_features)
            Rows ``i * n_samples`` to ``(i + 1) * n_samples - 1`` lie in box ``i``.
        """
        lowers = np.atleast_2d(np.asarray(lowers, dtype=np.float64))
        uppers = np.atleast_2d(np.asarray(uppers, dtype=np.float64))
        if lowers.shape != uppers.shape:
            raise ValueError("lowers and uppers must have the same shape (n_boxes, n_features)")
        boxes = [self._check_box(lo, hi) for lo, hi in zip(lowers, uppers)]
        rng = random_state
        if not isinstance(rng, np.random.Generator):
            rng = check_random_state(rng)
        n = int(n_samples)
        x = self._draw(boxes, n, 1, rng)
        # _draw orders the rows of a box by component: shuffle them back to i.i.d. order
        order: NDArray[np.intp] = np.concatenate(
            [i * n + rng.permutation(n) for i in range(len(boxes))]
        )
        return x[order]

    def _draw(
        self,
        boxes: Sequence[tuple[NDArray[np.float64], NDArray[np.float64]]],
        n: int,
        chunks: int,
        rng: np.random.Generator | RandomState,
        log_mass_out: list[float] | None = None,
    ) -> NDArray[np.float64]:
        """``chunks`` independent samples of ``n`` rows for every box, stacked.

        Each chunk is an i.i.d. sample of the conditioned mixture *as a multiset*: its
        rows are ordered by component (component counts are multinomial), which lets
        every component's rows be drawn as one block without gathering parameters.
        Every coordinate starts as an untruncated normal draw of its component; in a
        column some box bounds, the draws that fall outside the box are redrawn from the
        truncated normal by inverse CDF (:func:`_truncnorm_ppf`), from constants computed
        once per (box, component, column). If ``log_mass_out`` is a list, ``log P(box)``
        of every box is appended to it.
        """
        n_boxes, d, n_comp = len(boxes), self.n_features, self.n_components
        rows_per_box = chunks * n
        comps = np.empty(n_boxes * rows_per_box, dtype=np.intp)
        a, b = np.empty((n_boxes, d)), np.empty((n_boxes, d))
        k_lo, k_hi = np.empty((n_boxes, d)), np.empty((n_boxes, d))
        for i, (lower, upper) in enumerate(boxes):
            a[i], b[i], k_lo[i], k_hi[i] = self._intervals(lower, upper)
        # Only bounded columns need more than untruncated normal draws.
        bounded = np.flatnonzero((np.isfinite(a) | np.isfinite(b)).any(axis=0))
        # standardised interval of every (box, component, bounded column)
        means_b, stds_b = self.means[:, bounded], self.stds[:, bounded]
        alpha = (a[:, None, bounded] - means_b) / stds_b
        beta = (b[:, None, bounded] - means_b) / stds_b
        log_mass = _log_ndtr_diff(alpha, beta)  # (n_boxes, n_comp, n_bounded)
        with np.errstate(divide="ignore"):  # a free column has mass 1 in every component
            log_p = np.log(self.weights) + log_mass.sum(axis=2)
        # Every row starts as an untruncated normal draw of its component (rows grouped
        # by component: each component's block is drawn and scaled while it is in
        # cache).
        x = np.empty((n_boxes * rows_per_box, d))
        generator = rng if isinstance(rng, np.random.Generator) else None
        start = 0
        for i in range(n_boxes):
            total = _logsumexp(log_p[i])
            if not np.isfinite(total):
                raise ValueError("the box has zero probability under the mixture; cannot sample it")
            if log_mass_out is not None:
                log_mass_out.append(total - self._log_root_mass)
            p = np.exp(log_p[i] - total)
            p /= p.sum()
            counts = rng.multinomial(n, p, size=chunks)
            comps[i * rows_per_box : (i + 1) * rows_per_box] = np.repeat(
                np.tile(np.arange(n_comp), chunks), counts.reshape(-1)
            )
            for chunk_counts in counts:
                for j in np.flatnonzero(chunk_counts):
                    block = x[start : start + chunk_counts[j]]
                    if generator is not None:
                        generator.standard_normal(out=block)
                    else:  # a legacy RandomState has no ``out=``
                        block[...] = rng.standard_normal(block.shape)
                    block *= self.stds[j]
                    block += self.means[j]
                    start += chunk_counts[j]
        if bounded.size:
            # A bounded coordinate keeps its untruncated draw when that lands inside its
            # interval (a normal draw conditioned on landing inside *is* a draw of the
            # truncated normal); the others are drawn from the truncated normal by
            # inverse CDF. Either way the coordinate is an exact truncated-normal draw.
            row_parts, col_parts = [], []
            for i in range(n_boxes):
                part = x[i * rows_per_box : (i + 1) * rows_per_box, bounded]
                # outside (a, b]: for a continuous column that is the box itself
                r, c = np.nonzero((part <= a[i, bounded]) | (part > b[i, bounded]))
                row_parts.append(r + i * rows_per_box)
                col_parts.append(c)
            rows, cols = np.concatenate(row_parts), np.concatenate(col_parts)
            if rows.size:
                # one table row of constants per (box, component, bounded column)
                flip, log_start = _truncnorm_constants(alpha, beta)
                cont = ~self.discrete[bounded]
                table = np.empty((n_boxes, n_comp, bounded.size, 6))
                table[..., 0] = np.exp(log_start)
                table[..., 1] = np.exp(log_mass)
                table[..., 2] = means_b
                table[..., 3] = np.where(flip, -stds_b, stds_b)
                # the box itself for continuous columns, to enforce lower < x <= upper
                # exactly (floating-point safety); no bounds for discrete columns, which
                # are rounded to their grid below
                table[..., 4] = np.where(
                    cont, np.array([bx[0] for bx in boxes])[:, bounded], -np.inf
                )[:, None, :]
                table[..., 5] = np.where(
                    cont, np.array([bx[1] for bx in boxes])[:, bounded], np.inf
                )[:, None, :]
                where = ((rows // rows_per_box) * n_comp + comps[rows]) * bounded.size + cols
                c = table.reshape(-1, 6)[where]
                u = rng.random(rows.size)
                z = ndtri(c[:, 0] + u * c[:, 1])
                far = log_mass.reshape(-1)[where] <= _DIRECT_LOG_MASS
                if far.any():  # vanishing mass: scipy's log-space route
                    with np.errstate(divide="ignore"):
                        log_phi = np.logaddexp(
                            log_start.reshape(-1)[where[far]],
                            np.log(u[far]) + log_mass.reshape(-1)[where[far]],
                        )
                    z[far] = ndtri_exp(log_phi)
                z *= c[:, 3]
                z += c[:, 2]
                np.minimum(z, c[:, 5], out=z)
                z = np.where(z <= c[:, 4], np.nextafter(c[:, 4], np.inf), z)
                x[rows, bounded[cols]] = z
            disc = bounded[self.discrete[bounded]]
            if disc.size:
                # discrete columns: round to the grid, within the box's grid indices
                box = np.repeat(np.arange(n_boxes), rows_per_box)
                o, h = self.grid_min[disc], self.grid_step[disc]
                k = np.clip(
                    np.rint((x[:, disc] - o) / h),
                    np.take(k_lo[:, disc], box, axis=0),
                    np.take(k_hi[:, disc], box, axis=0),
                )
                x[:, disc] = np.where(k == self.grid_size[disc] - 1, self.grid_max[disc], o + h * k)
        return x


def _truncnorm_constants(
    alpha: NDArray[np.float64], beta: NDArray[np.float64]
) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    """Per-interval constants of the truncated-normal inverse CDF: ``(flip, log_start)``.

    ``flip`` is scipy's ``case_right`` (``alpha >= 0``: work with ``-x``, whose interval
    ``[-beta, -alpha]`` lies in the lower tail) and ``log_start`` the log CDF of the
    lower end of the interval worked with (``alpha``, or ``-beta`` when flipped).
    """
    flip = ~(alpha < 0)
    with np.errstate(divide="ignore"):
        log_start = log_ndtr(np.where(flip, -beta, alpha))
    return flip, log_start


def _truncnorm_ppf(q: ArrayLike, alpha: ArrayLike, beta: ArrayLike) -> NDArray[np.float64]:
    """Inverse CDF of the standard normal truncated to ``[alpha, beta]``, elementwise.

    The formula of ``scipy.stats.truncnorm.ppf`` (which ``truncnorm.rvs`` applies to
    uniform draws), vectorised without scipy.stats' per-call overhead: for
    ``alpha < 0``, ``x = Phi^-1(Phi(alpha) + q * M)``; otherwise, by symmetry,
    ``x = -Phi^-1(Phi(-beta) + (1 - q) * M)``, where ``M = Phi(beta) - Phi(alpha)`` is
    computed stably in log space (:func:`_log_ndtr_diff`). The sum is formed directly
    when ``M`` is far from underflow, and in log space with ``scipy.special.ndtri_exp``
    (scipy's own route) otherwise, so intervals tens of standard deviations out in a
    tail are handled. :meth:`BoxGaussianMixture._draw` applies the same formula (with
    ``u = q`` or ``1 - q``, both uniform) to the coordinates it redraws.

    Parameters
    ----------
    q : array-like
        Probabilities in ``[0, 1)``.
    alpha, beta : array-like
        Standardised interval ends, broadcast against ``q`` (``-inf`` / ``inf``
        allowed, ``alpha < beta``).

    Returns
    -------
    ndarray
        ``truncnorm.ppf(q, alpha, beta)``: values in ``[alpha, beta]`` up to rounding.
    """
    q, alpha, beta = np.broadcast_arrays(
        np.asarray(q, dtype=np.float64),
        np.asarray(alpha, dtype=np.float64),
        np.asarray(beta, dtype=np.float64),
    )
    flip, log_start = _truncnorm_constants(alpha, beta)
    log_mass = _log_ndtr_diff(alpha, beta)
    u = np.where(flip, 1.0 - q, q)
    out = ndtri(np.exp(log_start) + u * np.exp(log_mass))
    far = log_mass <= _DIRECT_LOG_MASS
    if far.any():
        with np.errstate(divide="ignore"):
            log_phi = np.logaddexp(log_start[far], np.log(u[far]) + log_mass[far])
        out[far] = ndtri_exp(log_phi)
    ppf: NDArray[np.float64] = np.where(flip, -out, out)
    return ppf


#: Below this ``log(Phi(beta) - Phi(alpha))`` (about 1e-250), :func:`_truncnorm_ppf`
#: works in log space to stay clear of subnormal numbers.
_DIRECT_LOG_MASS = -575.0


def _discrete_grids(
    X: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Grid ``(min, max, size)`` of every column of ``X`` (size 0: continuous).

    * constant column ``c``: the one-point grid ``{c}``;
    * exactly two distinct values ``a < b`` (a binary feature, however coded): the
      two-point grid ``{a, b}``;
    * other integer-valued column: every integer from its minimum to its maximum.
    """
    d = X.shape[1]
    low, high, size = np.zeros(d), np.zeros(d), np.zeros(d)
    for j in range(d):
        values = np.unique(X[:, j])
        if values.size <= 2:
            low[j], high[j], size[j] = values[0], values[-1], values.size
        elif np.all(values == np.round(values)):
            low[j], high[j], size[j] = values[0], values[-1], values[-1] - values[0] + 1
    return low, high, size


class CopulaGaussianMixture:
    """A full-covariance Gaussian mixture of the columns' normal scores, to sample inputs.

    Every column is mapped to a standard normal by its empirical quantiles
    (scikit-learn's ``QuantileTransformer(output_distribution="normal")``), and a
    Gaussian mixture with full covariances is fitted to the mapped rows by EM. A
    sample is drawn from the mixture and mapped back by the columns' quantiles, so
    every column keeps its marginal distribution and range (skewed or bounded
    columns stay skewed and bounded), while the mixture models the dependence
    between the columns that an axis-aligned mixture (:class:`BoxGaussianMixture`)
    misses. Discrete columns (see :meth:`BoxGaussianMixture.fit`) are rounded to
    their grid. Unlike :class:`BoxGaussianMixture` it cannot be conditioned on a
    box: ``train_weight="auto"`` draws one pool of it for the whole tree.

    Examples
    --------
    >>> import numpy as np
    >>> from treeopt.extract import CopulaGaussianMixture
    >>> rng = np.random.default_rng(0)
    >>> X = np.column_stack([rng.exponential(size=500), rng.integers(0, 3, 500)])
    >>> Z = CopulaGaussianMixture.fit(X, random_state=0).sample(1000, random_state=0)
    >>> bool(Z[:, 0].min() >= X[:, 0].min()), np.unique(Z[:, 1]).tolist()
    (True, [0.0, 1.0, 2.0])
    """

    def __init__(
        self,
        quantiles: Any,
        mixture: GaussianMixture,
        grid_min: NDArray[np.float64],
        grid_max: NDArray[np.float64],
        grid_size: NDArray[np.float64],
    ) -> None:
        self.quantiles = quantiles
        self.mixture = mixture
        self.grid_min, self.grid_max, self.grid_size = grid_min, grid_max, grid_size

    @classmethod
    def fit(
        cls,
        X: ArrayLike,
        n_components: int = 10,
        random_state: _RandomState = None,
        reg_covar: float = 1e-3,
    ) -> CopulaGaussianMixture:
        """Fit the columns' quantiles and the mixture to the rows of ``X``.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Finite training inputs.
        n_components : int, default=10
            Mixture components (capped at the number of rows).
        random_state : int, RandomState or None
            Seed of the quantiles' subsample and of the EM initialisation.
        reg_covar : float, default=1e-3
            Added to the diagonal of the covariances (in normal scores), which keeps
            them invertible with few rows per component.

        Returns
        -------
        CopulaGaussianMixture
        """
        from sklearn.preprocessing import QuantileTransformer

        X = np.asarray(X, dtype=np.float64)
        center_and_scale(X, _GMM_PURPOSE)  # a clear error for columns too large
        quantiles = QuantileTransformer(
            n_quantiles=int(min(1000, X.shape[0])),
            output_distribution="normal",
            random_state=random_state,
        )
        scores = quantiles.fit_transform(X)
        mixture = GaussianMixture(
            n_components=int(min(n_components, X.shape[0])),
            covariance_type="full",
            reg_covar=reg_covar,
            init_params="k-means++",
            random_state=random_state,
        )
        # EM's linear algebra is on n_features x n_features matrices: threaded BLAS
        # only adds overhead there (6x slower on 19 columns with 2 busy cores)
        with threadpool_limits(limits=1, user_api="blas"):
            mixture.fit(scores)
        return cls(quantiles, mixture, *_discrete_grids(X))

    @property
    def n_features(self) -> int:
        """int : Number of columns."""
        return int(self.grid_size.size)

    def sample(
        self, n_samples: int, random_state: _RandomState | np.random.Generator = None
    ) -> NDArray[np.float64]:
        """``n_samples`` i.i.d. rows of the distribution.

        Parameters
        ----------
        n_samples : int
        random_state : int, RandomState, Generator or None

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        rng = random_state
        if not isinstance(rng, np.random.Generator):
            rng = np.random.default_rng(check_random_state(rng).randint(np.iinfo(np.int32).max))
        mix = self.mixture
        n = int(n_samples)
        counts = rng.multinomial(n, mix.weights_ / mix.weights_.sum())
        blocks = [
            mean + rng.standard_normal((c, mean.size)) @ np.linalg.cholesky(cov).T
            for mean, cov, c in zip(mix.means_, mix.covariances_, counts)
        ]
        scores = np.vstack(blocks)[rng.permutation(n)]
        X: NDArray[np.float64] = self.quantiles.inverse_transform(scores)
        return _round_to_grids(X, self.grid_min, self.grid_max, self.grid_size)


def _round_to_grids(
    X: NDArray[np.float64],
    grid_min: NDArray[np.float64],
    grid_max: NDArray[np.float64],
    grid_size: NDArray[np.float64],
) -> NDArray[np.float64]:
    """``X`` with every discrete column (``grid_size > 0``, see :func:`_discrete_grids`)
    rounded to the nearest value of its grid, in place."""
    disc = grid_size > 0
    if disc.any():
        low, size = grid_min[disc], grid_size[disc]
        step = np.where(size > 1, (grid_max[disc] - low) / np.maximum(size - 1, 1), 1.0)
        k = np.clip(np.round((X[:, disc] - low) / step), 0, size - 1)
        X[:, disc] = np.where(k == size - 1, grid_max[disc], low + k * step)
    return X


def _interpolated_rows(
    X: NDArray[np.float64], m: int, rng: np.random.Generator, k: int = 5
) -> NDArray[np.float64]:
    """``m`` inputs between the rows of ``X`` and their neighbours: a random row, one of
    its ``k`` nearest rows (Euclidean, in standardised columns) at random, and a point
    uniformly on the segment between them (SMOTE's draw, Chawla et al. 2002), discrete
    columns rounded to their grids.

    They stay where the data lies (between rows, as fresh rows of the same
    distribution do), unlike a fitted mixture, and are not the rows themselves, where
    a black box answers what it memorised: ``train_weight="auto"`` scores its
    candidate trees on them."""
    from sklearn.neighbors import NearestNeighbors

    n = X.shape[0]
    anchor = rng.integers(0, n, m)
    k = min(k, n - 1)
    if k < 1:
        return X[anchor].copy()
    center, scale = center_and_scale(X, _GMM_PURPOSE)
    Z = (X - center) / np.where(scale > 0, scale, 1.0)
    # the anchor's own row comes first among its neighbours (or a duplicate of it)
    rows, which = np.unique(anchor, return_inverse=True)
    near = NearestNeighbors(n_neighbors=k + 1).fit(Z).kneighbors(Z[rows], return_distance=False)
    other = near[which, rng.integers(1, k + 1, m)]
    step = rng.random((m, 1))
    out = X[anchor] + step * (X[other] - X[anchor])
    return _round_to_grids(out, *_discrete_grids(X))


# --------------------------------------------------------------------------- #
# split search on a sample of a node
# --------------------------------------------------------------------------- #
def _best_split(
    Xs: NDArray[np.float64],
    target: NDArray[Any],
    classification: bool,
    weights: NDArray[np.float64] | None = None,
) -> tuple[int, float, float]:
    """Best ``(feature, threshold, impurity decrease)`` on the sample ``(Xs, target)``.

    ``target`` holds class indices (classification, Gini impurity) or values (regression,
    variance); ``weights`` (positive, or None for equal weights) are the rows' shares of
    the node's probability. The decrease is ``impurity(node) - sum_side W_side / W *
    impurity(side)`` with ``W`` the total weight. Every feature and every midpoint
    between consecutive distinct values is scored at once from sorted cumulative sums:
    with ``L`` the left sum of a weighted target column, ``T`` its total and
    ``W_l + W_r = W`` the side weights, a split decreases the impurity by
    ``(L^2 / W_l + (T - L)^2 / W_r - T^2 / W) / W = (W L - W_l T)^2 / (W^2 W_l W_r)``,
    summed over the indicator columns of the classes (Gini) or for the centred values
    (variance); the split search maximises ``(W L - W_l T)^2 / (W_l W_r)``. For two
    classes one indicator suffices (the other's score is the same). Returns
    ``(-1, nan, 0.0)`` when no split separates the sample.
    """
    n = Xs.shape[0]
    if n < 2:
        return -1, np.nan, 0.0
    XT = np.ascontiguousarray(Xs.T)  # one contiguous row per feature: fast sorts
    order, valid = _sort_rows(XT)  # ties: any order (only value changes are scored)
    if not valid.any():
        return -1, np.nan, 0.0
    if weights is None:
        total: float | NDArray[np.float64] = float(n)
        w_left = np.arange(1, n, dtype=np.float64)
    else:
        cumulative = np.cumsum(np.take(weights, order), axis=1)
        total = cumulative[:, -1:]  # per feature: the same total up to rounding
        w_left = cumulative[:, :-1]
    with np.errstate(divide="ignore"):
        side_weight = 1.0 / (w_left * (total - w_left))
    if weights is not None:
        valid &= np.isfinite(side_weight) & (w_left > 0)
    if classification:
        present = np.flatnonzero(np.bincount(target))
        if present.size < 2:
            return -1, np.nan, 0.0  # pure: no split decreases the impurity
        columns = present[1:] if present.size == 2 else present
        score: NDArray[np.float64] | None = None
        for c in columns:
            hit = target == c
            if weights is None:
                # running count of class c in every feature's order (an integer
                # cumsum: exact, and much faster than a float one)
                counts = np.cumsum(np.take(hit, order), axis=1, dtype=np.int32)
                left = counts[:, :-1].astype(np.float64)
                class_total: float | NDArray[np.float64] = float(np.count_nonzero(hit))
            else:
                left = np.cumsum(np.take(np.where(hit, weights, 0.0), order), axis=1)
                class_total = left[:, -1:].copy()
                left = left[:, :-1]
            part = _side_score(left, class_total * w_left, total, side_weight)
            score = part if score is None else np.add(score, part, out=score)
    else:
        w = 1.0 if weights is None else weights
        centered = w * (target - np.average(target, weights=weights))
        cumulative = np.cumsum(np.take(centered, order), axis=1)
        left = cumulative[:, :-1].copy()
        score = _side_score(left, cumulative[:, -1:] * w_left, total, side_weight)
    # not None: a classification sample scores at least one class column
    score = cast("NDArray[np.float64]", score)
    np.copyto(score, -np.inf, where=~valid)
    flat = int(np.argmax(score))  # row-major over (feature, position)
    if not np.isfinite(score.flat[flat]):
        return -1, np.nan, 0.0
    feature, pos = divmod(flat, n - 1)
    threshold = float(midpoints(XT[feature, order[feature, pos : pos + 2]])[0])
    decrease = _split_decrease(Xs, target, feature, threshold, classification, weights)
    return int(feature), threshold, decrease


def _sort_rows(
    XT: NDArray[np.float64], fix_rounds: int = 8
) -> tuple[NDArray[np.integer[Any]], NDArray[np.bool_]]:
    """``argsort`` of every row of ``XT``, and where the sorted values change.

    Returns ``(order, distinct)``: ``order`` sorts every row (equal values in any
    order) and ``distinct[r, p]`` tells whether the ``p``-th and ``p + 1``-th smallest
    values of row ``r`` differ. Exact, but about twice as fast as ``np.argsort`` on
    float rows: every value gets a monotone integer *level* (at least 2**20 levels from
    the row's minimum to its maximum), ``level * 2**b + column index`` is sorted as a
    plain integer key (``np.sort``, much faster than ``argsort``) and the index is read
    back from the low ``b`` bits. Neighbours on different levels are ordered and
    distinct, so only neighbours that share a level (rare) are compared as values; out
    of order ones are swapped until none is, and a row still unsorted after
    ``fix_rounds`` rounds is argsorted directly.
    """
    n = XT.shape[1]
    bits = max(int(n - 1).bit_length(), 1)
    dtype = np.int32 if bits <= 11 else np.int64
    value_bits = (31 if dtype is np.int32 else 63) - bits
    if value_bits < 20:  # (more than 2**43 values per row)
        order = np.argsort(XT, axis=1)
        xs = np.take_along_axis(XT, order, axis=1)
        return order, xs[:, 1:] > xs[:, :-1]
    top = float(2 ** min(value_bits, 52) - 1)
    lo = XT.min(axis=1, keepdims=True)
    span = XT.max(axis=1, keepdims=True) - lo
    scale = np.divide(top, span, out=np.zeros_like(span), where=span > 0)
    # monotone in the value, and at most top: x - lo <= span exactly, so the product
    # is below top + 1
    key = ((XT - lo) * scale).astype(dtype)
    key <<= bits
    key |= np.arange(n, dtype=dtype)
    key.sort(axis=1)
    low = dtype((1 << bits) - 1)
    # the next key is on a higher level iff it exceeds this key with all index bits set
    distinct = key[:, 1:] > (key[:, :-1] | low)
    key &= low
    order = key
    if distinct.all():
        return order, distinct
    rows, pos = np.nonzero(~distinct)  # the only places where values may be unordered
    for _ in range(fix_rounds + 1):
        left, right = XT[rows, order[rows, pos]], XT[rows, order[rows, pos + 1]]
        wrong = left > right
        if not wrong.any():
            distinct[rows, pos] = left < right
            return order, distinct
        r, p = rows[wrong], pos[wrong]
        # swap the first pair of every run of adjacent inversions (disjoint pairs)
        first = np.ones(r.size, dtype=bool)
        first[1:] = (r[1:] != r[:-1]) | (p[1:] != p[:-1] + 1)
        r, p = r[first], p[first]
        order[r, p], order[r, p + 1] = order[r, p + 1], order[r, p]
    distinct[rows, pos] = left < right
    for row in np.unique(rows[wrong]):
        order[row] = np.argsort(XT[row])
        values = XT[row, order[row]]
        distinct[row] = values[1:] > values[:-1]
    return order, distinct


def _side_score(
    left: NDArray[np.float64],
    total_left: NDArray[np.float64],
    total: float | NDArray[np.float64],
    weight: NDArray[np.float64],
) -> NDArray[np.float64]:
    """``(W L - W_l T)^2 / (W_l W_r)`` for every prefix of every row, in place in ``left``.

    ``left`` holds the left sums ``L`` (shape ``(d, n - 1)``), ``total_left`` the products
    ``W_l T``, ``total`` the total weight ``W`` and ``weight`` the ``1 / (W_l W_r)``
    (each broadcast against ``left``).
    """
    left *= total
    left -= total_left
    np.square(left, out=left)
    left *= weight
    return left


def _split_decrease(
    Xs: NDArray[np.float64],
    target: NDArray[Any],
    feature: int,
    threshold: float,
    classification: bool,
    weights: NDArray[np.float64] | None = None,
) -> float:
    """Impurity decrease of the split ``x[feature] <= threshold`` on a weighted sample."""
    n = Xs.shape[0]
    if feature < 0 or n == 0:
        return 0.0
    goes_left = Xs[:, feature] <= threshold
    w = np.ones(n) if weights is None else weights
    w_total = float(w.sum())
    w_left = float(w[goes_left].sum())
    w_right = w_total - w_left
    if not (w_left > 0 and w_right > 0):
        return 0.0
    if classification:
        total = np.bincount(target, weights=w)
        left = np.bincount(target[goes_left], weights=w[goes_left], minlength=total.size)
        score: float = np.sum(left**2) / w_left + np.sum((total - left) ** 2) / w_right
        base: float = np.sum(total**2) / w_total
    else:
        centered = w * (target - np.average(target, weights=w))
        s_left = float(centered[goes_left].sum())
        s_total = float(centered.sum())
        score = s_left**2 / w_left + (s_total - s_left) ** 2 / w_right
        base = s_total**2 / w_total
    return max(float((score - base) / w_total), 0.0)


def _cart_threshold(column: NDArray[np.float64], threshold: float) -> float:
    """Our midpoint threshold for the split that scikit-learn's ``threshold`` makes of a
    node's ``column``: scikit-learn compares the float32 value of a row with its
    threshold, so the threshold is replaced by the float64 midpoint between the largest
    value it sends left and the smallest it sends right (the same partition of the
    rows). The comparison is scikit-learn's, float32 values against a float64
    threshold: numpy compares a float32 array with a float scalar in float32 (numpy 2
    for a Python float, numpy 1 for any float scalar), which rounds a threshold halfway
    between two float32 values up to the larger one and sends its rows to the other
    side; so the values are widened to float64 first."""
    left = column.astype(np.float32).astype(np.float64) <= float(threshold)
    if left.all() or not left.any():
        return threshold
    return float(midpoints(np.array([column[left].max(), column[~left].min()]))[0])


def _class_indices(labels: NDArray[Any]) -> NDArray[np.intp]:
    """Index of every label among the sorted distinct labels (``np.unique``'s inverse).

    Small-range integer labels (the usual case) are mapped through a lookup table
    instead of ``np.unique``'s sort.
    """
    if labels.dtype.kind in "iub" and labels.size:
        low, high = labels.min(), labels.max()
        if int(high) - int(low) < 4096:
            if labels.dtype.kind == "u":  # unsigned: exact and non-negative
                shifted = (labels - low).astype(np.intp)
            else:  # bool and signed integers fit in intp
                shifted = labels.astype(np.intp) - int(low)
            lookup = np.cumsum(np.bincount(shifted) > 0) - 1
            indices: NDArray[np.intp] = lookup[shifted]
            return indices
    return np.unique(labels, return_inverse=True)[1].reshape(-1)


# --------------------------------------------------------------------------- #
# black-box access
# --------------------------------------------------------------------------- #
def _resolve_blackbox(
    blackbox: Any, classification: bool
) -> tuple[Callable[[Any], Any], bool]:
    """The function that labels a 2-D array, and whether it wants a DataFrame."""
    if inspect.isclass(blackbox):
        raise TypeError(
            f"blackbox must be a fitted model or a function, got the class "
            f"{blackbox.__name__}; pass a fitted instance, e.g. {blackbox.__name__}().fit(X, y)"
        )
    wants_frame = hasattr(blackbox, "feature_names_in_")
    if hasattr(blackbox, "predict"):
        return blackbox.predict, wants_frame
    if classification and hasattr(blackbox, "predict_proba"):
        classes = getattr(blackbox, "classes_", None)

        def labels_from_proba(X: Any) -> NDArray[Any]:
            proba = np.asarray(blackbox.predict_proba(X))
            if proba.ndim != 2:
                raise ValueError(
                    f"blackbox.predict_proba returned shape {proba.shape}; expected "
                    "(n_rows, n_classes)"
                )
            index = np.argmax(proba, axis=1)
            labels: NDArray[Any] = index if classes is None else np.asarray(classes)[index]
            return labels

        return labels_from_proba, wants_frame
    if callable(blackbox):
        return blackbox, False
    methods = "predict or predict_proba" if classification else "predict"
    raise TypeError(
        f"blackbox must be a fitted estimator with {methods}, or a function taking a "
        f"2-D array; got {type(blackbox).__name__}"
    )


def _is_nan(value: object) -> bool:
    return isinstance(value, (float, np.floating)) and np.isnan(value)


#: Largest magnitude of a regression black box's output: sums of squared errors of
#: up to 10**8 rows stay finite in float64 below it.
_MAX_REGRESSION_OUTPUT = 1e100


def _check_outputs(out: object, n_rows: int, classification: bool) -> NDArray[Any]:
    """Validate what the black box returned for ``n_rows`` rows; returns a 1-D array."""
    out = np.asarray(out)
    if out.ndim == 2 and out.shape[1] == 1:
        out = out[:, 0]
    if out.ndim != 1 or out.shape[0] != n_rows:
        what = "one label" if classification else "one value"
        raise ValueError(
            f"the black box returned an array of shape {out.shape} for {n_rows} rows; it "
            f"must return {what} per row, shape ({n_rows},)"
        )
    if out.dtype.kind == "O" and any(v is None or _is_nan(v) for v in out):
        raise ValueError("the black box returned None or NaN for some rows")
    if classification:
        if out.dtype.kind == "f":
            if np.isnan(out).any():
                raise ValueError("the black box returned NaN labels for some rows")
            if not np.all(out == np.round(out)):
                raise ValueError(
                    "the black box returned continuous values, not class labels; use "
                    "treeopt.ExtractedTreeRegressor to explain a regression model"
                )
        elif out.dtype.kind not in "biuUSO":
            raise ValueError(f"the black box returned labels of unsupported dtype {out.dtype}")
    else:
        if out.dtype.kind not in "biuf":
            raise ValueError(
                f"the black box returned values of dtype {out.dtype}; a regression black "
                "box must return numbers"
            )
        out = out.astype(np.float64)
        if not np.all(np.isfinite(out)):
            raise ValueError("the black box returned NaN or infinite values for some rows")
        largest = float(np.max(np.abs(out))) if out.size else 0.0
        if largest > _MAX_REGRESSION_OUTPUT:
            raise ValueError(
                f"the black box returned values up to {largest:.3g}; squared errors of "
                f"outputs above {_MAX_REGRESSION_OUTPUT:.0e} overflow float64. Explain a "
                "rescaled model instead, e.g. blackbox=lambda X: model.predict(X) / scale, "
                "and multiply the tree's leaf values by scale"
            )
    return out


# --------------------------------------------------------------------------- #
# the estimators
# --------------------------------------------------------------------------- #
_EXTRACT_PARAMS_DOC = """    blackbox : fitted estimator or callable
        The model to explain. An estimator's ``predict`` is queried (for a classifier
        without ``predict``, the argmax of ``predict_proba``); a callable is called as
        ``blackbox(X)`` on a 2-D float array and must return one output per row (and
        must not modify X in place). It is only ever called on batches of rows, and
        never refitted (``clone`` shares it).
        When ``fit`` received a DataFrame and the black box has ``feature_names_in_``,
        it is queried with DataFrames of the same columns.
    max_leaves : int, default=16
        Maximum number of leaves of the extracted tree.
    n_samples : int, default=1000
        ``n`` of the paper: samples drawn from the input distribution conditioned on a
        leaf to choose its split, plus ``n`` more to estimate that split's gain (so every
        node costs ``2 * n_samples`` black-box queries).
    n_components : int, default=10
        Components of the diagonal Gaussian mixture fitted to X (capped at the number
        of rows).
    random_state : int, RandomState or None, default=None
        Seed of the mixture fit and of all sampling.
    input_distribution : BoxGaussianMixture or None, default=None
        Use this input distribution instead of fitting one to X (``n_components`` is
        then ignored), e.g. another extractor's ``input_distribution_`` to extract
        several trees, with different seeds or sizes, from one fitted distribution.
        With ``train_weight="auto"`` the pool is drawn from it.
    train_weight : "auto" or float in [0, 1], default="auto"
        Share of the input distribution given to the training rows themselves: the
        distribution that the tree is fitted to is ``train_weight`` times the empirical
        distribution of X plus ``1 - train_weight`` times the Gaussian mixture. Every
        node's split is then chosen on the training rows inside it (labelled by the
        black box in one query) together with its fresh samples of the mixture,
        weighted by those shares. The training rows anchor the tree to where the data
        lies, where a mixture of axis-aligned Gaussians is only an approximation (more
        so with many features), and the samples add data where the rows run out. 0 is
        the paper's algorithm (samples of the mixture only); 1 uses the rows alone
        (no sampling): the tree is then scikit-learn's CART,
        ``DecisionTreeClassifier`` / ``DecisionTreeRegressor(max_leaf_nodes=max_leaves,
        random_state=random_state)`` fitted to the black box's labels of X, split for
        split (an integer ``random_state`` is passed as it is, so that CART breaks ties
        between equally good splits as it would on its own; otherwise a seed is drawn
        from it), with each threshold moved to the float64 midpoint of the same
        partition of the rows.
        ``"auto"``: the rows and one pool of ``n_samples * max_leaves`` inputs drawn
        from a :class:`CopulaGaussianMixture` fitted to X (a full-covariance mixture of
        the columns' normal scores, which follows the dependence between the columns
        and every column's range; or from ``input_distribution`` when given), and
        ``n_samples * max_leaves // 2`` check inputs, each on the segment between a
        random row and one of its 5 nearest rows (standardised columns), all labelled
        by the black box in one query with the rows. scikit-learn's CART
        (``max_leaf_nodes=max_leaves``, ``random_state`` as for the rows alone) is
        fitted to the rows alone (share 1) and to the rows and the pool weighted by the
        rows' share: ``n / (n + 100)`` for ``n`` rows (the pool counts as 100 rows,
        filling in where the rows are few and fading as they grow), 0.9, 0.75 and 0.5.
        The pooled tree that disagrees least with the black box on the check inputs
        replaces the rows alone only if its disagreement on the check inputs and on
        the rows together, each row scored by the trees fitted without its fold of a
        5-fold cross-validation, is lower than theirs by more than 2 standard errors
        of the paired differences, so that without evidence for the pool the tree is
        CART's. The tree kept has its thresholds moved to float64 midpoints as above;
        its share is ``train_weight_``, every share's disagreement on the check inputs
        is in ``train_weight_losses_``. The two signals err in opposite ways: the
        rows, where the black box was usually trained, are exact draws of the data but
        show what it memorised there (a forest or boosting repeats the training
        labels); check inputs between neighbouring rows show its answers where fresh
        rows fall, but in many columns such a segment can leave the data. The pool
        shows the black box's answers between and around the rows, where the rows
        alone run out, but only approximates the data's distribution. The sampling,
        the neighbour search and the CART fits run on one BLAS / OpenMP thread (small
        arrays, where thread pools cost more than they save); the black box is queried
        with the caller's thread settings.
"""


_REFINE_PARAMS_DOC = """    refine : {{None, "gosdt"}}, default=None
        ``"gosdt"``: after extraction, binarize all the actively sampled, black-box
        {labelled} rows with the thresholds the extraction found (the splits of the tree
        and the best candidate split of every leaf), weight them so that they represent
        the input distribution, and fit :class:`treeopt.{estimator}` on them: a
        provably optimal sparse tree of the black box over those thresholds (optimal
        when ``refine_status_ == "optimal"``). ``tree_`` is then that tree, mapped back
        to the original features; ``max_leaves`` only bounds the extraction stage.
    refine_regularization : float, default=0.01
        GOSDT's per-leaf penalty: a leaf must add this much {gain} to be worth it.
    refine_max_depth : int or None, default=None
        Depth limit for GOSDT.
    refine_time_limit : float, default=60
        Seconds after which GOSDT returns its best tree so far (see ``refine_status_``).
"""



def _parameters_section(estimator: str, labelled: str, gain: str) -> str:
    """An extractor docstring's Parameters section, up to its Attributes heading: the
    shared parameters, then ``refine`` with ``estimator`` (rows ``labelled`` by the
    black box; a leaf must add this much ``gain``)."""
    refine = _REFINE_PARAMS_DOC.format(estimator=estimator, labelled=labelled, gain=gain)
    return "\n    Parameters\n    ----------\n" + _EXTRACT_PARAMS_DOC + refine + "\n    Attributes\n    ----------\n"


_REFINE_ATTRIBUTES_DOC = """    extracted_tree_ : treeopt.Tree
        The tree of the greedy extraction (the same object as ``tree_`` without refine).
    refine_estimator_ : {estimator} or None
        The fitted GOSDT model (on the binarized columns) with ``refine="gosdt"``.
    refine_thresholds_ : list of (int, float)
        ``(feature, threshold)`` of every binarized column given to GOSDT.
    refine_feature_names_ : list of str
        Names of those columns, like ``"x3 <= 0.5"``.
    refine_status_ : str or None
        GOSDT's ``status_`` (``"optimal"``, ``"time_limit"``, ...); ``"trivial"`` when
        there was nothing to optimise ({constant} or no threshold).
"""


_Extractor = TypeVar("_Extractor", bound="_BaseExtractedTree")


class _BaseExtractedTree(BaseEstimator):
    """Shared machinery: input distribution, black-box queries and best-first growth."""

    _classification = True

    _parameter_constraints: dict[str, list[Any]] = {
        "blackbox": [callable, HasMethods(["predict"]), HasMethods(["predict_proba"])],
        "max_leaves": [Interval(Integral, 1, None, closed="left")],
        "n_samples": [Interval(Integral, 2, None, closed="left")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "input_distribution": [BoxGaussianMixture, None],
        "train_weight": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="both")],
        "refine": [StrOptions({"gosdt"}), None],
        "refine_regularization": [Interval(Real, 0, None, closed="left")],
        "refine_max_depth": [Interval(Integral, 0, None, closed="left"), None],
        "refine_time_limit": [Interval(Real, 0, None, closed="neither")],
    }

    blackbox: Any
    max_leaves: int
    n_samples: int
    n_components: int
    random_state: _RandomState
    input_distribution: BoxGaussianMixture | None
    train_weight: float | Literal["auto"]
    refine: Literal["gosdt"] | None
    refine_regularization: float
    refine_max_depth: int | None
    refine_time_limit: float
    n_features_in_: int
    feature_names_in_: NDArray[np.object_]
    classes_: NDArray[Any]  # set by the classifier only
    tree_: Tree
    extracted_tree_: Tree
    refine_estimator_: GOSDTClassifier | GOSDTRegressor | None
    refine_thresholds_: list[tuple[int, float]]
    refine_feature_names_: list[str]
    refine_status_: str | None
    _cart_seed: int  # seed of the rows-alone CART, set by fit
    _pool_seed: int  # seed of the pool's mixture, set by fit
    pool_distribution_: CopulaGaussianMixture | BoxGaussianMixture  # "auto" only
    train_weight_losses_: dict[float, float]  # "auto" only

    if TYPE_CHECKING:
        # Defined by the classifier and the regressor.
        def _store_tree(self, X: NDArray[np.float64], nodes: list[_Node]) -> None: ...
        def _agreement(self, truth: NDArray[Any], pred: NDArray[Any]) -> dict[str, float]: ...

    def __init__(
        self,
        blackbox: Any,
        max_leaves: int = 16,
        n_samples: int = 1000,
        n_components: int = 10,
        random_state: _RandomState = None,
        input_distribution: BoxGaussianMixture | None = None,
        train_weight: float | Literal["auto"] = "auto",
        refine: Literal["gosdt"] | None = None,
        refine_regularization: float = 0.01,
        refine_max_depth: int | None = None,
        refine_time_limit: float = 60.0,
    ) -> None:
        store_init_params(self, locals())

    def __sklearn_clone__(self: _Extractor) -> _Extractor:
        # Like sklearn's default clone, except that the black box is shared, not cloned:
        # it is a fixed, already fitted model that fit() only queries (cloning a fitted
        # estimator would return an unfitted copy, breaking GridSearchCV and friends).
        params = self.get_params(deep=False)
        new = type(self)(
            **{k: (v if k == "blackbox" else clone(v, safe=False)) for k, v in params.items()}
        )
        # scikit-learn's private state, present only once set (not declared attributes)
        if hasattr(self, "_metadata_request"):
            setattr(new, "_metadata_request", copy.deepcopy(self._metadata_request))
        if hasattr(self, "_sklearn_output_config"):
            setattr(new, "_sklearn_output_config", copy.deepcopy(self._sklearn_output_config))
        return new

    # ---- black-box queries --------------------------------------------------- #
    def _query(self, X: NDArray[np.float64], count: bool = True) -> NDArray[Any]:
        """Black-box outputs for the rows of X, in one batch, validated."""
        fn, wants_frame = _resolve_blackbox(self.blackbox, self._classification)
        Xq: NDArray[np.float64] | pd.DataFrame = X
        if wants_frame and getattr(self, "feature_names_in_", None) is not None:
            import pandas as pd  # the user gave a DataFrame, so pandas is installed

            Xq = pd.DataFrame(X, columns=self.feature_names_in_)
        start = time.perf_counter()
        try:
            out = fn(Xq)
        except NotFittedError as exc:
            raise ValueError(
                f"the black box {type(self.blackbox).__name__} is not fitted; fit it on your "
                f"data first (the extracted tree explains an existing model): {exc}"
            ) from exc
        elapsed = time.perf_counter() - start
        out = _check_outputs(out, X.shape[0], self._classification)
        if count:
            self.n_queries_ += int(X.shape[0])
            self.n_blackbox_calls_ += 1
            self.blackbox_time_ += elapsed
        return out

    # ---- growth -------------------------------------------------------------- #
    def _new_node(
        self,
        lower: NDArray[np.float64],
        upper: NDArray[np.float64],
        parent: int,
        real_X: NDArray[np.float64],
        real_labels: NDArray[Any] | None,
        real_weight: float,
        share: float,
    ) -> _Node:
        """A node for the box, holding the training rows inside it (``real_*``, each of
        weight ``real_weight``, together ``share`` of the input distribution); samples
        are filled in by :meth:`_sample_nodes`."""
        return {
            "lower": lower,
            "upper": upper,
            "mass": None,  # P(box) under the mixture, set by _sample_nodes
            "prob": None,  # P(box) under the input distribution, likewise
            "parent": parent,
            "left": TREE_LEAF,
            "right": TREE_LEAF,
            "real_X": real_X,
            "real_labels": real_labels,
            "real_weight": real_weight,
            "share": share,
        }

    def _child(
        self, nodes: list[_Node], idx: int, lower: NDArray[np.float64], upper: NDArray[np.float64]
    ) -> _Node:
        """The child of node ``idx`` with box ``(lower, upper)`` (its training rows)."""
        parent = nodes[idx]
        rows = parent["real_X"]
        inside = np.all((rows > lower) & (rows <= upper), axis=1)
        return self._new_node(
            lower,
            upper,
            idx,
            rows[inside],
            parent["real_labels"][inside],
            parent["real_weight"],
            parent["share"],
        )

    def _sample_nodes(
        self,
        new: list[_Node],
        nodes: list[_Node],
        rng: np.random.Generator,
        train: NDArray[np.float64] | None = None,
    ) -> None:
        """Draw 2 * n_samples rows for every node of ``new`` and label them in ONE query
        (with the training rows ``train`` first, when given). Nodes that give the
        training rows the whole input distribution (share 1) draw nothing."""
        n = self.n_samples
        dist = self.input_distribution_
        d = dist.n_features
        if new[0]["share"] == 1.0:
            blocks = [np.empty((0, d)) for _ in new]
            for node in new:
                node["mass"] = dist.probability(node["lower"], node["upper"])
            X_new = np.empty((0, d))
        else:
            try:
                # two chunks of n per node: one to choose the split, one to estimate its gain
                log_mass: list[float] = []
                X_new = dist._draw(
                    [(nd["lower"], nd["upper"]) for nd in new],
                    n,
                    2,
                    rng,
                    log_mass_out=log_mass,
                )
            except ValueError:
                blocks = []
                for node in new:
                    node["mass"] = dist.probability(node["lower"], node["upper"])
                    try:
                        blocks.append(dist.sample(node["lower"], node["upper"], 2 * n, rng))
                    except ValueError:
                        # Zero probability under the mixture (numerically): reuse the
                        # parent's samples that lie in the box, valid draws of the same
                        # conditional distribution.
                        parent = nodes[node["parent"]]["X"]
                        inside = np.all(
                            (parent > node["lower"]) & (parent <= node["upper"]), axis=1
                        )
                        blocks.append(parent[inside])
                X_new = np.vstack(blocks)
            else:
                blocks = np.split(X_new, len(new))
                for node, value in zip(new, log_mass):
                    node["mass"] = float(np.exp(value))
        if train is not None:
            labels = self._query(np.vstack([train, X_new]))
            new[0]["real_labels"], labels = labels[: len(train)], labels[len(train) :]
        elif X_new.shape[0]:
            labels = self._query(X_new)
        else:
            labels = np.empty(0, dtype=new[0]["real_labels"].dtype)
        start = 0
        for node, block in zip(new, blocks):
            stop = start + block.shape[0]
            node["X"], node["labels"] = block, labels[start:stop]
            start = stop
            share = node["share"]
            node["prob"] = share * node["real_weight"] * len(node["real_X"]) + (
                1.0 - share
            ) * node["mass"]

    def _node_rows(
        self, node: _Node, part: Literal["split", "gain", "all"]
    ) -> tuple[NDArray[np.float64], NDArray[Any], NDArray[np.float64] | None]:
        """Rows of a node's sample with their targets and weights (None: all equal).

        ``part`` is ``"split"`` (the training rows in the node and the first ``n``
        samples), ``"gain"`` (the training rows and the other ``n`` samples) or
        ``"all"``. The weights make the rows represent the input distribution
        restricted to the node: a training row has weight ``share / n_train``
        and the mixture's samples share ``(1 - share) * P_mixture(node)``.
        """
        syn = node["X"]
        k = syn.shape[0]
        n = min(self.n_samples, k)
        chunk = {"split": slice(0, n), "gain": slice(n, k), "all": slice(0, k)}[part]
        m = node["real_X"].shape[0]
        if "target" not in node:  # class indices over the node's rows (real ones first)
            labels = np.concatenate([node["real_labels"], node["labels"]])
            node["target"] = _class_indices(labels) if self._classification else labels
        target = np.concatenate([node["target"][:m], node["target"][m:][chunk]])
        rows = np.vstack([node["real_X"], syn[chunk]]) if m else syn[chunk]
        n_syn = chunk.stop - chunk.start
        if m == 0 or n_syn == 0:
            return rows, target, None
        share = node["share"]
        weights = np.empty(m + n_syn)
        weights[:m] = share * node["real_weight"]
        weights[m:] = (1.0 - share) * node["mass"] / n_syn
        total = weights.sum()
        if not total > 0:
            return rows, target, None
        return rows, target, weights / total

    def _node_output(self, node: _Node) -> Any:
        """What a leaf predicts: the weighted majority label of its rows (classifier)
        or their weighted mean output (regressor)."""
        _, target, weights = self._node_rows(node, "all")
        labels = np.concatenate([node["real_labels"], node["labels"]])
        if not self._classification:
            return np.average(target, weights=weights)
        best = int(np.argmax(np.bincount(target, weights=weights)))
        return labels[np.flatnonzero(target == best)[0]]

    def _node_gain(self, node: _Node, scale: float, cart: Any = None) -> None:
        """Best split of a node from its ``"split"`` rows, its gain from its ``"gain"`` rows.

        The gain is ``P(node) * decrease`` with the decrease estimated on the additional
        samples (paper, section 3); decreases below ``1e-10 * scale`` count as zero.
        With ``cart`` (a fitted scikit-learn tree on the rows alone, see
        :meth:`_rows_cart`), the node is its node ``node["cart"]``: it takes CART's
        split if CART split it (with a positive gain, so that it is expanded), and
        has gain 0 otherwise (its best split is still searched, as a candidate for
        ``refine="gosdt"``).
        """
        classification = self._classification
        rows, target, weights = self._node_rows(node, "split")
        if cart is not None and cart.children_left[node["cart"]] != TREE_LEAF:
            feature = int(cart.feature[node["cart"]])
            threshold = _cart_threshold(rows[:, feature], float(cart.threshold[node["cart"]]))
            decrease = _split_decrease(rows, target, feature, threshold, classification, weights)
            node["feature"], node["threshold"] = feature, threshold
            node["gain"] = max(node["prob"] * decrease, np.finfo(np.float64).tiny)
            return
        feature, threshold, decrease = _best_split(rows, target, classification, weights)
        if cart is None and feature >= 0 and decrease > 1e-10 * scale:
            rows, target, weights = self._node_rows(node, "gain")
            decrease = _split_decrease(rows, target, feature, threshold, classification, weights)
        else:
            decrease = 0.0
        node["feature"], node["threshold"] = feature, threshold
        gain = node["prob"] * decrease
        node["gain"] = gain if decrease > 1e-10 * scale else 0.0

    def _rows_cart(self, root: _Node) -> Any:
        """scikit-learn's CART (``DecisionTreeClassifier`` / ``DecisionTreeRegressor``,
        ``max_leaf_nodes=max_leaves``, ``random_state`` the fit's, see
        :meth:`_fit_common`) on the root's training rows and their black-box labels:
        the tree of share 1. Its ``tree_``, or None when ``max_leaves`` is 1."""
        if self.max_leaves < 2:
            return None
        Cart = DecisionTreeClassifier if self._classification else DecisionTreeRegressor
        target = root["real_labels"]
        if self._classification:
            target = _class_indices(target)
        cart = Cart(max_leaf_nodes=self.max_leaves, random_state=self._cart_seed)
        return cart.fit(root["real_X"], target).tree_

    def _fit_distribution(self, X: NDArray[np.float64], rng: RandomState) -> None:
        """Fit (or check) ``input_distribution_``."""
        gmm_seed = rng.randint(np.iinfo(np.int32).max)
        self._pool_seed = gmm_seed
        if self.input_distribution is None:
            self.input_distribution_ = BoxGaussianMixture.fit(
                X, self.n_components, random_state=gmm_seed
            )
        else:
            if self.input_distribution.n_features != X.shape[1]:
                raise ValueError(
                    f"input_distribution has {self.input_distribution.n_features} features "
                    f"but X has {X.shape[1]}"
                )
            self.input_distribution_ = self.input_distribution

    def _pool_cart(
        self,
        X: NDArray[np.float64],
        target: NDArray[Any],
        pool: NDArray[np.float64],
        pool_target: NDArray[Any],
        share: float,
    ) -> Any:
        """scikit-learn's CART (``max_leaf_nodes=max_leaves``, the fit's ``random_state``)
        on the training rows ``X`` and a ``pool`` of sampled inputs, with their targets
        (class indices or outputs), the ``n`` rows weighing ``share`` of the input
        distribution and the ``m`` pool inputs the rest (``share / n`` and ``(1 - share)
        / m`` each); share 1 fits the rows alone. The fitted estimator, or None when
        ``max_leaves`` is 1."""
        if self.max_leaves < 2:
            return None
        Cart = DecisionTreeClassifier if self._classification else DecisionTreeRegressor
        cart = Cart(max_leaf_nodes=self.max_leaves, random_state=self._cart_seed)
        n, m = X.shape[0], pool.shape[0]
        if share == 1.0 or m == 0:
            return cart.fit(X, target)
        weight = np.concatenate([np.full(n, share / n), np.full(m, (1.0 - share) / m)])
        return cart.fit(
            np.vstack([X, pool]), np.concatenate([target, pool_target]), sample_weight=weight
        )

    def _grow_pool(
        self,
        X: NDArray[np.float64],
        labels: NDArray[Any],
        pool: NDArray[np.float64],
        pool_labels: NDArray[Any],
        share: float,
        cart: Any,
    ) -> list[_Node]:
        """The nodes (root first) of ``cart``, scikit-learn's CART fitted to the training
        rows ``X`` and a ``pool`` of sampled inputs with their black-box outputs, the rows
        weighing ``share`` (see :meth:`_pool_cart`; None: a single leaf).

        The nodes follow CART's splits, each threshold moved to the float64 midpoint of
        the same partition of the node's rows and samples; with ``refine="gosdt"`` every
        leaf also gets its best candidate split."""
        n, d = X.shape
        root = self._new_node(np.full(d, -np.inf), np.full(d, np.inf), -1, X, labels, 1.0 / n, share)
        root.update(X=pool, labels=pool_labels, mass=1.0, prob=1.0, pool=True)
        nodes = [root]
        classification = self._classification
        tree = None if cart is None else cart.tree_
        stack = [(0, 0)]  # (index in nodes, node of CART's tree)
        while stack:
            idx, k = stack.pop()
            node = nodes[idx]
            rows, target, weights = self._node_rows(node, "all")
            if tree is None or tree.children_left[k] == TREE_LEAF:
                node["feature"], node["threshold"], node["gain"] = -1, np.nan, 0.0
                if self.refine is not None:  # a candidate split for GOSDT
                    feature, threshold, _ = _best_split(rows, target, classification, weights)
                    node["feature"], node["threshold"] = feature, threshold
                continue
            f = int(tree.feature[k])
            t = _cart_threshold(rows[:, f], float(tree.threshold[k]))
            decrease = _split_decrease(rows, target, f, t, classification, weights)
            node["feature"], node["threshold"] = f, t
            node["gain"] = node["prob"] * decrease
            left_upper = node["upper"].copy()
            left_upper[f] = min(left_upper[f], t)
            right_lower = node["lower"].copy()
            right_lower[f] = max(right_lower[f], t)
            for lower, upper, child in (
                (node["lower"], left_upper, tree.children_left[k]),
                (right_lower, node["upper"], tree.children_right[k]),
            ):
                nodes.append(self._pool_child(nodes, idx, lower, upper))
                stack.append((len(nodes) - 1, int(child)))
            node["left"], node["right"] = len(nodes) - 2, len(nodes) - 1
        return nodes

    def _pool_child(
        self, nodes: list[_Node], idx: int, lower: NDArray[np.float64], upper: NDArray[np.float64]
    ) -> _Node:
        """The child of node ``idx`` of a pooled tree: its training rows and samples."""
        parent = nodes[idx]
        child = self._child(nodes, idx, lower, upper)
        syn = parent["X"]
        inside = np.all((syn > lower) & (syn <= upper), axis=1)
        count = int(np.count_nonzero(inside))
        mass = parent["mass"] * count / syn.shape[0] if count else 0.0
        share = child["share"]
        child.update(
            X=syn[inside],
            labels=parent["labels"][inside],
            mass=mass,
            prob=share * child["real_weight"] * len(child["real_X"]) + (1.0 - share) * mass,
            pool=True,
        )
        return child

    @staticmethod
    def _sample_pool(
        dist: CopulaGaussianMixture | BoxGaussianMixture, m: int, rng: np.random.Generator
    ) -> NDArray[np.float64]:
        """``m`` inputs drawn from ``dist`` (unconditioned)."""
        if isinstance(dist, BoxGaussianMixture):
            whole = np.full(dist.n_features, np.inf)
            return dist.sample(-whole, whole, m, rng)
        return dist.sample(m, rng)

    def _pool_distribution(
        self, X: NDArray[np.float64], seed: int
    ) -> CopulaGaussianMixture | BoxGaussianMixture:
        """The given ``input_distribution``, or a :class:`CopulaGaussianMixture` of X."""
        if self.input_distribution is not None:
            return self.input_distribution
        return CopulaGaussianMixture.fit(X, self.n_components, random_state=seed)

    def _row_losses(self, pred: NDArray[Any], truth: NDArray[Any]) -> NDArray[np.float64]:
        """Per row: disagreement, 0 or 1 (classifier), or squared error (regressor)."""
        losses: NDArray[np.float64] = (
            (pred != truth).astype(np.float64)
            if self._classification
            else np.asarray((pred - truth) ** 2, dtype=np.float64)
        )
        return losses

    def _loss(self, pred: NDArray[Any], truth: NDArray[Any]) -> float:
        """Disagreements (classifier) or squared error (regressor), summed over rows."""
        return float(np.sum(self._row_losses(pred, truth)))

    def _predict_nodes(self, nodes: list[_Node], X: NDArray[np.float64]) -> NDArray[Any]:
        """Predictions of the grown tree ``nodes`` for the rows of X (the leaves' boxes
        partition the input space)."""
        leaves = [nd for nd in nodes if nd["left"] == TREE_LEAF]
        outputs = np.array([self._node_output(nd) for nd in leaves])
        leaf = np.zeros(X.shape[0], dtype=np.intp)
        for i, nd in enumerate(leaves):
            leaf[np.all((X > nd["lower"]) & (X <= nd["upper"]), axis=1)] = i
        return outputs[leaf]

    def _grow(
        self,
        X: NDArray[np.float64],
        labels: NDArray[Any] | None,
        share: float,
        rng: np.random.Generator,
    ) -> list[_Node]:
        """Best-first extraction with the training rows ``X`` (their black-box
        ``labels``, or None to query them with the root's samples) given ``share`` of
        the input distribution; returns the list of nodes (root first)."""
        d = X.shape[1]
        train = X if share > 0 else X[:0]
        known = None if labels is None else labels[: train.shape[0]]
        root = self._new_node(
            np.full(d, -np.inf), np.full(d, np.inf), -1, train, known, 1.0 / X.shape[0], share
        )
        nodes = [root]
        self._sample_nodes([root], nodes, rng, train=train if labels is None else None)
        root["mass"] = root["prob"] = 1.0
        if self._classification:
            scale = 1.0
        else:
            scale = max(float(np.var(np.concatenate([root["real_labels"], root["labels"]]))), 1e-300)
        cart = self._rows_cart(root) if share == 1.0 else None
        root["cart"] = 0
        self._node_gain(root, scale, cart)
        heap = [(-root["gain"], 0)]
        n_leaves = 1
        while heap and n_leaves < self.max_leaves:
            neg_gain, idx = heapq.heappop(heap)
            if not -neg_gain > 0:
                break
            node = nodes[idx]
            f, t = node["feature"], node["threshold"]
            left_upper = node["upper"].copy()
            left_upper[f] = min(left_upper[f], t)
            right_lower = node["lower"].copy()
            right_lower[f] = max(right_lower[f], t)
            left = self._child(nodes, idx, node["lower"], left_upper)
            right = self._child(nodes, idx, right_lower, node["upper"])
            self._sample_nodes([left, right], nodes, rng)
            # After the last expansion the children's gains are never used (nor, without
            # refine="gosdt", their candidate splits): skip their split search.
            last = n_leaves + 1 >= self.max_leaves and self.refine is None
            if cart is not None:
                left["cart"] = int(cart.children_left[node["cart"]])
                right["cart"] = int(cart.children_right[node["cart"]])
            for child in (left, right):
                if last:
                    child["feature"], child["threshold"], child["gain"] = -1, np.nan, 0.0
                else:
                    self._node_gain(child, scale, cart)
                nodes.append(child)
                heapq.heappush(heap, (-child["gain"], len(nodes) - 1))
            node["left"], node["right"] = len(nodes) - 2, len(nodes) - 1
            n_leaves += 1
        return nodes

    def _tree_arrays(
        self, nodes: list[_Node]
    ) -> tuple[
        NDArray[np.int64],
        NDArray[np.int64],
        NDArray[np.int64],
        NDArray[np.float64],
        NDArray[np.float64],
    ]:
        """Node arrays of the grown tree: children, feature, threshold, probability."""
        left = np.array([nd["left"] for nd in nodes], dtype=np.int64)
        right = np.array([nd["right"] for nd in nodes], dtype=np.int64)
        internal = left != TREE_LEAF
        feature = np.array(
            [nd["feature"] if split else TREE_UNDEFINED for nd, split in zip(nodes, internal)],
            dtype=np.int64,
        )
        threshold = np.array(
            [nd["threshold"] if split else TREE_UNDEFINED for nd, split in zip(nodes, internal)],
            dtype=np.float64,
        )
        return left, right, feature, threshold, self._node_probabilities(nodes)

    @staticmethod
    def _node_probabilities(nodes: list[_Node], key: str = "prob") -> NDArray[np.float64]:
        # Probability of every node's region (under the input distribution, or the
        # mixture for key="mass"), floored at the smallest normal float so that a
        # vanishingly unlikely region keeps its class proportions in ``value``.
        prob: NDArray[np.float64] = np.maximum(
            [nd[key] for nd in nodes], np.finfo(np.float64).tiny
        )
        return prob

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self: _Extractor, X: ArrayLike, y: object = None) -> _Extractor:
        """Extract a tree that approximates the black box on the distribution of X.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training inputs (finite); only used to fit the input distribution.
        y : ignored
            Accepted for pipeline compatibility; the labels (outputs) come from the
            black box.

        Returns
        -------
        self
        """
        X, nodes = self._fit_common(X)
        self._store_tree(X, nodes)  # the classifier's or the regressor's tree_
        return self

    def _tree(
        self, X: NDArray[np.float64], nodes: list[_Node], value: NDArray[np.float64], **kwargs: Any
    ) -> Tree:
        """The grown tree with node values ``value`` (``kwargs``: classes or task)."""
        left, right, feature, threshold, prob = self._tree_arrays(nodes)
        return Tree(
            left,
            right,
            feature,
            threshold,
            value,
            prob,
            feature_names=self._feature_names(),
            n_features=X.shape[1],
            binary_features=binary_columns(X),
            weight_label="mass",  # node weights are probabilities of regions, not counts
            **kwargs,
        )

    def _fit_common(self, X: ArrayLike) -> tuple[NDArray[np.float64], list[_Node]]:
        X_valid: NDArray[np.float64] = validate_numeric_data(
            self, X, dtype=np.float64, ensure_all_finite=True
        )
        _resolve_blackbox(self.blackbox, self._classification)  # fail early on a bad one
        self.n_queries_ = 0
        self.n_blackbox_calls_ = 0
        self.blackbox_time_ = 0.0
        state = check_random_state(self.random_state)
        self._fit_distribution(X_valid, state)
        # A Generator for the sampling: much faster normal draws than a RandomState
        # (SFC64: the fastest of numpy's bit generators here).
        seed = state.randint(np.iinfo(np.int32).max)
        rng = np.random.Generator(np.random.SFC64(seed))
        # The rows-alone tree is scikit-learn's CART with the same integer seed (its
        # tie-breaks between equally good splits follow the seed), so that it is the
        # very tree ``DecisionTree*(max_leaf_nodes=max_leaves, random_state=seed)``
        # fits to the black box's labels of X, with random_state=seed.
        random_state = self.random_state
        if isinstance(random_state, Integral) and not isinstance(random_state, bool):
            self._cart_seed = int(random_state)
        else:
            self._cart_seed = int(state.randint(np.iinfo(np.int32).max))
        if self.train_weight == "auto":
            return X_valid, self._grow_auto(X_valid, rng)
        for stale in ("pool_distribution_", "train_weight_losses_"):  # of an earlier "auto" fit
            self.__dict__.pop(stale, None)
        self.train_weight_ = float(self.train_weight)
        return X_valid, self._grow(X_valid, None, self.train_weight_, rng)

    def _grow_auto(self, X: NDArray[np.float64], rng: np.random.Generator) -> list[_Node]:
        """``train_weight="auto"``: CART on the rows alone unless CART on the rows and
        one pool, weighted by the pooled share that agrees best with the black box on
        check inputs between the rows, agrees clearly better than the rows alone on
        those inputs and on the rows held out of a cross-validation together
        (:meth:`_pool_confirmed`); returns the nodes (root first).

        Everything but the black-box query runs with one BLAS / OpenMP thread: the
        arrays are small (a few columns, tens of thousands of rows), where a thread
        pool's start-up and hand-offs cost more than they save, and much more on a
        busy machine (a nearest-neighbour search of 400 rows: 2 ms on one thread,
        0.2-0.4 s of wall time on two busy cores)."""
        n = X.shape[0]
        default = n / (n + _AUTO_POOL_ROWS)
        # a single leaf or a single row: nothing to choose, the rows alone
        shares = (default, 1.0, *_AUTO_SHARES) if self.max_leaves >= 2 and n >= 2 else (1.0,)
        m = self.n_samples * self.max_leaves if len(shares) > 1 else 0
        with threadpool_limits(limits=1):
            self.pool_distribution_ = self._pool_distribution(X, self._pool_seed)
            pool = self._sample_pool(self.pool_distribution_, m, rng) if m else X[:0]
            check = _interpolated_rows(X, m // 2, rng) if m else X[:0]
        # one query: the training rows, the pool, the check inputs
        out = self._query(np.vstack([X, pool, check]))
        target = _class_indices(out) if self._classification else out
        rows, in_pool, in_check = np.split(target, [n, n + m])
        losses: dict[float, float] = {}
        check_losses: dict[float, NDArray[np.float64]] = {}
        carts: dict[float, Any] = {}
        with threadpool_limits(limits=1):
            for candidate in shares:
                if candidate in carts:
                    continue
                carts[candidate] = cart = self._pool_cart(X, rows, pool, in_pool, candidate)
                if len(check):
                    check_losses[candidate] = self._row_losses(cart.predict(check), in_check)
                losses[candidate] = float(check_losses[candidate].mean()) if len(check) else 0.0
            # the pooled share that agrees best on the check inputs (the first of equals)
            best = min(losses, key=losses.__getitem__)
            share = 1.0
            if best != 1.0 and self._pool_confirmed(
                X, rows, pool, in_pool, best, check_losses[best], check_losses[1.0]
            ):
                share = best
            cart = carts[share]
            self.train_weight_ = share
            self.train_weight_losses_ = losses
            if share == 1.0:  # the rows alone: the pool has no part in the tree
                pool = pool[:0]
            return self._grow_pool(X, out[:n], pool, out[n : n + pool.shape[0]], share, cart)

    def _pool_confirmed(
        self,
        X: NDArray[np.float64],
        rows: NDArray[Any],
        pool: NDArray[np.float64],
        pool_target: NDArray[Any],
        share: float,
        check_loss: NDArray[np.float64],
        rows_check_loss: NDArray[np.float64],
    ) -> bool:
        """Whether the pooled tree of ``share`` agrees with the black box clearly better
        than the rows alone (:func:`_clearly_lower`, :data:`_AUTO_MARGIN` standard
        errors) on the check inputs (``check_loss`` against ``rows_check_loss``) and
        the rows together, every row scored by the two trees fitted without its fold
        of a :data:`_AUTO_FOLDS`-fold cross-validation (the pool stays whole; row ``i``
        is in fold ``numpy.random.default_rng(seed).permutation(n)[i] % 5``, ``seed``
        the CART seed).

        The two signals err differently: the check inputs lie between neighbouring
        rows, which in many columns can be off the data; a held-out row is an exact
        draw of it, but the black box may have memorised its label. A pooled tree is
        kept only where together they favour it."""
        n = X.shape[0]
        folds = np.random.default_rng(self._cart_seed).permutation(n) % min(_AUTO_FOLDS, n)
        held_out = np.empty(n)
        rows_held_out = np.empty(n)
        for fold in np.unique(folds):
            out, keep = folds == fold, folds != fold
            pooled = self._pool_cart(X[keep], rows[keep], pool, pool_target, share)
            alone = self._pool_cart(X[keep], rows[keep], pool, pool_target, 1.0)
            held_out[out] = self._row_losses(pooled.predict(X[out]), rows[out])
            rows_held_out[out] = self._row_losses(alone.predict(X[out]), rows[out])
        return _clearly_lower(
            np.concatenate([check_loss, held_out]), np.concatenate([rows_check_loss, rows_held_out])
        )

    def _feature_names(self) -> list[str] | None:
        names = getattr(self, "feature_names_in_", None)
        return None if names is None else [str(s) for s in names]

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """Class (classifier) or mean black-box output (regressor) of the leaf of
        ``tree_`` each row of X reaches."""
        X = self._validated(X)  # first: it says when the estimator is not fitted
        return self.tree_.predict(X)

    def fidelity(self, X: ArrayLike) -> dict[str, float]:
        """Agreement of ``tree_`` with the black box on X.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            For instance a held-out test set; the black box is queried once on it (not
            counted in ``n_queries_``).

        Returns
        -------
        dict
            Classifier: ``{"accuracy": ...}``, plus ``"f1"`` for a binary problem: the
            F1 score of the tree's predictions against the black box's labels, with
            ``classes_[1]`` as the positive class (the paper's fidelity measure).
            Regressor: ``{"mse": ...}``, the mean squared error between them.
        """
        X = self._validated(X)
        truth = self._query(X, count=False)
        return self._agreement(truth, self.tree_.predict(X))

    def _validated(self, X: ArrayLike) -> NDArray[np.float64]:
        check_is_fitted(self, "tree_")
        checked: NDArray[np.float64] = validate_numeric_data(
            self, X, reset=False, dtype=np.float64, ensure_all_finite=True
        )
        return checked

    def apply(self, X: ArrayLike) -> NDArray[np.intp]:
        """Index of the leaf of ``tree_`` reached by every row of X."""
        X = self._validated(X)
        return self.tree_.apply(X)

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False
        tags.input_tags.allow_nan = False
        return tags

    # ---- refine with GOSDT --------------------------------------------------- #
    def _store_refined(self, tree: Tree, nodes: list[_Node]) -> None:
        """Stores the extracted ``tree`` and, with ``refine="gosdt"``, refines it."""
        self.extracted_tree_ = self.tree_ = tree
        self.refine_estimator_ = None
        self.refine_thresholds_ = []
        self.refine_feature_names_ = []
        self.refine_status_ = None
        if self.refine == "gosdt":
            self._refine_gosdt(nodes)

    def _refine_gosdt(self, nodes: list[_Node]) -> None:
        from .optimal import GOSDTClassifier, GOSDTRegressor

        tree = self.extracted_tree_
        # Thresholds found by the extraction: the splits of the tree and the best
        # candidate split of every leaf.
        pairs = sorted(
            {(int(nd["feature"]), float(nd["threshold"])) for nd in nodes if nd["feature"] >= 0}
        )
        # The mixture's samples of all nodes, weighted to represent the mixture, and
        # the training rows (the root holds them all), in their shares of the input
        # distribution.
        root = nodes[0]
        share = root["share"]
        if root.get("pool"):  # one pool for all nodes (train_weight="auto"): the root's
            X_syn, y_syn = root["X"], root["labels"]
            w_syn = np.full(X_syn.shape[0], 1.0 / max(X_syn.shape[0], 1))
        else:
            X_syn = np.vstack([nd["X"] for nd in nodes])
            y_syn = np.concatenate([nd["labels"] for nd in nodes])
            n_rows = np.array([nd["X"].shape[0] for nd in nodes])
            mass = self._node_probabilities(nodes, "mass")
            w_syn = (
                _importance_weights(tree, n_rows, X_syn, mass) if X_syn.shape[0] else np.empty(0)
            )
        X_all = np.vstack([root["real_X"], X_syn])
        y_all = np.concatenate([root["real_labels"], y_syn])
        weight = np.concatenate(
            [np.full(root["real_X"].shape[0], share * root["real_weight"]), (1.0 - share) * w_syn]
        )
        names = self._feature_names() or [f"x{j}" for j in range(self.n_features_in_)]
        self.refine_thresholds_ = pairs
        self.refine_feature_names_ = threshold_column_names(pairs, names)
        if len(pairs) == 0 or np.unique(y_all).size < 2:
            self.refine_status_ = "trivial"
            return
        X01 = threshold_columns(X_all, pairs)
        gosdt = (GOSDTClassifier if self._classification else GOSDTRegressor)(
            regularization=self.refine_regularization,
            max_depth=self.refine_max_depth,
            time_limit=self.refine_time_limit,
        ).fit(X01, y_all, sample_weight=weight)
        self.refine_estimator_ = gosdt
        self.refine_status_ = gosdt.status_
        self.tree_ = tree_on_raw_features(
            gosdt.tree_,
            pairs,
            self.classes_ if self._classification else None,
            feature_names=self._feature_names(),
            n_features=self.n_features_in_,
            binary_features=self.extracted_tree_.binary_features,
            weight_label="mass",  # sample weights normalised to a total of 1
        )


class ExtractedTreeClassifier(ClassifierMixin, _BaseExtractedTree):
    __doc__ = (
        """Explain a black-box classifier with a decision tree extracted by active sampling.

    With a numeric ``train_weight``, fits a diagonal Gaussian mixture to the training
    inputs, then grows an axis-aligned tree best-first: every leaf's split (Gini) is
    chosen on fresh inputs sampled from the mixture *conditioned on the leaf's region*
    and labelled by the black box, so deep leaves get as much data as the root
    (Bastani, Kim and Bastani, "Interpreting Blackbox Models via Model Extraction",
    section 3). The default, ``train_weight="auto"``, instead draws one pool of inputs
    from a full-covariance mixture of the columns' normal scores and fits CART to the
    training rows and the pool, labelled by the black box and weighted, where check
    inputs between neighbouring rows and held-out rows show that it agrees clearly
    better with the black box than CART on the rows alone (see ``train_weight``). ``y`` is ignored: the labels come from the black box.
"""
        + _parameters_section("GOSDTClassifier", labelled="labelled", gain="fidelity (as a probability under the input distribution)")
        + """    tree_ : treeopt.Tree
        The explanation. ``weighted_n_node_samples`` is the probability of the node's
        region under the input distribution and ``value`` that probability split by
        the black box's class proportions in the region (estimated from the samples).
    classes_ : ndarray
        Class labels (those the black box returned, plus its ``classes_`` if any).
    n_queries_ : int
        Rows sent to the black box during ``fit``.
    n_blackbox_calls_ : int
        Calls made to the black box during ``fit`` (every call is one batch).
    blackbox_time_ : float
        Seconds spent inside black-box calls during ``fit``.
    train_weight_ : float
        The share of the input distribution given to the training rows (``train_weight``,
        or the share chosen by ``train_weight="auto"``).
    train_weight_losses_ : dict of float to float
        ``train_weight="auto"`` only: for every share it tried (the default first, 1 the
        rows alone), its tree's disagreement rate with the black box on the check
        inputs (mean squared difference for the regressor).
    input_distribution_ : BoxGaussianMixture
        The fitted input distribution (can be sampled in any box); the active
        sampling of a numeric ``train_weight`` draws from it.
    pool_distribution_ : CopulaGaussianMixture or BoxGaussianMixture
        ``train_weight="auto"`` only: the distribution its pool was drawn from.
"""
        + _REFINE_ATTRIBUTES_DOC.format(estimator="GOSDTClassifier", constant="a single class")
        + """    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only with DataFrame input.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from treeopt import ExtractedTreeClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> forest = RandomForestClassifier(random_state=0).fit(X, y)
    >>> tree = ExtractedTreeClassifier(forest, max_leaves=8, random_state=0).fit(X)
    >>> tree.tree_.n_leaves
    8
    >>> tree.fidelity(X)["accuracy"] > 0.9
    True
    """
    )

    _classification = True

    def _store_tree(self, X: NDArray[np.float64], nodes: list[_Node]) -> None:
        classes = self._classes(nodes)
        self.classes_ = classes
        prob = self._node_probabilities(nodes)
        value = np.zeros((len(nodes), classes.size))
        for i, node in enumerate(nodes):
            _, _, weights = self._node_rows(node, "all")
            labels = np.concatenate([node["real_labels"], node["labels"]])
            counts = np.bincount(
                np.searchsorted(classes, labels), weights=weights, minlength=classes.size
            )
            value[i] = prob[i] * counts / counts.sum()
        self._store_refined(self._tree(X, nodes, value, classes=classes), nodes)

    def _classes(self, nodes: list[_Node]) -> NDArray[Any]:
        labels = np.concatenate([nd[key] for nd in nodes for key in ("real_labels", "labels")])
        known = getattr(self.blackbox, "classes_", None)
        try:
            if known is not None and np.ndim(known) == 1:
                labels = np.concatenate([np.asarray(known), labels])
            return np.unique(labels)
        except TypeError as exc:
            raise ValueError(
                f"the black box's labels cannot be sorted (mixed types?): {exc}"
            ) from None

    # ---- prediction ---------------------------------------------------------- #
    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Black-box class proportions of the leaf each row of X reaches."""
        X = self._validated(X)
        return self.tree_.predict_proba(X)

    def _agreement(self, truth: NDArray[Any], pred: NDArray[Any]) -> dict[str, float]:
        out = {"accuracy": float(accuracy_score(truth, pred))}
        if self.classes_.size == 2:
            out["f1"] = float(f1_score(truth, pred, pos_label=self.classes_[1]))
        return out


def _importance_weights(
    tree: Tree,
    n_rows: NDArray[Any],
    X: NDArray[np.float64],
    mass: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Weights that make the pooled samples of all nodes represent the distribution P.

    Node ``i`` of ``tree`` contributed ``n_rows[i]`` draws from ``P | C_i``, where
    ``P(C_i) = mass[i]`` (default: ``tree.weighted_n_node_samples[i]``). A row ``x`` could have come from any
    node on its root-to-leaf path, so the pooled sampling density at ``x`` is
    proportional to ``p(x) * sum_{i on the path} n_rows[i] / P(C_i)`` and the importance
    weight is ``1 / sum_{i on the path} n_rows[i] / P(C_i)`` (the balance heuristic of
    multiple importance sampling), normalised to sum to 1.

    Parameters
    ----------
    tree : Tree
    n_rows : ndarray of shape (n_nodes,)
    X : ndarray of shape (n_rows_total, n_features)
        The pooled rows.
    mass : ndarray of shape (n_nodes,), optional
        ``P(C_i)`` of every node.

    Returns
    -------
    ndarray of shape (n_rows_total,)
    """
    if mass is None:
        mass = tree.weighted_n_node_samples
    path_rate = np.asarray(n_rows, dtype=np.float64) / mass
    stack = [0]
    while stack:  # add every node's rate to its descendants, from the root down
        node = stack.pop()
        for child in (tree.children_left[node], tree.children_right[node]):
            if child != TREE_LEAF:
                path_rate[child] += path_rate[node]
                stack.append(child)
    weight = 1.0 / path_rate[tree.apply(X)]
    normalised: NDArray[np.float64] = weight / weight.sum()
    return normalised


class ExtractedTreeRegressor(RegressorMixin, _BaseExtractedTree):
    __doc__ = (
        """Explain a black-box regression model with a decision tree extracted by active sampling.

    The regression version of :class:`ExtractedTreeClassifier`: splits maximise the
    variance reduction of the black box's outputs (estimated on fresh samples of every
    leaf's region with a numeric ``train_weight``, on the rows and one pool of samples
    with ``"auto"``), and leaves predict the mean output of their rows and samples.
    ``y`` is ignored.
"""
        + _parameters_section("GOSDTRegressor", labelled="evaluated", gain="share of the outputs' variance explained")
        + """    tree_ : treeopt.Tree
        The explanation, a regression tree (``task="regression"``): ``value`` has one
        column, the mean black-box output of each node's samples, and
        ``weighted_n_node_samples`` is the probability of the node's region under the
        input distribution.
"""
        + _REFINE_ATTRIBUTES_DOC.format(estimator="GOSDTRegressor", constant="constant outputs")
        + """    n_queries_, n_blackbox_calls_, blackbox_time_, train_weight_, train_weight_losses_, input_distribution_, pool_distribution_ :
        As for :class:`ExtractedTreeClassifier`.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only with DataFrame input.

    Examples
    --------
    The black box can be any function of a 2-D array, here one that jumps at
    ``x0 = 0``:

    >>> import numpy as np
    >>> from treeopt import ExtractedTreeRegressor
    >>> def blackbox(X):
    ...     return np.where(X[:, 0] > 0, 2.0, -1.0) + 0.1 * X[:, 1]
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(500, 2))
    >>> reg = ExtractedTreeRegressor(blackbox, max_leaves=4, n_samples=200, random_state=0)
    >>> tree = reg.fit(X).tree_
    >>> int(tree.feature[0]), bool(abs(tree.threshold[0]) < 0.05)  # the root finds the jump
    (0, True)
    >>> sorted(reg.fidelity(X)), reg.fidelity(X)["mse"] < 0.1
    (['mse'], True)
    """
    )

    _classification = False

    def _store_tree(self, X: NDArray[np.float64], nodes: list[_Node]) -> None:
        means = np.empty(len(nodes))
        for i, node in enumerate(nodes):
            means[i] = self._node_output(node)
        self._store_refined(self._tree(X, nodes, means[:, None], task="regression"), nodes)

    def _agreement(self, truth: NDArray[Any], pred: NDArray[Any]) -> dict[str, float]:
        return {"mse": float(mean_squared_error(truth, pred))}


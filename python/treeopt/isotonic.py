"""Tree-structured isotonic optimisation: the pruning layer of latent decision trees.

For a complete binary tree of depth ``D`` with ``T = 2**(D+1) - 1`` nodes numbered
breadth-first (node ``t > 0`` has parent ``(t - 1) // 2``) and a batch of node scores
``q`` of shape ``(n, T)``, :func:`tree_pav` solves problem (3) of Zantedeschi, Kusner
and Niculae, *Learning Binary Decision Trees by Argmin Differentiation* (ICML 2021)::

    min_{z, a}  lam/2 ||a||^2 + 1/2 sum_i ||z_i - q_i - 1/2||^2
    s.t.        a_t <= a_parent(t),  0 <= z_it <= a_t,  0 <= a_t <= 1

exactly, by the tree-structured pool-adjacent-violators algorithm (Algorithm 1) with the
closed-form group solution of Proposition 2, in Rust (``treeopt._core``). ``a`` says how
much each node is kept (0 = pruned) and ``z_it = clip(q_it + 1/2, 0, a_t)`` how much row
``i`` reaches node ``t``. :func:`tree_pav_backward` (or :meth:`TreePAV.backward`)
returns ``dL/dq`` from ``dL/da`` and ``dL/dz`` with the Jacobian of the paper's
section 3.2. For use inside PyTorch see :mod:`treeopt.torch`.

The functions :func:`tree_pav` and :func:`tree_pav_backward` reuse one solver per
thread (for batches of up to ``2**21`` values; past 64 MB it frees, after each forward
pass, the buffers only that pass uses), so a call costs what a warm
:meth:`TreePAV.forward` costs, and ``tree_pav_backward`` at the ``q`` and ``lam`` of the
thread's last ``tree_pav`` call does not solve again. The solver keeps no copy of ``q``
and sizes and writes its memory in proportion to the values that can enter a support, so
even a first call touches little new memory besides its outputs (on 512 x 127 normal
scores, ``lam = 1``, about 5 pages of 4 KB besides the 127 of ``z``). Outputs ``z`` and
``dL/dq`` of ``2**15`` to ``2**21`` values are made in the memory of earlier outputs of the
same size that Python has freed (a few are kept; such an array's ``base`` is the owner of
that memory, which takes it back once the array and its views are gone), so calls in a
loop do not fault their pages in again.
"""

from __future__ import annotations

import math
import numbers
import threading
from typing import Any, NoReturn, Tuple, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _core

__all__ = ["TreePAV", "tree_pav", "tree_pav_backward", "tree_depth"]

#: Deepest tree the solver accepts.
MAX_DEPTH = 24

#: Largest batch (rows x nodes) for which :func:`tree_pav` and :func:`tree_pav_backward`
#: keep their per-thread solver, and its buffers, between calls (8192 x 255 is 2.09 M
#: values); larger batches use a solver of their own.
CACHED_MAX_VALUES = 2**21

#: Memory past which the per-thread solver frees, after each forward pass, the buffers
#: only that pass uses (it keeps the state for the backward pass). Its buffers are
#: sized to the candidate values (normal scores on 8192 x 255: about 10 MB); scores
#: with many candidates (large ``lam``, drifting scores) could make it hold up to 144
#: bytes a value, 300 MB at ``CACHED_MAX_VALUES``, and with this limit a thread holds at
#: most 64 MB for them (16 bytes a value are kept: 34 MB at ``CACHED_MAX_VALUES``).
CACHED_MAX_BYTES = 64 * 2**20

_thread = threading.local()


def tree_depth(n_nodes: int) -> int:
    """Depth of the complete binary tree with ``n_nodes`` nodes.

    Parameters
    ----------
    n_nodes : int
        ``2**(depth + 1) - 1``.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``n_nodes`` is not the node count of a complete binary tree.

    Examples
    --------
    >>> tree_depth(7)
    2
    """
    n = int(n_nodes)
    if n < 1 or (n + 1) & n:
        raise ValueError(
            f"{n_nodes} is not the node count 2**(depth+1) - 1 of a complete binary tree "
            "(1, 3, 7, 15, 31, ...); pass one column per node in breadth-first order"
        )
    return (n + 1).bit_length() - 2


def _as_scores(q: ArrayLike, name: str = "q") -> NDArray[np.float64]:
    try:
        arr = np.asarray(q, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array of shape (n_rows, n_nodes): {exc}") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (n_rows, n_nodes), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} has no rows; pass at least one row of node scores")
    depth = tree_depth(arr.shape[1])
    if depth > MAX_DEPTH:
        raise ValueError(f"a tree of depth {depth} is too deep; the solver supports depth <= {MAX_DEPTH}")
    # finiteness is checked by the solver (ValueError naming the first bad entry)
    return np.ascontiguousarray(arr)


def _as_lambda(lam: object) -> float:
    if isinstance(lam, (bool, np.bool_)) or not isinstance(lam, numbers.Real):
        raise TypeError(f"lam must be a real number >= 0, got {lam!r}")
    lam = float(lam)
    if not (math.isfinite(lam) and lam >= 0):
        raise ValueError(f"lam must be a finite number >= 0, got {lam}")
    return lam


class TreePAV:
    """Reusable solver of the latent-tree pruning problem, with its backward pass.

    The object keeps its buffers between calls (sized to the candidate values of the
    largest problem so far: no allocation in the solver once they have grown to it) and
    the state of the last :meth:`forward` for
    :meth:`backward` and :meth:`info`. Not picklable; create one where it is used.

    Examples
    --------
    >>> import numpy as np
    >>> from treeopt.isotonic import TreePAV
    >>> q = np.array([[0.5, 0.4, -0.9], [0.5, -0.8, 0.3]])   # depth 1: 3 nodes
    >>> solver = TreePAV()
    >>> a, z = solver.forward(q, lam=0.1)
    >>> bool(a[1] <= a[0] and a[2] <= a[0])
    True
    >>> grad_q = solver.backward(grad_a=np.array([1.0, 0.0, 0.0]))
    >>> grad_q.shape
    (2, 3)
    """

    def __init__(self) -> None:
        self._solver = _core.TreePAV()
        self._q: NDArray[np.float64] | None = None  # the scores of the last forward(), for backward()

    @property
    def _shape(self) -> tuple[int, int] | None:
        # the shape of q in the last forward pass, None unless it succeeded
        return self._solver.solved_shape()

    def forward(self, q: ArrayLike, lam: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Solve problem (3).

        Parameters
        ----------
        q : array-like of shape (n_rows, n_nodes)
            Node scores; ``n_nodes = 2**(depth+1) - 1``, breadth-first.
        lam : float
            Pruning strength ``lam >= 0``.

        Returns
        -------
        a : ndarray of shape (n_nodes,)
            Node values in ``[0, 1]``, non-increasing from parent to child.
        z : ndarray of shape (n_rows, n_nodes)
            ``clip(q + 1/2, 0, a)``.
        """
        q = _as_scores(q)
        a, z = self._forward(q, _as_lambda(lam))
        self._q = q.copy()  # the caller may change q before backward()
        return a, z

    def _forward(self, q: NDArray[np.float64], lam: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        # q and lam already checked by _as_scores and _as_lambda
        self._q = None
        return self._solver.forward(q, lam)

    def _backward_at(
        self, q: NDArray[np.float64], lam: float, grad_a: ArrayLike | None, grad_z: ArrayLike | None
    ) -> NDArray[np.float64] | None:
        # the gradient at q if the last forward pass solved the problem of q and lam (the
        # same candidates, checked within the backward pass), else None
        if self._shape != q.shape:
            return None
        return self._solver.backward_at(q, lam, *self._gradients(grad_a, grad_z))

    def _gradients(
        self, grad_a: ArrayLike | None, grad_z: ArrayLike | None
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        # the gradients as contiguous float64 arrays of the last forward pass's shapes (set:
        # the callers check first that a forward pass succeeded)
        n, t = cast(Tuple[int, int], self._shape)
        grad_a = np.zeros(t) if grad_a is None else np.ascontiguousarray(grad_a, dtype=np.float64)
        grad_z = np.zeros((n, t)) if grad_z is None else np.ascontiguousarray(grad_z, dtype=np.float64)
        if grad_a.shape != (t,):
            raise ValueError(f"grad_a must have shape ({t},), got {grad_a.shape}")
        if grad_z.shape != (n, t):
            raise ValueError(f"grad_z must have shape ({n}, {t}), got {grad_z.shape}")
        return grad_a, grad_z

    def backward(
        self, grad_a: ArrayLike | None = None, grad_z: ArrayLike | None = None
    ) -> NDArray[np.float64]:
        """Gradient of a loss with respect to ``q`` at the last :meth:`forward`.

        Parameters
        ----------
        grad_a : array-like of shape (n_nodes,), optional
            ``dL/da`` (zeros when omitted).
        grad_z : array-like of shape (n_rows, n_nodes), optional
            ``dL/dz`` (zeros when omitted).

        Returns
        -------
        ndarray of shape (n_rows, n_nodes)
            ``dL/dq``. At the measure-zero set of kinks this is one of the Clarke
            generalized gradients.
        """
        if self._q is None:
            raise ValueError("backward needs a successful forward pass first")
        return self._solver.backward(self._q, *self._gradients(grad_a, grad_z))

    def info(self) -> dict[str, NDArray[Any]]:
        """Groups and support sets of the last :meth:`forward`.

        Returns
        -------
        dict
            ``group`` (int, top node of each node's group), ``value`` (unclipped group
            value per node), ``denominator`` (``lam |G| + k*`` per node) and ``support``
            (bool ``(n_rows, n_nodes)``, True where ``(i, t)`` is in the support set
            ``S(k*)`` of Proposition 2).
        """
        if self._shape is None:
            raise ValueError("info() needs a successful forward pass first")
        info = self._solver.info()
        return {k: getattr(info, k) for k in ("group", "value", "denominator", "support")}

    def __reduce__(self) -> NoReturn:
        raise TypeError("TreePAV holds solver buffers and cannot be pickled; create a new one")


def _thread_solver(n_values: int) -> TreePAV:
    """This thread's reused solver, or a new one for batches above CACHED_MAX_VALUES."""
    if n_values > CACHED_MAX_VALUES:
        return TreePAV()
    return _cached_solver()


def _cached_solver() -> TreePAV:
    """This thread's reused solver (its Rust solver is also ``_thread.core``)."""
    try:
        solver: TreePAV = _thread.solver
    except AttributeError:
        solver = TreePAV()
        solver._solver.set_max_held_bytes(CACHED_MAX_BYTES)
        _thread.solver, _thread.core = solver, solver._solver
    return solver


def _cached_core() -> Any:
    """The Rust solver of this thread's reused solver."""
    try:
        return _thread.core
    except AttributeError:
        return _cached_solver()._solver


def tree_pav(q: ArrayLike, lam: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Forward pass: node values ``a`` and traversals ``z`` for scores ``q``.

    Parameters
    ----------
    q : array-like of shape (n_rows, n_nodes)
        Node scores of a complete binary tree (``n_nodes = 2**(depth+1) - 1``).
    lam : float
        Pruning strength ``>= 0``.

    Returns
    -------
    a : ndarray of shape (n_nodes,)
    z : ndarray of shape (n_rows, n_nodes)

    Examples
    --------
    >>> import numpy as np
    >>> from treeopt.isotonic import tree_pav
    >>> a, z = tree_pav(np.array([[0.5, 0.5, -1.0]]), lam=1.0)
    >>> a.round(3).tolist(), z.round(3).tolist()
    ([0.5, 0.5, 0.0], [[0.5, 0.5, 0.0]])
    """
    # Fast path: a C-contiguous float64 q of a cached size and a float lam go straight to
    # the solver, which checks them (shape, finiteness, lam) with the errors of the
    # checks below; anything else is converted and checked here first.
    # (the thread's Rust solver read inline, not through _cached_solver(): on 1 x 1 a
    # forward + backward pair takes about 500 of its 17.5 k instructions less)
    try:
        core = _thread.core
    except AttributeError:
        core = _cached_core()
    solved = core.forward_checked(q, lam, CACHED_MAX_VALUES)
    if solved is not None:
        return cast("tuple[NDArray[np.float64], NDArray[np.float64]]", solved)
    q = _as_scores(q)
    return _thread_solver(q.size)._forward(q, _as_lambda(lam))


def tree_pav_backward(
    q: ArrayLike, lam: float, grad_a: ArrayLike | None = None, grad_z: ArrayLike | None = None
) -> NDArray[np.float64]:
    """Backward pass at ``q``: ``dL/dq`` from ``dL/da`` and ``dL/dz``.

    Reuses the forward pass of this thread's last :func:`tree_pav` call when it solved
    the same problem: the same ``lam`` and, bit for bit and at the same places, the same
    values of ``q`` at or above the solver's cut (a bound below every group value; the
    solution depends on nothing else), which the backward pass checks as it reads ``q``.
    Otherwise it solves again. Either way the result is the gradient at this ``q``.

    Parameters
    ----------
    q : array-like of shape (n_rows, n_nodes)
    lam : float
    grad_a : array-like of shape (n_nodes,), optional
    grad_z : array-like of shape (n_rows, n_nodes), optional

    Returns
    -------
    ndarray of shape (n_rows, n_nodes)
    """
    # fast path as in tree_pav, when this thread's last tree_pav solved this problem
    try:
        core = _thread.core
    except AttributeError:
        core = _cached_core()
    grad_q = core.backward_checked(q, lam, grad_a, grad_z, CACHED_MAX_VALUES)
    if grad_q is not None:
        return cast("NDArray[np.float64]", grad_q)
    q = _as_scores(q)
    lam = _as_lambda(lam)
    solver = _thread_solver(q.size)
    grad_q = solver._backward_at(q, lam, grad_a, grad_z)
    if grad_q is None:
        solver._forward(q, lam)
        grad_q = solver._backward_at(q, lam, grad_a, grad_z)
    # not None: the forward pass just solved the problem of these q and lam
    return cast("NDArray[np.float64]", grad_q)

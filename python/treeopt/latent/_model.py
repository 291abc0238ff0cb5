"""The latent-tree model as plain functions of arrays: min-path node scores (eq. (1) of
Zantedeschi et al.) and their gradient, and the Adam optimiser of the estimators."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = ["MAX_DEPTH", "Q_ROOT", "node_scores", "node_scores_backward"]

#: Score of the root: every row reaches it with full margin (``q + 1/2 = 1``).
Q_ROOT = 0.5
#: Largest tree depth the estimators accept.
MAX_DEPTH = 12
# Rows per chunk at prediction time and for the bias initialisation, so that
# rows * nodes stays near 2**22 cells whatever the depth.
_CELLS = 1 << 22


# --------------------------------------------------------------------------- #
# the model, as plain functions of arrays
# --------------------------------------------------------------------------- #
def _level(d: int) -> tuple[int, int]:
    """Node index range of tree level ``d`` (root = level 0)."""
    return (1 << d) - 1, (1 << (d + 1)) - 1


def node_scores(S: NDArray[np.float64], depth: int) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Min-path node scores ``q`` from split values ``S`` (eq. (1) of the paper).

    Parameters
    ----------
    S : ndarray of shape (n, 2**depth - 1)
        Split value of every branching node (row goes left when ``<= 0``).
    depth : int

    Returns
    -------
    q : ndarray of shape (n, 2**(depth+1) - 1)
        ``q_root = 1/2``; ``q_child = min(q_parent, -+ s_parent)`` (left: ``-s``).
    own : ndarray of bool, same shape
        True where ``q_t`` is the node's own split term rather than its parent's score
        (ties go to the parent); the Danskin gradient follows it.
    """
    n = S.shape[0]
    n_nodes = (1 << (depth + 1)) - 1
    q = np.empty((n, n_nodes))
    own = np.zeros((n, n_nodes), dtype=bool)
    q[:, 0] = Q_ROOT
    for d in range(depth):
        plo, phi = _level(d)
        clo, chi = _level(d + 1)
        s = S[:, plo:phi]
        parent = np.repeat(q[:, plo:phi], 2, axis=1)
        cand = np.empty((n, chi - clo))
        cand[:, 0::2] = -s
        cand[:, 1::2] = s
        take = cand < parent
        q[:, clo:chi] = np.where(take, cand, parent)
        own[:, clo:chi] = take
    return q, own


def node_scores_backward(
    grad_q: NDArray[np.float64], own: NDArray[np.bool_], depth: int
) -> NDArray[np.float64]:
    """Gradient with respect to ``S`` of a loss whose gradient in ``q`` is ``grad_q``."""
    n = grad_q.shape[0]
    grad_q = grad_q.copy()
    grad_S = np.zeros((n, (1 << depth) - 1))
    for d in range(depth - 1, -1, -1):
        plo, phi = _level(d)
        clo, chi = _level(d + 1)
        g = grad_q[:, clo:chi]
        o = own[:, clo:chi]
        g_own = np.where(o, g, 0.0)
        g_parent = g - g_own
        grad_S[:, plo:phi] += g_own[:, 1::2] - g_own[:, 0::2]
        grad_q[:, plo:phi] += g_parent[:, 0::2] + g_parent[:, 1::2]
    return grad_S


def _chunks(n: int, n_nodes: int) -> list[slice]:
    step = max(1, _CELLS // max(n_nodes, 1))
    return [slice(i, min(i + step, n)) for i in range(0, n, step)]


def _log_softmax(Z: NDArray[np.float64]) -> NDArray[np.float64]:
    Z = Z - Z.max(axis=1, keepdims=True)
    log_sum: NDArray[np.float64] = np.log(np.exp(Z).sum(axis=1, keepdims=True))
    return Z - log_sum


class _Adam:
    """Adam on a list of arrays, updated in place."""

    def __init__(
        self,
        params: Sequence[NDArray[np.float64]],
        lr: float,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-8,
    ) -> None:
        self.params = params
        self.lr = lr
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, grads: Sequence[NDArray[np.float64]]) -> None:
        self.t += 1
        c1 = 1.0 - self.beta1**self.t
        c2 = 1.0 - self.beta2**self.t
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= self.beta1
            m += (1.0 - self.beta1) * g
            v *= self.beta2
            v += (1.0 - self.beta2) * (g * g)
            p -= self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps)

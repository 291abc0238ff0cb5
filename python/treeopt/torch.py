"""PyTorch autograd layer of the latent-tree pruning problem (optional).

This module needs PyTorch, which is not a dependency of treeopt: it imports only when
``torch`` is installed (``pip install torch``); ``import treeopt`` never imports it.

:class:`LatentTreeLayer` is a :class:`torch.autograd.Function` around the Rust solver of
:mod:`treeopt.isotonic`: ``a, z = LatentTreeLayer.apply(q, lam)`` solves problem (3) of
Zantedeschi et al. (ICML 2021) for a batch of node scores ``q`` (shape ``(n, T)``) and
back-propagates through it with the closed-form Jacobian of the paper's section 3.2.
The solver runs on the CPU in float64; results come back in ``q``'s dtype and device.

Examples
--------
>>> import torch
>>> from treeopt.torch import LatentTreeLayer
>>> q = torch.randn(8, 7, dtype=torch.float64, requires_grad=True)
>>> a, z = LatentTreeLayer.apply(q, 0.5)
>>> z[:, 3:].sum().backward()
>>> q.grad.shape
torch.Size([8, 7])
"""

from __future__ import annotations

from typing import cast

try:
    import torch
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "treeopt.torch needs PyTorch, which is not a dependency of treeopt; "
        "install it with `pip install torch`"
    ) from exc

import numpy as np

from .isotonic import TreePAV

__all__ = ["LatentTreeLayer", "latent_tree_pav"]


class LatentTreeLayer(torch.autograd.Function):
    """``(a, z) = T_lam(q)``: tree-structured pruning and traversal as an autograd Function.

    ``forward(ctx, q, lam)`` takes scores ``q`` of shape ``(n_rows, n_nodes)`` with
    ``n_nodes = 2**(depth+1) - 1`` (breadth-first) and ``lam >= 0`` (a float), and returns
    the node values ``a`` (``(n_nodes,)``) and traversals ``z`` (``(n_rows, n_nodes)``).
    ``backward`` returns the gradient with respect to ``q`` (none for ``lam``).
    Call it as ``LatentTreeLayer.apply(q, lam)``.
    """

    @staticmethod
    def forward(
        ctx: torch.autograd.FunctionCtx, q: torch.Tensor, lam: float
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if not isinstance(q, torch.Tensor):
            raise TypeError(f"q must be a torch.Tensor, got {type(q).__name__}")
        solver = TreePAV()
        q_np = q.detach().to("cpu", torch.float64).numpy()
        a, z = solver.forward(q_np, float(lam))
        ctx.solver = solver
        ctx.q_meta = (q.dtype, q.device)
        return (
            torch.from_numpy(a).to(device=q.device, dtype=q.dtype),
            torch.from_numpy(z).to(device=q.device, dtype=q.dtype),
        )

    @staticmethod
    def backward(
        ctx: torch.autograd.FunctionCtx,
        grad_a: torch.Tensor | None,
        grad_z: torch.Tensor | None,
    ) -> tuple[torch.Tensor, None]:
        dtype, device = ctx.q_meta
        ga = None if grad_a is None else grad_a.detach().to("cpu", torch.float64).numpy()
        gz = None if grad_z is None else grad_z.detach().to("cpu", torch.float64).numpy()
        grad_q = ctx.solver.backward(
            None if ga is None else np.ascontiguousarray(ga),
            None if gz is None else np.ascontiguousarray(gz),
        )
        return torch.from_numpy(grad_q).to(device=device, dtype=dtype), None


def latent_tree_pav(q: torch.Tensor, lam: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Functional form of :class:`LatentTreeLayer`: ``a, z = latent_tree_pav(q, lam)``.

    Parameters
    ----------
    q : torch.Tensor of shape (n_rows, n_nodes)
    lam : float

    Returns
    -------
    a : torch.Tensor of shape (n_nodes,)
    z : torch.Tensor of shape (n_rows, n_nodes)
    """
    # ``Function.apply`` is typed ``Any``: it returns what ``forward`` returns.
    return cast("tuple[torch.Tensor, torch.Tensor]", LatentTreeLayer.apply(q, lam))

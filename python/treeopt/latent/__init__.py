"""Latent decision trees learned by argmin differentiation (Zantedeschi et al., ICML 2021).

:class:`LatentTreeClassifier` and :class:`LatentTreeRegressor` learn, jointly and by
mini-batch gradient descent, the linear split functions of a complete binary tree of
depth ``D``, which of its nodes to keep (pruning), and a linear predictor on top of the
relaxed traversals. For a row ``x`` (features z-scored with the training statistics):

* every branching node ``t`` has a split ``s_t(x) = w_t . x + b_t``; the row goes left
  when ``s_t(x) <= 0``;
* the score of node ``t`` is the smallest margin along its path:
  ``q_root = 1/2`` and ``q_child = min(q_parent, -s_parent(x))`` for a left child,
  ``min(q_parent, s_parent(x))`` for a right child (eq. (1) of the paper);
* the tree-structured isotonic problem (3) turns the scores of a mini-batch into node
  values ``a`` (how much each node is kept; 0 = pruned) and traversals
  ``z = clip(q + 1/2, 0, a)``, solved exactly in Rust (:mod:`treeopt.isotonic`);
* a linear predictor on ``[x; z_leaves]`` (or on ``z_leaves`` only) gives the logits
  (binary cross-entropy, softmax cross-entropy) or the regression output (squared error).

All gradients are hand-derived and computed in numpy: through the predictor, through
``z`` and ``a`` with the closed-form Jacobian of section 3.2 (Rust backward pass),
through the min-paths by Danskin's theorem (the gradient goes to the minimising term),
to the split weights. Optimisation is Adam with a learning rate divided by ``lr_factor``
after ``lr_patience`` epochs without validation improvement, and early stopping on a
held-out ``validation_fraction`` of the training data (paper appendix A.4), restoring the
best epoch. Split biases start at minus the mean split value of the training rows that
reach each node, so rows spread evenly over the leaves (appendix A.4).

``pruning`` is the paper's ``lambda`` for a mini-batch of ``batch_size`` rows; for a
batch of ``m`` rows the solver gets ``lambda * m / batch_size``, so the pruning strength
per row does not depend on the batch. After training, the node values are fixed to their
average over the training set (``node_values_``); prediction uses them, so predictions do
not depend on which rows are predicted together.

The fitted tree is exported as a :class:`treeopt.Tree` (``tree_``) with oblique tests in
the original feature units and the pruned nodes (``node_values_ == 0``) removed:
``tree_.to_text()``, ``tree_.to_dot()`` and ``tree_.predict`` route each row along its
hard path and predict the training majority (or mean) of its leaf. The estimator's own
``predict`` is the learned model (predictor on ``[x; z]``), usually more accurate.
"""

from ._estimators import LatentTreeClassifier, LatentTreeRegressor
from ._model import MAX_DEPTH, Q_ROOT, node_scores, node_scores_backward

__all__ = [
    "LatentTreeClassifier",
    "LatentTreeRegressor",
    "MAX_DEPTH",
    "Q_ROOT",
    "node_scores",
    "node_scores_backward",
]

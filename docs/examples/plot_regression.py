"""
Optimal regression trees
========================

:class:`~treeopt.DL85Regressor` finds the regression tree of bounded depth with the least
squared error (each leaf predicts the mean of its rows). On a noisy step function, depth
2 finds the two steps; depth 3 starts following the noise.
"""

import matplotlib.pyplot as plt
import numpy as np

from treeopt import DL85Regressor

rng = np.random.default_rng(0)
x = np.sort(rng.uniform(0, 10, 300))
truth = np.select([x < 3, x < 7], [1.0, 3.0], 2.0)
y = truth + rng.normal(0, 0.4, x.size)
X = x.reshape(-1, 1)

fig, ax = plt.subplots(figsize=(7, 4))
ax.scatter(x, y, s=6, color="gray", label="data")
for depth in [1, 2, 3]:
    reg = DL85Regressor(max_depth=depth).fit(X, y)
    print(f"depth {depth}: {reg.tree_.n_leaves} leaves, R^2 {reg.score(X, y):.3f}, {reg.status_}")
    ax.step(x, reg.predict(X), where="mid", label=f"depth {depth} (R² {reg.score(X, y):.2f})")
ax.set_xlabel("x")
ax.set_ylabel("y")
ax.legend()
plt.show()

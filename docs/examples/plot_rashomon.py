"""
The Rashomon set: every near-optimal tree
=========================================

:class:`~treeopt.RashomonSet` keeps every tree whose objective is within 10 % of the
optimum, without listing them. Its feature usage tells which columns near-optimal trees
rely on: a column the best tree ignores may still matter in many equally good trees.
"""

import matplotlib.pyplot as plt
import numpy as np

from treeopt import RashomonSet

rng = np.random.default_rng(1)
X = rng.integers(0, 2, size=(300, 6))
# two nearly interchangeable columns (0 and 1) and a weaker one (2)
y = ((X[:, 0] | (X[:, 1] & (rng.random(300) < 0.9))) ^ (rng.random(300) < 0.1)) | (X[:, 2] & X[:, 3])
rs = RashomonSet(regularization=0.01, rashomon_bound=0.1, max_depth=3).fit(X, y)
print(f"{rs.n_trees_} trees within 10 % of the optimum {rs.optimal_objective_:.4f}")
print(rs[0].to_text())

usage = rs.feature_usage()
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.bar([f"x{j}" for j in range(X.shape[1])], usage)
ax.set_ylabel("share of the trees using the column")
ax.set_title(f"Feature usage over {rs.n_trees_} near-optimal trees")
plt.show()

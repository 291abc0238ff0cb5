"""
Thresholds on numeric columns
=============================

:class:`~treeopt.DL85Classifier` searches every midpoint of a numeric column as a
threshold, so its depth-2 tree is the best of all depth-2 trees. The figure shows the
regions it cuts next to CART's on two noisy blobs.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from treeopt import DL85Classifier

X, y = make_classification(n_samples=400, n_features=2, n_redundant=0, n_informative=2,
                           n_clusters_per_class=2, class_sep=1.0, random_state=3)
optimal = DL85Classifier(max_depth=2).fit(X, y)
cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
print(optimal.tree_.to_text(feature_names=["a", "b"]))

xx, yy = np.meshgrid(np.linspace(X[:, 0].min() - 0.5, X[:, 0].max() + 0.5, 300),
                     np.linspace(X[:, 1].min() - 0.5, X[:, 1].max() + 0.5, 300))
grid = np.c_[xx.ravel(), yy.ravel()]
fig, axes = plt.subplots(1, 2, figsize=(9, 4), sharey=True)
for ax, model, name in [(axes[0], optimal, "DL8.5, depth 2 (optimal)"), (axes[1], cart, "CART, depth 2")]:
    ax.contourf(xx, yy, model.predict(grid).reshape(xx.shape), alpha=0.25, cmap="coolwarm")
    ax.scatter(X[:, 0], X[:, 1], c=y, s=8, cmap="coolwarm")
    ax.set_title(f"{name}: accuracy {model.score(X, y):.3f}")
fig.tight_layout()
plt.show()

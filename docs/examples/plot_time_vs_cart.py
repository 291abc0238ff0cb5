"""
Fit time against a peer
=======================

How long does an optimal tree take next to scikit-learn's greedy CART? This example
times :class:`~treeopt.DL85Classifier` (optimal at each depth, numeric columns as they
are, 8 thresholds per column) and ``DecisionTreeClassifier`` at depths 1 to 3 on the
breast-cancer data, best of two fits each, and compares their training accuracy.
(pydl8.5, pystreed or gosdt can be timed the same way when installed.)
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.tree import DecisionTreeClassifier

from treeopt import DL85Classifier

X, y = load_breast_cancer(return_X_y=True)


def best_time(make):
    best = np.inf
    for _ in range(2):
        start = time.perf_counter()
        model = make().fit(X, y)
        best = min(best, time.perf_counter() - start)
    return best, model.score(X, y)


depths = [1, 2, 3]
rows = []
for depth in depths:
    ours = best_time(lambda: DL85Classifier(max_depth=depth, max_thresholds=8))
    cart = best_time(lambda: DecisionTreeClassifier(max_depth=depth, random_state=0))
    rows.append((ours, cart))
    print(f"depth {depth}: DL8.5 {ours[0]:.4f}s accuracy {ours[1]:.4f} | "
          f"CART {cart[0]:.4f}s accuracy {cart[1]:.4f}")

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.8))
width = 0.38
x = np.arange(len(depths))
ax1.bar(x - width / 2, [r[0][0] for r in rows], width, label="treeopt DL8.5 (optimal)")
ax1.bar(x + width / 2, [r[1][0] for r in rows], width, label="scikit-learn CART")
ax1.set_yscale("log")
ax1.set_ylabel("fit time (s, best of 2)")
ax2.plot(depths, [r[0][1] for r in rows], "o-", label="treeopt DL8.5 (optimal)")
ax2.plot(depths, [r[1][1] for r in rows], "s--", label="scikit-learn CART")
ax2.set_ylabel("training accuracy")
for ax in (ax1, ax2):
    ax.set_xlabel("depth")
ax1.set_xticks(x, depths)
ax2.set_xticks(depths)
ax1.legend(fontsize=8)
fig.tight_layout()
plt.show()

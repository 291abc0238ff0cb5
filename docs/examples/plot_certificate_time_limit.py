"""
The certificate under a time limit
==================================

When ``time_limit`` stops the search, the estimator still returns its best tree with a
proven ``lower_bound_``: the gap ``objective_ - lower_bound_`` bounds how far that tree
can be from the optimum. This example stops the same search after longer and longer
limits. The best tree is often found early; proving it optimal (the lower bound meeting
the objective) is what takes the time.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer

from treeopt import GOSDTClassifier, NumericBinarizer

X, y = load_breast_cancer(return_X_y=True)
X01 = NumericBinarizer(max_thresholds=3).fit_transform(X)

limits = [0.1, 0.3, 0.6, 1.2, 2.4, 4.8]
objectives, bounds = [], []
for limit in limits:
    clf = GOSDTClassifier(regularization=0.01, max_depth=4, time_limit=limit).fit(X01, y)
    objectives.append(clf.objective_)
    bounds.append(clf.lower_bound_)
    print(f"time limit {limit:3.1f}s: {clf.status_:11s} objective {clf.objective_:.4f} "
          f"lower bound {clf.lower_bound_:.4f} ({clf.search_stats_['seconds']:.2f}s of search)")

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(limits, objectives, "o-", label="objective of the tree returned")
ax.plot(limits, bounds, "s-", label="certified lower bound")
ax.fill_between(limits, bounds, objectives, alpha=0.2, label="gap")
ax.set_xscale("log")
ax.set_xlabel("time limit (s)")
ax.set_ylabel("objective")
ax.set_title("GOSDT, depth 4: objective and certified lower bound")
ax.legend()
plt.show()

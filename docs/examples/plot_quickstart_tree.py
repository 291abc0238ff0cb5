"""
An optimal sparse tree on raw columns
=====================================

:class:`~treeopt.OptimalTreeClassifier` fits a provably optimal sparse tree on the raw
numeric columns of the breast-cancer data (thresholds and depth guessed by a boosted
reference ensemble), then :meth:`treeopt.Tree.plot` draws it.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from treeopt import OptimalTreeClassifier

X, y = load_breast_cancer(return_X_y=True, as_frame=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0, stratify=y)
clf = OptimalTreeClassifier(regularization=0.005).fit(X_train, y_train)

print(clf.tree_.to_text(class_names=["malignant", "benign"]))
print(f"test accuracy {clf.score(X_test, y_test):.3f}, status {clf.status_}")
print(f"objective {clf.objective_:.4f} >= certified lower bound {clf.lower_bound_:.4f}")

# %%
# The same tree as a figure: true branches on the left.
fig, ax = plt.subplots(figsize=(9, 4.5))
clf.tree_.plot(ax=ax, class_names=["malignant", "benign"])
ax.set_title(f"OptimalTreeClassifier: {clf.n_leaves_} leaves")
plt.show()

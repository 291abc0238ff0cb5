"""
Cheaper trees when tests have costs
===================================

:class:`~treeopt.EC45Classifier` weighs each test's cost against what it tells. Each of
the 30 columns gets a random cost from 1 to 10; the expected cost of classifying a test
row is the total cost of the tests on its path. ``lam=inf`` ignores the costs (plain
C4.5); the paper's ``lam=10`` trades some impurity reduction for cheaper tests; smaller
``lam`` weighs the split's balance more. The figure places each tree by its cost and
accuracy on held-out rows.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from treeopt import EC45Classifier, NumericBinarizer
from treeopt.metrics import expected_cost

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0, stratify=y)
binarizer = NumericBinarizer(max_thresholds=3).fit(X_train)
B_train, B_test = binarizer.transform(X_train), binarizer.transform(X_test)
rng = np.random.default_rng(0)
column_costs = rng.integers(1, 11, size=X.shape[1]).astype(float)  # per raw column
costs = column_costs[[j for j, _ in binarizer.output_columns_]]      # per 0/1 column

lams = [np.inf, 10.0, 1.0, 0.1]
cost, accuracy = [], []
for lam in lams:
    clf = EC45Classifier(lam=lam, test_costs=costs).fit(B_train, y_train)
    cost.append(expected_cost(clf.tree_, B_test, costs))
    accuracy.append(clf.score(B_test, y_test))
    print(f"lam={lam:>5}: expected test cost {cost[-1]:5.2f}, accuracy {accuracy[-1]:.3f}, "
          f"{clf.tree_.n_leaves} leaves")

fig, ax = plt.subplots(figsize=(6, 4))
ax.scatter(cost, accuracy, s=40)
for lam, c, a in zip(lams, cost, accuracy):
    label = "C4.5 (lam=inf)" if np.isinf(lam) else f"EC4.5 lam={lam:g}"
    ax.annotate(label, (c, a), textcoords="offset points", xytext=(6, 4), fontsize=8)
ax.set_xlabel("expected cost of the tests on a test row's path")
ax.set_ylabel("test accuracy")
ax.set_title("Cost against accuracy, random test costs 1-10")
plt.show()

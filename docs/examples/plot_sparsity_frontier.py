"""
The accuracy–sparsity frontier
==============================

Each value of ``regularization`` (the penalty per leaf) gives a provably optimal tree;
sweeping it traces the best training accuracy reachable with each number of leaves. A
CART tree with the same number of leaves, on the same 0/1 columns, sits on or below the
frontier.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.tree import DecisionTreeClassifier

from treeopt import GOSDTClassifier, NumericBinarizer

X, y = load_breast_cancer(return_X_y=True)
X01 = NumericBinarizer(max_thresholds=3).fit_transform(X)

leaves, accuracy, cart_accuracy = [], [], []
for lam in [0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001]:
    clf = GOSDTClassifier(regularization=lam, max_depth=3, time_limit=20).fit(X01, y)
    leaves.append(clf.n_leaves_)
    accuracy.append(clf.score(X01, y))
    cart = DecisionTreeClassifier(max_leaf_nodes=max(clf.n_leaves_, 2), max_depth=3, random_state=0)
    cart_accuracy.append(cart.fit(X01, y).score(X01, y))
    print(f"lambda={lam:<6} leaves={clf.n_leaves_:2d} accuracy={accuracy[-1]:.4f} "
          f"({clf.status_}) CART={cart_accuracy[-1]:.4f}")

fig, ax = plt.subplots(figsize=(6, 4))
order = np.argsort(leaves)
ax.plot(np.array(leaves)[order], np.array(accuracy)[order], "o-", label="GOSDT (optimal)")
ax.plot(np.array(leaves)[order], np.array(cart_accuracy)[order], "s--", label="CART, same leaves")
ax.set_xlabel("number of leaves")
ax.set_ylabel("training accuracy")
ax.set_title("Accuracy–sparsity frontier, breast cancer")
ax.legend()
plt.show()

"""
Explaining a random forest with a tree
======================================

:class:`~treeopt.ExtractedTreeClassifier` grows a tree that imitates a black-box model,
asking the model about inputs sampled in each leaf's region. Its fidelity (agreement
with the forest on held-out rows) grows with the number of leaves allowed.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from treeopt import ExtractedTreeClassifier

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0, stratify=y)
forest = RandomForestClassifier(n_estimators=50, random_state=0).fit(X_train, y_train)
forest_test = forest.predict(X_test)

sizes = [2, 4, 8, 16]
extracted, cart = [], []
for leaves in sizes:
    tree = ExtractedTreeClassifier(forest, max_leaves=leaves, train_weight=0.5, random_state=0).fit(X_train)
    extracted.append(tree.fidelity(X_test)["accuracy"])
    greedy = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=0)
    greedy.fit(X_train, forest.predict(X_train))
    cart.append((greedy.predict(X_test) == forest_test).mean())
    print(f"{leaves:2d} leaves: extracted fidelity {extracted[-1]:.3f}, CART on the forest's labels {cart[-1]:.3f}")

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(sizes, extracted, "o-", label="ExtractedTreeClassifier")
ax.plot(sizes, cart, "s--", label="CART on the forest's labels")
ax.set_xscale("log", base=2)
ax.set_xlabel("leaves")
ax.set_ylabel("fidelity to the forest (test rows)")
ax.legend()
plt.show()

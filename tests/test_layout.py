"""The package layout by concept keeps what users hold: public names and old pickles.

Classes moved when the package was laid out by concept (``tree/``, ``optimal/``,
``binarize/``); a pickle names the module of its class, so a model pickled before the
move names the old module. Each old path still resolves: the test rewrites the module
name inside a fresh pickle to the old one and loads it.
"""

from __future__ import annotations

import importlib
import pickle

import numpy as np
import pytest

import treeopt
from treeopt import (
    BinnedOneHotEncoder,
    DL85Classifier,
    GOSDTClassifier,
    NumericBinarizer,
    OSDTClassifier,
)


def test_every_public_name_imports_from_the_package():
    for name in treeopt.__all__:
        assert getattr(treeopt, name) is not None, name


# Where each public class lives: ``treeopt.X`` is the very object of its concept module.
PUBLIC_HOMES = {
    "Tree": "treeopt.tree",
    "BinnedOneHotEncoder": "treeopt.binarize",
    "NumericBinarizer": "treeopt.binarize",
    "GOSDTClassifier": "treeopt.optimal",
    "DL85Classifier": "treeopt.optimal",
    "OSDTClassifier": "treeopt.optimal",
    "GOSDTRegressor": "treeopt.optimal",
    "DL85Regressor": "treeopt.optimal",
    "RashomonSet": "treeopt.optimal",
    "CostAwareTreeClassifier": "treeopt.greedy",
    "EC45Classifier": "treeopt.greedy",
    "ECARTClassifier": "treeopt.greedy",
    "ExtractedTreeClassifier": "treeopt.extract",
    "ExtractedTreeRegressor": "treeopt.extract",
    "OptimalTreeClassifier": "treeopt.guess",
    "ThresholdGuessBinarizer": "treeopt.guess",
    "LatentTreeClassifier": "treeopt.latent",
    "LatentTreeRegressor": "treeopt.latent",
}


def test_public_names_are_exactly_the_listed_classes_and_version():
    assert set(treeopt.__all__) == set(PUBLIC_HOMES) | {"__version__"}


@pytest.mark.parametrize("name,module", sorted(PUBLIC_HOMES.items()))
def test_public_name_is_its_concept_modules_class(name, module):
    assert name in treeopt.__all__
    assert getattr(treeopt, name) is getattr(importlib.import_module(module), name)


def _data():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(60, 4))
    y = X[:, 0] ^ X[:, 1]
    return X, y


def _as_pickled_under(obj, old_module):
    """A protocol-2 pickle of ``obj`` whose class is named from ``old_module``."""
    cls = type(obj)
    data = pickle.dumps(obj, protocol=2)  # protocol 2 names classes as text lines
    new = f"c{cls.__module__}\n{cls.__qualname__}\n".encode()
    old = f"c{old_module}\n{cls.__qualname__}\n".encode()
    assert data.count(new) == 1, (cls.__module__, old_module)
    return data.replace(new, old)


@pytest.mark.parametrize(
    "make,old_module",
    [
        (lambda: GOSDTClassifier(regularization=0.02), "treeopt.optimal"),
        (lambda: DL85Classifier(max_depth=2), "treeopt.optimal"),
        (lambda: OSDTClassifier(regularization=0.02), "treeopt.optimal"),
    ],
)
def test_solver_pickled_under_the_old_module_loads(make, old_module):
    X, y = _data()
    est = make().fit(X, y)
    back = pickle.loads(_as_pickled_under(est, old_module))
    assert type(back) is type(est)
    assert np.array_equal(back.predict(X), est.predict(X))
    assert back.objective_ == est.objective_
    assert back.tree_ == est.tree_


def test_latent_tree_pickled_under_the_old_module_loads():
    from treeopt import LatentTreeClassifier

    X, y = _data()
    est = LatentTreeClassifier(depth=2, max_epochs=3, random_state=0).fit(X, y)
    back = pickle.loads(_as_pickled_under(est, "treeopt.latent"))
    assert np.array_equal(back.predict_proba(X), est.predict_proba(X))


def test_tree_pickled_under_the_old_module_loads():
    X, y = _data()
    tree = GOSDTClassifier().fit(X, y).tree_
    back = pickle.loads(_as_pickled_under(tree, "treeopt._tree"))
    assert back == tree


@pytest.mark.parametrize(
    "make,old_module",
    [
        (NumericBinarizer, "treeopt.binarize"),
        (lambda: BinnedOneHotEncoder(n_bins=2), "treeopt.preprocessing"),
    ],
)
def test_binarizer_pickled_under_the_old_module_loads(make, old_module):
    X = np.random.default_rng(1).normal(size=(40, 3))
    est = make().fit(X)
    back = pickle.loads(_as_pickled_under(est, old_module))
    assert np.array_equal(back.transform(X), est.transform(X))


@pytest.mark.parametrize(
    "module,names",
    [
        ("treeopt.optimal", ["GOSDTClassifier", "DL85Classifier", "OSDTClassifier",
                             "OSDT_BOUNDS", "OSDT_POLICIES"]),
        ("treeopt.binarize", ["NumericBinarizer", "BinnedOneHotEncoder"]),
        ("treeopt.preprocessing", ["BinnedOneHotEncoder"]),
        ("treeopt._tree", ["Tree", "TREE_LEAF", "TREE_UNDEFINED", "TREE_OBLIQUE",
                           "binary_columns"]),
        ("treeopt.tree", ["Tree", "best_pruning", "subtree"]),
        ("treeopt.latent", ["LatentTreeClassifier", "LatentTreeRegressor", "Q_ROOT",
                            "node_scores", "node_scores_backward"]),
    ],
)
def test_module_paths_users_import_still_resolve(module, names):
    mod = importlib.import_module(module)
    for name in names:
        assert hasattr(mod, name), f"{module}.{name}"

"""Scale-out: a grid search over the optimal classifiers on a real Dask cluster.

joblib's Dask backend runs scikit-learn's ``GridSearchCV`` fits on the workers of a
``dask.distributed`` cluster (here a ``LocalCluster`` of 2 worker processes; a remote
cluster's scheduler address works the same way, as does Ray's joblib backend). The
result must be the one ``n_jobs=1`` gives: the same best parameters and the same scores.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV

from treeopt import DL85Classifier, GOSDTClassifier, NumericBinarizer

distributed = pytest.importorskip("distributed", reason="needs dask.distributed (pip install 'dask[distributed]')")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.mark.parametrize(
    "estimator, grid",
    [
        (GOSDTClassifier(), {"regularization": [0.005, 0.01, 0.02], "max_depth": [2, 3]}),
        (DL85Classifier(), {"max_depth": [1, 2, 3], "regularization": [0.0, 0.01]}),
    ],
    ids=["GOSDT", "DL85"],
)
def test_grid_search_on_a_dask_cluster_equals_the_serial_one(client, estimator, grid):
    import joblib

    X, y = load_breast_cancer(return_X_y=True)
    X01 = NumericBinarizer(max_thresholds=2).fit_transform(X)
    start = time.perf_counter()
    serial = GridSearchCV(estimator, grid, cv=5, n_jobs=1).fit(X01, y)
    serial_seconds = time.perf_counter() - start
    start = time.perf_counter()
    with joblib.parallel_backend("dask"):
        spread = GridSearchCV(estimator, grid, cv=5, n_jobs=-1).fit(X01, y)
    dask_seconds = time.perf_counter() - start
    n_fits = 5 * len(spread.cv_results_["params"])
    workers = len(client.scheduler_info()["workers"])
    print(f"\n{type(estimator).__name__}: {n_fits} fits, n_jobs=1 {serial_seconds:.2f} s, "
          f"Dask ({workers} workers) {dask_seconds:.2f} s")
    assert workers == 2
    assert spread.best_params_ == serial.best_params_
    np.testing.assert_array_equal(spread.cv_results_["mean_test_score"], serial.cv_results_["mean_test_score"])
    np.testing.assert_array_equal(spread.predict(X01), serial.predict(X01))

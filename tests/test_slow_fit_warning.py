"""A fit with no time limit that turns out long says so once, with what to change, and
``time_limit`` bounds the whole fit (issue 19, point 3 and point 7's wide data)."""

import _thread
import threading
import time
import warnings

import numpy as np
import pytest

from treeopt import DL85Classifier, GOSDTClassifier, OSDTClassifier
from treeopt.optimal._base import CertifiedTreeClassifier


def hard(n_rows=2000, n_cols=60, seed=0):
    """A parity problem with noise: far more than a second of search for every solver."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n_rows, n_cols)) < 0.5).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 1] ^ X[:, 2] ^ (rng.random(n_rows) < 0.2)).astype(int)
    return X, y


ESTIMATORS = {
    "gosdt": lambda **kw: GOSDTClassifier(regularization=0.0005, **kw),
    "dl85": lambda **kw: DL85Classifier(max_depth=6, **kw),
    "osdt": lambda **kw: OSDTClassifier(regularization=0.0005, **kw),
}


def _fit_interrupted_after(clf, X, y, seconds):
    """Fits, pressing Ctrl-C after ``seconds``; returns the warnings shown."""
    timer = threading.Timer(seconds, _thread.interrupt_main)
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        timer.start()
        try:
            clf.fit(X, y)
        except KeyboardInterrupt:
            pass
        finally:
            timer.cancel()
    return [w for w in shown if "no time_limit" in str(w.message)]


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_long_fit_without_time_limit_warns_once(name, monkeypatch):
    monkeypatch.setattr(CertifiedTreeClassifier, "_slow_fit_seconds", 0.1)
    X, y = hard()
    shown = _fit_interrupted_after(ESTIMATORS[name](), X, y, 0.6)
    assert len(shown) == 1, [str(w.message) for w in shown]
    message = str(shown[0].message)
    assert issubclass(shown[0].category, UserWarning)
    for advice in ("time_limit", "max_depth", "regularization", "max_thresholds"):
        assert advice in message


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_no_warning_with_a_time_limit(name, monkeypatch):
    monkeypatch.setattr(CertifiedTreeClassifier, "_slow_fit_seconds", 0.1)
    X, y = hard()
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        ESTIMATORS[name](time_limit=0.4).fit(X, y)
    assert not [w for w in shown if "no time_limit" in str(w.message)]


def test_quick_fit_does_not_warn():
    X, y = hard(200, 6)
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        GOSDTClassifier(regularization=0.01).fit(X, y)
    assert not [w for w in shown if "no time_limit" in str(w.message)]


def _fit_stops_at_its_time_limit(clf, X, y):
    """Fits ``clf``, which must stop on its ``time_limit`` within 0.3 s of it (on a quiet
    machine within 0.1 s; the slack is for a loaded CI runner freeing a large queue)."""
    t = time.perf_counter()
    clf.fit(X, y)
    elapsed = time.perf_counter() - t
    assert elapsed < clf.time_limit + 0.3, f"fit took {elapsed:.2f}s with time_limit={clf.time_limit}"
    assert clf.status_ == "time_limit"
    return clf


def test_osdt_time_limit_holds_on_wide_data():
    # the root's children on 6,000 columns once took a minute between two clock checks,
    # and the CART warm start was fitted 13 times outside the limit
    rng = np.random.default_rng(0)
    X = (rng.random((400, 6000)) < 0.5).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(400) < 0.2)).astype(int)
    clf = _fit_stops_at_its_time_limit(OSDTClassifier(regularization=0.001, time_limit=0.5), X, y)
    assert clf.objective_ <= clf.warm_start_objective_ + 1e-12


def test_osdt_time_limit_includes_its_final_bound():
    # With millions of queued trees the proven bound at the end is one pass over the
    # queue (0.5 s here): the search stops early enough for it to fit in the limit.
    from sklearn.datasets import load_breast_cancer

    from treeopt import NumericBinarizer

    X, y = load_breast_cancer(return_X_y=True)
    Xb = NumericBinarizer(max_thresholds=2).fit_transform(X)
    clf = _fit_stops_at_its_time_limit(OSDTClassifier(regularization=0.005, time_limit=2), Xb, y)
    assert clf.lower_bound_ <= clf.objective_


def test_optimal_tree_classifier_warning_names_it_and_its_columns(monkeypatch):
    # OptimalTreeClassifier runs GOSDT for its user: the warning names the estimator the
    # user called and how to get fewer columns from it (not NumericBinarizer).
    from treeopt import OptimalTreeClassifier

    monkeypatch.setattr(CertifiedTreeClassifier, "_slow_fit_seconds", 0.05)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 12))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.3) ^ (X[:, 2] > -0.2) ^ (rng.random(3000) < 0.2))
    # Without lower-bound guessing the depth-4 search takes seconds, beyond the
    # monitor's first report (0.1 s), where the warning is shown.
    clf = OptimalTreeClassifier(regularization=0.0002, n_estimators=80, estimator_depth=2,
                                max_depth=4, lower_bound_guess=False, time_limit=None)
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        clf.fit(X, y.astype(int))
    slow = [str(w.message) for w in shown if "no time_limit" in str(w.message)]
    assert len(slow) == 1, slow
    assert slow[0].startswith("OptimalTreeClassifier.fit has searched")
    assert "n_estimators" in slow[0] and "NumericBinarizer" not in slow[0]

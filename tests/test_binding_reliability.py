"""What a user sees must be true (issue 19): limits, panics, process aborts, Ctrl-C,
objectives under weights and weight scale for the optimal-tree estimators and the
Rust binding ``treeopt._core``."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from treeopt import (
    DL85Classifier,
    ExtractedTreeClassifier,
    GOSDTClassifier,
    OptimalTreeClassifier,
    OSDTClassifier,
)

XOR_X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
XOR_Y = XOR_X[:, 0] ^ XOR_X[:, 1]

OPTIMAL = [GOSDTClassifier, DL85Classifier, OSDTClassifier]


def _numeric_problem(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.3)).astype(int)
    return X, y


# --------------------------------------------------------------------------- #
# B. panics and overflowing parameters
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("cls", OPTIMAL)
@pytest.mark.parametrize("time_limit", [1e19, 1e300, sys.float_info.max])
def test_huge_time_limit_means_no_limit(cls, time_limit):
    clf = cls(time_limit=time_limit).fit(XOR_X, XOR_Y)
    assert clf.status_ == "optimal"
    assert clf.score(XOR_X, XOR_Y) == 1.0


@pytest.mark.parametrize("cls", OPTIMAL)
@pytest.mark.parametrize("memory_limit", [2**64, 10**40])
def test_huge_memory_limit_means_no_limit(cls, memory_limit):
    clf = cls(memory_limit=memory_limit).fit(XOR_X, XOR_Y)
    assert clf.status_ == "optimal"
    assert clf.n_leaves_ == 4


@pytest.mark.parametrize("cls", [GOSDTClassifier, DL85Classifier])
@pytest.mark.parametrize("max_depth", [2**64, 10**40])
def test_huge_max_depth_means_no_limit(cls, max_depth):
    clf = cls(max_depth=max_depth).fit(XOR_X, XOR_Y)
    assert clf.status_ == "optimal"
    assert clf.n_leaves_ == 4


@pytest.mark.parametrize("min_samples_leaf", [2**64, 10**40])
def test_huge_min_samples_leaf_gives_a_leaf(min_samples_leaf):
    with pytest.warns(UserWarning, match="single leaf"):
        clf = DL85Classifier(min_samples_leaf=min_samples_leaf).fit(XOR_X, XOR_Y)
    assert clf.n_leaves_ == 1
    assert clf.status_ == "optimal"


@pytest.mark.parametrize(
    "cls, param",
    [
        (GOSDTClassifier, "max_depth"),
        (GOSDTClassifier, "memory_limit"),
        (GOSDTClassifier, "time_limit"),
        (DL85Classifier, "max_depth"),
        (DL85Classifier, "min_samples_leaf"),
        (DL85Classifier, "memory_limit"),
        (DL85Classifier, "time_limit"),
        (OSDTClassifier, "memory_limit"),
        (OSDTClassifier, "time_limit"),
        (OptimalTreeClassifier, "max_depth"),
        (OptimalTreeClassifier, "memory_limit"),
        (OptimalTreeClassifier, "time_limit"),
        (OptimalTreeClassifier, "n_estimators"),
        (OptimalTreeClassifier, "estimator_depth"),
    ],
)
@pytest.mark.parametrize("value", [True, np.True_])
def test_boolean_for_a_number_is_refused(cls, param, value):
    clf = cls(**{param: value})
    with pytest.raises(ValueError, match=param):
        clf.fit(XOR_X, XOR_Y)


@pytest.mark.parametrize("time_limit", [1e19, 1e300])
def test_optimal_tree_classifier_huge_limits(time_limit):
    X, y = _numeric_problem()
    clf = OptimalTreeClassifier(
        max_depth=2, n_estimators=10, time_limit=time_limit, memory_limit=2**64, random_state=0
    ).fit(X, y)
    assert clf.status_ in ("optimal", "matched_reference")


def test_extracted_tree_huge_refine_time_limit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    est = ExtractedTreeClassifier(
        lambda Z: (np.asarray(Z)[:, 0] <= 0.5).astype(int),
        max_leaves=4,
        n_samples=200,
        random_state=0,
        refine="gosdt",
        refine_time_limit=1e300,
        refine_max_depth=2**64,
    ).fit(X)
    assert est.refine_status_ == "optimal"


def test_core_huge_time_limit_directly():
    """The binding itself saturates a huge limit instead of panicking."""
    from treeopt import _core

    X = np.ascontiguousarray(XOR_X, dtype=np.uint8)
    y = np.ascontiguousarray(XOR_Y, dtype=np.uint32)
    searches = (_core.GosdtSearch(0.01), _core.Dl85Search(2, 1, 0.0), _core.OsdtSearch(0.01))
    for t in (1e19, 1e300, sys.float_info.max):
        for search in searches:
            res = _core.fit(X, y, None, search, n_classes=2, time_limit=t)
            assert res.status == "optimal"
    with pytest.raises(ValueError, match="time_limit"):
        _core.fit(X, y, None, searches[0], n_classes=2, time_limit=float("nan"))


def test_core_returns_a_typed_read_only_result():
    """``fit`` answers with a ``FitResult`` whose fields are typed and cannot be
    overwritten; only OSDT fills ``osdt``; a wrong search object is a TypeError."""
    from treeopt import _core

    X = np.ascontiguousarray(XOR_X, dtype=np.uint8)
    y = np.ascontiguousarray(XOR_Y, dtype=np.uint32)
    w = np.linspace(0.5, 1.0, len(y))
    for search in (_core.GosdtSearch(0.01), _core.Dl85Search(2, 1, 0.01), _core.OsdtSearch(0.01)):
        res = _core.fit(X, y, w, search, n_classes=2)
        assert isinstance(res, _core.FitResult) and isinstance(res.stats, _core.SearchStats)
        n = len(res.feature)
        assert n == 7 and res.value.shape == (n, 2) and res.labels.shape == (n,)
        leaves = res.children_left < 0
        assert np.array_equal(res.feature < 0, leaves) and np.all(res.children_right[leaves] < 0)
        assert np.array_equal(res.labels, res.value.argmax(axis=1))
        assert res.status == "optimal" and res.objective == pytest.approx(0.04)
        assert res.lower_bound == pytest.approx(res.objective) and res.interrupt is None
        assert res.stats.seconds >= 0 and res.guessed_lower_bound is None
        assert (res.osdt is not None) == isinstance(search, _core.OsdtSearch)
        with pytest.raises(AttributeError):
            res.objective = 0.0
    assert res.osdt.trees_evaluated > 0 and res.osdt.warm_start_objective is None
    with pytest.raises(TypeError):
        _core.fit(X, y, None, "gosdt", n_classes=2)


@pytest.mark.parametrize("kind", ["gosdt", "dl85"])
def test_core_passes_the_cost_matrix(kind):
    """The binding hands ``misclassification_cost`` to the search: ``1 - I`` is plain
    misclassification, a dearer error on class 1 moves a leaf's label, a bad matrix is
    refused."""
    from treeopt import _core

    X = np.zeros((5, 1), dtype=np.uint8)
    y = np.array([0, 0, 0, 1, 1], dtype=np.uint32)

    def fit(cost):
        cost = None if cost is None else np.ascontiguousarray(cost, dtype=np.float64).ravel()
        if kind == "gosdt":
            search = _core.GosdtSearch(0.0, misclassification_cost=cost)
        else:
            search = _core.Dl85Search(1, 1, 0.0, misclassification_cost=cost)
        return _core.fit(X, y, None, search, n_classes=2)

    plain, unit = fit(None), fit(1 - np.eye(2))
    assert unit.objective == plain.objective == pytest.approx(0.4)
    assert np.array_equal(unit.labels, plain.labels) and plain.labels[0] == 0
    dear = fit([[0.0, 1.0], [5.0, 0.0]])  # missing a 1 costs 5: predict 1, pay 3 x 1
    assert dear.labels[0] == 1 and dear.objective == pytest.approx(0.6)
    with pytest.raises(ValueError, match="misclassification_cost"):
        fit([[1.0, 1.0], [1.0, 0.0]])  # non-zero diagonal


def test_cli_huge_time_limit():
    out = subprocess.run(
        [sys.executable, "-m", "treeopt", "demo", "--time-limit", "1e300", "--max-depth", "2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "PanicException" not in out.stderr
    assert "optimal" in out.stdout



# --------------------------------------------------------------------------- #
# C. the isotonic solver never aborts the process
# --------------------------------------------------------------------------- #

_ISOTONIC_OOM = """
import resource, sys
import numpy as np
from treeopt import isotonic
q = np.zeros((1, 2**25 - 1))  # depth 24, the documented maximum
limit = {limit}
if limit:
    # An address-space limit makes every allocation beyond it fail, whatever the
    # machine's memory or overcommit policy: the solver must report it, not abort.
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
try:
    isotonic.tree_pav(q, 1.0)
except MemoryError as exc:
    print("MemoryError:", exc)
    sys.exit(3)
print("solved")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs RLIMIT_AS")
def test_isotonic_too_large_for_memory_is_a_memory_error_not_an_abort():
    import resource

    base = resource.getrlimit(resource.RLIMIT_AS)[0]
    limit = 3 * 2**30
    if base != resource.RLIM_INFINITY and base < limit:
        pytest.skip("address space already limited below the test's limit")
    out = subprocess.run(
        [sys.executable, "-c", _ISOTONIC_OOM.format(limit=limit)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 3, (out.returncode, out.stdout, out.stderr[-2000:])
    message = out.stdout
    # says how much it needs and what to do
    assert "GB" in message and "q of shape (1, 33554431)" in message
    assert "fewer rows" in message or "shallower" in message


def test_isotonic_memory_estimate_is_in_the_error_and_small_cases_work():
    from treeopt import isotonic

    a, z = isotonic.tree_pav(np.zeros((2, 7)), 1.0)
    assert a.shape == (7,) and z.shape == (2, 7)



# --------------------------------------------------------------------------- #
# D. an OSDT fit stopped by a limit is never worse than its warm start
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("name", ["compas_binary", "monk1", "tic-tac-toe"])
@pytest.mark.parametrize("memory_limit", [1, 1000, 20_000])
def test_osdt_memory_limited_fit_keeps_the_warm_start(load_dataset, name, memory_limit):
    X, y, _ = load_dataset(name)
    lam = 0.02
    full = OSDTClassifier(regularization=lam, time_limit=0.01).fit(X, y)
    warm = full.warm_start_objective_
    leaf = min(np.mean(y), 1 - np.mean(y)) + lam
    assert warm is not None and warm < leaf - 0.01  # CART beats the single leaf here
    clf = OSDTClassifier(regularization=lam, memory_limit=memory_limit).fit(X, y)
    assert clf.status_ in ("memory_limit", "optimal")
    assert clf.warm_start_objective_ == pytest.approx(warm)
    assert clf.objective_ <= warm + 1e-12
    assert clf.lower_bound_ <= clf.objective_
    # objective_ is the objective of tree_
    recomputed = np.mean(clf.predict(X) != y) + lam * clf.n_leaves_
    assert clf.objective_ == pytest.approx(recomputed, abs=1e-12)



# --------------------------------------------------------------------------- #
# E. Ctrl-C stops the caller, and the interrupted estimator keeps its best tree
# --------------------------------------------------------------------------- #


def _hard_problem(n=400, d=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, d))
    y = (X[:, :6].sum(axis=1) + rng.integers(0, 3, size=n)) % 2
    return X, y


def _fit_interrupted(make, X, y, after=0.5):
    """Fits with SIGINT sent ``after`` seconds in; returns the estimator (the fit must
    raise KeyboardInterrupt)."""
    import os
    import signal
    import threading

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(after, os.kill, args=(os.getpid(), signal.SIGINT))
    clf = make()
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            clf.fit(X, y)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    return clf


@pytest.mark.parametrize(
    "make",
    [
        lambda: GOSDTClassifier(regularization=0.0005, time_limit=60),
        lambda: DL85Classifier(max_depth=6, time_limit=60),
        lambda: OSDTClassifier(regularization=0.0005, time_limit=60),
    ],
    ids=["gosdt", "dl85", "osdt"],
)
def test_ctrl_c_raises_after_storing_the_best_tree(make):
    X, y = _hard_problem()
    clf = _fit_interrupted(make, X, y)
    assert clf.status_ == "interrupted"
    assert clf.tree_.n_leaves == clf.n_leaves_ >= 1
    assert 0 <= clf.lower_bound_ <= clf.objective_
    assert clf.search_stats_["seconds"] < 30
    # the stored tree is usable
    assert clf.predict(X).shape == (len(y),)


def test_ctrl_c_stops_a_grid_search():
    from sklearn.model_selection import GridSearchCV

    X, y = _hard_problem()
    grid = GridSearchCV(
        GOSDTClassifier(time_limit=60), {"regularization": [0.0005, 0.0004, 0.0003]}, cv=2,
        error_score=np.nan,
    )
    import time

    start = time.perf_counter()
    _fit_interrupted(lambda: grid, X, y)
    assert time.perf_counter() - start < 30


def test_ctrl_c_in_optimal_tree_classifier_keeps_the_best_tree(monkeypatch):
    import os
    import signal
    import threading

    from treeopt import guess

    timers = []

    class InterruptedGOSDT(GOSDTClassifier):
        """GOSDT that gets a SIGINT half a second into its fit (after the ensemble)."""

        def fit(self, *args, **kwargs):
            timer = threading.Timer(0.5, os.kill, args=(os.getpid(), signal.SIGINT))
            timers.append(timer)
            timer.start()
            return super().fit(*args, **kwargs)

    monkeypatch.setattr(guess, "GOSDTClassifier", InterruptedGOSDT)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 12))
    y = ((X[:, :5] > 0).sum(axis=1) + rng.integers(0, 2, size=400)) % 2
    clf = OptimalTreeClassifier(
        regularization=0.0002, max_depth=None, n_estimators=20, estimator_depth=2,
        lower_bound_guess=False, time_limit=60, random_state=0,
    )
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            clf.fit(X, y)
    finally:
        for timer in timers:
            timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert len(timers) == 1
    assert clf.status_ == "interrupted"
    assert clf.gosdt_.status_ == "interrupted"
    assert clf.predict(X).shape == (400,)
    assert clf.guarantee_ is None
    assert clf.lower_bound_ <= clf.objective_


# --------------------------------------------------------------------------- #
# H. results are invariant to a common scale of the weights
# --------------------------------------------------------------------------- #

SCALES = [1e-308, 1e-300, 1e-12, 1e100, 1e300, 5e307]  # w * 5e307 <= 1.5e308: finite, sums overflow


def _binary_problem(seed=0, n=200):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 6))
    y = (X[:, 0] ^ X[:, 1]) | (X[:, 2] & X[:, 3])
    y = np.where(rng.random(n) < 0.1, 1 - y, y)
    w = rng.integers(1, 4, size=n).astype(float)
    return X, y, w


@pytest.mark.parametrize(
    "make",
    [
        lambda: GOSDTClassifier(regularization=0.01),
        lambda: DL85Classifier(max_depth=3),
        lambda: OSDTClassifier(regularization=0.02),
        lambda: GOSDTClassifier(regularization=0.01, class_weight="balanced"),
    ],
    ids=["gosdt", "dl85", "osdt", "gosdt-balanced"],
)
def test_optimal_trees_invariant_to_weight_scale(make):
    X, y, w = _binary_problem()
    ref = make().fit(X, y, sample_weight=w)
    for scale in SCALES:
        clf = make().fit(X, y, sample_weight=w * scale)
        assert clf.objective_ == pytest.approx(ref.objective_, rel=1e-9), scale
        assert clf.lower_bound_ == pytest.approx(ref.lower_bound_, rel=1e-9), scale
        assert clf.n_leaves_ == ref.n_leaves_, scale
        np.testing.assert_array_equal(clf.predict(X), ref.predict(X))


def test_optimal_tree_classifier_invariant_to_weight_scale():
    X, y = _numeric_problem(n=200)
    w = np.random.default_rng(1).integers(1, 4, size=len(y)).astype(float)

    def fit(weights):
        return OptimalTreeClassifier(max_depth=2, n_estimators=10, random_state=0).fit(
            X, y, sample_weight=weights
        )

    ref = fit(w)
    for scale in SCALES:
        clf = fit(w * scale)
        assert clf.objective_ == pytest.approx(ref.objective_, rel=1e-9), scale
        assert clf.n_leaves_ == ref.n_leaves_, scale
        np.testing.assert_array_equal(clf.predict(X), ref.predict(X))


def test_class_weights_invariant_to_scale():
    X, y, w = _binary_problem(seed=3)
    ref = GOSDTClassifier(class_weight={0: 1.0, 1: 3.0}).fit(X, y, sample_weight=w)
    for scale in (1e-300, 1e-12, 1e100, 1e307):
        for w_scale in (1.0, 1e300):
            clf = GOSDTClassifier(class_weight={0: scale, 1: 3.0 * scale})
            clf.fit(X, y, sample_weight=w * w_scale)
            assert clf.objective_ == pytest.approx(ref.objective_, rel=1e-9), scale
            np.testing.assert_array_equal(clf.predict(X), ref.predict(X))


@pytest.mark.parametrize("cls", [GOSDTClassifier, DL85Classifier, OSDTClassifier])
def test_weights_whose_ratio_underflows_are_refused(cls):
    X, y, w = _binary_problem()
    w = w.copy()
    w[0] = 1e308
    w[1] = 1e-300  # 1e-608 of the largest: not representable
    with pytest.raises(ValueError, match="sample_weight"):
        cls().fit(X, y, sample_weight=w)


# --------------------------------------------------------------------------- #
# F. objective_ under class weights is what the docstring says
# --------------------------------------------------------------------------- #


def _documented_objective(clf, X, y, sample_weight, class_weight, regularization):
    from sklearn.utils.class_weight import compute_sample_weight

    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    if class_weight is not None:
        w = w * compute_sample_weight(class_weight, y)
    return 1.0 - clf.score(X, y, sample_weight=w) + regularization * clf.n_leaves_


def test_objective_under_class_weights_matches_its_definition():
    checked = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        n, d, k = int(rng.integers(10, 120)), int(rng.integers(2, 7)), int(rng.integers(2, 4))
        X = rng.integers(0, 2, size=(n, d))
        y = rng.choice(k, size=n, p=rng.dirichlet(np.ones(k) * 0.5))
        if np.unique(y).size < 2:
            continue
        sw = np.exp(rng.normal(scale=2.0, size=n)) if seed % 2 else None
        cw = "balanced" if seed % 3 else {c: float(np.exp(rng.normal())) for c in np.unique(y)}
        reg = float(rng.choice([0.0, 0.005, 0.02]))
        models = [
            GOSDTClassifier(regularization=reg, class_weight=cw, max_depth=[None, 2, 3][seed % 3]),
            DL85Classifier(max_depth=2, regularization=reg, class_weight=cw),
        ]
        if np.unique(y).size == 2 and reg > 0:
            models.append(OSDTClassifier(regularization=reg, class_weight=cw))
        for clf in models:
            clf.fit(X, y, sample_weight=sw)
            expected = _documented_objective(clf, X, y, sw, cw, reg)
            assert clf.objective_ == pytest.approx(expected, abs=1e-9), (seed, clf)
            checked += 1
    assert checked > 100


def test_balanced_objective_on_a_real_dataset(load_dataset):
    X, y, _ = load_dataset("compas_binary")
    for clf in (
        GOSDTClassifier(regularization=0.005, max_depth=4, class_weight="balanced"),
        OSDTClassifier(regularization=0.02, class_weight="balanced", time_limit=5),
    ):
        clf.fit(X, y)
        expected = _documented_objective(clf, X, y, None, "balanced", clf.regularization)
        assert clf.objective_ == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("cls", [GOSDTClassifier, DL85Classifier, OSDTClassifier])
def test_node_values_stay_in_the_callers_weight_units(cls):
    X, y, w = _binary_problem()
    clf = cls(class_weight={0: 2.0, 1: 0.5}).fit(X, y, sample_weight=w)
    total = (w * np.where(y == 0, 2.0, 0.5)).sum()
    assert clf.tree_.weighted_n_node_samples[0] == pytest.approx(total, rel=1e-12)
    leaves = clf.tree_.apply(X)
    for leaf in np.unique(leaves):
        mask = leaves == leaf
        for c in (0, 1):
            expected = (w * np.where(y == 0, 2.0, 0.5))[mask & (y == c)].sum()
            assert clf.tree_.value[leaf][c] == pytest.approx(expected, rel=1e-12)


def test_result_node_depths_and_argmax_flag_match_the_node_arrays():
    """``FitResult.node_depth`` is each node's depth and ``labels_are_argmax`` says
    whether ``labels`` is every node's heaviest class (first on ties), as numpy
    computes them from the node arrays; the fitted tree keeps labels only when not."""
    from treeopt import _core

    rng = np.random.default_rng(5)
    checked = {True: 0, False: 0}
    for trial in range(40):
        n, m, k = 40, 3, 2 + trial % 2
        X = rng.integers(0, 2, size=(n, m)).astype(np.uint8) if trial % 4 < 2 else np.round(rng.random((n, m)), 1)
        y = rng.integers(0, k, size=n).astype(np.uint32)
        cost = rng.choice([0.0, 1.0, 5.0], size=(k, k)) if trial % 3 == 0 else None
        if cost is not None:
            np.fill_diagonal(cost, 0.0)
            cost = cost.ravel()
        search = (_core.Dl85Search(3, 1, 0.0, misclassification_cost=cost) if trial % 2
                  else _core.GosdtSearch(0.01, max_depth=3, misclassification_cost=cost))
        res = _core.fit(X, y, None, search, n_classes=k)
        left, right = res.children_left, res.children_right
        depth = np.zeros(len(left), dtype=np.int64)
        for i in range(len(left)):  # pre-order: a parent comes before its children
            if left[i] != -1:
                depth[left[i]] = depth[right[i]] = depth[i] + 1
        np.testing.assert_array_equal(res.node_depth, depth)
        argmax = bool(np.array_equal(res.labels, np.argmax(res.value, axis=1)))
        assert res.labels_are_argmax == argmax
        checked[argmax] += 1
    assert checked[True] and checked[False]  # both cases met
    clf = DL85Classifier(max_depth=2, misclassification_cost=[[0, 1], [9, 0]]).fit(X[:, :2], y % 2)
    assert (clf.tree_.labels is None) == bool(
        np.array_equal(clf.tree_.prediction, clf.classes_[np.argmax(clf.tree_.value, axis=1)])
    )

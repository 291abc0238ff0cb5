"""treeopt.OSDTClassifier: OSDT's leaf-set branch and bound (Hu, Rudin & Seltzer 2019).

* the objective equals the brute-force oracle (``tests/oracle.py``) on 600 random
  binary problems (``tests/random_problems.py``), for every policy and warm start;
* every bound is sound: with any one of them switched off (9 x 60 problems) and with
  all of them off (150 small problems), the objective is unchanged;
* the objective equals GOSDTClassifier's on every shared 0/1 dataset, at a
  regularization where OSDT finishes in seconds;
* scikit-learn's estimator checks (shared expected failures of the 0/1-only
  classifiers), pandas / clone / pickle / Pipeline / GridSearchCV, determinism;
* bad input, multiclass targets, unknown bounds and policies, bad warm starts;
* the anytime contract: under a time limit the tree is never worse than the CART warm
  start, and the lower bound stays below the optimum.
"""

from __future__ import annotations

import pickle
import re
import time

import logging

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import get_tags

import treeopt
from treeopt import GOSDTClassifier, NumericBinarizer, OSDTClassifier, Tree
from treeopt.optimal import OSDT_BOUNDS, OSDT_POLICIES
from treeopt.optimal._osdt import _cart_warm_start

from binary_estimator_checks import expected_failed_checks
from sklearn_conformance import sklearn_checks_test
from oracle import brute_force
from random_problems import (
    and_or_problem,
    more_than_64_million_cells,
    LAMBDAS,
    SEEDS,
    SETTINGS,
    WEIGHT_KINDS,
    ensure_classes,
    problems,
    problems_with_duplicates,
    random_labels,
    random_size,
    random_weights,
)

TOL = 1e-9
# Every fit of the property tests gets these limits: a blow-up fails the test (not
# optimal) instead of exhausting the shared machine.
GUARD = dict(time_limit=60, memory_limit=500_000_000)


def objective_of(tree, X, y, w, lam):
    """Weighted misclassification / total weight + lam * leaves of ``tree`` on (X, y)."""
    weights = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    wrong = np.asarray(tree.predict(X)) != np.asarray(y)
    return float(weights[wrong].sum() / weights.sum()) + lam * tree.n_leaves


def assert_optimal(est, X, y, w, lam, expected, context=""):
    context = (
        f"{context} n={X.shape[0]} m={X.shape[1]} lam={lam!r} weighted={w is not None}\n"
        f"X={X.tolist()}\ny={np.asarray(y).tolist()}\nw={None if w is None else list(w)}"
    )
    assert est.status_ == "optimal", context
    assert abs(est.objective_ - expected) <= TOL, f"{est.objective_!r} != {expected!r}\n{context}"
    assert est.lower_bound_ == est.objective_, context
    assert abs(objective_of(est.tree_, X, y, w, lam) - est.objective_) <= TOL, context
    assert est.n_leaves_ == est.tree_.n_leaves
    assert 0 <= est.trees_to_optimum_ <= est.trees_evaluated_
    assert 0 <= est.time_to_optimum_ <= est.search_stats_["seconds"] + 1e-9


# --------------------------------------------------------------------------- #
# The oracle: 300 + 150 + 100 + 50 = 600 problems with the default bounds
# --------------------------------------------------------------------------- #

BINARY = dict(n_classes=(2,), depth="none")
POLICY = st.sampled_from(OSDT_POLICIES)
WARM = st.sampled_from(["cart", None])


@settings(max_examples=300, **SETTINGS)
@given(problems(**BINARY), POLICY, WARM)
def test_matches_oracle(problem, policy, warm_start):
    X, y, w, lam, _ = problem
    expected, _ = brute_force(X, y, sample_weight=w, regularization=lam)
    est = OSDTClassifier(regularization=lam, policy=policy, warm_start=warm_start, **GUARD)
    assert_optimal(est.fit(X, y, sample_weight=w), X, y, w, lam, expected, f"{policy} {warm_start}")
    if warm_start == "cart":
        assert est.objective_ <= est.warm_start_objective_ + 1e-12


@settings(max_examples=150, **SETTINGS)
@given(problems(weights="random", **BINARY), POLICY)
def test_matches_oracle_random_weights(problem, policy):
    X, y, w, lam, _ = problem
    expected, _ = brute_force(X, y, sample_weight=w, regularization=lam)
    est = OSDTClassifier(regularization=lam, policy=policy, **GUARD).fit(X, y, sample_weight=w)
    assert_optimal(est, X, y, w, lam, expected, policy)


@settings(max_examples=100, **SETTINGS)
@given(problems_with_duplicates())
def test_matches_oracle_with_conflicting_duplicates(problem):
    X, y, w, lam, _ = problem
    y = (np.asarray(y) > 0).astype(int)  # binary; duplicates keep conflicting labels
    if len(np.unique(y)) < 2:
        y[0] = 1 - y[0]
    expected, _ = brute_force(X, y, sample_weight=w, regularization=lam)
    est = OSDTClassifier(regularization=lam, **GUARD).fit(X, y, sample_weight=w)
    assert_optimal(est, X, y, w, lam, expected)


@settings(max_examples=50, **SETTINGS)
@given(problems(**BINARY))
def test_warm_start_with_the_optimal_tree(problem):
    X, y, w, lam, _ = problem
    gosdt = GOSDTClassifier(regularization=lam).fit(X, y, sample_weight=w)
    est = OSDTClassifier(regularization=lam, warm_start=gosdt.tree_, **GUARD)
    est.fit(X, y, sample_weight=w)
    assert_optimal(est, X, y, w, lam, gosdt.objective_)
    assert abs(est.warm_start_objective_ - gosdt.objective_) <= TOL
    if w is None or np.all(w == np.round(w)):
        # nothing beats an optimal warm start: it is returned as found at the start (with
        # fractional weights, another optimal tree may come out a rounding error lower)
        assert est.trees_to_optimum_ == 0 and est.time_to_optimum_ == 0


# --------------------------------------------------------------------------- #
# Soundness of every bound: 9 x 60 problems with one bound off, 150 with all off
# --------------------------------------------------------------------------- #


@st.composite
def smaller_problems(draw, max_rows, max_features, lambdas=LAMBDAS):
    """Binary problems of ``random_problems``' kind, at most this large (without the
    hierarchical bound or with every bound off the search grows fast with features)."""
    lam = draw(lambdas)
    rng = np.random.default_rng(draw(SEEDS))
    n, m = random_size(rng, max_rows=max_rows, max_features=max_features)
    density = rng.choice([0.5, 0.5, 0.3, 0.7, 0.15, 0.85])
    X = (rng.random((n, m)) < density).astype(np.uint8)
    y = ensure_classes(rng, random_labels(rng, X, 2, rng.choice(["random", "function"])), 2)
    w = random_weights(rng, n, rng.choice(WEIGHT_KINDS["mixed"]))
    return X, y, w, lam


@pytest.mark.parametrize("bound", OSDT_BOUNDS)
@settings(max_examples=60, **SETTINGS)
@given(problem=smaller_problems(24, 5), policy=POLICY, warm_start=WARM)
def test_each_bound_off_keeps_the_optimum(bound, problem, policy, warm_start):
    X, y, w, lam = problem
    expected, _ = brute_force(X, y, sample_weight=w, regularization=lam)
    est = OSDTClassifier(
        regularization=lam, bounds={bound}, policy=policy, warm_start=warm_start, **GUARD
    )
    assert_optimal(est.fit(X, y, sample_weight=w), X, y, w, lam, expected, f"without {bound}")


@settings(max_examples=150, **SETTINGS)
@given(problem=smaller_problems(12, 4), policy=POLICY)
def test_all_bounds_off_keeps_the_optimum(problem, policy):
    X, y, w, lam = problem
    expected, _ = brute_force(X, y, sample_weight=w, regularization=lam)
    est = OSDTClassifier(
        regularization=lam, bounds=set(OSDT_BOUNDS), policy=policy, warm_start=None, **GUARD
    )
    assert_optimal(est.fit(X, y, sample_weight=w), X, y, w, lam, expected, "no bounds")


def test_a_bound_prunes_without_changing_the_tree(load_dataset):
    # The ablation's point, small: the look-ahead changes the work, not the optimum.
    X, y, _ = load_dataset("monk1")
    full = OSDTClassifier(regularization=0.02, warm_start=None).fit(X, y)
    ablated = OSDTClassifier(regularization=0.02, warm_start=None, bounds=["lookahead"]).fit(X, y)
    assert full.status_ == ablated.status_ == "optimal"
    assert ablated.objective_ == full.objective_
    assert ablated.trees_evaluated_ >= 10 * full.trees_evaluated_


# --------------------------------------------------------------------------- #
# The same optimum as GOSDT on the shared 0/1 datasets
# --------------------------------------------------------------------------- #

# (dataset, regularization) where OSDT proves optimality in seconds on 2 cores.
SHARED = [
    ("monk1", 0.005),
    ("monk2", 0.05),
    ("monk3", 0.02),
    ("tic-tac-toe", 0.05),
    ("car_evaluation", 0.02),
    ("compas_binary", 0.005),
    ("fico_binary", 0.01),
    ("coupon_carryout", 0.05),
    ("coupon_rest20", 0.05),
]


@pytest.mark.parametrize("name, lam", SHARED)
def test_equals_gosdt_on_shared_datasets(load_dataset, name, lam):
    X, y, _ = load_dataset(name)
    osdt = OSDTClassifier(regularization=lam, time_limit=120).fit(X, y)
    gosdt = GOSDTClassifier(regularization=lam, time_limit=120).fit(X, y)
    assert osdt.status_ == gosdt.status_ == "optimal", (osdt.status_, gosdt.status_)
    assert abs(osdt.objective_ - gosdt.objective_) <= TOL
    assert abs(objective_of(osdt.tree_, X, y, None, lam) - osdt.objective_) <= TOL
    assert osdt.objective_ <= osdt.warm_start_objective_ + 1e-12


# --------------------------------------------------------------------------- #
# Anytime: limits, the CART warm start and the certificate
# --------------------------------------------------------------------------- #


def test_time_limit_is_never_worse_than_the_cart_warm_start(load_dataset):
    X, y, _ = load_dataset("tic-tac-toe")
    lam = 0.005
    est = OSDTClassifier(regularization=lam, time_limit=2)
    start = time.perf_counter()
    est.fit(X, y)
    assert time.perf_counter() - start < 6
    assert est.status_ == "time_limit"
    # the warm start, recomputed here: the best pruned CART tree
    left, right, feature = _cart_warm_start(X, y, None, lam)
    value = np.zeros((len(left), 2))
    cart = Tree(left, right, feature, np.where(feature >= 0, 0.5, -2.0), value, value.sum(1),
                n_features=X.shape[1])
    cart_objective = _majority_objective(cart, X, y, lam)
    assert est.warm_start_objective_ == pytest.approx(cart_objective, abs=TOL)
    assert est.objective_ <= cart_objective + 1e-12
    assert abs(objective_of(est.tree_, X, y, None, lam) - est.objective_) <= TOL
    optimum = GOSDTClassifier(regularization=lam).fit(X, y).objective_
    assert est.lower_bound_ <= optimum + 1e-12 <= est.objective_ + 2e-12
    # and CART itself, unpruned, is no better than the warm start for this objective
    for k in (4, 8, 16):
        sk = DecisionTreeClassifier(max_leaf_nodes=k, random_state=0).fit(X, y)
        assert objective_of(Tree.from_sklearn(sk), X, y, None, lam) >= cart_objective - 1e-12


def _majority_objective(tree, X, y, lam):
    leaves = tree.apply(X)
    loss = 0
    for leaf in np.unique(leaves):
        counts = np.bincount(y[leaves == leaf], minlength=2)
        loss += counts.sum() - counts.max()
    return loss / len(y) + lam * tree.n_leaves


def test_memory_limit_returns_the_incumbent(load_dataset):
    X, y, _ = load_dataset("tic-tac-toe")
    est = OSDTClassifier(regularization=0.005, memory_limit=2_000_000, time_limit=60).fit(X, y)
    assert est.status_ == "memory_limit"
    assert est.search_stats_["peak_bytes"] <= 2_000_000
    assert est.lower_bound_ < est.objective_ <= est.warm_start_objective_ + 1e-12


def test_determinism(load_dataset):
    X, y, _ = load_dataset("compas_binary")
    first = OSDTClassifier(regularization=0.005).fit(X, y)
    for policy in OSDT_POLICIES:
        other = OSDTClassifier(regularization=0.005, policy=policy).fit(X, y)
        assert other.objective_ == pytest.approx(first.objective_, abs=TOL)
    for _ in range(5):
        again = OSDTClassifier(regularization=0.005).fit(X, y)
        assert again.tree_.to_dict() == first.tree_.to_dict()
        assert again.trees_evaluated_ == first.trees_evaluated_


def test_verbose_logs_progress(caplog, load_dataset):
    X, y, _ = load_dataset("compas_binary")
    caplog.set_level(logging.INFO, logger="treeopt")
    OSDTClassifier(regularization=0.005).fit(X, y)
    assert caplog.records == []
    OSDTClassifier(regularization=0.005, verbose=True).fit(X, y)
    assert any("lower bound" in r.getMessage() for r in caplog.records)


# --------------------------------------------------------------------------- #
# scikit-learn contract
# --------------------------------------------------------------------------- #


def _make_bare():
    return OSDTClassifier(regularization=0.05, time_limit=20)


def _make_pipeline():
    return Pipeline(
        [
            ("bin", NumericBinarizer(max_thresholds=2)),
            ("tree", OSDTClassifier(regularization=0.05, time_limit=20)),
        ]
    )


test_sklearn_estimator_checks = sklearn_checks_test(
    [_make_bare(), _make_pipeline()], expected_failed_checks
)


def test_fitted_attributes_and_tags():
    X, y = and_or_problem()
    est = OSDTClassifier().fit(X, y)
    assert est.status_ == "optimal" and est.score(X, y) >= 0.9
    for key in ("subproblems", "expansions", "seconds", "memory_bytes", "trees_evaluated",
                "trees_queued", "trees_to_optimum", "time_to_optimum", "peak_bytes"):
        assert key in est.search_stats_
    assert est.trees_evaluated_ == est.search_stats_["trees_evaluated"]
    np.testing.assert_array_equal(est.classes_, [0, 1])
    tags = get_tags(est)
    assert tags.estimator_type == "classifier"
    assert tags.classifier_tags.multi_class is False
    assert "OSDTClassifier" in treeopt.__all__


def test_pandas_clone_pickle_pipeline_grid_search():
    pd = pytest.importorskip("pandas")
    X, y = and_or_problem(n=240, seed=4, noise=0.1)
    names = [f"f{i}" for i in range(X.shape[1])]
    df = pd.DataFrame(X.astype(bool), columns=names)
    est = OSDTClassifier(regularization=0.02).fit(df, pd.Series(y))
    np.testing.assert_array_equal(est.feature_names_in_, names)
    plain = OSDTClassifier(regularization=0.02).fit(X, y)
    for name in ("children_left", "children_right", "feature", "value"):
        np.testing.assert_array_equal(getattr(est.tree_, name), getattr(plain.tree_, name))
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.predict(df), est.predict(df))
    cl = clone(OSDTClassifier(bounds={"lookahead", "support"}, policy="objective"))
    assert cl.get_params()["bounds"] == {"lookahead", "support"}
    grid = GridSearchCV(
        OSDTClassifier(time_limit=30), {"regularization": [0.01, 0.05], "policy": ["curiosity",
                                                                                  "lower_bound"]},
        cv=3, n_jobs=2, error_score="raise",
    ).fit(X, y)
    assert grid.score(X, y) >= 0.8
    data = np.random.default_rng(0).normal(size=(200, 3))
    pipe = Pipeline([("bin", NumericBinarizer(max_thresholds=3)),
                     ("tree", OSDTClassifier(regularization=0.02))])
    pipe.fit(data, (data[:, 0] + data[:, 1] > 0).astype(int))
    assert pipe.named_steps["tree"].status_ == "optimal"


def test_sample_weight_integer_weights_equal_repeated_rows():
    X, y = and_or_problem(n=150, seed=1, noise=0.1)
    w = np.random.default_rng(1).integers(0, 4, size=len(y))
    weighted = OSDTClassifier(regularization=0.02).fit(X, y, sample_weight=w)
    repeated = OSDTClassifier(regularization=0.02).fit(np.repeat(X, w, 0), np.repeat(y, w))
    assert weighted.status_ == repeated.status_ == "optimal"
    assert weighted.objective_ == pytest.approx(repeated.objective_, abs=TOL)


# --------------------------------------------------------------------------- #
# Bad input
# --------------------------------------------------------------------------- #

_X4 = np.array([[0, 1], [1, 0], [1, 1], [0, 0]], dtype=np.uint8)
_Y4 = np.array([0, 1, 1, 0])


def _raises(exc, patterns, fn):
    with pytest.raises(exc) as info:
        fn()
    for pat in patterns:
        assert re.search(pat, str(info.value), flags=re.IGNORECASE), (str(info.value), pat)


@pytest.mark.parametrize(
    "X, y, w, patterns",
    [
        (np.where(_X4 == 1, np.nan, 0.0), _Y4, None, [r"nan"]),
        (np.where(_X4 == 1, np.inf, 0.0), _Y4, None, [r"inf"]),
        (_X4 * 2.5, _Y4, None, [r"NumericBinarizer"]),
        (_X4, np.ones(4, dtype=int), None, [r"class"]),
        (np.zeros((0, 2), dtype=np.uint8), np.zeros(0, dtype=int), None, [r"0 sample|at least"]),
        (_X4, _Y4[:3], None, [r"inconsistent|samples"]),
        (_X4, _Y4, np.array([1.0, -1.0, 1.0, 1.0]), [r"sample.?weight", r"negative|>= ?0"]),
        (_X4, _Y4, np.zeros(4), [r"weight", r"zero"]),
        (_X4, _Y4, np.array([1.0, np.nan, 1.0, 1.0]), [r"nan|finite"]),
        (_X4, np.array(["a", 1, "b", 2], dtype=object), None, [r"label|class|\by\b"]),
    ],
)
def test_bad_input_is_a_clear_error(X, y, w, patterns):
    _raises((ValueError, TypeError), patterns, lambda: OSDTClassifier().fit(X, y, sample_weight=w))


def test_more_than_64_million_cells_is_handled():
    X, y = more_than_64_million_cells()
    start = time.perf_counter()
    est = OSDTClassifier(regularization=0.01, time_limit=5, memory_limit=500_000_000).fit(X, y)
    assert time.perf_counter() - start < 60
    assert est.status_ == "optimal" and est.lower_bound_ <= est.objective_
    assert est.predict(X[:10]).shape == (10,)


def test_multiclass_names_gosdt():
    y = np.array([0, 1, 2, 1])
    _raises(ValueError, [r"Only binary classification is supported", r"GOSDTClassifier"],
            lambda: OSDTClassifier().fit(_X4, y))
    # before the 0/1 check, as scikit-learn's multiclass contract wants
    _raises(ValueError, [r"GOSDTClassifier"], lambda: OSDTClassifier().fit(_X4 * 0.5, y))


@pytest.mark.parametrize(
    "params, patterns",
    [
        (dict(regularization=-0.1), [r"regularization"]),
        (dict(regularization=float("nan")), [r"regularization"]),
        (dict(bounds={"lookahed"}), [r"lookahed", r"lookahead"]),
        (dict(bounds="none"), [r"bounds"]),
        (dict(bounds=[3]), [r"bound"]),
        (dict(policy="random"), [r"policy", r"curiosity"]),
        (dict(warm_start="greedy"), [r"warm_start"]),
        (dict(time_limit=-1.0), [r"time_limit"]),
        (dict(memory_limit=0), [r"memory_limit"]),
    ],
)
def test_bad_parameters(params, patterns):
    _raises(ValueError, patterns, lambda: OSDTClassifier(**params).fit(_X4, _Y4))


def test_bad_warm_starts():
    other = GOSDTClassifier(regularization=0.0).fit(np.hstack([_X4, _X4]), _Y4).tree_
    _raises(ValueError, [r"4 features", r"2"],
            lambda: OSDTClassifier(warm_start=other).fit(_X4, _Y4))
    t = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], [3.0, -2, -2], np.ones((3, 2)), 2 * np.ones(3),
             n_features=2)
    _raises(ValueError, [r"threshold"], lambda: OSDTClassifier(warm_start=t).fit(_X4, _Y4))
    good = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2], np.ones((3, 2)),
                2 * np.ones(3), n_features=2)
    est = OSDTClassifier(warm_start=good, regularization=0.1).fit(_X4, _Y4)
    assert est.warm_start_objective_ == pytest.approx(0.2)  # y == x0: a perfect stump

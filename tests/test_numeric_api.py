"""GOSDTClassifier and DL85Classifier on numeric columns (issue 12, point 3): the API.

Rules in original units with pandas names, the 0/1 route kept for 0/1 input, NaN and inf
refused, ``max_thresholds``, weights / class weights / multiclass / costs, limits and
statuses, Ctrl-C, pickling, clone, Pipeline, GridSearchCV, OptimalTreeClassifier's
``thresholds="exact"`` and the binarize-everything route on shared datasets.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

import treeopt
from numeric_oracle import numeric_brute_force
from sklearn_conformance import sklearn_checks_test
from test_binding_reliability import _fit_interrupted
from test_rules_interpreter import check_tree
from treeopt import DL85Classifier, GOSDTClassifier, NumericBinarizer, OptimalTreeClassifier
from treeopt import _core

ESTIMATORS = {
    "gosdt": lambda **kw: GOSDTClassifier(regularization=kw.pop("regularization", 0.01), max_depth=kw.pop("max_depth", 2), **kw),
    "dl85": lambda **kw: DL85Classifier(max_depth=kw.pop("max_depth", 2), **kw),
}


@pytest.fixture(params=sorted(ESTIMATORS))
def make(request):
    return ESTIMATORS[request.param]


def people(n=120, seed=0):
    """A frame with a float, an int and a 0/1 column; the label needs age and income."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n)
    income = rng.normal(50, 15, n).round(1)
    smoker = rng.integers(0, 2, n)
    y = ((age > 37) & (income < 60)) | (smoker & (age > 60))
    flip = rng.random(n) < 0.05
    X = pd.DataFrame({"age": age, "income": income, "smoker": smoker})
    return X, np.where(y ^ flip, "yes", "no")


def weighted_objective(est, X, y, w=None, cost=None):
    """The objective of ``est.tree_`` recomputed from ``predict``."""
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    pred = est.predict(X)
    if cost is None:
        loss = (pred != y) * w
    else:
        idx = {c: i for i, c in enumerate(est.classes_)}
        loss = np.array([cost[idx[a], idx[b]] for a, b in zip(y, pred)]) * w
    return loss.sum() / w.sum() + est.regularization * est.tree_.n_leaves


# --------------------------------------------------------------------------- #
# rules in original units, prediction by the thresholds
# --------------------------------------------------------------------------- #


def test_rules_read_in_original_units_with_pandas_names(make):
    X, y = people()
    est = make(regularization=0.0) if make is ESTIMATORS["gosdt"] else make()
    est.fit(X, y)
    assert est.status_ == "optimal"
    text = est.tree_.to_text()
    assert "age <= 37.5" in text, text  # a midpoint of the integer ages
    assert est.tree_.feature_names == ["age", "income", "smoker"]
    assert est.tree_.binary_features.tolist() == [False, False, True]
    for i in np.flatnonzero(est.tree_.feature >= 0):
        j, t = est.tree_.feature[i], est.tree_.threshold[i]
        values = np.unique(X.iloc[:, j])
        below, above = values[values <= t], values[values > t]
        # a midpoint between two consecutive values of the column
        assert below.size and above.size and t == below.max() / 2 + above.min() / 2
    check_tree(est.tree_, X.to_numpy())  # the text and the JSON say what predict does
    assert abs(weighted_objective(est, X, y) - est.objective_) < 1e-12


def test_predict_routes_by_the_thresholds(make):
    X, y = people()
    est = make().fit(X, y)
    rng = np.random.default_rng(1)
    fresh = pd.DataFrame(
        {"age": rng.uniform(0, 100, 300), "income": rng.normal(50, 30, 300), "smoker": rng.integers(0, 2, 300)}
    )
    for i in np.flatnonzero(est.tree_.feature >= 0):  # rows on each threshold and next to it
        j, t = est.tree_.feature[i], est.tree_.threshold[i]
        for v in (t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf)):
            fresh.iloc[len(fresh) // 2, j] = v
            np.testing.assert_array_equal(est.predict(fresh), est.tree_.predict(fresh.to_numpy()))
    check_tree(est.tree_, fresh.to_numpy())
    np.testing.assert_allclose(est.predict_proba(fresh).sum(axis=1), 1.0)
    assert est.apply(fresh).shape == (len(fresh),)


# --------------------------------------------------------------------------- #
# the 0/1 route is unchanged
# --------------------------------------------------------------------------- #


def test_zero_one_input_takes_the_binary_route(make, monkeypatch):
    seen = []
    real = _core.fit

    def spy(x, *args, **kwargs):
        seen.append(x.dtype)
        return real(x, *args, **kwargs)

    monkeypatch.setattr(_core, "fit", spy)
    rng = np.random.default_rng(0)
    Xb = rng.integers(0, 2, size=(200, 6)).astype(np.uint8)
    y = (Xb[:, 0] & Xb[:, 1]) | Xb[:, 2]
    fits = [make().fit(X, y) for X in (Xb, Xb.astype(float), Xb.astype(bool), pd.DataFrame(Xb))]
    assert seen == [np.uint8] * 4
    for est in fits[1:]:
        assert est.tree_ == fits[0].tree_ and est.objective_ == fits[0].objective_
    assert fits[0].tree_.binary_features.all()
    assert "<=" not in fits[0].tree_.to_text()  # 0/1 tests read as yes/no questions
    seen.clear()
    make().fit(np.column_stack([Xb, rng.normal(size=200)]), y)
    assert seen == [np.float64]


def test_numeric_route_equals_the_binarize_everything_route(make):
    X, y = people(80)
    X = X.to_numpy(dtype=float)
    binarizer = NumericBinarizer(max_thresholds=None).fit(X)
    a = make().fit(X, y)
    b = make().fit(binarizer.transform(X), y)
    assert abs(a.objective_ - b.objective_) < 1e-12 and a.status_ == b.status_ == "optimal"


@pytest.mark.parametrize("name", ["numeric/raisin", "numeric/bank"])
def test_shared_numeric_sets_match_the_binarized_route(load_dataset, name):
    """A prefix of ConTree's UCI sets at depth 2: the numeric search and DL8.5 on every
    threshold as a 0/1 column (NumericBinarizer(max_thresholds=None)) agree."""
    X, y, names = load_dataset(name)
    X, y = X[:150, :4], y[:150]
    numeric = DL85Classifier(max_depth=2).fit(X, y)
    Xb = NumericBinarizer(max_thresholds=None).fit_transform(X)
    binarized = DL85Classifier(max_depth=2).fit(Xb, y)
    assert numeric.status_ == binarized.status_ == "optimal"
    assert abs(numeric.objective_ - binarized.objective_) < 1e-12


# --------------------------------------------------------------------------- #
# invalid input
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("bad, pattern", [(np.nan, "NaN"), (np.inf, "infinity"), (-np.inf, "infinity")])
def test_nan_and_inf_are_refused_clearly(make, bad, pattern):
    X, y = people(30)
    X = X.to_numpy(dtype=float)
    X[3, 1] = bad
    with pytest.raises(ValueError, match=pattern):
        make().fit(X, y)
    est = make().fit(people(30)[0], y)
    with pytest.raises(ValueError, match=pattern):
        est.predict(pd.DataFrame(X, columns=["age", "income", "smoker"]))


def test_strings_are_refused_naming_the_column(make):
    X, y = people(30)
    X["city"] = "Delft"
    with pytest.raises(ValueError, match="city"):
        make().fit(X, y)


def test_integers_float64_would_round_are_refused(make):
    X = np.array([[2**53 + 1], [0], [5], [2**53 + 3]], dtype=np.int64)
    with pytest.raises(ValueError, match="2\\*\\*53"):
        make().fit(X, [0, 1, 0, 1])


def test_a_zero_one_column_among_numeric_ones_reads_as_yes_no(make):
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"smoker": rng.integers(0, 2, 100), "age": rng.integers(18, 80, 100)})
    y = X["smoker"].to_numpy() & (X["age"].to_numpy() > 50)
    est = make().fit(X, y)
    text = est.tree_.to_text()
    assert est.objective_ <= est.regularization * est.n_leaves_ + 1e-12  # y is separable
    assert "if smoker:" in text and "if age <= " in text, text
    # every age threshold is a midpoint between ages of the rows its node holds (the
    # optimum may test age first, over all rows, or after smoker, over the smokers)
    tree, values = est.tree_, X.to_numpy(dtype=float)
    reached = {}
    for row in values:
        node = 0
        while tree.feature[node] >= 0:
            reached.setdefault(node, []).append(row)
            go_left = row[tree.feature[node]] <= tree.threshold[node]
            node = tree.children_left[node] if go_left else tree.children_right[node]
    age_nodes = [n for n in reached if tree.feature[n] == 1]
    assert age_nodes
    for n in age_nodes:
        t, ages = tree.threshold[n], np.array(reached[n])[:, 1]
        assert t == ages[ages <= t].max() / 2 + ages[ages > t].min() / 2
        assert 50 <= t < 51 + 1
    check_tree(est.tree_, X.to_numpy())


def test_max_thresholds_must_be_a_positive_int(make):
    X, y = people(30)
    for bad in (0, -1, 2.5, "4"):
        with pytest.raises(ValueError, match="max_thresholds"):
            make(max_thresholds=bad).fit(X, y)


# --------------------------------------------------------------------------- #
# max_thresholds
# --------------------------------------------------------------------------- #


def kept_thresholds(column, w, k):
    """Re-derived here: the midpoints after the values where the weighted share of the
    column first reaches 1/(k+1), ..., k/(k+1) (all midpoints when there are <= k)."""
    values = np.unique(column)
    midpoints = values[:-1] / 2 + values[1:] / 2
    if midpoints.size <= k:
        return midpoints
    share = np.array([w[column <= v].sum() for v in values[:-1]]) / w.sum()
    picked = {min(int(np.argmax(share >= q)), values.size - 2) for q in np.arange(1, k + 1) / (k + 1)}
    return np.array(sorted(midpoints[i] for i in picked))


def test_max_thresholds_keeps_weighted_quantile_midpoints(make):
    X, y = people(200)
    X = X.to_numpy(dtype=float)
    w = np.random.default_rng(3).choice([0.5, 1.0, 4.0], size=len(y))
    est = make(max_thresholds=3).fit(X, y, sample_weight=w)
    assert est.status_ == "optimal"
    assert (est.tree_.feature >= 0).any()
    for i in np.flatnonzero(est.tree_.feature >= 0):
        j, t = est.tree_.feature[i], est.tree_.threshold[i]
        assert t in kept_thresholds(X[:, j], w, 3), (j, t)
    assert abs(weighted_objective(est, X, y, w) - est.objective_) < 1e-12


def test_max_thresholds_optimum_over_the_kept_thresholds(make):
    """The capped fit is the exact optimum over the kept thresholds: the oracle on the
    columns coded by them (codes c and c + 1 part where x <= kept[c])."""
    X, y = people(60)
    X = X.to_numpy(dtype=float)
    ones = np.ones(len(y))
    codes = np.column_stack(
        [np.searchsorted(kept_thresholds(X[:, j], ones, 2), X[:, j], side="left") for j in range(3)]
    )
    est = make(max_thresholds=2).fit(X, y)
    min_leaf = getattr(est, "min_samples_leaf", 1)
    oracle, _ = numeric_brute_force(codes, y, None, est.regularization, est.max_depth, min_leaf)
    assert abs(est.objective_ - oracle) < 1e-9
    uncapped = make().fit(X, y)
    assert uncapped.objective_ <= est.objective_ + 1e-12
    assert make(max_thresholds=10_000).fit(X, y).tree_ == uncapped.tree_


def test_the_search_reads_x_in_place_and_a_cap_writes_only_a_copy(make):
    """A float64 C-contiguous X goes to the search as it is (no second copy of the
    matrix held through the fit); with ``max_thresholds`` the codes are written into a
    copy, never into the caller's X."""
    from treeopt.optimal._numeric import NumericColumns

    X, y = people(120)
    X = np.ascontiguousarray(X.to_numpy(dtype=float))
    assert NumericColumns(X).matrix is X
    capped = NumericColumns(X, None, 2)
    assert not np.shares_memory(capped.matrix, X)
    before = X.copy()
    make(max_thresholds=2).fit(X, y)
    make().fit(X, y)
    np.testing.assert_array_equal(X, before)
    # Other layouts and dtypes are converted, as before.
    assert NumericColumns(np.asfortranarray(X)).matrix.flags.c_contiguous
    assert NumericColumns(X.astype(np.float32)).matrix.dtype == np.float64


# --------------------------------------------------------------------------- #
# weights, class weights, multiclass, costs, y_ref
# --------------------------------------------------------------------------- #


def test_class_weight_equals_the_sample_weights_it_stands_for(make):
    X, y = people(100)
    cw = {"no": 1.0, "yes": 3.0}
    a = make(class_weight=cw).fit(X, y)
    b = make().fit(X, y, sample_weight=np.where(y == "yes", 3.0, 1.0))
    assert a.tree_ == b.tree_ and abs(a.objective_ - b.objective_) < 1e-12
    assert abs(weighted_objective(a, X, y, np.where(y == "yes", 3.0, 1.0)) - a.objective_) < 1e-12


def test_multiclass_and_costs(make):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(90, 3)).round(2)
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])  # 3 classes
    est = make().fit(X, y)
    assert est.status_ == "optimal" and list(est.classes_) == [0, 1, 2]
    assert abs(weighted_objective(est, X, y) - est.objective_) < 1e-12
    cost = np.array([[0.0, 1.0, 5.0], [1.0, 0.0, 1.0], [5.0, 1.0, 0.0]])
    est = make(misclassification_cost=cost).fit(X, y)
    assert abs(weighted_objective(est, X, y, cost=cost) - est.objective_) < 1e-12


def test_lower_bound_guessing_on_numeric_columns(make):
    X, y = people(120)
    y_ref = np.where((X["age"] > 37) & (X["income"] < 60), "yes", "no")
    est = make().fit(X, y, y_ref=y_ref)
    assert est.status_ in ("optimal", "matched_reference")
    assert est.lower_bound_ <= est.objective_ + 1e-12


# --------------------------------------------------------------------------- #
# limits, statuses, Ctrl-C
# --------------------------------------------------------------------------- #


def hard_numeric(n=3000, d=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = ((X[:, :4] ** 2).sum(axis=1) + rng.normal(size=n) > 4).astype(int)
    return X, y


def test_time_limit_returns_the_best_tree_with_a_proven_bound():
    X, y = hard_numeric()
    for est in (GOSDTClassifier(regularization=0.0001, max_depth=5, time_limit=1.0),
                DL85Classifier(max_depth=5, time_limit=1.0)):
        est.fit(X, y)
        assert est.status_ == "time_limit"
        assert 0 <= est.lower_bound_ < est.objective_
        assert abs(weighted_objective(est, X, y) - est.objective_) < 1e-12


def test_memory_limit_stops_the_search():
    X, y = hard_numeric()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DL85Classifier(max_depth=5, memory_limit=200_000, time_limit=30).fit(X, y)
    assert est.status_ == "memory_limit"
    assert est.lower_bound_ < est.objective_


def test_ctrl_c_keeps_the_best_tree_and_raises():
    X, y = hard_numeric()
    est = _fit_interrupted(lambda: DL85Classifier(max_depth=5, time_limit=60), X, y)
    assert est.status_ == "interrupted"
    assert est.search_stats_["seconds"] < 30
    assert 0 <= est.lower_bound_ <= est.objective_
    assert est.predict(X).shape == y.shape


# --------------------------------------------------------------------------- #
# pickle, clone, Pipeline, GridSearchCV
# --------------------------------------------------------------------------- #


def test_pickle_clone_pipeline_grid_search(make):
    X, y = people(100)
    est = make(max_thresholds=8).fit(X, y)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    assert again.tree_.to_text() == est.tree_.to_text()
    assert len(pickle.dumps(est)) < 20_000  # no copy of the training matrix is kept
    assert clone(est).get_params() == est.get_params()
    pipe = Pipeline([("scale", StandardScaler()), ("tree", make())]).fit(X, y)
    assert pipe.score(X, y) == make().fit(X, y).score(X, y)  # scaling moves no split
    grid = GridSearchCV(make(), {"max_thresholds": [2, None]}, cv=3).fit(X, y)
    assert grid.best_params_["max_thresholds"] in (2, None)


# --------------------------------------------------------------------------- #
# OptimalTreeClassifier(thresholds="exact")
# --------------------------------------------------------------------------- #


def test_optimal_tree_classifier_exact_thresholds():
    X, y = people(150)
    kw = dict(regularization=0.01, max_depth=2, lower_bound_guess=False, n_estimators=10)
    guess = OptimalTreeClassifier(**kw).fit(X, y)
    exact = OptimalTreeClassifier(thresholds="exact", **kw).fit(X, y)
    assert exact.status_ == "optimal"
    # every guessed threshold is one of the exact search's candidates
    assert exact.objective_ <= guess.objective_ + 1e-12
    direct = GOSDTClassifier(regularization=0.01, max_depth=2).fit(X, y)
    assert exact.tree_ == direct.tree_ and exact.objective_ == direct.objective_
    assert exact.tree_.feature_names == ["age", "income", "smoker"]
    assert exact.guarantee_ is not None and exact.objective_ <= exact.guarantee_ + 1e-12
    check_tree(exact.tree_, X.to_numpy())
    with pytest.raises(ValueError, match="thresholds"):
        OptimalTreeClassifier(thresholds="all").fit(X, y)


def test_osdt_still_needs_zero_one_columns():
    X, y = people(40)
    with pytest.raises(ValueError, match="NumericBinarizer"):
        treeopt.OSDTClassifier().fit(X, y)


# scikit-learn's checks on the numeric configurations not run elsewhere: a cap on the
# thresholds, and OptimalTreeClassifier searching every threshold

test_sklearn_estimator_checks = sklearn_checks_test(
    [
        GOSDTClassifier(regularization=0.02, max_depth=3, max_thresholds=4, time_limit=20),
        DL85Classifier(max_depth=2, max_thresholds=4, regularization=0.01, time_limit=20),
        OptimalTreeClassifier(thresholds="exact", max_depth=2, n_estimators=5, time_limit=20),
    ]
)


def _few_values(n_rows: int, seed: int):
    """Numeric columns of few distinct values each (the value-sum kernel's ground) and
    noisy labels: large enough for its helper thread."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 40, size=(n_rows, 8)).astype(float)
    score = X[:, 0] - X[:, 1] + 0.5 * X[:, 2] * (X[:, 3] > 20) + rng.normal(0, 12, n_rows)
    return X, (score > 5).astype(int)


@pytest.mark.parametrize("seed", [0, 1])
def test_n_jobs_gives_the_same_tree_and_certificate(make, seed):
    # The helper thread runs ahead over the root thresholds of depth-two subproblems;
    # the answer must be the one thread's, ties included.
    X, y = _few_values(3000, seed)
    fits = [make(max_depth=3, n_jobs=nj).fit(X, y) for nj in (1, 2, -1)]
    for f in fits[1:]:
        assert f.status_ == fits[0].status_ == "optimal"
        assert f.objective_ == fits[0].objective_ and f.lower_bound_ == fits[0].lower_bound_
        assert f.tree_.to_text() == fits[0].tree_.to_text()


@pytest.mark.parametrize("bad", [0, 1.5, "2", True])
def test_n_jobs_must_be_a_nonzero_int(make, bad):
    X, y = _few_values(50, 0)
    with pytest.raises(ValueError, match="n_jobs"):
        make(n_jobs=bad).fit(X, y)


def test_n_jobs_follows_scikit_learns_convention():
    from treeopt._base import effective_n_jobs
    import os

    assert effective_n_jobs(None) == 1 and effective_n_jobs(3) == 3
    assert effective_n_jobs(-1) == (os.cpu_count() or 1)
    assert effective_n_jobs(-10_000) == 1

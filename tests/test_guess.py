"""Guessing from a reference ensemble (McTavish et al. 2022): thresholds, depth, lower bounds.

* Theorem 4.3 on random small instances: with lower-bound guessing,
  ``objective_ <= (reference errors + errors of the exact optimal tree on the rows
  the reference gets right) / N + λ · leaves(optimal tree)``, the optimum from the
  brute-force oracle (``tests/oracle.py``); with ``y_ref == y`` the objective is
  the exact optimum.
* :func:`treeopt.guess.depth_for_ensemble` (Theorem 4.2) and the default depth.
* :class:`treeopt.ThresholdGuessBinarizer` (§4.1 column elimination): the
  candidate thresholds, the stopping rule, the refitted reference, naming, pandas,
  pipelines, agreement with gosdt 1.0.4's binarizer, bad input.
* :class:`treeopt.OptimalTreeClassifier`: scikit-learn checks, raw-feature tree,
  certificate and ``guarantee_``, the single-class reference, compas/fico in
  under 30 s, bad input.

scikit-learn estimator checks: every check passes for both estimators, so no
``expected_failed_checks`` are declared (``check_array_api_input`` reports itself
as skipped unless ``SCIPY_ARRAY_API=1``, a scikit-learn convention).
"""

from __future__ import annotations

import math
import pickle
import time
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline

from treeopt import GOSDTClassifier, NumericBinarizer, OptimalTreeClassifier, ThresholdGuessBinarizer
from treeopt.binarize._core import format_thresholds
from treeopt.guess import DEFAULT_MAX_DEPTH, _split_importance, depth_for_ensemble, guess_max_depth

from oracle import brute_force, tree_n_leaves, tree_predict
from random_problems import SEEDS, SETTINGS, random_function_of_features
from sklearn_conformance import sklearn_checks_test

TOL = 1e-9
LAMBDAS = st.one_of(
    st.sampled_from([0.0, 0.005, 0.01, 0.02, 0.05, 0.1]),
    st.floats(min_value=0.0, max_value=0.1, allow_nan=False, allow_infinity=False),
)
DEPTHS = st.sampled_from([None, 0, 1, 2, 3])
REFERENCES = st.sampled_from(["noisy", "random", "constant", "rule", "truth"])


# --------------------------------------------------------------------------- #
# Random small instances
# --------------------------------------------------------------------------- #
def _instance(seed, weighted):
    """0/1 matrix (<= 14 rows, <= 5 columns), labels with >= 2 classes, weights."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 15))
    m = int(rng.integers(1, 6))
    X = (rng.random((n, m)) < rng.uniform(0.2, 0.8)).astype(np.uint8)
    n_classes = int(rng.choice([2, 2, 3]))
    y = random_function_of_features(rng, X, n_classes, max_used=2)
    flip = rng.random(n) < 0.25
    y = np.where(flip, rng.integers(0, n_classes, size=n), y)
    if len(np.unique(y)) < 2:
        y[rng.choice(n, size=2, replace=False)] = [0, 1]
    w = rng.integers(1, 4, size=n).astype(np.float64) if weighted else None
    return rng, X, y, w


def _reference(rng, X, y, kind):
    """Predictions of a made-up reference model, in the label space of y."""
    classes = np.unique(y)
    n = len(y)
    if kind == "truth":
        return y.copy()
    if kind == "random":
        return rng.choice(classes, size=n)
    if kind == "constant":
        return np.full(n, rng.choice(classes))
    if kind == "rule":  # a depth-1 rule on a random column
        j = int(rng.integers(X.shape[1]))
        a, b = rng.choice(classes, size=2)
        return np.where(X[:, j] == 1, a, b)
    noisy = y.copy()  # "noisy": the truth with a few rows changed
    flip = rng.random(n) < 0.3
    noisy[flip] = rng.choice(classes, size=int(flip.sum()))
    return noisy


def _weighted_errors(pred, y, w):
    wrong = pred != y
    return float(wrong.sum() if w is None else w[wrong].sum())


# --------------------------------------------------------------------------- #
# Theorem 4.3 and exactness with a perfect reference
# --------------------------------------------------------------------------- #
@settings(max_examples=320, **SETTINGS)
@given(seed=SEEDS, lam=LAMBDAS, max_depth=DEPTHS, kind=REFERENCES, weighted=st.booleans())
def test_theorem_4_3_against_the_exact_optimum(seed, lam, max_depth, kind, weighted):
    rng, X, y, w = _instance(seed, weighted)
    y_ref = _reference(rng, X, y, kind)
    clf = GOSDTClassifier(regularization=lam, max_depth=max_depth).fit(
        X, y, sample_weight=w, y_ref=y_ref
    )
    opt, opt_tree = brute_force(X, y, sample_weight=w, regularization=lam, max_depth=max_depth)
    total = float(len(y) if w is None else w.sum())
    ref_correct = y_ref == y
    t_pred = tree_predict(opt_tree, X)
    t_errors_on_correct = _weighted_errors(t_pred[ref_correct], y[ref_correct],
                                           None if w is None else w[ref_correct])
    bound = (_weighted_errors(y_ref, y, w) + t_errors_on_correct) / total + lam * tree_n_leaves(
        opt_tree
    )
    assert clf.status_ in ("optimal", "matched_reference")
    assert clf.objective_ <= bound + TOL, (clf.objective_, bound)
    assert clf.objective_ >= opt - TOL  # never better than the optimum
    assert clf.lower_bound_ <= clf.objective_ + TOL
    assert clf.lower_bound_ <= opt + TOL  # the proven bound stays a true bound
    assert clf.guessed_lower_bound_ is not None
    if clf.status_ == "optimal":
        assert clf.objective_ == pytest.approx(opt, abs=TOL)
    # the reported objective is the tree's objective on the data
    pred = clf.tree_.predict(X)
    recomputed = _weighted_errors(pred, y, w) / total + lam * clf.tree_.n_leaves
    assert clf.objective_ == pytest.approx(recomputed, abs=TOL)
    if max_depth is not None:
        assert clf.tree_.depth <= max_depth


@settings(max_examples=150, **SETTINGS)
@given(seed=SEEDS, lam=LAMBDAS, max_depth=DEPTHS, weighted=st.booleans())
def test_reference_equal_to_labels_gives_the_exact_optimum(seed, lam, max_depth, weighted):
    _, X, y, w = _instance(seed, weighted)
    clf = GOSDTClassifier(regularization=lam, max_depth=max_depth).fit(
        X, y, sample_weight=w, y_ref=y
    )
    opt, _ = brute_force(X, y, sample_weight=w, regularization=lam, max_depth=max_depth)
    assert clf.objective_ == pytest.approx(opt, abs=TOL)
    assert clf.lower_bound_ <= clf.objective_ + TOL


def test_without_y_ref_nothing_changes():
    rng = np.random.default_rng(3)
    X = (rng.random((40, 6)) < 0.5).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 1]) | (rng.random(40) < 0.1)
    a = GOSDTClassifier(regularization=0.01, max_depth=3).fit(X, y)
    assert a.guessed_lower_bound_ is None
    assert a.status_ == "optimal"
    opt, _ = brute_force(X, y, regularization=0.01, max_depth=3)
    assert a.objective_ == pytest.approx(opt, abs=TOL)


# --------------------------------------------------------------------------- #
# Depth guess (Theorem 4.2)
# --------------------------------------------------------------------------- #
def test_depth_for_ensemble_matches_the_paper():
    # "10 trees of depth 3 -> depth 11; 100 -> depth 15", with VC(depth-3 tree) = 2**3
    assert depth_for_ensemble(10, 8) == 11
    assert depth_for_ensemble(100, 8) == 15


@pytest.mark.parametrize("k", [3, 7, 10, 40, 100, 1000])
@pytest.mark.parametrize("v", [3, 4, 8, 16, 64])
def test_depth_for_ensemble_formula(k, v):
    m = k * v + k
    expected = math.ceil(math.log2(m * (3 * math.log(m) + 2)))
    d = depth_for_ensemble(k, v)
    assert d == expected
    # 2**d shattered points cover the ensemble's VC bound, 2**(d-1) do not
    assert 2**d >= m * (3 * math.log(m) + 2) > 2 ** (d - 1)


def test_depth_for_ensemble_raises_small_values_to_three_and_is_monotone():
    assert depth_for_ensemble(1, 1) == depth_for_ensemble(3, 3)
    assert depth_for_ensemble(40, 2) == depth_for_ensemble(40, 3) == 12
    ks = [depth_for_ensemble(k, 8) for k in range(1, 200)]
    assert ks == sorted(ks)


@pytest.mark.parametrize("bad", [0, -1, 2.5, "3", True, None])
def test_depth_for_ensemble_rejects_bad_input(bad):
    with pytest.raises((TypeError, ValueError), match="n_estimators"):
        depth_for_ensemble(bad, 8)
    with pytest.raises((TypeError, ValueError), match="vc_dim_weak"):
        depth_for_ensemble(10, bad)


def test_default_max_depth():
    assert DEFAULT_MAX_DEPTH == 5
    assert guess_max_depth(40, 1) == 5
    assert guess_max_depth(30, 2) == min(depth_for_ensemble(30, 4), 5)
    X, y = _raw_problem(0)
    clf = OptimalTreeClassifier(n_estimators=5).fit(X, y)
    assert clf.max_depth_ == guess_max_depth(5, 1)
    clf = OptimalTreeClassifier(n_estimators=5, max_depth=2).fit(X, y)
    assert clf.max_depth_ == 2 and clf.tree_.depth <= 2


# --------------------------------------------------------------------------- #
# ThresholdGuessBinarizer
# --------------------------------------------------------------------------- #
def _raw_problem(seed, n=120):
    rng = np.random.default_rng(seed)
    X = np.column_stack(
        [
            rng.normal(size=n),
            rng.integers(0, 10, size=n).astype(float),
            rng.integers(0, 2, size=n).astype(float),  # a 0/1 column
            rng.uniform(size=n),
        ]
    )
    logit = 1.5 * X[:, 0] - 0.4 * X[:, 1] + 1.0 * X[:, 2] + rng.normal(scale=0.7, size=n)
    y = (logit > -1.5).astype(int)
    return X, y


test_sklearn_estimator_checks = sklearn_checks_test(
    [
        ThresholdGuessBinarizer(n_estimators=10),
        OptimalTreeClassifier(n_estimators=10, regularization=0.01, time_limit=20),
    ]
)


def test_candidates_are_the_initial_ensembles_splits():
    X, y = _raw_problem(1)
    b = ThresholdGuessBinarizer(n_estimators=15, max_depth=2).fit(X, y)
    pairs = set()
    for est in b.initial_model_.estimators_.ravel():
        t = est.tree_
        for f, thr in zip(t.feature, t.threshold):
            if f >= 0:
                pairs.add((int(f), float(thr)))
    assert b.candidate_columns_ == sorted(pairs)
    assert set(b.output_columns_) <= pairs
    assert b.output_columns_ == sorted(b.output_columns_)
    assert b.n_features_out_ == len(b.output_columns_) >= 1


def test_column_elimination_stopping_rule_and_refitted_reference():
    X, y = _raw_problem(2, n=200)
    params = dict(n_estimators=20, max_depth=2, learning_rate=0.1, random_state=0)
    b = ThresholdGuessBinarizer(**params).fit(X, y)
    Xb = b.transform(X)
    # the reference is the ensemble refitted on the kept columns
    ref = GradientBoostingClassifier(**params).fit(Xb.astype(float), y)
    np.testing.assert_array_equal(ref.predict(Xb), b.reference_model_.predict(Xb))
    assert b.reference_score_ == pytest.approx(np.mean(ref.predict(Xb) == y))
    assert b.reference_score_ >= b.initial_score_
    assert b.initial_score_ == pytest.approx(b.initial_model_.score(X, y))
    np.testing.assert_array_equal(b.reference_predict(X), ref.predict(Xb))
    # removing the next (least important) column would lose training accuracy
    if b.n_features_out_ > 1:
        drop = int(np.argmin(_split_importance(b.reference_model_, b.n_features_out_)))
        keep = [k for k in range(b.n_features_out_) if k != drop]
        again = GradientBoostingClassifier(**params).fit(Xb[:, keep].astype(float), y)
        assert again.score(Xb[:, keep], y) < b.initial_score_


def test_split_importance_is_unnormalised_mdi():
    X, y = _raw_problem(4)
    g = GradientBoostingClassifier(n_estimators=10, max_depth=2, random_state=0).fit(X, y)
    imp = _split_importance(g, X.shape[1])
    np.testing.assert_allclose(imp / imp.sum(), g.feature_importances_, rtol=1e-10)


def test_tolerance_keeps_a_subset():
    X, y = _raw_problem(5, n=300)
    strict = ThresholdGuessBinarizer(n_estimators=30, max_depth=2).fit(X, y)
    loose = ThresholdGuessBinarizer(n_estimators=30, max_depth=2, tolerance=0.05).fit(X, y)
    assert set(loose.output_columns_) <= set(strict.output_columns_)
    assert loose.reference_score_ >= loose.initial_score_ - 0.05
    assert loose.n_features_out_ < strict.n_features_out_


def test_names_transform_and_pandas_output():
    pd = pytest.importorskip("pandas")
    X, y = _raw_problem(6)
    df = pd.DataFrame(X, columns=["age", "priors", "male", "score"])
    b = ThresholdGuessBinarizer(n_estimators=20).set_output(transform="pandas").fit(df, y)
    out = b.transform(df)
    assert isinstance(out, pd.DataFrame)
    names = b.get_feature_names_out()
    assert list(out.columns) == list(names)
    expected = []
    for j, thr in enumerate(b.thresholds_):
        expected += [f"{df.columns[j]} <= {s}" for s in format_thresholds(thr)]
    assert list(names) == expected
    for name, (j, t) in zip(names, b.output_columns_):
        np.testing.assert_array_equal(out[name].to_numpy(), (X[:, j] <= t).astype(np.uint8))
    assert all(dt == np.uint8 for dt in out.dtypes)
    if 2 in [j for j, _ in b.output_columns_]:  # the 0/1 column is a `<= 0.5` test
        assert "male <= 0.5" in names
    # same formatting as NumericBinarizer for the same threshold
    nb = NumericBinarizer().fit(df[["priors"]])
    shared = set(nb.get_feature_names_out()) & {n for n in names if n.startswith("priors")}
    assert shared == {n for n in names if n.startswith("priors")}


def test_in_a_pipeline_with_gosdt():
    X, y = _raw_problem(7)
    pipe = Pipeline([("bin", ThresholdGuessBinarizer(n_estimators=20)),
                     ("tree", GOSDTClassifier(regularization=0.01, max_depth=3))]).fit(X, y)
    assert pipe.score(X, y) > 0.7
    assert pipe.named_steps["tree"].n_features_in_ == pipe.named_steps["bin"].n_features_out_
    clone(pipe).fit(X, y)
    pickle.loads(pickle.dumps(pipe)).predict(X)


def test_deterministic_for_a_fixed_seed():
    X, y = _raw_problem(8)
    a = ThresholdGuessBinarizer(n_estimators=20, random_state=3).fit(X, y)
    b = ThresholdGuessBinarizer(n_estimators=20, random_state=3).fit(X, y)
    assert a.output_columns_ == b.output_columns_


def test_matches_gosdt_threshold_guess_binarizer(load_dataset):
    """Same candidates, same order of elimination and the same stopping point as the
    public gosdt 1.0.4 implementation (whose last step re-adds the final column it
    removed, even when no accuracy was lost; both agree on these datasets)."""
    gosdt = pytest.importorskip("gosdt")
    pd = pytest.importorskip("pandas")
    for name, n_est, depth in [("compas", 40, 1), ("broward_general_2y", 30, 2)]:
        X, y, _ = load_dataset(name)
        X = X.astype(float)
        ours = ThresholdGuessBinarizer(n_estimators=n_est, max_depth=depth).fit(X, y)
        theirs = gosdt.ThresholdGuessBinarizer(n_estimators=n_est, max_depth=depth,
                                               random_state=0).fit(pd.DataFrame(X), y)
        assert set(ours.output_columns_) == {(int(j), float(t)) for j, t in theirs.thresholds_}


@pytest.mark.parametrize("est", [ThresholdGuessBinarizer(n_estimators=5),
                                 OptimalTreeClassifier(n_estimators=5)])
def test_non_numeric_columns_are_refused_with_a_hint(est):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"age": [20, 30, 40, 50] * 5, "city": ["a", "b", "a", "c"] * 5})
    y = np.array([0, 1] * 10)
    with pytest.raises(ValueError, match=r"non-numeric column.*city.*OneHotEncoder"):
        clone(est).fit(df, y)
    with pytest.raises(ValueError, match="numeric"):
        clone(est).fit(df.to_numpy(), y)
    cat = df.assign(city=df["city"].astype("category"))
    with pytest.raises(ValueError, match="city"):
        clone(est).fit(cat, y)


@pytest.mark.parametrize("est", [ThresholdGuessBinarizer(n_estimators=5),
                                 OptimalTreeClassifier(n_estimators=5)])
def test_bad_input_errors(est):
    X, y = _raw_problem(9)
    Xnan = X.copy()
    Xnan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        clone(est).fit(Xnan, y)
    with pytest.raises(ValueError, match="one class"):
        clone(est).fit(X, np.zeros(len(y), dtype=int))
    with pytest.raises(ValueError, match="continuous|Unknown label type"):
        clone(est).fit(X, np.linspace(0, 1, len(y)))
    fitted = clone(est).fit(X, y)
    method = fitted.transform if hasattr(fitted, "transform") else fitted.predict
    with pytest.raises(ValueError, match="features"):
        method(X[:, :2])


@pytest.mark.parametrize(
    "params",
    [dict(n_estimators=0), dict(max_depth=0), dict(learning_rate=0.0), dict(tolerance=-0.1),
     dict(tolerance=1.5)],
)
def test_binarizer_rejects_bad_parameters(params):
    X, y = _raw_problem(10)
    with pytest.raises(ValueError):
        ThresholdGuessBinarizer(**params).fit(X, y)


# --------------------------------------------------------------------------- #
# OptimalTreeClassifier
# --------------------------------------------------------------------------- #
def _objective(tree, X, y, lam, w=None):
    w = np.ones(len(y)) if w is None else w
    return float(w[tree.predict(X) != y].sum()) / float(w.sum()) + lam * tree.n_leaves


def _min_theorem_bound(Xb, y, y_ref, lam, max_depth, w=None):
    """min over trees t of Theorem 4.3's right-hand side, by brute force.

    ``(W_wrong + sum_{ref correct} w [y != t]) / W + lam H_t`` is minimised by an
    optimal tree of the reference-correct rows alone, with lam scaled by W / W_correct.
    """
    w = np.ones(len(y)) if w is None else w
    correct = y_ref == y
    total, w_correct = float(w.sum()), float(w[correct].sum())
    wrong = (total - w_correct) / total
    if not correct.any():
        return wrong + lam
    opt, _ = brute_force(Xb[correct], y[correct], sample_weight=w[correct],
                         regularization=lam * total / w_correct, max_depth=max_depth)
    return wrong + opt * w_correct / total


@settings(max_examples=40, **SETTINGS)
@given(seed=SEEDS, lam=st.sampled_from([0.0, 0.01, 0.03]), max_depth=st.sampled_from([1, 2, 3]))
def test_optimal_tree_classifier_certificate_and_guarantee(seed, lam, max_depth):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, 16))
    X = np.column_stack([rng.integers(0, 4, size=n), rng.normal(size=n)]).astype(float)
    y = ((X[:, 0] >= 2) ^ (X[:, 1] > 0) ^ (rng.random(n) < 0.2)).astype(int)
    if len(np.unique(y)) < 2:
        y[:2] = [0, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # single-class references
        clf = OptimalTreeClassifier(regularization=lam, max_depth=max_depth, n_estimators=6,
                                    estimator_depth=2).fit(X, y)
    assert clf.status_ in ("optimal", "matched_reference")
    assert clf.lower_bound_ <= clf.objective_ + TOL
    assert clf.objective_ == pytest.approx(_objective(clf.tree_, X, y, lam), abs=TOL)
    assert clf.objective_ <= clf.guarantee_ + TOL
    Xb = clf.binarizer_.transform(X)
    y_ref = clf.reference_model_.predict(Xb)
    assert clf.reference_error_ == pytest.approx(np.mean(y_ref != y))
    # guarantee_ is Theorem 4.3 for a concrete tree: never below the best such bound
    assert clf.guarantee_ >= _min_theorem_bound(Xb, y, y_ref, lam, max_depth) - TOL
    assert clf.guarantee_ <= clf.reference_error_ + (1 - clf.reference_error_) + lam + TOL
    # the raw-feature tree predicts what GOSDT's tree predicts on the 0/1 columns
    np.testing.assert_array_equal(clf.predict(X), clf.gosdt_.predict(Xb))


def test_raw_tree_reads_in_raw_features():
    pd = pytest.importorskip("pandas")
    X, y = _raw_problem(11, n=200)
    df = pd.DataFrame(X, columns=["age", "priors", "male", "score"])
    clf = OptimalTreeClassifier(regularization=0.01).fit(df, y)
    assert list(clf.feature_names_in_) == list(df.columns)
    text = clf.tree_.to_text()
    assert "<=" in text and any(c in text for c in df.columns)
    assert "x[" not in text
    assert clf.tree_.n_features == 4
    np.testing.assert_array_equal(clf.predict(df), clf.tree_.predict(X))
    np.testing.assert_allclose(clf.predict_proba(df).sum(axis=1), 1.0)
    assert set(clf.binary_feature_names_) == set(clf.binarizer_.get_feature_names_out(df.columns))
    for j, thr in enumerate(clf.thresholds_):
        np.testing.assert_array_equal(thr, clf.binarizer_.thresholds_[j])


def test_lower_bound_guess_off_proves_optimality():
    X, y = _raw_problem(12, n=200)
    on = OptimalTreeClassifier(regularization=0.005).fit(X, y)
    off = OptimalTreeClassifier(regularization=0.005, lower_bound_guess=False).fit(X, y)
    assert off.status_ == "optimal" and off.guessed_lower_bound_ is None
    assert not off.used_lower_bound_guess_ and on.used_lower_bound_guess_
    assert on.guessed_lower_bound_ is not None
    # same columns: the guessed tree is never better than the proven optimum
    assert off.objective_ <= on.objective_ + TOL
    assert on.lower_bound_ <= off.objective_ + TOL
    assert off.objective_ <= off.guarantee_ + TOL


def test_single_class_reference_falls_back_with_a_warning():
    # 90% class 0 and weak signal: 3 stumps never move the prediction off class 0.
    rng = np.random.default_rng(13)
    X = rng.normal(size=(200, 3))
    y = (rng.random(200) < 0.1).astype(int)
    clf = OptimalTreeClassifier(n_estimators=3, regularization=0.001)
    with pytest.warns(UserWarning, match="single class"):
        clf.fit(X, y)
    assert len(np.unique(clf.reference_model_.predict(clf.binarizer_.transform(X)))) == 1
    assert not clf.used_lower_bound_guess_
    assert clf.guessed_lower_bound_ is None
    assert clf.status_ == "optimal"
    assert clf.lower_bound_ == pytest.approx(clf.objective_)
    assert clf.objective_ <= clf.guarantee_ + TOL


def test_constant_features_give_no_column_and_a_single_leaf():
    X = np.ones((20, 2))
    y = np.array([0] * 12 + [1] * 8)
    b = ThresholdGuessBinarizer().fit(X, y)
    assert b.n_features_out_ == 0 and b.transform(X).shape == (20, 0)
    assert b.get_feature_names_out().shape == (0,)
    with pytest.warns(UserWarning, match="single class"):
        clf = OptimalTreeClassifier(regularization=0.01).fit(X, y)
    assert clf.status_ == "optimal" and clf.n_leaves_ == 1
    assert clf.objective_ == pytest.approx(8 / 20 + 0.01)
    assert clf.guarantee_ == pytest.approx(clf.objective_)  # the leaf is the only tree
    np.testing.assert_array_equal(clf.predict(X), np.zeros(20))


def test_gosdt_y_ref_bad_input():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
    y = X[:, 0] ^ X[:, 1]
    with pytest.raises(ValueError, match="y_ref has 19 predictions for 20 rows"):
        GOSDTClassifier().fit(X, y, y_ref=y[:19])
    with pytest.raises(ValueError, match="not a class of y"):
        GOSDTClassifier().fit(X, y, y_ref=np.where(y == 1, 2, 0))
    with pytest.raises(ValueError, match="not a class of y"):
        GOSDTClassifier().fit(X, y, y_ref=np.full(20, 0.7))
    # documented behaviour of a single-class reference in GOSDTClassifier: the
    # root's guessed bound (errors of the constant + one leaf) is met by one leaf
    clf = GOSDTClassifier(regularization=0.01).fit(X, y, y_ref=np.zeros(20, dtype=int))
    assert clf.status_ == "matched_reference" and clf.n_leaves_ == 1
    assert clf.lower_bound_ <= clf.objective_


@pytest.mark.parametrize(
    "params",
    [dict(max_depth="deep"), dict(max_depth=-1), dict(regularization=-0.1),
     dict(lower_bound_guess="yes"), dict(time_limit=0), dict(estimator_depth=0)],
)
def test_optimal_tree_classifier_rejects_bad_parameters(params):
    X, y = _raw_problem(14)
    with pytest.raises(ValueError):
        OptimalTreeClassifier(**params).fit(X, y)


def test_clone_pickle_grid_search_and_sample_weight():
    X, y = _raw_problem(15, n=150)
    clf = OptimalTreeClassifier(n_estimators=10, regularization=0.01).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))
    assert clone(clf).get_params() == clf.get_params()
    grid = GridSearchCV(OptimalTreeClassifier(n_estimators=10),
                        {"regularization": [0.005, 0.02], "max_depth": [2, "auto"]}, cv=3)
    grid.fit(X, y)
    assert grid.best_estimator_.status_ in ("optimal", "matched_reference")
    w = np.random.default_rng(0).integers(1, 4, size=len(y)).astype(float)
    a = OptimalTreeClassifier(n_estimators=10, regularization=0.01).fit(X, y, sample_weight=w)
    b = OptimalTreeClassifier(n_estimators=10, regularization=0.01).fit(
        np.repeat(X, w.astype(int), axis=0), np.repeat(y, w.astype(int)))
    assert a.objective_ == pytest.approx(b.objective_, abs=TOL)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


@pytest.mark.parametrize("name", ["compas", "fico"])
def test_fits_raw_csv_quickly(load_dataset, name):
    X, y, names = load_dataset(name)
    start = time.perf_counter()
    clf = OptimalTreeClassifier().fit(X, y)
    seconds = time.perf_counter() - start
    assert seconds < 30, seconds
    assert clf.status_ in ("optimal", "matched_reference")
    assert clf.lower_bound_ <= clf.objective_ <= clf.guarantee_ + TOL
    assert clf.objective_ == pytest.approx(_objective(clf.tree_, X, y, 0.001), abs=1e-9)
    assert clf.score(X, y) >= clf.binarizer_.reference_score_ - 0.02

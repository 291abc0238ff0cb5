"""Bad and unusual input gets a true, actionable answer (issue 19, points 5 and 7).

* string / categorical columns: every estimator names the offending column and
  suggests an encoder; 0/1 (and True/False) ``category`` / object columns are 0/1;
* a common scale of test costs or sample weights changes nothing (greedy trees,
  ``metrics.expected_cost``);
* oblique nodes are priced by the features they use;
* messages name the real cause (huge values, mixed label types, denormals);
* the command line validates its options (exit code 2, no traceback).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import treeopt
from treeopt import (
    CostAwareTreeClassifier,
    DL85Classifier,
    EC45Classifier,
    ECARTClassifier,
    ExtractedTreeClassifier,
    ExtractedTreeRegressor,
    GOSDTClassifier,
    LatentTreeClassifier,
    LatentTreeRegressor,
    NumericBinarizer,
    OptimalTreeClassifier,
    OSDTClassifier,
    ThresholdGuessBinarizer,
    Tree,
)
from treeopt.metrics import expected_cost, path_costs
from treeopt.preprocessing import BinnedOneHotEncoder



def _step_blackbox(X):
    return (np.asarray(X)[:, 0] > 40).astype(int)


def _numeric_estimators():
    """Estimators that learn from numeric columns (fast settings)."""
    return [
        NumericBinarizer(),
        ThresholdGuessBinarizer(n_estimators=5),
        OptimalTreeClassifier(n_estimators=5, max_depth=2),
        LatentTreeClassifier(depth=2, max_epochs=2),
        LatentTreeRegressor(depth=2, max_epochs=2),
        ExtractedTreeClassifier(_step_blackbox, max_leaves=2, n_samples=50),
        ExtractedTreeRegressor(_step_blackbox, max_leaves=2, n_samples=50),
    ]


def _binary_estimators():
    """Estimators that learn from 0/1 columns."""
    return [
        GOSDTClassifier(regularization=0.01, max_depth=2),
        DL85Classifier(max_depth=2),
        OSDTClassifier(regularization=0.05),
        EC45Classifier(),
        ECARTClassifier(),
        CostAwareTreeClassifier(),
    ]


def _ids(estimators):
    return [type(e).__name__ for e in estimators]


def _frame(sex_column, n=60, seed=0, binary=False):
    rng = np.random.default_rng(seed)
    other = rng.integers(0, 2, n) if binary else rng.integers(18, 70, n).astype(float)
    return pd.DataFrame({"age": other, "sex": sex_column}), rng.integers(0, 2, n)


# --------------------------------------------------------------------------- #
# point 5: string and categorical columns
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("est", _numeric_estimators() + _binary_estimators(),
                         ids=_ids(_numeric_estimators() + _binary_estimators()))
@pytest.mark.parametrize("kind", ["object", "category"])
def test_string_column_is_named_and_an_encoder_suggested(est, kind):
    rng = np.random.default_rng(1)
    sex = rng.choice(["male", "female"], 60).astype(object)
    X, y = _frame(pd.Categorical(sex) if kind == "category" else sex,
                  binary=hasattr(est, "_binary_hint"))
    with pytest.raises(ValueError) as info:
        est.fit(X, y)
    message = str(info.value)
    assert "'sex'" in message
    assert "OneHotEncoder" in message
    # treeopt's own message, not numpy's "could not convert string to float"
    assert "encode categorical columns first" in message and "could not convert" not in message


@pytest.mark.parametrize("est", _numeric_estimators(), ids=_ids(_numeric_estimators()))
def test_string_column_of_an_array_is_named_by_index(est):
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.integers(18, 70, 60), rng.choice(["male", "female"], 60)])
    X = X.astype(object)
    X[:, 0] = X[:, 0].astype(int)
    with pytest.raises(ValueError, match=r"column 1\b.*OneHotEncoder") as info:
        est.fit(X, rng.integers(0, 2, 60))
    assert "could not convert" not in str(info.value)


@pytest.mark.parametrize("est", _numeric_estimators(), ids=_ids(_numeric_estimators()))
def test_numeric_category_column_with_other_values_is_refused(est):
    rng = np.random.default_rng(3)
    X, y = _frame(pd.Categorical(rng.choice([3, 7, 9], 60)))
    with pytest.raises(ValueError, match=r"'sex'.*(OneHotEncoder|astype)"):
        est.fit(X, y)


_ZERO_ONE_COLUMNS = {
    "category-int": lambda v: pd.Categorical(v),
    "category-bool": lambda v: pd.Categorical(v.astype(bool)),
    "object-bool": lambda v: pd.Series(v.astype(bool), dtype=object),
    "object-int": lambda v: pd.Series(v, dtype=object),
}


@pytest.mark.parametrize("est", _numeric_estimators() + _binary_estimators(),
                         ids=_ids(_numeric_estimators() + _binary_estimators()))
@pytest.mark.parametrize("kind", list(_ZERO_ONE_COLUMNS))
def test_zero_one_categorical_columns_are_accepted_as_0_1(est, kind):
    rng = np.random.default_rng(4)
    v = rng.integers(0, 2, 60)
    binary = hasattr(est, "_binary_hint")
    X, y = _frame(_ZERO_ONE_COLUMNS[kind](v), binary=binary)
    X_plain = pd.DataFrame({"age": X["age"], "sex": v})
    est.fit(X, y)
    assert list(est.feature_names_in_) == ["age", "sex"]
    out = est.transform(X) if hasattr(est, "transform") else est.predict(X)
    plain = est.transform(X_plain) if hasattr(est, "transform") else est.predict(X_plain)
    np.testing.assert_array_equal(out, plain)


def test_binned_one_hot_encoder_from_the_package_encodes():
    assert ">>>" in BinnedOneHotEncoder.__doc__
    X = pd.DataFrame({"colour": ["red", "blue", "red"], "size": [1.0, 2.0, 3.0]})
    enc = treeopt.BinnedOneHotEncoder(n_bins=3).fit(X)
    assert list(enc.get_feature_names_out()) == [
        "colour == blue", "colour == red", "size == 1", "size == 2", "size == 3"
    ]
    assert enc.transform(X).to_numpy().tolist() == [[0, 1, 1, 0, 0], [1, 0, 0, 1, 0], [0, 1, 0, 0, 1]]


# --------------------------------------------------------------------------- #
# point 7: a common scale of costs / weights changes nothing
# --------------------------------------------------------------------------- #
def _random_binary_problem(seed, n=120, m=6):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, m)).astype(np.uint8)
    y = (X[:, 0] ^ (X[:, 1] & X[:, 2]) ^ (rng.random(n) < 0.1)).astype(int)
    return X, y


def _structure(tree):
    return (tree.children_left.tolist(), tree.children_right.tolist(), tree.feature.tolist())


@pytest.mark.parametrize("scale", [1e-308, 1e-300, 1e-150, 1e150, 1e300, 1e308])
@pytest.mark.parametrize("cls", [EC45Classifier, ECARTClassifier, CostAwareTreeClassifier])
def test_common_cost_scale_gives_the_same_tree(cls, scale):
    X, y = _random_binary_problem(0)
    unit = cls().fit(X, y)
    scaled = cls(test_costs=[scale] * X.shape[1]).fit(X, y)
    assert _structure(scaled.tree_) == _structure(unit.tree_)
    assert unit.tree_.n_leaves > 1
    assert scaled.expected_cost_ == pytest.approx(scale * unit.expected_cost_, rel=1e-12)
    assert scaled.score(X, y) == unit.score(X, y)


@pytest.mark.parametrize("cls", [EC45Classifier, ECARTClassifier, CostAwareTreeClassifier])
def test_one_denormal_cost_makes_that_test_free(cls):
    """A test that costs 5e-324 against 1 for the others is chosen wherever it splits,
    and the tree is otherwise grown as usual (not one leaf)."""
    X, y = _random_binary_problem(1)
    costs = np.ones(X.shape[1])
    costs[3] = 5e-324
    est = cls(test_costs=costs).fit(X, y)
    assert est.tree_.feature[0] == 3
    assert est.tree_.n_leaves > 2
    # the same as a cost small enough to dominate but far from the float limits
    costs[3] = 1e-30
    ref = cls(test_costs=costs).fit(X, y)
    assert _structure(est.tree_) == _structure(ref.tree_)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    cost_exponent=st.integers(-1060, 1015),
    weight_exponent=st.integers(-1060, 1020),
    cost_values=st.lists(st.integers(1, 50), min_size=5, max_size=5),
    criterion=st.sampled_from(["entropy", "gini", "asr", "impure_pairs", "balance"]),
)
# Totals just below the float range (185 x 2**1016): kept whole, not halved.
@example(seed=0, cost_exponent=0, weight_exponent=1016, cost_values=[1] * 5, criterion="entropy")
def test_cost_and_weight_scale_property(seed, cost_exponent, weight_exponent, cost_values,
                                        criterion):
    """Multiplying every cost by c and every weight by c' (powers of two from 2**-1060
    to 2**1015 / 2**1020, about 1e-319 .. 1e307, so the scaled inputs are exact) gives
    the same tree; the expected cost scales by c."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(40, 5)).astype(np.uint8)
    y = rng.integers(0, 3, 40)
    w = rng.integers(1, 9, 40).astype(float)
    costs = np.array(cost_values, dtype=float)
    c = 2.0 ** cost_exponent
    cw = np.ldexp(1.0, weight_exponent)
    base = CostAwareTreeClassifier(criterion=criterion, lam=1.0, test_costs=costs)
    base.fit(X, y, sample_weight=w)
    scaled = CostAwareTreeClassifier(criterion=criterion, lam=1.0, test_costs=costs * c)
    scaled.fit(X, y, sample_weight=w * cw)
    assert _structure(scaled.tree_) == _structure(base.tree_)
    with np.errstate(over="ignore"):
        expected = base.tree_.value * cw
    if np.isfinite(expected.sum(axis=1)).all():
        np.testing.assert_allclose(scaled.tree_.value, expected, rtol=1e-12)
    else:  # totals beyond the float range: stored divided by a power of two
        assert np.isfinite(scaled.tree_.value).all()
        np.testing.assert_allclose(scaled.predict_proba(X), base.predict_proba(X), rtol=1e-12)
    assert scaled.expected_cost_ == pytest.approx(base.expected_cost_ * c, rel=1e-12)


@pytest.mark.parametrize("scale", [1e-308, 1e-300, 1.0, 1e300, 1e308])
def test_weight_scale_does_not_change_the_greedy_tree(scale):
    X, y = _random_binary_problem(2)
    w = np.random.default_rng(3).random(len(y)) + 0.5
    base = EC45Classifier().fit(X, y, sample_weight=w)
    scaled = EC45Classifier().fit(X, y, sample_weight=w * scale)
    assert _structure(scaled.tree_) == _structure(base.tree_)
    assert np.all(np.isfinite(scaled.predict_proba(X)))
    np.testing.assert_allclose(scaled.predict_proba(X), base.predict_proba(X), rtol=1e-9)
    assert scaled.expected_cost_ == pytest.approx(base.expected_cost_, rel=1e-12)


@pytest.mark.parametrize("scale", [1e-308, 1e-300, 1e300, 1e306])
def test_expected_cost_scales_exactly(scale):
    t = Tree([1, -1, 3, -1, -1], [2, -1, 4, -1, -1], [0, -2, 1, -2, -2],
             [0.5, -2, 0.5, -2, -2], [[2, 2], [2, 0], [0, 2], [0, 1], [0, 1]],
             [4, 2, 2, 1, 1])
    X = [[0, 0], [0, 1], [1, 0], [1, 1]]
    costs = np.array([1.0, 10.0])
    w = np.array([1.0, 2.0, 3.0, 4.0])
    base = expected_cost(t, X, costs, sample_weight=w)
    assert base == pytest.approx((1 * 1 + 2 * 1 + 3 * 11 + 4 * 11) / 10)
    assert expected_cost(t, X, costs * scale, sample_weight=w) == pytest.approx(base * scale)
    assert expected_cost(t, X, costs, sample_weight=w * scale) == pytest.approx(base)
    assert expected_cost(t, X, costs, sample_weight=w * (scale * 40)) == pytest.approx(base)
    both = expected_cost(t, X, costs * scale, sample_weight=w * scale)
    assert both == pytest.approx(base * scale)


def test_expected_cost_is_infinite_only_when_the_true_value_is():
    t = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, -2, -2],
             [[1, 1], [1, 0], [0, 1]], [2, 1, 1])
    X = [[0, 0], [1, 0]]
    # one test costing the largest float: the expected cost is that cost
    assert expected_cost(t, X, [1.7e308, 1.0]) == 1.7e308
    # sample weights of 1e308 do not overflow the normalisation
    assert expected_cost(t, X, [2.0, 1.0], sample_weight=[1e308, 1e308]) == 2.0


# --------------------------------------------------------------------------- #
# point 7: oblique nodes are priced by the features they use
# --------------------------------------------------------------------------- #
def _oblique_tree():
    # root: 1*x0 + 1*x1 <= 0.5 ; its right child: 2*x2 - x0 <= 1.0 ; 4 leaves
    weights = np.zeros((5, 4))
    weights[0] = [1.0, 1.0, 0.0, 0.0]
    weights[2] = [-1.0, 0.0, 2.0, 0.0]
    return Tree(
        [1, -1, 3, -1, -1], [2, -1, 4, -1, -1], [-3, -2, -3, -2, -2],
        [0.5, -2, 1.0, -2, -2], [[2, 2], [2, 0], [0, 2], [0, 1], [0, 1]],
        [4, 2, 2, 1, 1], weights=weights,
    )


def test_oblique_nodes_cost_the_features_they_combine():
    t = _oblique_tree()
    X = np.array([[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 5.0, 0.0]])
    costs = np.array([10.0, 20.0, 30.0, 40.0])
    # row 0 stops after the root: x0 + x1 -> 10 + 20
    # rows 1, 2 go through both oblique nodes: x0, x1, x2, x0 paid once -> 60
    np.testing.assert_allclose(path_costs(t, X, costs), [30.0, 60.0, 60.0])
    assert expected_cost(t, X, costs) == pytest.approx(50.0)
    # unit costs: the number of distinct features read
    np.testing.assert_allclose(path_costs(t, X), [2.0, 3.0, 3.0])


# --------------------------------------------------------------------------- #
# point 7: messages that name the real cause
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("cls", [ExtractedTreeClassifier, ExtractedTreeRegressor])
def test_extraction_on_huge_values_says_they_are_too_large(cls):
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, size=(60, 3)) * 1e308
    with pytest.raises(ValueError) as info:
        cls(_step_blackbox, max_leaves=2, n_samples=50).fit(X)
    message = str(info.value)
    assert "NaN" not in message
    assert "too large" in message and "StandardScaler" in message


@pytest.mark.parametrize("cls", [LatentTreeClassifier, LatentTreeRegressor])
def test_latent_tree_on_huge_values_fits_as_on_moderate_ones(cls):
    """Values up to the float limit are standardised without overflow: scaling X by a
    power of two (exact) gives the same model, where the solver used to fail with a
    NaN gradient."""
    rng = np.random.default_rng(6)
    X = rng.uniform(-1, 1, size=(60, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    small = cls(depth=2, max_epochs=5, random_state=0).fit(X, y)
    for exponent in (1000, 1023):
        big = cls(depth=2, max_epochs=5, random_state=0).fit(np.ldexp(X, exponent), y)
        np.testing.assert_array_equal(big.predict(np.ldexp(X, exponent)), small.predict(X))
        np.testing.assert_array_equal(big.tree_.apply(np.ldexp(X, exponent)),
                                      small.tree_.apply(X))


@pytest.mark.parametrize("est", [
    OptimalTreeClassifier(n_estimators=5, max_depth=2),
    ThresholdGuessBinarizer(n_estimators=5),
    LatentTreeClassifier(depth=2, max_epochs=2),
    EC45Classifier(),
    GOSDTClassifier(max_depth=2),
], ids=lambda e: type(e).__name__)
def test_mixed_label_types_are_named(est):
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, size=(40, 3))
    y = np.array(["a", 1] * 20, dtype=object)
    with pytest.raises(ValueError, match="strings and numbers"):
        est.fit(X, y)


@pytest.mark.parametrize("scale", [1e-310, 1e-320, 5e-324])
def test_binned_one_hot_encoder_handles_denormals(scale):
    rng = np.random.default_rng(8)
    x = rng.integers(0, 1000, size=(60, 1)) * scale
    enc = BinnedOneHotEncoder(n_bins=3)
    out = enc.fit_transform(x)
    assert out.shape[0] == 60 and out.shape[1] >= 1
    assert np.all(out.sum(axis=1) == 1)  # every row falls into exactly one bin
    assert len(enc.get_feature_names_out()) == out.shape[1]


# --------------------------------------------------------------------------- #
# point 7: the command line validates its options
# --------------------------------------------------------------------------- #
def _run_cli(*args):
    # the installed package, as a user runs it (the source tree has no built core)
    return subprocess.run(
        [sys.executable, "-m", "treeopt", "demo", *args],
        capture_output=True, text=True, timeout=120,
    )


@pytest.mark.parametrize("args, option", [
    (["--regularization", "inf"], "--regularization"),
    (["--time-limit", "0"], "--time-limit"),
    (["--test-size", "1.5"], "--test-size"),
    (["--random-state", "-1"], "--random-state"),
])
def test_cli_rejects_bad_options_with_exit_code_2(args, option):
    result = _run_cli(*args)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert f"argument {option}: must be" in result.stderr


@pytest.mark.parametrize("args, option", [
    (["--regularization", "abc"], "--regularization"),
    (["--regularization", "nan"], "--regularization"),
    (["--time-limit", "nan"], "--time-limit"),
    (["--time-limit", "-1"], "--time-limit"),
    (["--test-size", "0"], "--test-size"),
    (["--test-size", "1"], "--test-size"),
    (["--test-size", "-0.2"], "--test-size"),
    (["--random-state", "4294967296"], "--random-state"),
    (["--random-state", "1.5"], "--random-state"),
    (["--max-thresholds", "0"], "--max-thresholds"),
    (["--max-depth", "x"], "--max-depth"),
])
def test_cli_option_checks_in_process(args, option, capsys):
    from treeopt.__main__ import main

    with pytest.raises(SystemExit) as info:
        main(["demo", *args])
    assert info.value.code == 2
    assert f"argument {option}: must be" in capsys.readouterr().err


# --- plain arrays skip scikit-learn's first-call dataframe probe (issue 12) -------------


def test_plain_array_fit_does_not_probe_dataframe_libraries():
    """A first fit on numpy arrays does not pay narwhals's plugin scan (milliseconds
    per process, more than a small optimal fit); a DataFrame still goes through it."""
    pytest.importorskip("narwhals", reason="scikit-learn < 1.7 does not probe with narwhals")
    code = (
        "import numpy as np, narwhals.plugins as p, treeopt\n"
        "X = np.random.default_rng(0).normal(size=(60, 3)); y = (X[:, 0] > 0).astype(int)\n"
        "treeopt.DL85Classifier(max_depth=2).fit(X, y).predict(X)\n"
        "treeopt.GOSDTClassifier(regularization=0.05).fit(X > 0, y)\n"
        "treeopt.GOSDTRegressor(max_depth=2).fit(X > 0, X[:, 1]).predict(X > 0)\n"
        "treeopt.DL85Regressor(max_depth=1).fit(X, X[:, 1])\n"
        "print(p._discover_entrypoints.cache_info().misses)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.integers(1, 6),
    cols=st.integers(1, 4),
    kind=st.sampled_from(["f8", "f4", "i8", "u1", "?"]),
    bad=st.sampled_from([None, np.nan, np.inf]),
    dtype=st.sampled_from(["numeric", None, np.float64]),
    ylabels=st.sampled_from(["int", "str", "float", "halves"]),
    y_numeric=st.booleans(),
)
def test_plain_array_validation_matches_scikit_learn(rows, cols, kind, bad, dtype, ylabels, y_numeric):
    """The plain-array path returns what scikit-learn's ``validate_data`` returns and
    raises where it raises (then with its message)."""
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import validate_data as sklearn_validate_data

    from treeopt._validation import check_classification_labels, validate_data

    class Probe(ClassifierMixin, BaseEstimator):
        pass

    rng = np.random.default_rng(rows * 31 + cols)
    X = (rng.normal(size=(rows, cols)) * 3).astype(kind)
    if bad is not None and X.dtype.kind == "f":
        X[0, 0] = bad
    y = {"int": np.arange(rows) % 2, "str": np.array(["a", "b"] * rows)[:rows],
         "float": (np.arange(rows) % 3).astype(float), "halves": np.arange(rows) / 2}[ylabels]

    def outcome(validate, check_labels):
        try:
            est = Probe()
            got = validate(est, X, y, dtype=dtype, **({"y_numeric": True} if y_numeric else {}))
            check_labels(got[1])
            return ("ok", got[0].dtype, got[0].tolist(), got[1].tolist(), est.n_features_in_)
        except ValueError as exc:
            return ("error", str(exc))

    ours = outcome(validate_data, check_classification_labels)
    assert ours == outcome(sklearn_validate_data, check_classification_targets)


@settings(max_examples=300, deadline=None)
@given(
    dtype=st.sampled_from(["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]),
    where=st.sampled_from(["min", "max", "zero", "near zero"]),
    offsets=st.lists(st.integers(0, 250), min_size=1, max_size=80),
)
@example(dtype="int8", where="min", offsets=list(range(251)))
def test_integer_labels_are_encoded_as_unique_encodes_them(dtype, where, offsets):
    """Integer labels of a small span are counted, not sorted (``_small_integer_classes``):
    the same classes (values and dtype) and codes as ``np.unique``, at the ends of every
    integer type too, and over spans wider than a narrow type's positive half."""
    from treeopt._validation import _small_integer_classes

    info = np.iinfo(dtype)
    base = {"min": int(info.min), "max": int(info.max) - 250, "zero": 0, "near zero": -3 if info.min < 0 else 3}[where]
    values = [base + v for v in offsets if info.min <= base + v <= info.max]
    assume(values)
    y = np.array(values, dtype=dtype)
    classes, codes = _small_integer_classes(y)
    want_classes, want_codes = np.unique(y, return_inverse=True)
    assert classes.dtype == want_classes.dtype and codes.dtype == np.intp
    assert np.array_equal(classes, want_classes) and np.array_equal(codes, want_codes.ravel())


@settings(max_examples=200, deadline=None)
@given(
    dtype=st.sampled_from(["int8", "int64", "uint8", "uint32", "float64", "bool"]),
    cells=st.lists(st.sampled_from([0, 1, 1, 0, 2, -1]), min_size=3, max_size=30),
)
def test_binary_columns_are_the_columns_of_zeros_and_ones(dtype, cells):
    """``binary_columns``'s whole-array shortcut for integers in [0, 1] marks the columns
    that its per-column test marks."""
    from treeopt.tree._model import binary_columns

    values = np.array(cells[: len(cells) // 3 * 3]).reshape(-1, 3)
    if dtype.startswith("uint"):
        values = np.abs(values)
    X = values.astype(dtype)
    assert binary_columns(X).tolist() == np.all((X == 0) | (X == 1), axis=0).tolist()

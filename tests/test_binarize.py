"""Tests for :class:`treeopt.NumericBinarizer`.

scikit-learn estimator checks: every check of ``check_estimator`` passes, so no
``expected_failed_checks`` are declared. ``check_array_api_input`` reports itself
as *skipped* unless the environment variable ``SCIPY_ARRAY_API=1`` is set (it
passes when set; the skip is a scikit-learn convention, not a failure of the
transformer). The transformer always outputs ``uint8``, so it declares
``transformer_tags.preserves_dtype = []``, which makes
``check_transformer_preserve_dtypes`` a (passing) no-op.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.tree import DecisionTreeClassifier
from treeopt._tree import Tree
from treeopt.binarize import NumericBinarizer

from sklearn_conformance import sklearn_checks_test


# --------------------------------------------------------------------------- #
# scikit-learn conformance
# --------------------------------------------------------------------------- #
test_sklearn_estimator_checks = sklearn_checks_test(
    [NumericBinarizer(), NumericBinarizer(max_thresholds=3)]
)


# --------------------------------------------------------------------------- #
# thresholds
# --------------------------------------------------------------------------- #
def test_midpoints_exact_small_example():
    X = np.array([[3.0], [1.0], [2.0], [2.0], [5.0]])
    b = NumericBinarizer().fit(X)
    assert len(b.thresholds_) == 1
    assert b.thresholds_[0].tolist() == [1.5, 2.5, 4.0]
    assert b.thresholds_[0].dtype == np.float64
    assert b.output_columns_ == [(0, 1.5), (0, 2.5), (0, 4.0)]
    assert b.n_features_out_ == 3
    Xt = b.transform(X)
    assert Xt.dtype == np.uint8
    np.testing.assert_array_equal(
        Xt,
        [[0, 0, 1], [1, 1, 1], [0, 1, 1], [0, 1, 1], [0, 0, 0]],
    )


def test_midpoints_do_not_overflow_and_stay_between_values():
    big = np.finfo(np.float64).max
    X = np.array([[-big], [big], [0.0]])
    b = NumericBinarizer().fit(X)
    # the midpoints +-big/2, at 15 significant digits (still strictly between the values)
    np.testing.assert_allclose(b.thresholds_[0], [-big / 2, big / 2], rtol=1e-15)
    assert -big <= b.thresholds_[0][0] < 0.0 <= b.thresholds_[0][1] < big
    # adjacent floats: the rounded midpoint may equal either neighbour (round half
    # to even); it must never equal the upper one, or both values would map to 1
    for a in (1.0, np.nextafter(1.0, 2.0), 3.0, np.nextafter(3.0, 4.0)):
        nxt = np.nextafter(a, np.inf)
        b = NumericBinarizer().fit([[a], [nxt]])
        t = b.thresholds_[0]
        assert t.shape == (1,) and a <= t[0] < nxt
        np.testing.assert_array_equal(b.transform([[a], [nxt]]), [[1], [0]])


def test_max_thresholds_uses_quantiles():
    X = np.arange(100, dtype=float)[:, None]
    b = NumericBinarizer(max_thresholds=3).fit(X)
    assert b.thresholds_[0].tolist() == [24.5, 49.5, 74.5]
    # quartile columns split the data into equal quarters
    assert b.transform(X).sum(axis=0).tolist() == [25, 50, 75]


def test_max_thresholds_cap_subset_sorted_unique():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.exponential(size=500), rng.integers(0, 40, size=500)])
    full = NumericBinarizer().fit(X)
    for k in (1, 2, 5, 17):
        b = NumericBinarizer(max_thresholds=k).fit(X)
        for j in range(2):
            t = b.thresholds_[j]
            assert 1 <= len(t) <= k
            assert np.all(np.diff(t) > 0)
            assert np.isin(t, full.thresholds_[j]).all()
        assert b.n_features_out_ == sum(len(t) for t in b.thresholds_)
        assert b.transform(X).shape == (500, b.n_features_out_)
    # the median of the second column is chosen when one threshold is allowed
    t1 = NumericBinarizer(max_thresholds=1).fit(X).thresholds_[1][0]
    assert abs(np.mean(X[:, 1] <= t1) - 0.5) < 0.05


def test_max_thresholds_larger_than_candidates_keeps_all():
    X = np.array([[1.0], [2.0], [4.0]])
    assert NumericBinarizer(max_thresholds=10).fit(X).thresholds_[0].tolist() == [1.5, 3.0]
    assert NumericBinarizer(max_thresholds=2).fit(X).thresholds_[0].tolist() == [1.5, 3.0]


def test_max_thresholds_concentrated_values():
    # 90% zeros: several quantile levels pick the same midpoint -> fewer, unique
    X = np.array([0.0] * 90 + list(range(1, 11)), dtype=float)[:, None]
    t = NumericBinarizer(max_thresholds=4).fit(X).thresholds_[0]
    assert 1 <= len(t) <= 4
    assert len(np.unique(t)) == len(t)
    assert t[0] == 0.5


@pytest.mark.parametrize("bad", [0, -1, 2.5, "3"])
def test_invalid_max_thresholds(bad):
    with pytest.raises((ValueError, TypeError), match="max_thresholds"):
        NumericBinarizer(max_thresholds=bad).fit([[1.0], [2.0]])


def test_passthrough_and_constant_columns():
    X = np.array(
        [
            [0, 5, 1, 0, 7, 2],
            [1, 6, 1, 0, 7, 3],
            [1, 5, 1, 0, 7, 2],
            [0, 9, 1, 0, 7, 3],
        ],
        dtype=float,
    )
    b = NumericBinarizer().fit(X)
    assert b.passthrough_.tolist() == [True, False, True, True, False, False]
    assert [len(t) for t in b.thresholds_] == [0, 2, 0, 0, 0, 1]
    assert b.output_columns_ == [(0, None), (1, 5.5), (1, 7.5), (2, None), (3, None), (5, 2.5)]
    assert b.get_feature_names_out().tolist() == [
        "x0",
        "x1 <= 5.5",
        "x1 <= 7.5",
        "x2",
        "x3",
        "x5 <= 2.5",
    ]
    Xt = b.transform(X)
    np.testing.assert_array_equal(Xt[:, 0], X[:, 0])
    np.testing.assert_array_equal(Xt[:, 3], X[:, 2])
    np.testing.assert_array_equal(Xt[:, 4], X[:, 3])
    np.testing.assert_array_equal(Xt[:, 5], X[:, 5] <= 2.5)


def test_passthrough_column_with_new_value_is_read_above_one_half():
    # a test split may show a value the training split lacked (broward, column 29):
    # the pipeline must still predict, and say how it read the value
    b = NumericBinarizer().fit([[0.0, 1.0], [1.0, 2.0]])
    with pytest.warns(UserWarning, match="column 0 held only 0/1 values"):
        out = b.transform([[2.0, 1.0], [-3.0, 1.0], [1.0, 1.0], [0.0, 1.0]])
    assert out[:, 0].tolist() == [1, 0, 1, 0]


def test_all_constant_gives_zero_columns():
    b = NumericBinarizer().fit([[3.0, 4.0], [3.0, 4.0]])
    assert b.n_features_out_ == 0
    assert b.transform([[1.0, 2.0]]).shape == (1, 0)
    assert b.get_feature_names_out().tolist() == []


# --------------------------------------------------------------------------- #
# names
# --------------------------------------------------------------------------- #
def test_pandas_feature_names_out():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(
        {"age": [20, 27, 40, 20], "male": [1, 0, 1, 1], "score": [0.0, 0.25, 1 / 3, 0.0]}
    )
    b = NumericBinarizer().fit(df)
    assert b.feature_names_in_.tolist() == ["age", "male", "score"]
    assert b.get_feature_names_out().tolist() == [
        "age <= 23.5",
        "age <= 33.5",
        "male",
        "score <= 0.125",
        "score <= 0.291666666666667",
    ]
    with pytest.raises(ValueError):
        b.get_feature_names_out(["a", "m", "s"])  # must match feature_names_in_ (sklearn rule)
    # fitted on a plain array, input_features supplies the names
    custom = NumericBinarizer().fit(df.to_numpy()).get_feature_names_out(["a", "m", "s"]).tolist()
    assert custom[:3] == ["a <= 23.5", "a <= 33.5", "m"]


def test_names_without_pandas_and_compact_format():
    X = np.array([[1e6, -0.5], [2e6 + 1, 0.5], [3e6, 1.5]])
    names = NumericBinarizer().fit(X).get_feature_names_out().tolist()
    # exact: the first threshold is 1500000.5 (".6g" printed a false "1.5e+06")
    assert names == ["x0 <= 1500000.5", "x0 <= 2500000.5", "x1 <= 0", "x1 <= 1"]
    X = np.array([[1e6, -0.5], [2e6, 0.5], [3e6, 1.5]])
    assert NumericBinarizer().fit(X).get_feature_names_out().tolist()[:2] == [
        "x0 <= 1.5e+06", "x0 <= 2.5e+06"
    ]


def test_names_stay_unique_when_6_digits_collide():
    X = np.array([[1.0], [1.0000001], [1.0000002]])
    names = NumericBinarizer().fit(X).get_feature_names_out().tolist()
    # ".6g" would print "1" twice; the exact thresholds are printed
    assert names == ["x0 <= 1.00000005", "x0 <= 1.00000015"]


def test_not_fitted():
    with pytest.raises(NotFittedError):
        NumericBinarizer().transform([[1.0]])
    with pytest.raises(NotFittedError):
        NumericBinarizer().get_feature_names_out()


# --------------------------------------------------------------------------- #
# transform of new data and validation
# --------------------------------------------------------------------------- #
def test_transform_new_data():
    b = NumericBinarizer().fit(np.array([[10.0, 0.0], [20.0, 1.0], [30.0, 0.0]]))
    assert b.get_feature_names_out().tolist() == ["x0 <= 15", "x0 <= 25", "x1"]
    new = np.array([[-100.0, 1.0], [15.0, 0.0], [15.5, 1.0], [25.0, 0.0], [1e9, 1.0]])
    np.testing.assert_array_equal(
        b.transform(new),
        [[1, 1, 1], [1, 1, 0], [0, 1, 1], [0, 1, 0], [0, 0, 1]],
    )


def test_transform_rejects_wrong_width_and_nan():
    b = NumericBinarizer().fit([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="features"):
        b.transform([[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="NaN"):
        b.transform([[np.nan, 2.0]])
    with pytest.raises(ValueError, match="infinity"):
        NumericBinarizer().fit([[np.inf], [1.0]])


def test_fit_ignores_y_and_returns_self():
    X = np.array([[1.0], [2.0], [3.0]])
    b = NumericBinarizer()
    assert b.fit(X, [0, 1, 0]) is b
    np.testing.assert_array_equal(b.thresholds_[0], NumericBinarizer().fit(X).thresholds_[0])


# --------------------------------------------------------------------------- #
# pandas output, pipelines, pickling, cloning
# --------------------------------------------------------------------------- #
def test_set_output_pandas():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"age": [20, 27, 40], "male": [1, 0, 1]}, index=[10, 11, 12])
    b = NumericBinarizer().set_output(transform="pandas")
    out = b.fit_transform(df)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["age <= 23.5", "age <= 33.5", "male"]
    assert list(out.index) == [10, 11, 12]
    assert all(dt == np.uint8 for dt in out.dtypes)
    assert out.to_numpy().tolist() == [[1, 1, 1], [0, 1, 0], [0, 0, 1]]


def test_pipeline_with_decision_tree():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3)).round(2)
    y = ((X[:, 0] > 0.3) & (X[:, 2] <= 0.8)).astype(int)
    pipe = Pipeline(
        [
            ("bin", NumericBinarizer(max_thresholds=8)),
            ("tree", DecisionTreeClassifier(max_depth=3, random_state=0)),
        ]
    )
    pipe.fit(X, y)
    binarizer = pipe.named_steps["bin"]
    manual = DecisionTreeClassifier(max_depth=3, random_state=0).fit(binarizer.transform(X), y)
    X_new = rng.normal(size=(100, 3)).round(2)
    np.testing.assert_array_equal(pipe.predict(X_new), manual.predict(binarizer.transform(X_new)))
    assert pipe.score(X, y) > 0.9
    # the fitted tree reads naturally through the shared Tree model
    tree = Tree.from_sklearn(
        pipe.named_steps["tree"], feature_names=pipe[:-1].get_feature_names_out(),
        binary_features=True,
    )
    text = tree.to_text()
    assert "if x0 <= " in text and "else:  # x0 > " in text
    np.testing.assert_array_equal(tree.predict(binarizer.transform(X_new)), pipe.predict(X_new))


def test_pipeline_pandas_end_to_end():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    df = pd.DataFrame(
        {
            "age": rng.integers(18, 70, 200),
            "priors": rng.integers(0, 10, 200),
            "male": rng.integers(0, 2, 200),
        }
    )
    y = ((df["age"] < 30) & (df["priors"] > 2)).astype(int)
    pipe = make_pipeline(
        NumericBinarizer(), DecisionTreeClassifier(max_depth=2, random_state=0)
    ).set_output(transform="pandas")
    pipe.fit(df, y)
    # feature names come from the DataFrame columns
    tree = Tree.from_sklearn(pipe[-1], binary_features=True)
    assert tree.feature_names == pipe[0].get_feature_names_out().tolist()
    assert "age <= " in tree.to_text() and "age > " in tree.to_text()
    assert pipe.score(df, y) > 0.9


def test_pickle_and_clone():
    X = np.array([[1.0, 0.0], [2.0, 1.0], [4.0, 1.0]])
    b = NumericBinarizer(max_thresholds=1).fit(X)
    back = pickle.loads(pickle.dumps(b))
    np.testing.assert_array_equal(back.transform(X), b.transform(X))
    assert back.get_feature_names_out().tolist() == b.get_feature_names_out().tolist()
    c = clone(b)
    assert c.get_params() == {"max_thresholds": 1}
    assert not hasattr(c, "thresholds_")


def test_on_shared_compas_dataset(load_dataset):
    pd = pytest.importorskip("pandas")
    X, y, names = load_dataset("compas")
    df = pd.DataFrame(X, columns=names)
    b = NumericBinarizer(max_thresholds=6).fit(df)
    binary_cols = [n for n in names if set(np.unique(df[n])) <= {0.0, 1.0}]
    assert "sex=female" in binary_cols  # sanity of the data assumption
    assert [n for n, p in zip(names, b.passthrough_) if p] == binary_cols
    out = b.set_output(transform="pandas").transform(df)
    assert set(binary_cols) <= set(out.columns)
    assert "age <= " in " ".join(out.columns)
    assert out.shape[1] <= len(binary_cols) + 6 * (len(names) - len(binary_cols))
    np.testing.assert_array_equal(out["sex=female"], df["sex=female"])
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(out, y)
    # every column of the binarizer's output is 0/1: say so, and tests read as yes/no
    text = Tree.from_sklearn(clf, binary_features=True).to_text()
    assert "x[" not in text  # the binarized column names are used
    first = text.splitlines()[0]
    assert first.startswith("if ") and first[3:-1] in set(out.columns)


# --------------------------------------------------------------------------- #
# issue 19: names that are true, original column names through a pipeline
# --------------------------------------------------------------------------- #
def test_names_print_the_exact_threshold():
    """``score <= 0.291667`` would be false for 0.2916668 (the column says x > t)."""
    X = np.array([[0.25], [1 / 3], [0.5]])
    b = NumericBinarizer().fit(X)
    t = b.thresholds_[0][0]
    name = b.get_feature_names_out().tolist()[0]
    text = name.split(" <= ")[1]
    assert float(text) == t
    probe = np.array([[np.nextafter(t, 1.0)], [t], [0.2916668]])
    np.testing.assert_array_equal(b.transform(probe)[:, 0], (probe[:, 0] <= float(text)))


def test_integers_beyond_2_53_are_refused_not_rounded():
    big = np.array([[2**63 - 2], [2**63 - 1], [0]], dtype=np.int64)
    with pytest.raises(ValueError, match="column 0.*2\\*\\*53"):
        NumericBinarizer().fit(big)
    b = NumericBinarizer().fit(np.array([[0], [5]], dtype=np.int64))
    with pytest.raises(ValueError, match="column 0.*2\\*\\*53"):
        b.transform(np.array([[2**53 + 1]], dtype=np.int64))
    # exact integers up to 2**53 are separated exactly
    edge = np.array([[2**53 - 1], [2**53]], dtype=np.int64)
    np.testing.assert_array_equal(NumericBinarizer().fit_transform(edge), [[1], [0]])


def _all_binarizers():
    from treeopt.guess import ThresholdGuessBinarizer
    from treeopt.preprocessing import BinnedOneHotEncoder

    return [
        NumericBinarizer(max_thresholds=3),
        ThresholdGuessBinarizer(n_estimators=10),
        BinnedOneHotEncoder(n_bins=3, random_state=0),
    ]


@pytest.mark.parametrize("binarizer", _all_binarizers(), ids=lambda b: type(b).__name__)
def test_dataframe_in_dataframe_out(binarizer):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {"mean radius": rng.normal(14, 3, 120).round(2), "smoker": rng.integers(0, 2, 120)},
        index=np.arange(120) + 1000,
    )
    y = (df["mean radius"] > 14).astype(int)
    out = clone(binarizer).fit(df, y).transform(df)
    assert isinstance(out, pd.DataFrame)
    assert list(out.index) == list(df.index)
    assert list(out.columns) == binarizer.fit(df, y).get_feature_names_out().tolist()
    assert any(c.startswith("mean radius") for c in out.columns)
    # an explicit choice of output is respected
    arr = clone(binarizer).set_output(transform="default").fit(df, y).transform(df)
    assert isinstance(arr, np.ndarray)
    np.testing.assert_array_equal(arr, out.to_numpy())
    # numpy in, numpy out
    assert isinstance(clone(binarizer).fit(df.to_numpy(), y).transform(df.to_numpy()), np.ndarray)


def test_readme_pipeline_prints_original_column_names():
    """The README pipeline on a DataFrame: rules name the DataFrame's columns."""
    from sklearn.datasets import load_breast_cancer
    from treeopt import GOSDTClassifier

    data = load_breast_cancer(as_frame=True)
    X = data.data[["mean radius", "mean texture", "worst area"]]
    pipe = Pipeline(
        [("bin", NumericBinarizer(max_thresholds=4)),
         ("tree", GOSDTClassifier(regularization=0.02))]
    )
    pipe.fit(X, data.target)
    text = pipe[-1].tree_.to_text()
    assert "x[" not in text
    assert any(f"if {c} <= " in text for c in X.columns), text
    # a yes/no question on a binarizer column "mean radius <= t" is true exactly when
    # the raw value is <= t
    first = text.splitlines()[0][3:-1]
    col, t = first.split(" <= ")
    raw = X[col].to_numpy()
    leaf_left = pipe[-1].tree_.apply(pipe[0].transform(X))
    first_true = pipe[-1].tree_.children_right[0]  # the yes branch of a 0/1 test
    on_true = np.isin(leaf_left, _subtree_nodes(pipe[-1].tree_, first_true))
    np.testing.assert_array_equal(on_true, raw <= float(t))


def _subtree_nodes(tree, node):
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        if tree.children_left[n] != -1:
            stack.extend([tree.children_left[n], tree.children_right[n]])
    return out


def _name_holds(name, df):
    """Evaluate a binarizer column name such as ``a <= 1.5`` or ``0.5 <= a < 2`` on ``df``."""
    import re

    m = re.fullmatch(r"(\S+) <= (.+) < (\S+)", name)
    if m and m.group(2) in df.columns:
        col = df[m.group(2)].to_numpy()
        return (float(m.group(1)) <= col) & (col < float(m.group(3)))
    for op, fn in (("<=", np.less_equal), ("==", np.equal), (">=", np.greater_equal),
                   ("<", np.less)):
        lhs, sep, rhs = name.rpartition(f" {op} ")
        if sep and lhs in df.columns:
            return fn(df[lhs].to_numpy(), float(rhs))
    assert name in df.columns, name
    return df[name].to_numpy() == 1


def _binarizers_with_value_columns():
    from treeopt.preprocessing import BinnedOneHotEncoder

    # n_bins=5 keeps a column of 4 distinct values as "k == v" indicator columns
    return _all_binarizers() + [BinnedOneHotEncoder(n_bins=5, random_state=0)]


@pytest.mark.parametrize(
    "binarizer",
    _binarizers_with_value_columns(),
    ids=["NumericBinarizer", "ThresholdGuessBinarizer", "BinnedOneHotEncoder", "values"],
)
def test_every_output_name_is_true_on_every_row(binarizer):
    """Each output column is 1 exactly where its name, read as a condition, holds."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    df = pd.DataFrame(
        {
            "a": rng.normal(size=150).round(3) / 3,
            "k": rng.choice([1 / 3, 2 / 3, 0.1, 7.0], 150),
            "b": rng.integers(0, 2, 150),
        }
    )
    y = ((df["a"] > 0) ^ (df["k"] > 0.5)).astype(int)
    fitted = clone(binarizer).fit(df, y)
    out = fitted.transform(df)
    probe = df.copy()
    for name in out.columns:  # put rows exactly on every printed number, and next to it
        for tok in name.replace("<", " ").replace("=", " ").replace(">", " ").split():
            try:
                v = float(tok)
            except ValueError:
                continue
            for col in ("a", "k"):
                if name.startswith(col) or f" {col} " in name:
                    extra = df.iloc[:3].copy()
                    extra[col] = [v, np.nextafter(v, np.inf), np.nextafter(v, -np.inf)]
                    probe = pd.concat([probe, extra], ignore_index=True)
    out = fitted.transform(probe)
    for name in out.columns:
        np.testing.assert_array_equal(out[name].to_numpy() == 1, _name_holds(name, probe), name)


def test_midpoints_print_short_when_a_short_number_separates_the_values():
    """15.86/2 + 15.88/2 is 15.870000000000001; 15.87 separates the values as well."""
    X = np.array([[15.86], [15.88], [0.1], [0.2]])
    b = NumericBinarizer().fit(X)
    assert b.get_feature_names_out().tolist() == ["x0 <= 0.15", "x0 <= 8.03", "x0 <= 15.87"]
    t = b.thresholds_[0]
    assert np.all((np.array([0.1, 0.2, 15.86])[:] <= t) & (t < np.array([0.2, 15.86, 15.88])))
    # adjacent floats: no shorter number lies between them, the lower value is kept
    a = 1.0
    nxt = np.nextafter(a, 2.0)
    t = NumericBinarizer().fit(np.array([[a], [nxt]])).thresholds_[0]
    assert t.tolist() == [a]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_quantile_edges_for_scikit_learn_1_6_match_1_7s_averaged_inverted_cdf(seed):
    """scikit-learn 1.6 has no ``quantile_method``: BinnedOneHotEncoder then sets the
    edges itself, and they must be those 1.7+ computes (ties, rounding, narrow bins)."""
    import warnings

    from sklearn.preprocessing import KBinsDiscretizer

    from treeopt.binarize._binned import _set_quantile_edges

    if "quantile_method" not in KBinsDiscretizer().get_params():
        pytest.skip("needs scikit-learn >= 1.7 as the reference")
    rng = np.random.default_rng(seed)
    cols = np.round(rng.normal(size=(int(rng.integers(5, 200)), 3)) * rng.integers(1, 5), rng.integers(0, 3))
    k = int(rng.integers(2, 9))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # narrow bins removed
        want = KBinsDiscretizer(n_bins=k, encode="ordinal", strategy="quantile", quantile_method="averaged_inverted_cdf").fit(cols)
        got = KBinsDiscretizer(n_bins=k, encode="ordinal", strategy="quantile", quantile_method="linear").fit(cols)
    _set_quantile_edges(got, cols, k)
    for a, b in zip(want.bin_edges_, got.bin_edges_):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(want.transform(cols), got.transform(cols))

"""Random small classification problems for the property tests of the optimal
tree solvers (tests/test_gosdt_oracle.py, tests/test_dl85.py).

Hypothesis draws the regularization and a seed; numpy's generator with that seed
builds the problem: size, 0/1 matrix, labels (noise or a noisy function of a few
features), all requested classes present, and sample weights.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck
from hypothesis import strategies as st

__all__ = [
    "LAMBDAS",
    "SEEDS",
    "SETTINGS",
    "WEIGHT_KINDS",
    "ensure_classes",
    "problems",
    "problems_with_duplicates",
    "random_depth",
    "random_function_of_features",
    "random_labels",
    "random_size",
    "random_weights",
]

SETTINGS = dict(
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --------------------------------------------------------------------------- #
# Strategies
# --------------------------------------------------------------------------- #

LAMBDAS = st.one_of(
    st.sampled_from([0.0, 0.001, 0.01, 0.02, 0.05, 0.1]),
    st.floats(min_value=0.0, max_value=0.1, allow_nan=False, allow_infinity=False),
)
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


# Hypothesis draws lambda, the depth-limit kind and a seed; the problem's size,
# its 0/1 matrix, labels and weights come from numpy's generator with that
# seed, with distributions chosen to give non-trivial optimal trees.  (Drawing
# sizes and matrix cells through hypothesis biases them towards tiny and
# all-zero problems whose optimum is a single leaf.)


def and_or_problem(n=300, p=8, seed=0, noise=0.05):
    """0/1 data whose label is (x0 AND x1) OR x2, with a fraction ``noise`` of labels flipped."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, p), dtype=np.uint8)
    y = ((X[:, 0] & X[:, 1]) | X[:, 2]).astype(np.int64)
    y[rng.random(n) < noise] ^= 1
    return X, y


AND_OR_FEATURE_NAMES = ["smoker", "age > 40", "bmi <= 25.5", "has_diabetes", "sex=female",
                        "exercise (weekly)", "x_6", "x_7"]


def fit_dataframe_and_array(make_estimator):
    """Fits ``make_estimator()`` on :func:`and_or_problem` as a pandas DataFrame with the
    columns :data:`AND_OR_FEATURE_NAMES` and as the plain array, and checks what must
    hold for every estimator: the names are kept, the two trees are the same, they
    predict alike and the rules name the columns each split uses. Returns the DataFrame
    fit, the array fit, the DataFrame, y and the internal nodes of the tree."""
    import pandas as pd

    X, y = and_or_problem()
    df = pd.DataFrame(X, columns=AND_OR_FEATURE_NAMES)
    est = make_estimator().fit(df, pd.Series(y, name="label"))
    np.testing.assert_array_equal(est.feature_names_in_, AND_OR_FEATURE_NAMES)
    assert est.n_features_in_ == len(AND_OR_FEATURE_NAMES)
    plain = make_estimator().fit(X, y)
    for name in ("children_left", "children_right", "feature", "threshold", "value"):
        np.testing.assert_array_equal(getattr(est.tree_, name), getattr(plain.tree_, name), err_msg=name)
    np.testing.assert_array_equal(est.predict(df), plain.predict(X))
    text = est.tree_.to_text()
    internal = np.flatnonzero(np.asarray(est.tree_.children_left) >= 0)
    assert len(internal) >= 1
    for node in internal:
        name = AND_OR_FEATURE_NAMES[int(est.tree_.feature[node])]
        assert name in text, f"to_text() should use the column name {name!r}:\n{text}"
    return est, plain, df, y, internal


def assert_pickle_round_trip(est, X):
    """A pickled and unpickled fitted estimator predicts as ``est`` on X, with the same
    tree, classes and certificate."""
    import pickle

    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    assert back.tree_.to_dict() == est.tree_.to_dict()
    for attr in ("objective_", "lower_bound_", "status_", "n_leaves_", "search_stats_", "n_features_in_"):
        assert getattr(back, attr) == getattr(est, attr), attr
    np.testing.assert_array_equal(back.classes_, est.classes_)


def more_than_64_million_cells():
    """1,000,001 x 64 bool (64,000,064 cells, 64 MB): x0 marks every third row and the
    label every second one; the label vector is 1 MB."""
    n, p = 1_000_001, 64
    X = np.zeros((n, p), dtype=bool)
    X[::3, 0] = True
    y = np.zeros(n, dtype=np.uint8)
    y[::2] = 1
    return X, y


def random_labels(rng, X, n_classes, mode):
    """Pure noise, or a random function of 1-3 features (parity-like, needing
    deep trees) with about a fifth of the labels changed."""
    n, m = X.shape
    if mode == "random":
        return rng.integers(0, n_classes, size=n)
    y = random_function_of_features(rng, X, n_classes, max_used=3)
    flip = rng.random(n) < 0.2
    return np.where(flip, (y + rng.integers(1, n_classes, size=n)) % n_classes, y)


def random_function_of_features(rng, X, n_classes, max_used):
    """Labels that are a random function (a lookup table) of 1 to ``max_used``
    random columns of the 0/1 matrix X, before any noise."""
    n, m = X.shape
    used = rng.choice(m, size=int(rng.integers(1, min(max_used, m) + 1)), replace=False)
    table = rng.integers(0, n_classes, size=2 ** len(used))
    codes = np.zeros(n, dtype=np.int64)
    for f in used:
        codes = 2 * codes + X[:, f]
    return table[codes]


def ensure_classes(rng, y, n_classes):
    """Make all n_classes labels (at least 2; the estimator rejects a single
    class) occur, by relabelling a few random rows if some are missing."""
    wanted = min(n_classes, len(y))
    if len(np.unique(y)) < wanted:
        y = y.copy()
        y[rng.choice(len(y), size=wanted, replace=False)] = np.arange(wanted)
    return y


def random_weights(rng, n, kind):
    if kind == "none":
        return None
    if kind == "ones":
        return np.ones(n)
    if kind == "integer":
        return rng.integers(1, 6, size=n).astype(float)
    return rng.uniform(0.05, 10.0, size=n)


WEIGHT_KINDS = {
    "unit": ["none", "ones"],
    "random": ["random", "integer"],
    "mixed": ["none", "ones", "random", "integer"],
}


def random_size(rng, max_rows=30, max_features=7):
    n = int(rng.integers(12, max_rows + 1)) if rng.random() < 0.8 else int(rng.integers(2, 12))
    m = int(rng.integers(3, max_features + 1)) if rng.random() < 0.8 else int(rng.integers(1, 3))
    return n, m


def random_depth(rng, depth):
    if depth == "any":
        depth = "none" if rng.random() < 0.4 else "limited"
    return None if depth == "none" else int(rng.integers(0, 5))


@st.composite
def problems(draw, n_classes=(2, 3), weights="mixed", depth="any", lambdas=LAMBDAS):
    """(X, y, sample_weight, regularization, max_depth).

    depth: "none" (no limit), "limited" (0..4) or "any" (either); lambdas: the
    strategy drawing the regularization."""
    lam = draw(lambdas)
    rng = np.random.default_rng(draw(SEEDS))
    n, m = random_size(rng)
    k = int(rng.choice(n_classes))
    density = rng.choice([0.5, 0.5, 0.3, 0.7, 0.15, 0.85])
    X = (rng.random((n, m)) < density).astype(np.uint8)
    y = ensure_classes(rng, random_labels(rng, X, k, rng.choice(["random", "function"])), k)
    w = random_weights(rng, n, rng.choice(WEIGHT_KINDS[weights]))
    return X, y, w, lam, random_depth(rng, depth)


@st.composite
def problems_with_duplicates(draw):
    """Few distinct feature vectors, each repeated, with conflicting labels."""
    lam = draw(LAMBDAS)
    rng = np.random.default_rng(draw(SEEDS))
    n_distinct = int(rng.integers(1, 9))
    m = int(rng.integers(1, 8))
    k = int(rng.integers(2, 4))
    n = int(rng.integers(n_distinct + 1, 31))  # so at least one vector repeats
    base = rng.integers(0, 2, size=(n_distinct, m), dtype=np.uint8)
    which = np.concatenate([np.arange(n_distinct),
                            rng.integers(0, n_distinct, size=n - n_distinct)])
    rng.shuffle(which)
    X = base[which]
    y = rng.integers(0, k, size=n)
    # Make sure some duplicated feature vector carries two different labels.
    first = {}
    for i, r in enumerate(which):
        if r in first:
            y[i] = (y[first[r]] + 1) % k
            break
        first[r] = i
    w = random_weights(rng, n, rng.choice(WEIGHT_KINDS["mixed"]))
    return X, y, w, lam, random_depth(rng, "any")

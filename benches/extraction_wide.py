#!/usr/bin/env python
"""Extraction against CART across many black boxes, datasets, splits and seeds.

``benches/reproduce_extraction.py`` follows the paper's protocol on its six rows. This
bench asks whether its verdict holds beyond them: for every case (a dataset, a black
box and a number of leaves) and every extractor seed stream, over ``--splits`` random
70/30 train/test splits, it fits

* the black box on the training rows (seeded by the split),
* ``ExtractedTreeClassifier`` / ``ExtractedTreeRegressor`` with its defaults and
  ``max_leaves``, seed ``split + 1000 * stream``,
* scikit-learn's CART (``max_leaf_nodes`` the same) on the black box's labels of the
  training rows, seed ``split``, and the median over five other CART seeds (CART's own
  seed noise: it breaks ties between equally good splits by its seed),

and scores fidelity on the test rows against the black box: F1 (binary), accuracy
(multiclass), MSE (regression). Per case and stream it prints the medians over splits,
the splits where the extractor is better / worse than CART, a one-sided sign-test p-value
and the mean difference; ``BELOW`` marks a median below CART's. The summary counts the
cells below CART and pools the per-split wins and losses.

The first six cases are the paper bench's rows; the others use black boxes, datasets and
leaf counts that no test or other bench of the project uses (``../shared/datasets/numeric/``
and scikit-learn's data; none is downloaded).

Usage::

    python benches/extraction_wide.py [--splits 21] [--streams 0 1 2]
        [--cases bc-forest segment-mlp ...] [--json out.jsonl]

Every fit is single-threaded; the whole default run takes about an hour on one core
(``--cases`` and ``--splits`` cut it down).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import warnings
from math import comb

import numpy as np
from sklearn.datasets import (
    load_breast_cancer,
    load_diabetes,
    load_digits,
    load_iris,
    load_wine,
    make_classification,
    make_friedman1,
)
from sklearn.decomposition import PCA
from sklearn.ensemble import (
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score, mean_squared_error
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from treeopt import ExtractedTreeClassifier, ExtractedTreeRegressor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _numeric_data import load_numeric  # noqa: E402


def _scaled(model):
    return make_pipeline(StandardScaler(), model)


def _mlp(seed):
    return _scaled(MLPClassifier(hidden_layer_sizes=(100,), max_iter=2000, random_state=seed))


#: name -> (dataset, black box of the split's seed, task, leaves)
CASES = {
    # the paper bench's rows
    "bc-forest": ("breast_cancer", lambda s: RandomForestClassifier(random_state=s), "classify", 16),
    "bc-mlp": ("breast_cancer", _mlp, "classify", 16),
    "diabetes-forest": ("diabetes", lambda s: RandomForestRegressor(random_state=s), "regress", 16),
    "wine-forest": (
        "wine", lambda s: RandomForestClassifier(n_estimators=200, random_state=s), "classify", 6
    ),
    "digits-gb": ("digits-pca8", lambda s: GradientBoostingClassifier(random_state=s), "classify", 16),
    "segment-mlp": ("segment", _mlp, "classify", 16),
    # cases of no other bench or test
    "iris-hgb": ("iris", lambda s: HistGradientBoostingClassifier(random_state=s), "classify", 5),
    "wine-knn": ("wine", lambda s: _scaled(KNeighborsClassifier()), "classify", 6),
    "wine-svc": ("wine", lambda s: _scaled(SVC()), "classify", 6),
    "digits12-mlp": ("digits-pca12", _mlp, "classify", 16),
    "digits16-forest": (
        "digits-pca16", lambda s: RandomForestClassifier(n_estimators=100, random_state=s),
        "classify", 16,
    ),
    "digits64-logreg": ("digits", lambda s: _scaled(LogisticRegression(max_iter=3000)), "classify", 16),
    "segment-hgb": ("segment", lambda s: HistGradientBoostingClassifier(random_state=s), "classify", 16),
    "segment-knn": ("segment", lambda s: _scaled(KNeighborsClassifier(5)), "classify", 16),
    "mc3-mlp": ("classification-3", _mlp, "classify", 16),
    "mc6-nb": ("classification-6", lambda s: GaussianNB(), "classify", 16),
    "mc-hgb": ("classification-2", lambda s: HistGradientBoostingClassifier(random_state=s), "classify", 16),
    "bank-knn": ("bank", lambda s: _scaled(KNeighborsClassifier(7)), "classify", 8),
    "rice-knn": ("rice", lambda s: _scaled(KNeighborsClassifier(15)), "classify", 8),
    "raisin-svc": ("raisin", lambda s: _scaled(SVC()), "classify", 8),
    "wilt-svc": ("wilt-2000", lambda s: _scaled(SVC()), "classify", 8),
    "bidding-gb": ("bidding", lambda s: GradientBoostingClassifier(random_state=s), "classify", 8),
    "occupancy-mlp": ("occupancy", _mlp, "classify", 8),
    "magic-hgb": ("magic", lambda s: HistGradientBoostingClassifier(random_state=s), "classify", 16),
    "friedman-hgb": ("friedman", lambda s: HistGradientBoostingRegressor(random_state=s), "regress", 16),
    "diabetes-svr": ("diabetes", lambda s: _scaled(SVR(C=50)), "regress", 16),
}


def load(name):
    """Features and labels of a dataset name of :data:`CASES`."""
    if name == "breast_cancer":
        return load_breast_cancer(return_X_y=True)
    if name == "diabetes":
        return load_diabetes(return_X_y=True)
    if name == "wine":
        return load_wine(return_X_y=True)
    if name == "iris":
        return load_iris(return_X_y=True)
    if name.startswith("digits"):
        X, y = load_digits(return_X_y=True)
        if name.startswith("digits-pca"):
            X = PCA(n_components=int(name[len("digits-pca"):]), random_state=0).fit_transform(X)
        return X, y
    if name == "classification-2":
        return make_classification(600, 10, n_informative=5, n_redundant=3, random_state=7)
    if name == "classification-3":
        return make_classification(
            800, 12, n_informative=6, n_redundant=2, n_classes=3, n_clusters_per_class=2,
            random_state=11,
        )
    if name == "classification-6":
        return make_classification(
            1200, 10, n_informative=6, n_redundant=2, n_classes=6, n_clusters_per_class=1,
            random_state=5,
        )
    if name == "friedman":
        return make_friedman1(600, 8, noise=0.5, random_state=3)
    if name == "wilt-2000":
        X, y, _ = load_numeric("wilt")
        keep = np.random.RandomState(0).permutation(len(y))[:2000]
        return X[keep], y[keep]
    X, y, _ = load_numeric(name)
    return X, y


def score(truth, pred, task, positive):
    """Fidelity: F1 with class ``positive`` (binary), accuracy (multiclass), MSE."""
    if task == "regress":
        return mean_squared_error(truth, pred)
    if positive is not None:
        return f1_score(truth, pred, pos_label=positive)
    return accuracy_score(truth, pred)


def sign_test(wins, losses):
    """One-sided sign-test p-value of ``wins`` against ``losses`` (ties dropped)."""
    n = wins + losses
    return sum(comb(n, k) for k in range(wins, n + 1)) / 2**n if n else 1.0


def run_case(case, splits, stream):
    """Per-split fidelities of the extractor, CART and CART's seed median."""
    dataset, make_blackbox, task, leaves = CASES[case]
    X, y = load(dataset)
    labels = np.unique(y)
    positive = labels[1] if task == "classify" and labels.size == 2 else None
    Cart = DecisionTreeClassifier if task == "classify" else DecisionTreeRegressor
    Extractor = ExtractedTreeClassifier if task == "classify" else ExtractedTreeRegressor
    rec = {"ours": [], "cart": [], "cart_seeds": [], "fit_s": []}
    for split in range(splits):
        Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.3, random_state=split)
        blackbox = make_blackbox(split).fit(Xtr, ytr)
        f_train, f_test = blackbox.predict(Xtr), blackbox.predict(Xte)

        def cart(seed):
            tree = Cart(max_leaf_nodes=leaves, random_state=seed).fit(Xtr, f_train)
            return score(f_test, tree.predict(Xte), task, positive)

        rec["cart"].append(cart(split))
        rec["cart_seeds"].append(statistics.median(cart(split + 7919 * k) for k in range(1, 6)))
        start = time.perf_counter()
        est = Extractor(blackbox, max_leaves=leaves, random_state=split + 1000 * stream).fit(Xtr)
        rec["fit_s"].append(time.perf_counter() - start)
        rec["ours"].append(score(f_test, est.predict(Xte), task, positive))
    return rec, task


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--splits", type=int, default=21)
    parser.add_argument("--streams", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--json", help="append one JSON line per case and stream here")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", category=FutureWarning)

    print(
        f"{'case':<16} {'stream':>6} {'ours':>9} {'CART':>9} {'CART seeds':>10} "
        f"{'W/L':>7} {'p':>6} {'mean diff':>10} {'fit s':>6}"
    )
    below, wins, losses, cells = [], 0, 0, 0
    for case in args.cases:
        for stream in args.streams:
            rec, task = run_case(case, args.splits, stream)
            sign = 1.0 if task == "classify" else -1.0  # higher is better after the sign
            diff = sign * (np.array(rec["ours"]) - np.array(rec["cart"]))
            w, l = int(np.sum(diff > 1e-12)), int(np.sum(diff < -1e-12))
            ours, cart = statistics.median(rec["ours"]), statistics.median(rec["cart"])
            flag = sign * (ours - cart) < 0
            below += [f"{case} stream {stream}"] if flag else []
            wins, losses, cells = wins + w, losses + l, cells + 1
            print(
                f"{case:<16} {stream:>6} {ours:>9.4f} {cart:>9.4f} "
                f"{statistics.median(rec['cart_seeds']):>10.4f} {f'{w}/{l}':>7} "
                f"{sign_test(w, l):>6.3f} {diff.mean():>+10.4f} "
                f"{statistics.median(rec['fit_s']):>6.2f}{'  BELOW' if flag else ''}",
                flush=True,
            )
            if args.json:
                with open(args.json, "a") as out:
                    out.write(json.dumps({"case": case, "stream": stream, **rec}) + "\n")
    print(
        f"\n{cells - len(below)}/{cells} case-stream cells with the extractor's median "
        f"fidelity at least CART's; below: {', '.join(below) or 'none'}"
    )
    print(
        f"splits better / worse than CART, all cells: {wins}/{losses} "
        f"(sign test p = {sign_test(wins, losses):.2g})"
    )


if __name__ == "__main__":
    main()

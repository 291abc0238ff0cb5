"""Time and test accuracy of the README's Quick start routes on typical tables.

Each fit runs in its own fresh Python process (imports and first call included, as a
user runs it) on a stratified 75/25 train/test split, for several splits:

* ``quickstart`` -- ``OptimalTreeClassifier()`` on the raw columns (the README's Quick
  start);
* ``pipeline``   -- the README's pipeline, ``NumericBinarizer(max_thresholds=4)`` then
  ``GOSDTClassifier(regularization=0.001, max_depth=3)``;
* ``cart``       -- scikit-learn's ``DecisionTreeClassifier(max_depth=3)``, for reference.

Datasets: scikit-learn's breast cancer, ``compas.csv`` and ``fico.csv`` (the issue's
three), and, so that the defaults are not tuned to those, ``broward_general_2y.csv`` and
the numeric UCI sets of ``../shared/datasets/numeric`` (multiclass ``segment`` included).

    python benches/quickstart.py                 # every dataset, 3 splits
    python benches/quickstart.py --splits 5 --datasets fico compas
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

DATASETS = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"
DEFAULT = ["breast_cancer", "compas", "fico", "broward_general_2y", "numeric/segment", "numeric/magic", "numeric/rice"]

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import pandas as pd
from sklearn.model_selection import train_test_split
route, name, seed, root = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
if name == "breast_cancer":
    from sklearn.datasets import load_breast_cancer
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
else:
    df = pd.read_csv(f"{root}/{name}.csv")
    X, y = df.iloc[:, :-1], df.iloc[:, -1]
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=seed, stratify=y)
t1 = time.perf_counter()
if route == "quickstart":
    from treeopt import OptimalTreeClassifier
    model = OptimalTreeClassifier().fit(Xtr, ytr)
    status, leaves = model.status_, model.tree_.n_leaves
elif route == "pipeline":
    from sklearn.pipeline import Pipeline
    from treeopt import GOSDTClassifier, NumericBinarizer
    model = Pipeline([("bin", NumericBinarizer(max_thresholds=4)),
                      ("tree", GOSDTClassifier(regularization=0.001, max_depth=3))]).fit(Xtr, ytr)
    status, leaves = model[-1].status_, model[-1].tree_.n_leaves
else:
    from sklearn.tree import DecisionTreeClassifier
    model = DecisionTreeClassifier(max_depth=3, random_state=0).fit(Xtr, ytr)
    status, leaves = "greedy", int(model.get_n_leaves())
t2 = time.perf_counter()
print(json.dumps({"fit_s": t2 - t1, "total_s": t2 - t0, "acc": model.score(Xte, yte),
                  "status": status, "leaves": leaves}))
"""


def run(route, name, seed, timeout):
    start = time.perf_counter()
    try:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, route, name, str(seed), str(DATASETS)],
            capture_output=True, text=True, timeout=timeout, check=True,
        )
    except subprocess.TimeoutExpired:
        return {"fit_s": float("nan"), "total_s": time.perf_counter() - start, "acc": float("nan"),
                "status": f"> {timeout} s", "leaves": 0}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=DEFAULT)
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    routes = ["quickstart", "pipeline", "cart"]
    print("| dataset | route | total s (max) | fit s (mean) | test accuracy (mean) | leaves | statuses |")
    print("|---|---|---|---|---|---|---|")
    for name in args.datasets:
        for route in routes:
            rows = [run(route, name, seed, args.timeout) for seed in range(args.splits)]
            acc = statistics.mean(r["acc"] for r in rows)
            print(
                f"| {name} | {route} | {max(r['total_s'] for r in rows):.2f} | "
                f"{statistics.mean(r['fit_s'] for r in rows):.2f} | {acc:.4f} | "
                f"{statistics.mean(r['leaves'] for r in rows):.1f} | "
                f"{', '.join(sorted({r['status'] for r in rows}))} |",
                flush=True,
            )


if __name__ == "__main__":
    main()

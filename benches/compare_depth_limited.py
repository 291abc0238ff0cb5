"""Depth-limited optimal trees: treeopt's DL85Classifier against pydl8.5 0.1.8 and
pystreed 1.4.0, in one process, on the same 0/1 matrices.

For every dataset and depth (accuracy objective, minimum leaf support 1) it prints the
training errors of the three solvers, their fit times (best of ``--repeat`` interleaved
runs, so a busy machine penalises all three alike) and the ratio of treeopt's time to the
faster peer's. The peers are bench-only dependencies: ``pip install pydl8.5==0.1.8
pystreed==1.4.0``.

    python benches/compare_depth_limited.py [--datasets NAME ...] [--depths 3 4 5 6]
                                            [--repeat 3] [--time-limit 600] [--json out.json]
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gosdt_peer import load_dataset  # noqa: E402  (shared dataset loader of the benches)

import treeopt  # noqa: E402

DATASETS = ["compas_binary", "fico_binary", "tic-tac-toe", "car_evaluation", "monk2"]
DEPTHS = [3, 4, 5, 6]


def fit_treeopt(X, y, depth, time_limit):
    """Training errors and status of treeopt's DL8.5."""
    est = treeopt.DL85Classifier(max_depth=depth, time_limit=time_limit).fit(X, y)
    return int((est.predict(X) != y).sum()), est.status_


def fit_pydl85(X, y, depth, time_limit):
    """Training errors and status of pydl8.5 (its own reported error when it has one)."""
    from pydl85 import DL85Classifier

    est = DL85Classifier(max_depth=depth, min_sup=1, time_limit=time_limit).fit(X, y)
    errors = int((est.predict(X) != y).sum())
    return errors, "timeout" if getattr(est, "timeout_", False) else "optimal"


def fit_pystreed(X, y, depth, time_limit):
    """Training errors and status of STreeD on the accuracy objective (no leaf penalty)."""
    from pystreed import STreeDClassifier

    est = STreeDClassifier(max_depth=depth, cost_complexity=0.0, time_limit=time_limit).fit(X, y)
    return int((est.predict(X) != y).sum()), "optimal"


SOLVERS = {"treeopt": fit_treeopt, "pydl85": fit_pydl85, "pystreed": fit_pystreed}


def measure(X, y, depth, repeat, time_limit):
    """Best-of-`repeat` fit time and the result of each solver, runs interleaved."""
    best = {name: float("inf") for name in SOLVERS}
    result = {}
    for _ in range(repeat):
        for name, fit in SOLVERS.items():
            start = time.perf_counter()
            result[name] = fit(X, y, depth, time_limit)
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: {"seconds": best[name], "errors": result[name][0], "status": result[name][1]} for name in SOLVERS}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--depths", nargs="+", type=int, default=DEPTHS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--json", help="write the rows to this file")
    args = parser.parse_args(argv)

    rows = []
    header = f"{'instance':<20} {'err treeopt':>11} {'pydl85':>7} {'streed':>7}   {'t treeopt':>9} {'t pydl85':>9} {'t streed':>9}  {'ratio':>6}"
    print(header)
    for name in args.datasets:
        X, y = load_dataset(name)
        X = np.ascontiguousarray(X, dtype=np.int32)
        for depth in args.depths:
            res = measure(X, y, depth, args.repeat, args.time_limit)
            peer = min(res["pydl85"]["seconds"], res["pystreed"]["seconds"])
            ratio = res["treeopt"]["seconds"] / peer
            row = {"dataset": name, "depth": depth, "ratio_vs_faster_peer": ratio, **res}
            rows.append(row)
            print(
                f"{name + ' d' + str(depth):<20} {res['treeopt']['errors']:>11} {res['pydl85']['errors']:>7} "
                f"{res['pystreed']['errors']:>7}   {res['treeopt']['seconds']:>9.4f} {res['pydl85']['seconds']:>9.4f} "
                f"{res['pystreed']['seconds']:>9.4f}  {ratio:>6.2f}",
                flush=True,
            )

    same = [r for r in rows if r["treeopt"]["errors"] == r["pydl85"]["errors"] == r["pystreed"]["errors"]]
    below = [r for r in rows if r["treeopt"]["errors"] < min(r["pydl85"]["errors"], r["pystreed"]["errors"])]
    worse = [r for r in rows if r["treeopt"]["errors"] > min(r["pydl85"]["errors"], r["pystreed"]["errors"])]
    deep = [r for r in rows if r["depth"] >= 4]
    shallow = [r for r in rows if r["depth"] < 4]
    print()
    print(f"same training error as both peers: {len(same)}/{len(rows)}")
    for r in rows:
        if r not in same:
            print(
                f"  {r['dataset']} d{r['depth']}: treeopt {r['treeopt']['errors']}, pydl85 {r['pydl85']['errors']}, "
                f"pystreed {r['pystreed']['errors']}"
            )
    print(f"treeopt fewer errors than the better peer: {len(below)}; more errors: {len(worse)}")
    if deep:
        slow = [r for r in deep if r["ratio_vs_faster_peer"] >= 1.0]
        print(f"depth >= 4: faster than the faster peer on {len(deep) - len(slow)}/{len(deep)} "
              f"(max ratio {max(r['ratio_vs_faster_peer'] for r in deep):.2f})")
    if shallow:
        print(f"depth 3: max ratio to the faster peer {max(r['ratio_vs_faster_peer'] for r in shallow):.2f} (limit 1.5)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

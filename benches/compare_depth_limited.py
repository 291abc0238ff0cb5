"""Depth-limited optimal trees: treeopt's DL85Classifier against pydl8.5 0.1.8 and
pystreed 1.4.0, in one process, on the same 0/1 matrices.

For every dataset and depth (accuracy objective, minimum leaf support 1) it prints the
training errors of the three solvers, their fit times (best of ``--repeat`` interleaved
runs, so a busy machine penalises all three alike) and the ratio of treeopt's time to the
faster peer's; beside it the same ratio of processor times (``time.process_time``, best of
the same runs: all three fit on one thread, so on a machine shared with other work this
ratio is the steadier one). The peers are bench-only dependencies: ``pip install pydl8.5==0.1.8
pystreed==1.4.0``.

``--wide`` runs the many-column instances of issue 12 instead (50-500 0/1 columns, depths 4
and 5 unless ``--depths`` is given): ``coupon_carryout``, ``coupon_rest20`` and the raw
numeric sets quantile-binarized, named ``<set>_q<k>``: column ``x_j <= t`` for the distinct
interior k-quantiles t of every column (``benches/_numeric_data.py``; plain numpy, so all
three solvers get the same matrix). Any ``<set>_q<k>`` can also be named in ``--datasets``.
A status other than optimal marks the error with ``*`` (then the ratio is no race);
``--repeat-under S`` repeats only fits faster than S seconds (long fits run once);
``--skip-pydl85`` leaves pydl8.5 out (on the wide instances at depth 5 it reaches the time
limit where STreeD does not, so the faster peer is STreeD; the ratio is then to STreeD).

    python benches/compare_depth_limited.py [--datasets NAME ...] [--wide] [--depths 3 4 5 6]
                                            [--repeat 3] [--repeat-under S]
                                            [--time-limit 600] [--skip-pydl85] [--json out.json]
"""

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import save_json  # noqa: E402  (the harnesses' JSON output)
from _gosdt_peer import load_dataset  # noqa: E402  (shared dataset loader of the benches)
from _numeric_data import load_numeric, quantile_binarize  # noqa: E402

import treeopt  # noqa: E402

DATASETS = ["compas_binary", "fico_binary", "tic-tac-toe", "car_evaluation", "monk2"]
DEPTHS = [3, 4, 5, 6]
# Issue 12: 50-500 0/1 columns (column counts after quantile binarization in brackets).
WIDE_DATASETS = [
    "coupon_carryout", "coupon_rest20",  # 2280 / 2653 rows, 87 one-hot columns
    "segment_q3", "segment_q5", "segment_q10",  # 2310 rows, 7 classes [50, 82, 163]
    "magic_q5", "magic_q10",  # 19020 rows [50, 100]
    "bidding_q10", "raisin_q10", "rice_q10", "wilt_q10",  # [60, 70, 70, 50]
    "fico_q3", "fico_q5", "fico_q10",  # 10459 rows [62, 88, 158]
    "broward_general_2y_q3", "broward_general_2y_q5", "broward_general_2y_q10",  # [63, 84, 125]
    "breast_cancer_q3", "breast_cancer_q5", "breast_cancer_q10",  # 569 rows [90, 150, 300]
]
WIDE_DEPTHS = [4, 5]


def load_instance(name):
    """0/1 X (int32) and labels of a 0/1 dataset or a quantile-binarized ``<set>_q<k>``."""
    match = re.fullmatch(r"(.+)_q(\d+)", name)
    if match:
        X, y, _ = load_numeric(match.group(1))
        X, _ = quantile_binarize(X, int(match.group(2)))
    else:
        X, y = load_dataset(name)
    return np.ascontiguousarray(X, dtype=np.int32), y


def fit_treeopt(X, y, depth, time_limit):
    """Training errors and status of treeopt's DL8.5."""
    est = treeopt.DL85Classifier(max_depth=depth, time_limit=time_limit).fit(X, y)
    return int((est.predict(X) != y).sum()), est.status_, est.lower_bound_


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
    return int((est.predict(X) != y).sum()), "optimal" if est.fit_result.is_optimal() else "timeout"


SOLVERS = {"treeopt": fit_treeopt, "pydl85": fit_pydl85, "pystreed": fit_pystreed}


def measure(X, y, depth, repeat, time_limit, repeat_under=None, solvers=tuple(SOLVERS)):
    """Best-of-`repeat` fit time and the result of each of `solvers`, runs interleaved;
    with `repeat_under`, a solver whose fit took that long or longer is not run again.
    A solver left out reports no time and no errors (status ``skipped``)."""
    best = {name: float("inf") for name in SOLVERS}
    best_cpu = dict(best)
    result = {name: (None, "skipped") for name in SOLVERS}
    for round_ in range(repeat):
        for name, fit in SOLVERS.items():
            if name not in solvers:
                continue
            if round_ > 0 and repeat_under is not None and best[name] >= repeat_under:
                continue
            start, start_cpu = time.perf_counter(), time.process_time()
            result[name] = fit(X, y, depth, time_limit)
            best[name] = min(best[name], time.perf_counter() - start)
            best_cpu[name] = min(best_cpu[name], time.process_time() - start_cpu)
    out = {name: {"seconds": best[name], "cpu_seconds": best_cpu[name], "errors": result[name][0], "status": result[name][1]}
           for name in SOLVERS}
    if "treeopt" in solvers:
        out["treeopt"]["lower_bound"] = result["treeopt"][2]
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=None, help="default: " + " ".join(DATASETS))
    parser.add_argument("--wide", action="store_true",
                        help="the 50-500 column instances: " + " ".join(WIDE_DATASETS))
    parser.add_argument("--depths", nargs="+", type=int, default=None,
                        help=f"default: {DEPTHS}, with --wide {WIDE_DEPTHS}")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repeat-under", type=float, default=None,
                        help="repeat only fits faster than this many seconds")
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--skip-pydl85", action="store_true", help="leave pydl8.5 out (ratios to STreeD)")
    parser.add_argument("--json", help="write the rows to this file")
    args = parser.parse_args(argv)
    datasets = args.datasets or (WIDE_DATASETS if args.wide else DATASETS)
    depths = args.depths or (WIDE_DEPTHS if args.wide else DEPTHS)

    solvers = [s for s in SOLVERS if not (args.skip_pydl85 and s == "pydl85")]
    peers = [s for s in solvers if s != "treeopt"]

    def err(r):
        if r["status"] == "skipped":
            return "-"
        return f"{r['errors']}{'' if r['status'] == 'optimal' else '*'}"

    width = max([20] + [len(n) + 4 for n in datasets])
    rows = []
    header = f"{'instance':<{width}} {'err treeopt':>11} {'pydl85':>7} {'streed':>7}   {'t treeopt':>9} {'t pydl85':>9} {'t streed':>9}  {'ratio':>6} {'cpu':>5}"
    if args.wide:
        header += f"  {'cols':>4} {'rows':>6}"
    print(header)
    for name in datasets:
        X, y = load_instance(name)
        for depth in depths:
            res = measure(X, y, depth, args.repeat, args.time_limit, args.repeat_under, solvers)
            peer = min(res[p]["seconds"] for p in peers)
            ratio = res["treeopt"]["seconds"] / peer
            cpu_ratio = res["treeopt"]["cpu_seconds"] / min(res[p]["cpu_seconds"] for p in peers)
            row = {"dataset": name, "depth": depth, "columns": int(X.shape[1]), "rows": int(X.shape[0]),
                   "ratio_vs_faster_peer": ratio, "cpu_ratio_vs_faster_peer": cpu_ratio, **res}
            rows.append(row)
            line = (
                f"{name + ' d' + str(depth):<{width}} {err(res['treeopt']):>11} {err(res['pydl85']):>7} "
                f"{err(res['pystreed']):>7}   {res['treeopt']['seconds']:>9.4f} {res['pydl85']['seconds']:>9.4f} "
                f"{res['pystreed']['seconds']:>9.4f}  {ratio:>6.2f} {cpu_ratio:>5.2f}"
            )
            if args.wide:
                line += f"  {X.shape[1]:>4} {X.shape[0]:>6}"
            print(line, flush=True)

    same = [r for r in rows if all(r["treeopt"]["errors"] == r[p]["errors"] for p in peers)]
    below = [r for r in rows if r["treeopt"]["errors"] < min(r[p]["errors"] for p in peers)]
    worse = [r for r in rows if r["treeopt"]["errors"] > min(r[p]["errors"] for p in peers)]
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
    unproved = [r for r in rows if any(r[s]["status"] != "optimal" for s in solvers)]
    if unproved:
        print("no proof of optimality (time limit; where treeopt stopped, its ratio is a lower bound):")
        for r in unproved:
            stopped = ", ".join(s for s in solvers if r[s]["status"] != "optimal")
            print(f"  {r['dataset']} d{r['depth']}: {stopped} (treeopt's lower bound {r['treeopt']['lower_bound']:g})")
    if deep:
        # a treeopt fit that hit the time limit is not a win, whatever the peers did
        slow = [r for r in deep if r["ratio_vs_faster_peer"] >= 1.0 or r["treeopt"]["status"] != "optimal"]
        print(f"depth >= 4: faster than the faster peer on {len(deep) - len(slow)}/{len(deep)} "
              f"(max ratio {max(r['ratio_vs_faster_peer'] for r in deep):.2f})")
    if shallow:
        print(f"depth 3: max ratio to the faster peer {max(r['ratio_vs_faster_peer'] for r in shallow):.2f} (limit 1.5)")
    save_json(args.json, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Optimal regression trees: treeopt's GOSDTRegressor against osrt 0.2.2 (OSRT, Zhang
et al. 2023) and pystreed 1.4.0 (STreeDRegressor), on the same 0/1 matrices.

Instances: the binarized OSRT sets of ``../shared/datasets/regression/*.csv`` (target
last) and scikit-learn's diabetes quantile-binarized (``diabetes_q4``: ``x_j <= t`` for
the interior quartiles of every column), at depths 3-5 and two penalties λ each.
``--datasets raisin:0 ...`` runs held-out instances instead (``NAME:COL``: column
``COL`` of a numeric set as the target, see ``load``). Every solver minimises the same
objective,

    weighted MSE / variance of y + λ x leaves

(osrt's ``regularization`` per leaf with ``depth_budget = depth + 1``; STreeD's
``cost_complexity`` per branching node, which is the same objective less λ), and the
harness recomputes each tree's objective under that definition from the solver's
predictions on the training rows and its leaf count.

Each fit runs in a fresh worker process (``--worker``), which imports the solver, times
the public call as a user makes it (the first call, so one-time costs count) and reads
its peak resident memory (VmHWM reset before the fit; the peak minus the resident size
before it is the fit's own memory). Fits faster than ``--repeat-under`` seconds are run
``--repeat`` times, interleaved across the solvers, and keep their best time (so a busy
machine penalises all alike). The table prints the objectives (``*``: not proven
optimal within the time limit), the times, treeopt's time over the faster peer's and
each process's peak memory / the fit's own share (MiB); the summary gives the median
ratio and whether treeopt's objective is at most each peer's on every instance. Peers are bench-only dependencies:
``pip install osrt==0.2.2 pystreed==1.4.0``.

    python benches/compare_regression.py [--datasets NAME ...] [--depths 3 4 5]
                                         [--lambdas 0.01 0.002] [--time-limit 300]
                                         [--repeat 3] [--repeat-under 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import save_json  # noqa: E402  (the harnesses' JSON output)
from _numeric_data import DATASETS_DIR, NUMERIC_DIR, current_rss_kib, peak_rss_kib, quantile_binarize, reset_peak_rss  # noqa: E402

REGRESSION_DIR = DATASETS_DIR / "regression"
SOLVERS = ("treeopt", "osrt", "streed")
DEPTHS = [3, 4, 5]
LAMBDAS = [0.01, 0.002]
TOL = 1e-7


def dataset_names():
    """The regression sets: every CSV of the shared folder, then binarized diabetes."""
    return sorted(p.stem for p in REGRESSION_DIR.glob("*.csv")) + ["diabetes_q4"]


def load(name):
    """0/1 X (uint8) and float targets of a regression set. ``NAME:COL`` is a held-out
    instance: column ``COL`` of the numeric set ``NAME`` (``../shared/datasets/numeric``,
    its label column dropped) as the target, the other columns quartile-binarized as
    diabetes is."""
    if ":" in name:
        base, col = name.split(":")
        X = np.loadtxt(NUMERIC_DIR / f"{base}.csv", delimiter=",", skiprows=1, ndmin=2)[:, :-1]
        y = X[:, int(col)].copy()
        X, _ = quantile_binarize(np.delete(X, int(col), axis=1), 4)
        return X, y
    if name == "diabetes_q4":
        from sklearn.datasets import load_diabetes

        X, y = load_diabetes(return_X_y=True)
        X, _ = quantile_binarize(X, 4)
        return X, y.astype(np.float64)
    data = np.loadtxt(REGRESSION_DIR / f"{name}.csv", delimiter=",", skiprows=1)
    X, y = data[:, :-1], data[:, -1]
    if not np.all((X == 0) | (X == 1)):
        raise ValueError(f"{name}: features are not all 0/1")
    return np.ascontiguousarray(X, dtype=np.uint8), y


def objective(y, pred, leaves, lam):
    """treeopt's objective of a tree from its training predictions and leaf count."""
    return float(np.mean((y - pred) ** 2) / np.var(y)) + lam * leaves


# --------------------------------------------------------------------------- #
# one fit per worker process
# --------------------------------------------------------------------------- #


def _make(solver, depth, lam, time_limit):
    """The estimator a user would build, and how it reports (leaves, proven optimal)."""
    if solver == "treeopt":
        from treeopt import GOSDTRegressor

        est = GOSDTRegressor(regularization=lam, max_depth=depth, time_limit=time_limit)
        return est, lambda X: est.predict(X), lambda: (est.n_leaves_, est.status_ == "optimal")
    if solver == "streed":
        from pystreed import STreeDRegressor

        est = STreeDRegressor(max_depth=depth, cost_complexity=lam, time_limit=time_limit)

        def report():
            optimal = getattr(est, "is_optimal", None)
            optimal = optimal() if callable(optimal) else optimal
            return est.get_n_leaves(), bool(optimal) if optimal is not None else None

        return est, lambda X: est.predict(X), report
    if solver == "osrt":
        import pandas as pd
        from osrt import OSRT

        est = OSRT({"regularization": lam, "depth_budget": depth + 1, "time_limit": time_limit, "verbose": False})
        return est, lambda X: est.predict(pd.DataFrame(X)), lambda: (est.tree.leaves(), not est.timeout)
    raise ValueError(solver)


def worker(solver, name, depth, lam, time_limit):
    """Fits once and prints one JSON line (after a marker: osrt prints to stdout too)."""
    X, y = load(name)
    est, predict, report = _make(solver, depth, lam, time_limit)
    Xfit = X
    if solver == "osrt":
        import pandas as pd

        Xfit = pd.DataFrame(X)
    reset_peak_rss()
    before = current_rss_kib()
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet):
        start = time.perf_counter()
        est.fit(Xfit, y)
        seconds = time.perf_counter() - start
    peak = peak_rss_kib()
    with contextlib.redirect_stdout(quiet):
        pred = np.asarray(predict(X), dtype=np.float64).ravel()
    leaves, optimal = report()
    out = {
        "seconds": seconds,
        "objective": objective(y, pred, leaves, lam),
        "leaves": int(leaves),
        "optimal": optimal,
        "peak_mib": None if peak is None else peak / 1024,
        "fit_mib": None if peak is None or before is None else (peak - before) / 1024,
    }
    if solver == "treeopt":
        out["reported"] = float(est.objective_)
    sys.stdout.flush()
    print("@@RESULT " + json.dumps(out), flush=True)


def run(solver, name, depth, lam, time_limit):
    """One fit in a fresh process: its result dict (or the error's last line)."""
    cmd = [sys.executable, __file__, "--worker", solver, name, str(depth), repr(lam), str(time_limit)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=time_limit * 3 + 120)
    for line in proc.stdout.splitlines():
        if line.startswith("@@RESULT "):
            return json.loads(line[len("@@RESULT "):])
    tail = (proc.stderr or proc.stdout).strip().splitlines()
    return {"error": tail[-1] if tail else f"exit {proc.returncode}"}


# --------------------------------------------------------------------------- #
# the table
# --------------------------------------------------------------------------- #


def _obj(r):
    if "error" in r:
        return "error"
    return f"{r['objective']:.6f}" + ("" if r["optimal"] is not False else "*")


def _mib(r):
    """Peak memory of the fit's process / the fit's own share, MiB."""
    if r.get("peak_mib") is None:
        return "-"
    return f"{r['peak_mib']:.0f}/{r['fit_mib']:.1f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", nargs="+", default=None)
    ap.add_argument("--depths", nargs="+", type=int, default=DEPTHS)
    ap.add_argument("--lambdas", nargs="+", type=float, default=LAMBDAS)
    ap.add_argument("--solvers", nargs="+", default=list(SOLVERS), choices=SOLVERS)
    ap.add_argument("--time-limit", type=float, default=300.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--repeat-under", type=float, default=2.0)
    ap.add_argument("--json", default=None)
    ap.add_argument("--worker", nargs=5, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        solver, name, depth, lam, limit = args.worker
        worker(solver, name, int(depth), float(lam), float(limit))
        return
    names = args.datasets or dataset_names()
    rows, ratios, worse = [], [], []
    header = f"{'dataset':<14}{'d':>2}{'lambda':>8}  " + "".join(f"{s + ' obj':>14}" for s in args.solvers)
    header += "".join(f"{s + ' s':>11}" for s in args.solvers) + f"{'ratio':>8}" + "".join(f"{s + ' MiB':>16}" for s in args.solvers)
    print(header, flush=True)
    for name in names:
        for depth in args.depths:
            for lam in args.lambdas:
                res = {s: run(s, name, depth, lam, args.time_limit) for s in args.solvers}
                for _ in range(args.repeat - 1):
                    for s in args.solvers:
                        r = res[s]
                        if "error" not in r and r["seconds"] < args.repeat_under:
                            again = run(s, name, depth, lam, args.time_limit)
                            r["seconds"] = min(r["seconds"], again.get("seconds", float("inf")))
                ok = {s: r for s, r in res.items() if "error" not in r}
                peers = [s for s in ok if s != "treeopt"]
                ratio = None
                if "treeopt" in ok and peers:
                    ratio = ok["treeopt"]["seconds"] / min(ok[s]["seconds"] for s in peers)
                    ratios.append(ratio)
                    for s in peers:
                        if ok["treeopt"]["objective"] > ok[s]["objective"] + TOL:
                            worse.append((name, depth, lam, s, ok["treeopt"]["objective"], ok[s]["objective"]))
                line = f"{name:<14}{depth:>2}{lam:>8g}  " + "".join(f"{_obj(res[s]):>14}" for s in args.solvers)
                line += "".join(f"{res[s].get('seconds', float('nan')):>11.3f}" for s in args.solvers)
                line += f"{ratio:>8.2f}" if ratio is not None else f"{'-':>8}"
                line += "".join(f"{_mib(res[s]):>16}" for s in args.solvers)
                print(line, flush=True)
                for s, r in res.items():
                    if "error" in r:
                        print(f"    {s}: {r['error']}", flush=True)
                rows.append({"dataset": name, "depth": depth, "lambda": lam, "ratio": ratio, **res})
    if ratios:
        print(
            f"\nmedian time ratio treeopt / faster peer: {statistics.median(ratios):.3f} "
            f"(max {max(ratios):.3f}, {sum(r <= 1.0 for r in ratios)}/{len(ratios)} instances <= 1.0)"
        )
    print("treeopt objective <= every peer's on every instance" if not worse else f"treeopt worse on: {worse}")
    save_json(args.json, rows)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()

#!/usr/bin/env python
"""Reproduce Tables 4 and 6 of McTavish et al. (2022): the value of threshold and
lower-bound guessing for GOSDT at depth 5, treeopt and gosdt 1.0.4 side by side.

For every dataset (with the paper's λ: COMPAS 0.001, FICO 0.0005, Broward 0.005,
Restaurant = coupon_rest20 0.001, Takeaway = coupon_carryout 0.001) and 5-fold
cross-validation, each training fold is solved three ways at depth 5:

* ``none``  -- no threshold guess: every midpoint threshold
  (``treeopt.NumericBinarizer`` on the whole column; the coupon data are
  already one-hot 0/1 and pass through);
* ``th``    -- threshold guess: ``treeopt.ThresholdGuessBinarizer`` (§4.1 column
  elimination) with a reference GBDT of 40 stumps or 30 depth-2 trees
  (learning rate 0.1);
* ``th+lb`` -- threshold guess plus lower-bound guess: ``y_ref`` = the reference
  ensemble (refitted on the kept thresholds) predicting the training rows.

Both solvers get exactly the same 0/1 matrices, labels and ``y_ref``.  Every fit
runs in its own forked child with a time limit (the solver's own, plus a kill
after a grace period) and an address-space cap, so a run that exhausts either is
reported as ``time_limit`` / ``memory_out`` -- the paper's "algorithm timeout" /
"memory out".  Training time is the wall time of the solver's ``fit`` only (fits
under 1 s are repeated and the best of 3 counts, for both solvers); the
reference ensemble's fit (GBDT + column elimination) is reported separately.
Accuracies are means ± standard deviations over the folds, as in the paper.

A full-data section fits every dataset once more with the 40-stump guesses (the
setting where gosdt 1.0.4 ends NON_CONVERGENCE on Broward) and prints both
solvers' status, bounds and objective.

Usage::

    python benches/reproduce_guessing.py [--datasets NAME ...] [--folds 5]
        [--references 40,1 30,2] [--time-limit 60] [--baseline-time-limit 30]
        [--memory-cap-gib 4] [--solvers treeopt gosdt] [--no-baseline] [--json out.json]

The summary at the end checks the acceptance criteria of issue 3:
FICO (40 stumps): th+lb >= 10x faster than th with training accuracy within 1
point; treeopt faster than gosdt with the same guesses on every dataset; Broward
with guesses: treeopt's status consistent and lower_bound_ <= objective_.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _gosdt_peer as peer  # noqa: E402

DEPTH = 5
#: λ per dataset (paper, Tables 4 and 6 / Table 3).
LAMBDAS = {
    "compas": 0.001,
    "fico": 0.0005,
    "broward_general_2y": 0.005,
    "coupon_rest20": 0.001,     # "Restaurant"
    "coupon_carryout": 0.001,   # "Takeaway"
}
REFERENCES = [(40, 1), (30, 2)]
SOLVERS = ("treeopt", "gosdt")
METHODS = ("none", "th", "th+lb")
KILL_GRACE_S = 15.0
#: Fits faster than REPEAT_BELOW_S seconds are repeated, REPEATS in all; the minimum counts.
REPEAT_BELOW_S = 1.0
REPEATS = 3
TOL = 1e-9


# --------------------------------------------------------------------------- #
# Data
# --------------------------------------------------------------------------- #


def load_raw(name: str) -> Tuple[np.ndarray, np.ndarray]:
    """``<name>.csv`` from ../shared/datasets: float X (raw) and int y."""
    path = peer.DATASETS_DIR / f"{name}.csv"
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return data[:, :-1], data[:, -1].astype(np.int64)


def folds(y: np.ndarray, k: int):
    from sklearn.model_selection import StratifiedKFold

    return list(StratifiedKFold(n_splits=k, shuffle=True, random_state=0).split(
        np.zeros(len(y)), y))


# --------------------------------------------------------------------------- #
# One solver run
# --------------------------------------------------------------------------- #


def solve(solver: str, Xb, y, Xb_test, y_test, lam: float, time_limit: float,
          memory_cap: int, y_ref=None) -> Dict[str, Any]:
    """Run one solver in a forked child; returns a flat record."""

    def job():
        kwargs = dict(y_ref=y_ref, X_test=Xb_test)
        if solver == "treeopt":
            # treeopt's own store limit, a little below the child's memory cap
            kwargs["memory_limit"] = int(memory_cap * 0.8)
        rec = peer.RUNNERS[solver](Xb, y, lam, DEPTH, time_limit=time_limit, **kwargs)
        rec["test_accuracy"] = float(np.mean(rec.pop("test_predictions") == y_test))
        # Short fits are timed best-of-REPEATS (timeit-style), for both solvers alike:
        # on a shared machine other processes only ever add time to a run.
        rec["repeats"] = 1
        while rec["seconds"] < REPEAT_BELOW_S and rec["repeats"] < REPEATS:
            again = peer.RUNNERS[solver](Xb, y, lam, DEPTH, time_limit=time_limit, **kwargs)
            if abs(again["objective"] - rec["objective"]) > TOL:
                raise RuntimeError(f"{solver}: a repeated fit gave another objective "
                                   f"({again['objective']} vs {rec['objective']})")
            rec["seconds"] = min(rec["seconds"], again["seconds"])
            rec["repeats"] += 1
        return rec

    rec = peer.run_forked(job, timeout=time_limit + KILL_GRACE_S, memory_cap=memory_cap,
                          quiet=True)
    rec.setdefault("solver", solver)
    rec["status_class"] = status_class(rec, time_limit)
    return rec


def status_class(rec: Dict[str, Any], time_limit: float) -> str:
    """Normalised outcome: optimal / matched_reference / time_limit / killed /
    memory_out / non_convergence / false_timeout / error."""
    if rec.get("memory_out"):
        return "memory_out"
    if rec.get("killed"):
        return "killed"  # overran its own time limit by KILL_GRACE_S
    if "error" in rec:
        return "error"
    status = str(rec.get("status"))
    if status == "TIMEOUT" and rec["seconds"] < 0.9 * time_limit:
        # gosdt 1.0.4 sometimes ends with TIMEOUT long before its time limit, with
        # its lower bound below its objective ("Possible timeout" message).
        return "false_timeout"
    return {
        "CONVERGED": "optimal",
        "TIMEOUT": "time_limit",
        "NON_CONVERGENCE": "non_convergence",
        "memory_limit": "memory_out",
    }.get(status, status)


# --------------------------------------------------------------------------- #
# Experiment
# --------------------------------------------------------------------------- #


def run_dataset(name: str, args) -> List[Dict[str, Any]]:
    from treeopt import NumericBinarizer, ThresholdGuessBinarizer

    lam = LAMBDAS[name]
    X, y = load_raw(name)
    cap = int(args.memory_cap_gib * 2**30)
    rows: List[Dict[str, Any]] = []

    def record(fold, ref, method, solver, rec, **extra):
        rec = {k: v for k, v in rec.items() if k not in ("messages", "traceback")}
        rows.append({"dataset": name, "lambda": lam, "fold": fold, "reference": ref,
                     "method": method, "solver": solver, **extra, **rec})
        r = rows[-1]
        print(f"  fold {fold} {str(ref or '-'):>7} {method:>5} {solver:>7}: "
              f"{r['status_class']:<17} "
              + (f"{r.get('seconds', float('nan')):8.3f}s obj {r.get('objective', float('nan')):.6f} "
                 f"lb {r.get('lower_bound', float('nan')):.6f} "
                 f"train {r.get('train_accuracy', float('nan')):.4f} "
                 f"test {r.get('test_accuracy', float('nan')):.4f} "
                 f"leaves {r.get('n_leaves', '-')}" if "error" not in r else r["error"][:120]),
              flush=True)

    # Without threshold guessing: every midpoint threshold of the whole column
    # (label-free, so fitting it on all rows leaks nothing; it also keeps a count
    # column that is 0/1 in one training fold a threshold column in every fold).
    all_thresholds = None if args.no_baseline else NumericBinarizer().fit(X)
    for f, (tr, te) in enumerate(folds(y, args.folds)):
        Xtr, Xte, ytr, yte = X[tr], X[te], y[tr], y[te]
        if all_thresholds is not None:
            A, At = all_thresholds.transform(Xtr), all_thresholds.transform(Xte)
            for solver in args.solvers:
                rec = solve(solver, A, ytr, At, yte, lam, args.baseline_time_limit, cap)
                record(f, None, "none", solver, rec, n_columns=A.shape[1])
        for ref in args.references:
            start = time.perf_counter()
            b = ThresholdGuessBinarizer(n_estimators=ref[0], max_depth=ref[1],
                                        learning_rate=0.1, random_state=0).fit(Xtr, ytr)
            ref_seconds = time.perf_counter() - start
            B, Bt = b.transform(Xtr), b.transform(Xte)
            y_ref = b.reference_model_.predict(B)
            info = dict(n_columns=B.shape[1], reference_seconds=ref_seconds,
                        reference_train_accuracy=float(np.mean(y_ref == ytr)),
                        reference_test_accuracy=float(np.mean(b.reference_model_.predict(Bt) == yte)))
            for solver in args.solvers:
                rec = solve(solver, B, ytr, Bt, yte, lam, args.time_limit, cap)
                record(f, ref, "th", solver, rec, **info)
            single = len(np.unique(y_ref)) < 2
            for solver in args.solvers:
                if single:
                    # gosdt refuses a single-class reference (the paper's "NA"); treeopt's
                    # OptimalTreeClassifier falls back to no y_ref, i.e. the "th" run.
                    rec = {"error": "NA: the reference predicts a single class", "na": True}
                    rec["status_class"] = "NA"
                else:
                    rec = solve(solver, B, ytr, Bt, yte, lam, args.time_limit, cap, y_ref=y_ref)
                record(f, ref, "th+lb", solver, rec, **info)
    return rows


def full_data_runs(names: List[str], args) -> List[Dict[str, Any]]:
    """Each dataset once on all rows with the 40-stump guesses (th+lb)."""
    from treeopt import ThresholdGuessBinarizer

    cap = int(args.memory_cap_gib * 2**30)
    out = []
    for name in names:
        lam = LAMBDAS[name]
        X, y = load_raw(name)
        b = ThresholdGuessBinarizer(n_estimators=40, max_depth=1, random_state=0).fit(X, y)
        B = b.transform(X)
        y_ref = b.reference_model_.predict(B)
        for solver in args.solvers:
            if len(np.unique(y_ref)) < 2:
                rec = {"error": "NA: the reference predicts a single class", "status_class": "NA"}
            else:
                rec = solve(solver, B, y, B, y, lam, args.time_limit, cap, y_ref=y_ref)
                rec["n_columns"] = B.shape[1]
            rec = {k: v for k, v in rec.items() if k not in ("messages", "traceback")}
            out.append({"dataset": name, "lambda": lam, "solver": solver, **rec})
    return out


# --------------------------------------------------------------------------- #
# Reporting
# --------------------------------------------------------------------------- #


def mean_std(values: List[float], spec: str) -> str:
    values = [v for v in values if v is not None and np.isfinite(v)]
    if not values:
        return "-"
    sd = statistics.pstdev(values) if len(values) > 1 else 0.0
    return f"{format(statistics.mean(values), spec)}±{format(sd, spec)}"


def status_summary(recs: List[Dict[str, Any]]) -> str:
    counts: Dict[str, int] = {}
    for r in recs:
        counts[r["status_class"]] = counts.get(r["status_class"], 0) + 1
    short = {"optimal": "opt", "matched_reference": "match", "time_limit": "TL", "killed": "KILL",
             "memory_out": "MO", "non_convergence": "NONCONV", "false_timeout": "FALSE-TO",
             "error": "ERR", "NA": "NA"}
    return " ".join(f"{n}{short.get(s, s)}" for s, n in sorted(counts.items()))


def group(rows, **keys) -> List[Dict[str, Any]]:
    return [r for r in rows if all(r.get(k) == v for k, v in keys.items())]


def cell(recs: List[Dict[str, Any]]) -> Dict[str, str]:
    ok = [r for r in recs if "error" not in r]
    return {
        "time": mean_std([r["seconds"] for r in ok], ".3f") if len(ok) == len(recs) and ok
        else (status_summary(recs) if not ok else mean_std([r["seconds"] for r in ok], ".3f") + "*"),
        "train": mean_std([r["train_accuracy"] for r in ok], ".3f"),
        "test": mean_std([r["test_accuracy"] for r in ok], ".3f"),
        "leaves": mean_std([float(r["n_leaves"]) for r in ok], ".1f"),
        "status": status_summary(recs),
    }


def print_tables(rows: List[Dict[str, Any]], solvers: List[str], datasets: List[str],
                 references: List[Tuple[int, int]]) -> None:
    head = (f"{'dataset':<19} {'λ':>6} {'ref':>6} {'guess':>5} {'cols':>5} | "
            + " | ".join(f"{s + ' time (s)':>20} {'train':>11} {'test':>11} {'leaves':>9} "
                         f"{'status':<14}" for s in solvers)
            + " | ratio")
    print("\n" + "=" * len(head))
    print("Tables 4 and 6 (GOSDT, depth 5, 5-fold CV; mean±sd over folds; * = mean over "
          "the folds that returned a tree; a run stopped by a limit counts with its time)")
    print("status: opt = proven optimal, match = matched_reference, TL = time limit, "
          f"KILL = still running {KILL_GRACE_S:g}s after its own time limit (killed), "
          "MO = memory out, NONCONV = gosdt NON_CONVERGENCE,\nFALSE-TO = gosdt TIMEOUT before "
          "its limit, NA = single-class reference; ratio = treeopt / gosdt total time")
    print("=" * len(head))
    print(head)
    print("-" * len(head))
    for name in datasets:
        plan = [(None, "none")] + [(ref, m) for ref in references for m in ("th", "th+lb")]
        for ref, method in plan:
            recs = {s: group(rows, dataset=name, reference=ref, method=method, solver=s)
                    for s in solvers}
            if not any(recs.values()):
                continue
            cols = [r.get("n_columns") for rs in recs.values() for r in rs if r.get("n_columns")]
            line = (f"{name:<19} {LAMBDAS[name]:>6g} {'-' if ref is None else f'{ref[0]},{ref[1]}':>6} "
                    f"{method:>5} {int(statistics.mean(cols)) if cols else '-':>5} | ")
            parts = []
            for s in solvers:
                c = cell(recs[s])
                parts.append(f"{c['time']:>20} {c['train']:>11} {c['test']:>11} "
                             f"{c['leaves']:>9} {c['status']:<14}")
            line += " | ".join(parts)
            if len(solvers) == 2:
                r = time_ratio(recs[solvers[0]], recs[solvers[1]])
                line += f" | {r}"
            print(line)
        print("-" * len(head))


def time_ratio(a: List[Dict[str, Any]], b: List[Dict[str, Any]]) -> str:
    """treeopt/gosdt mean time ratio over folds where both finished (no error)."""
    pairs = [(x["seconds"], y["seconds"]) for x, y in zip(a, b)
             if "error" not in x and "error" not in y]
    if not pairs:
        return "-"
    return f"{sum(p[0] for p in pairs) / sum(p[1] for p in pairs):.3f}"


def seconds_or_inf(r: Dict[str, Any]) -> float:
    """Seconds of a finished run; a run that stopped on a limit counts as not finished."""
    if "error" in r or r["status_class"] in ("time_limit", "killed", "memory_out", "error"):
        return float("inf")
    return float(r["seconds"])


def acceptance(rows: List[Dict[str, Any]], full: List[Dict[str, Any]], args) -> bool:
    print("\nAcceptance (issue 3)")
    all_ok = True

    def verdict(ok: Optional[bool], text: str) -> None:
        nonlocal all_ok
        tag = {True: "PASS", False: "FAIL", None: "N/A "}[ok]
        if ok is False:
            all_ok = False
        print(f"  [{tag}] {text}")

    # 1. FICO, 40 stumps: th+lb >= 10x faster than th, training accuracy within 1 point.
    for solver in args.solvers:
        th = group(rows, dataset="fico", reference=(40, 1), method="th", solver=solver)
        lb = group(rows, dataset="fico", reference=(40, 1), method="th+lb", solver=solver)
        if not th or not lb:
            verdict(None, f"fico 40 stumps ({solver}): not run")
            continue
        finished = [(a, b) for a, b in zip(th, lb) if "error" not in a and "error" not in b]
        t_th = sum(a["seconds"] for a, _ in finished)
        t_lb = sum(b["seconds"] for _, b in finished)
        per_fold = [a["seconds"] / b["seconds"] for a, b in finished]
        d_acc = [b["train_accuracy"] - a["train_accuracy"] for a, b in finished]
        speed = t_th / t_lb if t_lb > 0 else float("inf")
        limited = [a for a in th if a["status_class"] != "optimal"]
        # "moves by at most 1 point": the fold-mean training accuracy, as in Table 6
        ok = (len(finished) == len(th) and speed >= 10 and abs(statistics.mean(d_acc)) <= 0.01
              and not limited)
        verdict(ok if solver == "treeopt" else None,
                f"fico raw, depth 5, λ 0.0005, 40 stumps ({solver}): th {t_th / len(finished):.3f}s "
                f"vs th+lb {t_lb / len(finished):.3f}s per fold -> {speed:.1f}x faster "
                f"(per fold {min(per_fold):.1f}x..{max(per_fold):.1f}x; need >= 10x); "
                f"mean training accuracy change {statistics.mean(d_acc):+.4f} (need |Δ| <= 0.01; "
                f"largest single-fold |Δ| {max(abs(d) for d in d_acc):.4f})"
                + (f"; th runs not optimal: {len(limited)}" if limited else ""))

    # 2. treeopt faster than gosdt with the same guesses on every dataset.
    if {"treeopt", "gosdt"} <= set(args.solvers):
        for name in args.datasets:
            for ref in args.references:
                for method in ("th", "th+lb"):
                    a = group(rows, dataset=name, reference=ref, method=method, solver="treeopt")
                    b = group(rows, dataset=name, reference=ref, method=method, solver="gosdt")
                    pairs = [(x, z) for x, z in zip(a, b)
                             if x["status_class"] != "NA" and z["status_class"] != "NA"]
                    if not pairs:
                        verdict(None, f"{name} {ref[0]},{ref[1]} {method}: NA on every fold "
                                      "(single-class reference)")
                        continue
                    na = len(a) - len(pairs)
                    ta = [seconds_or_inf(x) for x, _ in pairs]
                    tb = [seconds_or_inf(z) for _, z in pairs]
                    wins = sum(x < y for x, y in zip(ta, tb))
                    sa, sb = sum(ta), sum(tb)
                    ok = sa < sb and all(np.isfinite(ta))
                    fmt = lambda v: "limit" if not np.isfinite(v) else f"{v:.3f}s"  # noqa: E731
                    verdict(ok, f"treeopt faster than gosdt, {name} {ref[0]},{ref[1]} {method}: "
                                f"total {fmt(sa)} vs {fmt(sb)} "
                                + (f"(ratio {sa / sb:.4f}; " if np.isfinite(sb) and np.isfinite(sa) else "(")
                                + f"faster on {wins}/{len(ta)} folds"
                                + (f"; {na} fold(s) NA: single-class reference)" if na else ")"))

    # 3. Broward with guesses: consistent status and lower_bound <= objective.
    bro = [r for r in rows if r["dataset"] == "broward_general_2y" and r["method"] != "none"
           and r["solver"] == "treeopt" and "error" not in r]
    bro += [dict(r, method="th+lb(full)") for r in full
            if r["dataset"] == "broward_general_2y" and r["solver"] == "treeopt" and "error" not in r]
    if bro:
        bad = []
        for r in bro:
            st = r["status_class"]
            cons = r["lower_bound"] <= r["objective"] + TOL
            if st == "optimal":
                cons &= abs(r["lower_bound"] - r["objective"]) <= 1e-7
            elif st == "matched_reference":
                g = r.get("guessed_lower_bound")
                cons &= g is not None and r["objective"] <= g + TOL
            else:
                cons = False
            if not cons:
                bad.append((r["fold"] if "fold" in r else "full", r.get("reference"), r["method"], st))
        verdict(not bad, f"broward with guesses: {len(bro)} treeopt runs, statuses "
                         f"{status_summary(bro)}, all with lower_bound <= objective"
                         + (f"; inconsistent: {bad}" if bad else ""))
        g = [r for r in full if r["dataset"] == "broward_general_2y" and r["solver"] == "gosdt"]
        for r in g:
            print(f"         gosdt 1.0.4 on full broward, 40 stumps, th+lb: status {r.get('status')} "
                  f"lower bound {r.get('lower_bound', float('nan')):.4f} "
                  f"objective {r.get('objective', float('nan')):.4f}")

    # Sanity: both solvers optimal on the same matrix -> same objective.
    mism = []
    for a in rows:
        if a["solver"] != "treeopt" or a["status_class"] != "optimal":
            continue
        b = [r for r in rows if r["solver"] == "gosdt" and r["dataset"] == a["dataset"]
             and r["fold"] == a["fold"] and r["reference"] == a["reference"]
             and r["method"] == a["method"] and r["status_class"] == "optimal"]
        if b and abs(b[0]["objective"] - a["objective"]) > 1e-6:
            mism.append((a["dataset"], a["fold"], a["reference"], a["method"],
                         a["objective"], b[0]["objective"]))
    verdict(not mism, "equal objectives wherever both solvers proved optimality"
            + (f"; mismatches: {mism}" if mism else ""))
    return all_ok


def print_full(full: List[Dict[str, Any]]) -> None:
    print("\nFull data, 40-stump threshold + lower-bound guesses, depth 5")
    for r in full:
        if "error" in r:
            print(f"  {r['dataset']:<19} {r['solver']:>7}: {r['error'][:100]}")
            continue
        g = r.get("guessed_lower_bound")
        print(f"  {r['dataset']:<19} {r['solver']:>7}: {r['seconds']:8.3f}s "
              f"status {str(r['status']):<17} lower bound {r['lower_bound']:.6f} "
              f"objective {r['objective']:.6f}"
              + (f" guessed {g:.6f}" if g is not None else "")
              + f" train acc {r['train_accuracy']:.4f} leaves {r['n_leaves']}")


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", nargs="+", choices=list(LAMBDAS), default=list(LAMBDAS))
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--references", nargs="+", default=["40,1", "30,2"],
                    help="reference ensembles as n_estimators,max_depth")
    ap.add_argument("--time-limit", type=float, default=60.0,
                    help="seconds per solver run with threshold guessing")
    ap.add_argument("--baseline-time-limit", type=float, default=30.0,
                    help="seconds per solver run without threshold guessing")
    ap.add_argument("--memory-cap-gib", type=float, default=4.0,
                    help="address-space growth allowed per solver run")
    ap.add_argument("--solvers", nargs="+", choices=SOLVERS, default=list(SOLVERS))
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the runs without threshold guessing")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    args.references = [tuple(int(v) for v in r.split(",")) for r in args.references]

    import sklearn

    import treeopt

    vers = {"python": platform.python_version(), "treeopt": treeopt.__version__,
            "scikit-learn": sklearn.__version__}
    if "gosdt" in args.solvers:
        from importlib.metadata import version

        vers["gosdt"] = version("gosdt")
    print("versions:", vers)
    print(f"depth {DEPTH}; time limit {args.time_limit:g}s (baseline {args.baseline_time_limit:g}s); "
          f"memory cap {args.memory_cap_gib:g} GiB per run; {args.folds} folds")
    rows: List[Dict[str, Any]] = []
    for name in args.datasets:
        print(f"\n{name} (λ {LAMBDAS[name]})", flush=True)
        rows += run_dataset(name, args)
    full = full_data_runs(args.datasets, args)
    print_tables(rows, args.solvers, args.datasets, args.references)
    print("\nReference ensembles (mean over folds): columns kept, fit + elimination seconds, "
          "train / test accuracy")
    for name in args.datasets:
        for ref in args.references:
            rs = group(rows, dataset=name, reference=ref, method="th", solver=args.solvers[0])
            if rs:
                print(f"  {name:<19} {ref[0]},{ref[1]}: {statistics.mean(r['n_columns'] for r in rs):6.1f} "
                      f"columns, {statistics.mean(r['reference_seconds'] for r in rs):6.2f}s, "
                      f"train {statistics.mean(r['reference_train_accuracy'] for r in rs):.3f}, "
                      f"test {statistics.mean(r['reference_test_accuracy'] for r in rs):.3f}")
    print_full(full)
    ok = acceptance(rows, full, args)
    if args.json:
        def clean(v):
            if isinstance(v, (np.generic,)):
                return v.item()
            if isinstance(v, tuple):
                return list(v)
            return v
        with open(args.json, "w") as fh:
            json.dump({"versions": vers, "runs": [{k: clean(v) for k, v in r.items()} for r in rows],
                       "full_data": [{k: clean(v) for k, v in r.items()} for r in full]},
                      fh, indent=1, default=str)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""Side-by-side comparison of treeopt's GOSDTClassifier with gosdt 1.0.4.

For every instance both solvers fit the SAME 0/1 matrix with the same
regularization and depth limit, in the same run of this script.  Each fit runs
in its own forked child process, so one solver's memory cannot pollute the
other's figures:

* time   = wall seconds of ``fit`` only (imports and data conversion excluded);
* memory = ru_maxrss of the child after the fit minus its RSS just before the
  fit (MiB), i.e. the peak extra memory the fit needed;
* objective = misclassified / n + lambda * leaves, recomputed from each
  solver's tree on X (gosdt's own float32 ``upperbound`` is shown alongside).

Usage::

    python benches/compare_gosdt.py [--only NAME ...] [--timeout S]
                                    [--solvers treeopt gosdt] [--json out.json]

``--only`` accepts instance names (e.g. ``fico_binary-l0.001-d5``) or dataset
names (e.g. ``fico_binary``, selecting all its instances).  ``--solvers gosdt``
runs the peer alone (useful before treeopt is built).

At the end it prints the median time ratio treeopt/gosdt and one verdict line
per acceptance criterion: treeopt faster on every instance, >= 5x faster on
the median instance, equal objectives, peak memory no higher.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import resource
import statistics
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _gosdt_peer as peer  # noqa: E402

OBJECTIVE_TOL = 1e-9
# gosdt reports its bounds in single precision.
FLOAT32_TOL = 1e-6
# Peak-memory deltas below this are within measurement noise (page-granular
# RSS, allocator caches); "no higher" allows this much slack.
MEMORY_SLACK_MIB = 1.0
# Extra wall time granted after the solver's own time limit before the child
# is killed.
KILL_GRACE_S = 30.0

SOLVERS = ("treeopt", "gosdt")


@dataclass(frozen=True)
class Instance:
    dataset: str
    regularization: float
    max_depth: Optional[int] = None

    @property
    def name(self) -> str:
        depth = "inf" if self.max_depth is None else str(self.max_depth)
        return f"{self.dataset}-l{self.regularization:g}-d{depth}"


INSTANCES: List[Instance] = [
    *(Instance(ds, 0.005) for ds in ("monk1", "monk2", "monk3", "tic-tac-toe",
                                     "car_evaluation", "compas_binary", "fico_binary")),
    *(Instance(ds, 0.001, depth) for ds in ("compas_binary", "fico_binary", "tic-tac-toe")
      for depth in (4, 5)),
]


# --------------------------------------------------------------------------- #
# One fit in a forked child
# --------------------------------------------------------------------------- #


def _current_rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _child(conn, solver: str, X, y, instance: Instance, time_limit: float) -> None:
    try:
        # Import the solver and touch the data before measuring the baseline.
        if solver == "gosdt":
            import gosdt  # noqa: F401
        else:
            import treeopt  # noqa: F401
        X = np.ascontiguousarray(X, dtype=np.uint8)
        y = np.asarray(y)
        _ = int(X.sum()) + int(y.sum())
        baseline: Dict[str, Any] = {}

        def before_fit():
            baseline["rss"] = _current_rss_bytes()
            baseline["ru"] = resource.getrusage(resource.RUSAGE_SELF)

        record = peer.RUNNERS[solver](X, y, instance.regularization, instance.max_depth,
                                      time_limit=time_limit, on_before_fit=before_fit)
        ru = resource.getrusage(resource.RUSAGE_SELF)
        peak_bytes = ru.ru_maxrss * 1024  # KiB on Linux
        record["peak_mib"] = (peak_bytes - baseline["rss"]) / 2**20
        record["peak_rss_mib"] = peak_bytes / 2**20
        record["cpu_seconds"] = (ru.ru_utime - baseline["ru"].ru_utime
                                 + ru.ru_stime - baseline["ru"].ru_stime)
        try:
            record["threads_after_fit"] = len(os.listdir("/proc/self/task"))
        except OSError:
            record["threads_after_fit"] = None
        conn.send(record)
    except BaseException as exc:  # report every failure to the parent
        conn.send({"solver": solver, "error": f"{type(exc).__name__}: {exc}",
                   "traceback": traceback.format_exc()})
    finally:
        conn.close()


def run_in_child(solver: str, X, y, instance: Instance, timeout: float) -> Dict[str, Any]:
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, solver, X, y, instance, timeout))
    start = time.perf_counter()
    proc.start()
    send.close()
    record: Optional[Dict[str, Any]] = None
    if recv.poll(timeout + KILL_GRACE_S):
        try:
            record = recv.recv()
        except EOFError:
            record = None
    elapsed = time.perf_counter() - start
    if record is None:
        if proc.is_alive():
            proc.kill()  # only the child we started
            record = {"solver": solver, "error": f"killed after {elapsed:.0f} s (timeout)",
                      "killed": True}
        else:
            proc.join()
            record = {"solver": solver,
                      "error": f"child died without a result (exit code {proc.exitcode})"}
    proc.join()
    recv.close()
    return record


# --------------------------------------------------------------------------- #
# Reporting
# --------------------------------------------------------------------------- #


def finished(rec: Optional[Dict[str, Any]]) -> bool:
    return bool(rec) and "error" not in rec and bool(rec.get("optimal"))


def fmt(value, spec: str, missing: str = "-") -> str:
    return missing if value is None else format(value, spec)


def compare(inst: Instance, results: Dict[str, Dict[str, Any]], timeout: float) -> Dict[str, Any]:
    t, g = results.get("treeopt"), results.get("gosdt")
    row: Dict[str, Any] = {"instance": inst.name, "dataset": inst.dataset,
                           "regularization": inst.regularization, "max_depth": inst.max_depth,
                           "results": results}
    if t and g and "error" not in t and "error" not in g:
        row["objective_diff"] = abs(t["objective"] - g["objective"])
        row["objectives_equal"] = row["objective_diff"] <= OBJECTIVE_TOL
    if t and g:
        # Unfinished runs count as taking (at least) the timeout.
        t_sec = t["seconds"] if finished(t) else max(timeout, t.get("seconds", 0.0))
        g_sec = g["seconds"] if finished(g) else max(timeout, g.get("seconds", 0.0))
        row["ratio"] = t_sec / g_sec if g_sec > 0 else float("inf")
        row["ratio_exact"] = finished(t) and finished(g)
        row["treeopt_faster"] = finished(t) and (not finished(g) or t_sec < g_sec)
        if "peak_mib" in t and "peak_mib" in g:
            row["memory_ok"] = t["peak_mib"] <= g["peak_mib"] + MEMORY_SLACK_MIB
    return row


def print_row(row: Dict[str, Any]) -> None:
    res = row["results"]
    parts = [f"{row['instance']:<28}"]
    for solver in SOLVERS:
        rec = res.get(solver)
        if rec is None:
            parts.append(f"{solver}: not run")
            continue
        if "error" in rec:
            parts.append(f"{solver}: ERROR {rec['error']}")
            continue
        extra = ""
        if solver == "gosdt":
            extra = f" (reported {rec['reported_objective']:.9f})"
        parts.append(
            f"{solver}: obj {rec['objective']:.9f}{extra} {rec['seconds']:8.3f} s "
            f"{rec['peak_mib']:8.1f} MiB {rec['status']} leaves {rec['n_leaves']} "
            f"depth {rec['depth']} cpu {rec['cpu_seconds']:.2f} s "
            f"threads {rec['threads_after_fit']}"
        )
    if "objectives_equal" in row:
        parts.append(f"equal: {'yes' if row['objectives_equal'] else 'NO'} "
                     f"(|diff| {row['objective_diff']:.2e})")
    if "ratio" in row:
        prefix = "" if row["ratio_exact"] else "~"
        parts.append(f"ratio treeopt/gosdt {prefix}{row['ratio']:.4f}")
    print("\n    ".join(parts), flush=True)


def print_table(rows: List[Dict[str, Any]]) -> None:
    header = (f"{'instance':<28} {'obj treeopt':>12} {'obj gosdt':>12} {'eq':>3} "
              f"{'t treeopt':>10} {'t gosdt':>10} {'ratio':>7} {'MiB tre':>8} {'MiB gos':>8}")
    print("\n" + header)
    print("-" * len(header))
    for row in rows:
        t, g = row["results"].get("treeopt"), row["results"].get("gosdt")

        def get(rec, key):
            return None if not rec or "error" in rec else rec.get(key)

        def sec(rec):
            if not rec:
                return "-"
            if "error" in rec:
                return "ERR" if not rec.get("killed") else "kill"
            s = f"{rec['seconds']:.3f}"
            return s if rec.get("optimal") else s + "*"

        eq = "-" if "objectives_equal" not in row else ("yes" if row["objectives_equal"] else "NO")
        print(f"{row['instance']:<28} {fmt(get(t, 'objective'), '12.7f'):>12} "
              f"{fmt(get(g, 'objective'), '12.7f'):>12} {eq:>3} {sec(t):>10} {sec(g):>10} "
              f"{fmt(row.get('ratio'), '7.4f'):>7} {fmt(get(t, 'peak_mib'), '8.1f'):>8} "
              f"{fmt(get(g, 'peak_mib'), '8.1f'):>8}")
    print("(* = solver stopped without proving optimality)")


def verdicts(rows: List[Dict[str, Any]], solvers: List[str]) -> Dict[str, Any]:
    summary: Dict[str, Any] = {}
    if not all(s in solvers for s in SOLVERS):
        missing = [s for s in SOLVERS if s not in solvers]
        print(f"\nverdicts: n/a ({', '.join(missing)} not run)")
        return summary
    ratios = [r["ratio"] for r in rows if "ratio" in r]
    if ratios:
        summary["median_ratio"] = statistics.median(ratios)
        med = summary["median_ratio"]
        print(f"\nmedian time ratio treeopt/gosdt: {med:.4f} "
              f"(speed-up {1 / med:.1f}x) over {len(ratios)} instances")

    def line(label, ok, detail):
        print(f"[{'PASS' if ok else 'FAIL'}] {label}: {detail}")
        summary[label] = bool(ok)

    slower = [r["instance"] for r in rows if not r.get("treeopt_faster")]
    line("treeopt faster on every instance", rows and not slower,
         "all faster" if not slower else f"not faster on {', '.join(slower)}")
    med = summary.get("median_ratio")
    line(">=5x faster on the median instance", med is not None and med <= 0.2,
         "no ratios" if med is None else f"median speed-up {1 / med:.1f}x")
    unequal = [r["instance"] for r in rows if not r.get("objectives_equal")]
    all_optimal = all(finished(r["results"].get(s)) for r in rows for s in SOLVERS)
    line("objectives equal (1e-9, both optimal)", rows and not unequal and all_optimal,
         "all equal" if not unequal else f"differ or missing on {', '.join(unequal)}")
    heavier = [r["instance"] for r in rows if not r.get("memory_ok")]
    line("peak memory no higher", rows and not heavier,
         f"all within +{MEMORY_SLACK_MIB:g} MiB of gosdt" if not heavier
         else f"higher or missing on {', '.join(heavier)}")
    return summary


# --------------------------------------------------------------------------- #
# Main
# --------------------------------------------------------------------------- #


def select(only: Optional[List[str]]) -> List[Instance]:
    if not only:
        return list(INSTANCES)
    chosen = [i for i in INSTANCES if i.name in only or i.dataset in only]
    unknown = [o for o in only if not any(o in (i.name, i.dataset) for i in INSTANCES)]
    if unknown:
        names = ", ".join(i.name for i in INSTANCES)
        raise SystemExit(f"unknown instance(s) {unknown}; choose from: {names}")
    return chosen


def versions(solvers: List[str]) -> Dict[str, str]:
    out = {"python": platform.python_version(), "machine": platform.machine(),
           "cpus": str(os.cpu_count())}
    for s in solvers:
        try:
            mod = __import__(s)
            out[s] = getattr(mod, "__version__", "?")
        except Exception as exc:  # noqa: BLE001
            out[s] = f"import failed: {exc}"
    return out


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", metavar="NAME",
                    help="instance or dataset names to run (default: all)")
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="per-solver time limit in seconds (default 600)")
    ap.add_argument("--solvers", nargs="+", choices=SOLVERS, default=list(SOLVERS),
                    help="which solvers to run (default: both)")
    ap.add_argument("--json", metavar="PATH", help="write all results to this JSON file")
    args = ap.parse_args(argv)

    instances = select(args.only)
    solvers = [s for s in SOLVERS if s in args.solvers]
    meta = {"timeout": args.timeout, "solvers": solvers, "versions": versions(solvers),
            "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    print(f"compare_gosdt: {len(instances)} instance(s), solvers {solvers}, "
          f"timeout {args.timeout:g} s, {meta['versions']}", flush=True)

    rows = []
    for inst in instances:
        X, y = peer.load_dataset(inst.dataset)
        results = {}
        for solver in solvers:
            results[solver] = run_in_child(solver, X, y, inst, args.timeout)
            rec = results[solver]
            if solver == "gosdt" and "error" not in rec:
                rec["reported_matches_objective"] = (
                    abs(rec["reported_objective"] - rec["objective"]) <= FLOAT32_TOL)
        row = compare(inst, results, args.timeout)
        rows.append(row)
        print_row(row)
        g = results.get("gosdt")
        if g and "error" not in g and not g["reported_matches_objective"]:
            print(f"    WARNING: gosdt's reported upperbound {g['reported_objective']!r} "
                  f"!= objective of its tree {g['objective']!r} (status {g['status']})",
                  flush=True)

    print_table(rows)
    summary = verdicts(rows, solvers)

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "instances": rows, "summary": summary}, f, indent=2,
                      default=str)
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Optimal trees on raw numeric features: treeopt's DL85Classifier against ConTree
(pycontree 1.0.8), depth-limited, accuracy objective, no binarization.

Instances: ConTree's UCI sets (``../shared/datasets/numeric/*.csv``), ``fico``,
``compas``, ``broward_general_2y`` (``../shared/datasets/``) and scikit-learn's breast
cancer; depths 2, 3 and 4. Both tools get the same float64 matrix and are timed through
their public API as a user calls them, ``fit(X, y)`` only:

* treeopt: ``DL85Classifier(max_depth=d, time_limit=T).fit(X, y)`` on raw X (every
  midpoint is a candidate; ``--max-thresholds`` passes a cap); it proved optimality
  when ``status_ == "optimal"``.
* ConTree: ``ConTree(max_depth=d, time_limit=T).fit(X, y)`` (defaults otherwise:
  ``max_gap=0``, i.e. exact); it proved optimality when it finished within its limit
  (``_config.is_within_time_limit()``, the check behind its own timeout warning).

Every fit runs in a fresh Python process (so each is a first call, and memory is per
fit): the worker imports its one solver, loads the data, records its resident memory,
resets the high-water mark, fits, and reports the fit time, the training errors
computed from ``predict`` on the training rows (not from the tool's own report) and the
peak resident memory of the fit above that pre-fit baseline (VmHWM - VmRSS; the baseline
is printed in the JSON output). The baseline is taken after each tool's own import
and the data's load, so neither pays for the other's libraries, and the growth counts
whatever the fit itself touches (its copies of X, its first-call imports and code pages,
the solver's buffers). Runs alternate between the tools; a fit under
``--repeat-under`` seconds is repeated, best of ``--repeat``. A worker that overruns its
time limit by more than 30 s + 50% is killed and reported as such.

    python benches/compare_numeric.py [--datasets NAME ...] [--depths 2 3 4]
        [--time-limit 600] [--repeat 3] [--repeat-under 1.0] [--max-thresholds K]
        [--tools treeopt contree] [--json out.json]

The peer is a bench-only dependency: ``pip install pycontree==1.0.8``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import save_json  # noqa: E402  (the harnesses' JSON output)
from _numeric_data import (  # noqa: E402
    current_rss_kib,
    load_numeric,
    numeric_dataset_names,
    peak_rss_kib,
    reset_peak_rss,
)

DEPTHS = [2, 3, 4]
TOOLS = ["treeopt", "contree"]
RESULT_MARK = "@@RESULT "


# --------------------------------------------------------------------------- #
# Worker: one fit in this process
# --------------------------------------------------------------------------- #


def _build(tool, depth, time_limit, max_thresholds):
    if tool == "treeopt":
        import treeopt

        kwargs = {"max_depth": depth, "time_limit": time_limit}
        if max_thresholds is not None:
            kwargs["max_thresholds"] = max_thresholds
        return treeopt.DL85Classifier(**kwargs)
    if tool == "contree":
        from pycontree import ConTree

        return ConTree(max_depth=depth, time_limit=time_limit)
    raise ValueError(f"unknown tool {tool!r}")


def _proved(tool, est):
    if tool == "treeopt":
        return est.status_ == "optimal", str(est.status_)
    ok = bool(est._config.is_within_time_limit())
    return ok, "optimal" if ok else "time_limit"


def worker(spec):
    """Fit once as described by ``spec``; return the measurement as a dict."""
    import warnings

    import numpy as np

    tool = spec["tool"]
    if spec.get("probe"):
        # Can treeopt take raw numeric X at all? A tiny numeric fit answers.
        rng = np.random.default_rng(0)
        X = rng.random((30, 2))
        y = (X[:, 0] + 0.3 * X[:, 1] > 0.6).astype(np.int64)
        try:
            _build(tool, 2, 10.0, spec.get("max_thresholds")).fit(X, y)
        except (ValueError, TypeError) as exc:
            return {"numeric": False, "reason": f"{type(exc).__name__}: {exc}"}
        return {"numeric": True}

    est = _build(tool, spec["depth"], spec["time_limit"], spec.get("max_thresholds"))
    X, y, _ = load_numeric(spec["dataset"])
    baseline = current_rss_kib()
    reset = reset_peak_rss()
    start = time.perf_counter()
    cpu_start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConTree's "Fitting exceeds time limit."
        est.fit(X, y)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    peak = peak_rss_kib()
    proved, status = _proved(tool, est)
    errors = int(np.count_nonzero(np.asarray(est.predict(X)) != y))
    out = {
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "errors": errors,
        "proved": proved,
        "status": status,
        "rows": int(X.shape[0]),
        "columns": int(X.shape[1]),
        "classes": int(len(np.unique(y))),
        "baseline_mib": baseline / 1024 if baseline is not None else None,
        "peak_growth_mib": (peak - baseline) / 1024 if reset and peak is not None and baseline is not None else None,
        "peak_mib": peak / 1024 if peak is not None else None,
    }
    if tool == "treeopt" and hasattr(est, "lower_bound_"):
        out["lower_bound"] = float(est.lower_bound_)
    return out


def run_worker(spec, wall_limit):
    """Run ``worker(spec)`` in a fresh interpreter; kill it after ``wall_limit`` s."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(spec)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=wall_limit)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)  # only the worker started here
        proc.communicate()
        return {"error": f"killed after {wall_limit:.0f} s", "killed": True}
    for line in out.splitlines():
        if line.startswith(RESULT_MARK):
            return json.loads(line[len(RESULT_MARK):])
    tail = (err or out).strip().splitlines()[-3:]
    return {"error": f"worker exit {proc.returncode}: " + " | ".join(tail)}


# --------------------------------------------------------------------------- #
# Driver
# --------------------------------------------------------------------------- #


def measure(dataset, depth, tools, args):
    """Alternate the tools' fits; best time over the repeats of sub-second fits."""
    best = {}
    wall = args.time_limit * 1.5 + 30
    for round_ in range(args.repeat):
        for tool in tools:
            prev = best.get(tool)
            if round_ > 0 and (prev is None or "error" in prev or prev["seconds"] >= args.repeat_under):
                continue
            spec = {"tool": tool, "dataset": dataset, "depth": depth,
                    "time_limit": args.time_limit, "max_thresholds": args.max_thresholds}
            res = run_worker(spec, wall)
            if prev is None or "error" in res:  # first run, or a repeat that failed: report it
                best[tool] = res
                continue
            keep = dict(prev if prev["seconds"] <= res["seconds"] else res)
            for key in ("peak_growth_mib", "peak_mib"):  # memory: the worst run
                vals = [r[key] for r in (prev, res) if r.get(key) is not None]
                keep[key] = max(vals) if vals else None
            best[tool] = keep
    return best


def _fmt_err(r):
    if r is None:
        return "-"
    if "error" in r:
        return "kill" if r.get("killed") else "fail"
    return f"{r['errors']}{'' if r['proved'] else '*'}"


def _fmt_t(r):
    if r is None or "error" in r:
        return "-"
    return f"{r['seconds']:.3f}"


def _fmt_m(r):
    if r is None or "error" in r or r.get("peak_growth_mib") is None:
        return "-"
    return f"{r['peak_growth_mib']:.1f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=None,
                        help="default: " + " ".join(numeric_dataset_names())
                        + "; held out: NAME@i,j (columns i, j of NAME), make_classification_RxC, wine, digits")
    parser.add_argument("--depths", nargs="+", type=int, default=DEPTHS)
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per fit (both tools)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repeat-under", type=float, default=1.0,
                        help="repeat (best of --repeat) only fits faster than this many seconds")
    parser.add_argument("--max-thresholds", type=int, default=None, help="treeopt's cap (default: all midpoints)")
    parser.add_argument("--tools", nargs="+", choices=TOOLS, default=TOOLS)
    parser.add_argument("--json", help="write the rows to this file")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        print(RESULT_MARK + json.dumps(worker(json.loads(args.worker))), flush=True)
        return 0

    tools = list(args.tools)
    if "treeopt" in tools:
        probe = run_worker({"tool": "treeopt", "probe": True, "max_thresholds": args.max_thresholds}, 120)
        if not probe.get("numeric"):
            reason = probe.get("reason") or probe.get("error")
            print("treeopt cannot fit raw numeric X with the installed build, so only ConTree is run.\n"
                  f"  ({reason})\n", flush=True)
            tools.remove("treeopt")
    datasets = args.datasets or numeric_dataset_names()

    print(f"time limit {args.time_limit:g} s per fit; errors from predict on the training rows, "
          "'*' = optimality not proved; memory = peak RSS growth of the fit (MiB)")
    header = (f"{'instance':<24} {'rows':>6} {'cols':>4} {'cls':>3}  {'err treeopt':>11} {'contree':>7}"
              f"  {'t treeopt':>9} {'t contree':>9}  {'ratio':>7}  {'mem treeopt':>11} {'contree':>7}")
    print(header, flush=True)
    rows = []
    for name in datasets:
        for depth in args.depths:
            res = measure(name, depth, tools, args)
            t, c = res.get("treeopt"), res.get("contree")
            ok = [r for r in (t, c) if r is not None and "error" not in r]
            shape = ok[0] if ok else {"rows": "?", "columns": "?", "classes": "?"}
            ratio = t["seconds"] / c["seconds"] if t and c and "error" not in t and "error" not in c else None
            rows.append({"dataset": name, "depth": depth, "treeopt": t, "contree": c, "ratio": ratio,
                         "rows": shape["rows"], "columns": shape["columns"], "classes": shape["classes"]})
            print(f"{name + ' d' + str(depth):<24} {shape['rows']:>6} {shape['columns']:>4} {shape['classes']:>3}"
                  f"  {_fmt_err(t):>11} {_fmt_err(c):>7}  {_fmt_t(t):>9} {_fmt_t(c):>9}"
                  f"  {'-' if ratio is None else f'{ratio:.3f}':>7}  {_fmt_m(t):>11} {_fmt_m(c):>7}", flush=True)
            for tool, r in (("treeopt", t), ("contree", c)):
                if r is not None and "error" in r:
                    print(f"    {tool}: {r['error']}", flush=True)

    print()
    both = [r for r in rows if r["ratio"] is not None]
    proved = [r for r in both if r["treeopt"]["proved"] and r["contree"]["proved"]]
    if both:
        ratios = [r["ratio"] for r in both]
        print(f"ratio treeopt/ConTree over {len(both)} instances: median {statistics.median(ratios):.3f}, "
              f"max {max(ratios):.3f}")
        if proved:
            pr = [r["ratio"] for r in proved]
            print(f"  where both proved optimality ({len(proved)}): median {statistics.median(pr):.3f}, "
                  f"max {max(pr):.3f}")
        mism = [r for r in proved if r["treeopt"]["errors"] != r["contree"]["errors"]]
        print(f"both proved optimal: {len(proved)}; training errors differ on {len(mism)}")
        for r in mism:
            print(f"  {r['dataset']} d{r['depth']}: treeopt {r['treeopt']['errors']}, ConTree {r['contree']['errors']}")
        mem = [r for r in both if r["treeopt"].get("peak_growth_mib") is not None
               and r["contree"].get("peak_growth_mib") is not None]
        higher = [r for r in mem if r["treeopt"]["peak_growth_mib"] > r["contree"]["peak_growth_mib"]]
        print(f"treeopt's peak memory higher than ConTree's on {len(higher)}/{len(mem)}")
    for tool in tools:
        done = [r for r in rows if r[tool] is not None and "error" not in r[tool]]
        n_proved = sum(1 for r in done if r[tool]["proved"])
        print(f"{tool}: proved optimal on {n_proved}/{len(rows)} instances")
        if tool == "contree" and done:
            times = [r[tool]["seconds"] for r in done]
            print(f"  ConTree times: median {statistics.median(times):.3f} s, max {max(times):.3f} s")
    save_json(args.json, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

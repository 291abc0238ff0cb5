"""Limits on wide 0/1 data: wall time under ``time_limit`` and process growth under
``memory_limit`` (issue 19, point 7, first item).

Each fit runs in its own fresh Python process; the figures are measured around
``fit`` as a user calls it.

* time: breast cancer through ``NumericBinarizer()`` (every midpoint: 569 x 15,310),
  ``time_limit=1``, GOSDT (regularization 0.001) and DL8.5 at ``max_depth`` 2, 3, 4 and
  OSDT (regularization 0.001, which has no depth limit); the wall time of ``fit``.
* memory: the first 5,000 of those columns, ``memory_limit=50 MiB``, ``max_depth=3``,
  ``time_limit=20``; the growth of the process's peak RSS (VmHWM) during ``fit``
  against the limit, and ``search_stats_["memory_bytes"]``.

    python benches/wide_limits.py
"""

from __future__ import annotations

import json
import subprocess
import sys

CHILD = r"""
import json, sys, time
import numpy as np
from sklearn.datasets import load_breast_cancer
from treeopt import DL85Classifier, GOSDTClassifier, NumericBinarizer, OSDTClassifier

def peak():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024

est, depth, cols, time_limit, memory_limit = sys.argv[1:6]
X, y = load_breast_cancer(return_X_y=True)
Xb = np.ascontiguousarray(NumericBinarizer().fit_transform(X))
if cols != "all":
    Xb = np.ascontiguousarray(Xb[:, : int(cols)])
kw = dict(time_limit=float(time_limit))
if memory_limit != "none":
    kw["memory_limit"] = int(memory_limit)
if est == "OSDT":
    clf = OSDTClassifier(regularization=0.001, **kw)
elif est == "GOSDT":
    clf = GOSDTClassifier(regularization=0.001, max_depth=int(depth), **kw)
else:
    clf = DL85Classifier(max_depth=int(depth), **kw)
before = peak()
t = time.perf_counter()
clf.fit(Xb, y)
elapsed = time.perf_counter() - t
print(json.dumps(dict(shape=list(Xb.shape), elapsed=elapsed, status=clf.status_,
                      objective=clf.objective_, growth=peak() - before,
                      memory_bytes=clf.search_stats_["memory_bytes"])))
"""

MiB = 1 << 20


def run(*args):
    out = subprocess.run(
        [sys.executable, "-c", CHILD, *map(str, args)], capture_output=True, text=True, timeout=600
    )
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    print("time_limit=1 on breast cancer, NumericBinarizer() (every midpoint)")
    print(f"{'solver':8} {'depth':>5} {'shape':>12} {'fit s':>7} {'status':>12} {'objective':>10}")
    for est in ("GOSDT", "DL85", "OSDT"):
        for depth in ((2, 3, 4) if est != "OSDT" else ("-",)):
            r = run(est, 0 if depth == "-" else depth, "all", 1, "none")
            if "error" in r:
                print(f"{est:8} {depth:>5} error: {r['error']}")
                continue
            shape = "x".join(map(str, r["shape"]))
            print(f"{est:8} {depth:>5} {shape:>12} {r['elapsed']:7.3f} {r['status']:>12} "
                  f"{r['objective']:10.4f}")
    print()
    print("memory_limit=50 MiB on 569 x 5,000 (max_depth=3, time_limit=20)")
    print(f"{'solver':8} {'fit s':>7} {'status':>12} {'RSS growth MiB':>15} {'/ limit':>8} "
          f"{'memory_bytes MiB':>17}")
    for est in ("GOSDT", "DL85", "OSDT"):
        r = run(est, 3, 5000, 20, 50 * MiB)
        if "error" in r:
            print(f"{est:8} error: {r['error']}")
            continue
        print(f"{est:8} {r['elapsed']:7.3f} {r['status']:>12} {r['growth'] / MiB:15.1f} "
              f"{r['growth'] / (50 * MiB):8.2f} {r['memory_bytes'] / MiB:17.1f}")


if __name__ == "__main__":
    main()

"""Limits of the dependency-graph search on wide 0/1 data (issue 19, A, G and I).

The depth-two kernel of a depth-limited search once summed every pair of features in a
buffer quadratic in the column count, outside the memory account and without looking at
the clock or Ctrl-C. These tests pin that the time limit, the memory limit and an
interrupt are honoured whatever the width, and that progress shows the best tree known.
"""

import _thread
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import warnings

import numpy as np
import pytest

from treeopt import DL85Classifier, GOSDTClassifier

MiB = 1 << 20


def wide(n_rows, n_cols, seed=0):
    """Random 0/1 matrix with labels that depend on a few columns plus noise."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n_rows, n_cols)) < 0.5).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(n_rows) < 0.2)).astype(int)
    return X, y


def estimator(name, **kw):
    if name == "gosdt":
        return GOSDTClassifier(regularization=0.001, **kw)
    return DL85Classifier(**kw)


@pytest.mark.parametrize("name", ["gosdt", "dl85"])
@pytest.mark.parametrize("depth", [2, 3])
def test_time_limit_is_honoured_on_wide_data(name, depth):
    X, y = wide(400, 6000)
    clf = estimator(name, max_depth=depth, time_limit=0.3)
    t = time.perf_counter()
    clf.fit(X, y)
    elapsed = time.perf_counter() - t
    assert elapsed < 0.3 + 0.2, f"fit took {elapsed:.2f}s with time_limit=0.3"
    assert clf.status_ == "time_limit"
    # The anytime tree is still a real tree of the data, at least as good as a leaf.
    assert clf.objective_ <= 0.5 + 0.001 + 1e-9
    assert clf.tree_.depth <= depth


def _run_child(code, timeout=120):
    """Runs `code` in a fresh interpreter; returns (returncode, last stdout line, stderr)."""
    env = dict(os.environ)
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    lines = proc.stdout.strip().splitlines()
    return proc.returncode, (lines[-1] if lines else ""), proc.stderr


_PEAK = """
import json, time, numpy as np
from treeopt import GOSDTClassifier, DL85Classifier

def peak():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM")

rng = np.random.default_rng(0)
X = (rng.random(({rows}, {cols})) < 0.5).astype(np.uint8)
y = (X[:, 0] ^ X[:, 1] ^ (rng.random({rows}) < 0.2)).astype(int)
# Warm up the import and the estimator code on a small problem first.
GOSDTClassifier(max_depth=2).fit(X[:50, :20], y[:50])
before = peak()
clf = {est}(max_depth={depth}, time_limit={time_limit}, memory_limit={limit})
t = time.perf_counter()
clf.fit(X, y)
elapsed = time.perf_counter() - t
print(json.dumps(dict(growth=peak() - before, status=clf.status_, elapsed=elapsed,
                      memory_bytes=clf.search_stats_["memory_bytes"])))
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads VmHWM from /proc")
@pytest.mark.parametrize("est", ["GOSDTClassifier", "DL85Classifier"])
def test_memory_limit_bounds_the_process_growth(est):
    limit = 20 * MiB
    code = _PEAK.format(rows=400, cols=5000, est=est, depth=3, time_limit=3, limit=limit)
    rc, out, err = _run_child(code)
    assert rc == 0, err
    res = json.loads(out)
    assert res["growth"] <= 1.1 * limit, res
    assert res["memory_bytes"] <= limit, res
    assert res["status"] in ("optimal", "time_limit", "memory_limit"), res


def test_very_wide_data_does_not_abort():
    # 200 x 25,000: the pair buffer of the whole triangle would need 10 GB.
    code = _PEAK.format(rows=200, cols=25000, est="GOSDTClassifier", depth=2, time_limit=1, limit=None)
    rc, out, err = _run_child(code)
    assert rc == 0, err
    res = json.loads(out)
    assert res["status"] == "time_limit", res
    assert res["elapsed"] < 1.2, res
    assert res["growth"] < 400 * MiB, res


def test_interrupt_is_answered_quickly_on_wide_data():
    X, y = wide(400, 6000)
    clf = GOSDTClassifier(regularization=0.001, max_depth=3)
    fired = []

    def interrupt():
        fired.append(time.perf_counter())
        _thread.interrupt_main()

    # interrupt_main() does nothing where SIGINT is ignored (a background job of a
    # non-interactive shell starts so): answer it as an interactive session would.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, interrupt)
    timer.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                clf.fit(X, y)
                assert clf.status_ == "interrupted"
            except KeyboardInterrupt:
                pass
        done = time.perf_counter()
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert fired, "the fit ended before the interrupt"
    assert done - fired[0] < 0.25, f"interrupt answered after {done - fired[0]:.2f}s"


def test_many_classes_prove_the_leaf_at_once_in_little_memory():
    # Issue 19, G: 100,000 rows x 20 columns, 300 classes, default regularization. Each
    # class holds under 0.4 % of the weight, less than one leaf's penalty (1 %), so no
    # split can pay for itself: the search must prove the single leaf optimal, not grow
    # to gigabytes and stop at a limit with a gap.
    rng = np.random.default_rng(0)
    n, m, k = 100_000, 20, 300
    X = (rng.random((n, m)) < 0.5).astype(np.uint8)
    y = (X[:, :9] @ (1 << np.arange(9))) % k
    y = np.where(rng.random(n) < 0.1, rng.integers(0, k, n), y)
    clf = GOSDTClassifier(time_limit=30)
    t = time.perf_counter()
    clf.fit(X, y)
    assert time.perf_counter() - t < 10
    assert clf.status_ == "optimal"
    assert clf.n_leaves_ == 1 and clf.lower_bound_ == clf.objective_
    assert clf.search_stats_["memory_bytes"] < 4 * MiB, clf.search_stats_


def test_many_classes_with_a_small_penalty_keep_memory_per_subproblem_small():
    # With a penalty small enough to split, the search runs; what it stores per
    # subproblem (the capture set and its bounds) must not scale with the 300 classes.
    rng = np.random.default_rng(1)
    n, m, k = 20_000, 12, 300
    X = (rng.random((n, m)) < 0.5).astype(np.uint8)
    y = (X[:, :9] @ (1 << np.arange(9))) % k
    clf = GOSDTClassifier(regularization=0.0005, time_limit=1)
    clf.fit(X, y)
    stats = clf.search_stats_
    n_groups = len(np.unique(X, axis=0))
    key_bytes = 8 * ((n_groups + 63) // 64)
    per_subproblem = stats["memory_bytes"] / max(stats["subproblems"], 1)
    # the capture set, with the arena's growth slack and the hash table
    assert per_subproblem < 4 * key_bytes + 200, (per_subproblem, key_bytes, stats)


def test_running_out_of_machine_memory_says_why(monkeypatch):
    # The machine's memory cannot be exhausted in a test: a search limited below the
    # estimator's (absent) memory_limit stands in for it.
    import treeopt.optimal._base as base

    real = base.saturated
    monkeypatch.setattr(base, "saturated", lambda v: 20_000 if v is None else real(v))
    X, y = wide(300, 40, seed=3)
    clf = GOSDTClassifier(regularization=0.001)
    with pytest.warns(UserWarning, match="ran out of memory before proving"):
        clf.fit(X, y)
    assert clf.status_ == "memory_limit"
    assert clf.lower_bound_ <= clf.objective_

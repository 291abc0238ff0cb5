"""Shared helpers for comparing treeopt with the peer gosdt 1.0.4.

Imported by ``benches/compare_gosdt.py`` and ``tests/test_peer_gosdt.py``.
Neither gosdt nor treeopt is imported at module level, so either side can be
used while the other is missing.

Facts about gosdt 1.0.4 that this module encodes (checked by experiment):

* ``depth_budget`` (the Python parameter) already has the scikit-learn meaning
  of ``max_depth``: ``depth_budget=0`` gives a single leaf, ``1`` at most a
  stump, ``2`` at most two levels of splits.  (The Python wrapper adds 1 itself
  before handing it to the C++ ``Configuration.depth_budget``, where 0 means
  unlimited.)  So ``depth_budget = max_depth`` and ``None`` stays ``None``.
* A regularization below 1/n is silently raised to 1/n (and the estimator's
  ``regularization`` attribute overwritten) unless ``allow_small_reg=True``.
* It has no ``sample_weight``; every row weighs 1/n.
* ``worker_limit`` defaults to 1 (values > 1 print a deadlock warning).
* ``predict`` is broken with scikit-learn >= 1.8 (``force_all_finite``), so
  the objective is computed here from the model JSON: an internal node is
  ``{"feature": j, "true": <x_j == 1 subtree>, "false": <x_j == 0 subtree>}``
  and a leaf ``{"prediction": k, "loss": ..., "complexity": ...}`` with ``k``
  an index into the sorted class labels.
* ``result_.upperbound`` / ``lowerbound`` are single-precision (float32)
  values, so they only agree with the exact objective to about 1e-7.
"""

from __future__ import annotations

import contextlib
import io
import json
import time
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
# The shared datasets live next to the repository: <repo>/../shared/datasets
DATASETS_DIR = REPO_ROOT.parent / "shared" / "datasets"


def load_dataset(name: str) -> Tuple[np.ndarray, np.ndarray]:
    """Load ``<name>.csv`` (header row, last column = label) as uint8 X and int y."""
    path = DATASETS_DIR / f"{name}.csv"
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    X = data[:, :-1]
    y = data[:, -1]
    if not np.all((X == 0) | (X == 1)):
        raise ValueError(f"{path}: features are not all 0/1")
    return np.ascontiguousarray(X, dtype=np.uint8), y.astype(np.int64)


# --------------------------------------------------------------------------- #
# gosdt model JSON -> objective
# --------------------------------------------------------------------------- #


def gosdt_tree(model) -> Dict[str, Any]:
    """The first tree of a gosdt ``result_.model`` (JSON string, list or dict)."""
    if isinstance(model, str):
        model = json.loads(model)
    if isinstance(model, list):
        model = model[0]
    return model


def gosdt_n_leaves(tree: Dict[str, Any]) -> int:
    if "prediction" in tree:
        return 1
    return gosdt_n_leaves(tree["true"]) + gosdt_n_leaves(tree["false"])


def gosdt_depth(tree: Dict[str, Any]) -> int:
    """scikit-learn depth: a single leaf has depth 0."""
    if "prediction" in tree:
        return 0
    return 1 + max(gosdt_depth(tree["true"]), gosdt_depth(tree["false"]))


def gosdt_predict_index(tree: Dict[str, Any], X) -> np.ndarray:
    """Class index (into the sorted labels) predicted for every row of X."""
    X = np.asarray(X)
    out = np.empty(X.shape[0], dtype=np.int64)
    for i, row in enumerate(X):
        node = tree
        while "prediction" not in node:
            node = node["true"] if row[int(node["feature"])] else node["false"]
        out[i] = int(node["prediction"])
    return out


def gosdt_objective(model, X, y, regularization: float, classes=None) -> float:
    """Objective (misclassified / n + lambda * leaves) of a gosdt model on (X, y).

    ``classes`` are the labels gosdt indexed its predictions by (its
    ``classes_``, i.e. ``np.unique(y)``).
    """
    tree = gosdt_tree(model)
    y = np.asarray(y)
    if classes is None:
        classes = np.unique(y)
    pred = np.asarray(classes)[gosdt_predict_index(tree, X)]
    misclassified = int(np.count_nonzero(pred != y))
    return misclassified / len(y) + float(regularization) * gosdt_n_leaves(tree)


# --------------------------------------------------------------------------- #
# Solver runners: build, fit (timed), summarise
# --------------------------------------------------------------------------- #


def gosdt_estimator(regularization: float, max_depth: Optional[int] = None,
                    time_limit: Optional[float] = None):
    from gosdt import GOSDTClassifier

    return GOSDTClassifier(
        regularization=regularization,
        allow_small_reg=True,  # otherwise lambda < 1/n is silently raised to 1/n
        # gosdt's Python-level depth_budget has the sklearn max_depth meaning
        # (depth_budget=0 -> a single leaf, 1 -> a stump); the wrapper itself
        # adds 1 for the C++ core.  Verified in tests/test_peer_gosdt.py.
        depth_budget=max_depth,
        time_limit=None if time_limit is None else max(1, int(np.ceil(time_limit))),
        worker_limit=1,  # single-threaded (also gosdt's default)
        verbose=False,
    )


def _timed_fit(est, X, y, y_ref) -> float:
    """Seconds ``est.fit`` takes; ``y_ref`` (if given) turns on lower-bound guessing.
    Both gosdt and treeopt take it as ``fit(X, y, y_ref=...)``."""
    start = time.perf_counter()
    if y_ref is None:
        est.fit(X, y)
    else:
        est.fit(X, y, y_ref=np.asarray(y_ref))
    return time.perf_counter() - start


def run_gosdt(X, y, regularization: float, max_depth: Optional[int] = None,
              time_limit: Optional[float] = None, on_before_fit=None, *,
              y_ref=None, X_test=None) -> Dict[str, Any]:
    """Fit gosdt and return a summary dict (objective computed from its model).

    ``on_before_fit`` is called right before ``fit`` (e.g. to sample memory).
    Python-level messages gosdt prints are captured in ``messages``.
    ``y_ref`` (a reference model's predictions on the training rows) turns on
    gosdt's lower-bound guessing; gosdt refuses a ``y_ref`` whose set of classes
    differs from y's (e.g. a single-class reference) with a ValueError.  With
    ``X_test`` the record also holds ``test_predictions``.
    """
    X = np.ascontiguousarray(X, dtype=np.uint8)
    y = np.asarray(y)
    clf = gosdt_estimator(regularization, max_depth, time_limit)
    captured = io.StringIO()
    if on_before_fit is not None:
        on_before_fit()
    with contextlib.redirect_stdout(captured):
        seconds = _timed_fit(clf, X, y, y_ref)
    result = clf.result_
    tree = gosdt_tree(result.model)
    status = getattr(result.status, "name", str(result.status))
    optimal = status == "CONVERGED"
    if len(clf.classes_) == 1:
        # gosdt skips the search for a single class and forges a one-leaf model
        # with status UNINITIALIZED and upperbound 0 (the leaf's lambda omitted).
        status, optimal = "UNINITIALIZED (single class: forged leaf)", True
    train_pred = np.asarray(clf.classes_)[gosdt_predict_index(tree, X)]
    extra: Dict[str, Any] = {"train_accuracy": float(np.mean(train_pred == y))}
    if X_test is not None:
        extra["test_predictions"] = np.asarray(clf.classes_)[
            gosdt_predict_index(tree, np.asarray(X_test))]
    return {
        **extra,
        "solver": "gosdt",
        "objective": gosdt_objective(tree, X, y, regularization, clf.classes_),
        "reported_objective": float(result.upperbound),
        "lower_bound": float(result.lowerbound),
        "status": status,
        "optimal": optimal,
        "seconds": seconds,
        "n_leaves": gosdt_n_leaves(tree),
        "depth": gosdt_depth(tree),
        "stats": {
            "graph_size": int(getattr(result, "graph_size", -1)),
            "n_iterations": int(getattr(result, "n_iterations", -1)),
            "reported_time": float(getattr(result, "time", float("nan"))),
        },
        "messages": captured.getvalue().strip(),
    }


def treeopt_objective_from_tree(est, X, y, regularization: float, sample_weight=None) -> float:
    """Objective recomputed from a fitted treeopt estimator's ``tree_``."""
    y = np.asarray(y)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    pred = np.asarray(est.tree_.predict(X))
    return float(w[pred != y].sum()) / float(w.sum()) + float(regularization) * est.tree_.n_leaves


def run_treeopt(X, y, regularization: float, max_depth: Optional[int] = None,
                time_limit: Optional[float] = None, on_before_fit=None, *,
                y_ref=None, X_test=None, memory_limit: Optional[int] = None
                ) -> Dict[str, Any]:
    """Fit treeopt's GOSDTClassifier and return a summary dict like ``run_gosdt``.

    ``y_ref`` turns on lower-bound guessing (``GOSDTClassifier.fit(..., y_ref=)``);
    the record then also holds ``guessed_lower_bound``.  ``memory_limit`` is in
    bytes.  With ``X_test`` the record also holds ``test_predictions``.
    """
    from treeopt import GOSDTClassifier

    X = np.ascontiguousarray(X, dtype=np.uint8)
    y = np.asarray(y)
    est = GOSDTClassifier(regularization=regularization, max_depth=max_depth,
                          time_limit=time_limit, memory_limit=memory_limit)
    if on_before_fit is not None:
        on_before_fit()
    seconds = _timed_fit(est, X, y, y_ref)
    extra: Dict[str, Any] = {
        "train_accuracy": float(np.mean(est.tree_.predict(X) == y)),
        "guessed_lower_bound": getattr(est, "guessed_lower_bound_", None),
    }
    if X_test is not None:
        extra["test_predictions"] = est.tree_.predict(np.asarray(X_test))
    return {
        **extra,
        "solver": "treeopt",
        "objective": treeopt_objective_from_tree(est, X, y, regularization),
        "reported_objective": float(est.objective_),
        "lower_bound": float(est.lower_bound_),
        "status": str(est.status_),
        "optimal": est.status_ == "optimal",
        "seconds": seconds,
        "n_leaves": int(est.tree_.n_leaves),
        "depth": int(est.tree_.depth),
        "stats": dict(getattr(est, "search_stats_", {}) or {}),
        "messages": "",
    }


RUNNERS = {"treeopt": run_treeopt, "gosdt": run_gosdt}


# --------------------------------------------------------------------------- #
# Running one fit in a forked child (time and memory caps)
# --------------------------------------------------------------------------- #


def _forked_child(conn, fn, quiet: bool) -> None:
    import os
    import traceback

    try:
        if quiet:  # silence C/C++-level prints (gosdt's "Possible timeout: ...")
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.close(devnull)
        conn.send(fn())
    except MemoryError as exc:
        conn.send({"error": f"MemoryError: {exc}", "memory_out": True})
    except BaseException as exc:  # report every failure to the parent
        conn.send({"error": f"{type(exc).__name__}: {exc}",
                   "traceback": traceback.format_exc()})
    finally:
        conn.close()


def _rss_bytes(pid: int) -> int:
    """Resident set size of process ``pid`` (0 once it is gone)."""
    import os

    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def run_forked(fn, timeout: float, memory_cap: Optional[int] = None,
               quiet: bool = False, poll_seconds: float = 0.02) -> Dict[str, Any]:
    """Call ``fn()`` (returning a picklable dict) in a forked child process.

    The parent polls the child's resident memory every ``poll_seconds`` and kills
    it once it exceeds its RSS at the start plus ``memory_cap`` bytes (a solver
    without a memory limit of its own is then reported as out of memory instead
    of exhausting the shared machine; resident memory, not address space, so
    solvers that reserve large virtual regions are not penalised).  The child is
    killed after ``timeout`` seconds; ``quiet`` sends its file descriptor 1
    (C-level stdout) to /dev/null.  Returns ``fn()``'s dict plus
    ``peak_rss_growth_mib`` (polled), or a dict with ``"error"`` and
    ``"killed": True`` (timeout) or ``"memory_out": True``.
    """
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_forked_child, args=(send, fn, quiet))
    start = time.perf_counter()
    proc.start()
    send.close()
    base = _rss_bytes(proc.pid)
    peak = base
    record = None
    outcome = "done"
    while True:
        if recv.poll(poll_seconds):
            try:
                record = recv.recv()
            except EOFError:
                record = None
            break
        rss = _rss_bytes(proc.pid)
        peak = max(peak, rss)
        if memory_cap is not None and rss - base > memory_cap:
            outcome = "memory"
            break
        if time.perf_counter() - start > timeout:
            outcome = "time"
            break
        if not proc.is_alive() and not recv.poll(0):
            break
    elapsed = time.perf_counter() - start
    if record is None:
        if proc.is_alive():
            proc.kill()  # only the child started here
        if outcome == "memory":
            record = {"error": f"killed at {(peak - base) / 2**20:.0f} MiB resident growth "
                               f"(cap {memory_cap / 2**20:.0f} MiB) after {elapsed:.1f} s",
                      "memory_out": True}
        elif outcome == "time":
            record = {"error": f"killed after {elapsed:.0f} s", "killed": True}
        else:
            proc.join()
            record = {"error": f"child died without a result (exit code {proc.exitcode})"}
    proc.join()
    recv.close()
    record.setdefault("peak_rss_growth_mib", (peak - base) / 2**20)
    return record

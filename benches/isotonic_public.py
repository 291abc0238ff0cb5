#!/usr/bin/env python
"""Time the public tree-PAV call, first call included, against ``numpy.sort``.

For each shape of ``--shapes`` (rows x nodes; by default the issue's 512 x 127 and five
unseen ones: 4096 x 255, 64 x 1023, 8192 x 31, 2048 x 63 and 1 x 127, and the small
batches 4 x 127, 16 x 127, 64 x 127, 16 x 255 and 1 x 31), each of
``--processes`` fresh Python processes imports ``treeopt.isotonic``, draws new N(0,1)
scores and times, on those very values,

* ``tree_pav(q, 1.0)`` followed by ``tree_pav_backward(q, 1.0, grad_a, grad_z)`` (forward
  + backward through the public functions, nothing warmed up: the first call of the
  process) and one ``numpy.sort(q)`` (also its first call), in one order in half of the
  processes and in the other order in the other half: the call that comes first also
  pays for the process's first use of that much memory (page faults), the second one
  reuses what the first freed (so the bench also compares each call when it is first in
  its process: ours from the first half against numpy.sort from the second);
* then ``--calls`` more rounds, each on freshly drawn scores: forward + backward and
  one sort of the same values, in alternating order. Besides the median call, it prints
  the median of each when it came first in its round and when it came second: the first
  call of a round writes its outputs to memory that is cold or has to be faulted in
  again, the second reuses what the first freed, and the median of all calls, half of
  each kind, can land on either side.

Each call is timed by the wall clock (what the acceptance reads) and by the thread's
processor time (``time.thread_time``: the same call without the time other processes
took the processor from it; on a loaded machine it is the steadier figure). It prints
per process the first-call times, with the minor page faults each first call took (from
``resource.getrusage``, where the platform has it), and the medians, then per shape the
median over the processes of each (first calls per order), and last, for every shape,
the acceptance of issue 13: forward + backward <= 2 x one ``numpy.sort`` of the same
values, for the first call (in each order) and for the median call.

The outputs ``z`` and ``dL/dq`` come from numpy's allocator, as ``numpy.sort``'s result
does (for arrays of 4 MB and more numpy asks the kernel for huge pages), so a first
forward + backward faults in about twice the pages of one sort: two fresh outputs
against one.

The baseline is ``numpy.sort(q)`` with its default axis (each row of ``q`` sorted: the
sorts of 127 values per row the issue's figures use), not one sort of the flattened array,
which is about twenty times slower and would flatter the solver.

With ``--grid`` it times instead every shape of ``--grid-rows`` x ``--grid-nodes`` (up to
``--max-values`` values) at every lambda of ``--lams``, in ``2 --processes`` fresh processes
each, and prints one line per case: the ratio to ``numpy.sort`` of the first call (each
first in its process) and of the median call, wall clock and (in parentheses) processor
time.

Usage::

    python benches/isotonic_public.py [--processes 7] [--calls 50] [--shapes 512x127,4096x255]
    python benches/isotonic_public.py --grid [--processes 2] [--calls 20] [--lams 1,0.1,10]

(``--processes`` per order, so twice as many in all.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def child(rows, depth, calls, seed, sort_first, lam=1.0):
    """One fresh process: first-call and steady-state times (wall clock and the thread's
    processor time), as JSON on stdout."""
    import numpy as np
    from treeopt.isotonic import tree_pav, tree_pav_backward

    t = 2 ** (depth + 1) - 1
    rng = np.random.default_rng(seed)
    try:
        import resource

        def faults():
            return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    except ImportError:  # no getrusage (Windows): no fault counts

        def faults():
            return 0

    def draw():
        return rng.normal(size=(rows, t)), rng.normal(size=t), rng.normal(size=(rows, t))

    def ours(q, ga, gz):
        tree_pav(q, lam)
        tree_pav_backward(q, lam, ga, gz)

    def sort(q):
        np.sort(q)

    def timed(call, *args):
        """(wall seconds, processor seconds, minor faults) of one call."""
        before, cpu, start = faults(), time.thread_time(), time.perf_counter()
        call(*args)
        return time.perf_counter() - start, time.thread_time() - cpu, faults() - before

    q, ga, gz = draw()
    first, first_cpu, first_faults = {}, {}, {}
    for name in ("sort", "ours") if sort_first else ("ours", "sort"):
        args = (q,) if name == "sort" else (q, ga, gz)
        first[name], first_cpu[name], first_faults[name] = timed(sort if name == "sort" else ours, *args)
    steady = {"ours": [], "sort": []}
    # (wall, processor) times of the calls that came first / second in their round
    by_place = {(name, place): [] for name in steady for place in ("first", "second")}
    for k in range(calls):
        q, ga, gz = draw()
        for place, name in zip(("first", "second"), ("sort", "ours") if k % 2 else ("ours", "sort")):
            steady[name].append(timed(sort, q) if name == "sort" else timed(ours, q, ga, gz))
            by_place[name, place].append(steady[name][-1])
    median = {k: statistics.median(x[0] for x in v) for k, v in steady.items()}
    median_cpu = {k: statistics.median(x[1] for x in v) for k, v in steady.items()}
    for place in ("first", "second"):
        median["in_round_" + place] = {n: statistics.median(x[0] for x in by_place[n, place]) for n in steady}
        median_cpu["in_round_" + place] = {n: statistics.median(x[1] for x in by_place[n, place]) for n in steady}
    print(json.dumps({"first": first, "first_cpu": first_cpu, "faults": first_faults,
                      "median": median, "median_cpu": median_cpu}))


def parse_shapes(text):
    """``"512x127,1x127"`` -> ``[(512, 6), (1, 6)]`` (rows, depth)."""
    shapes = []
    for item in text.split(","):
        rows, nodes = (int(x) for x in item.lower().split("x"))
        depth = (nodes + 1).bit_length() - 2
        if rows < 1 or 2 ** (depth + 1) - 1 != nodes:
            raise SystemExit(f"bad shape {item!r}: rows x nodes with nodes = 2**(depth+1) - 1")
        shapes.append((rows, depth))
    return shapes


def run_shape(rows, depth, processes, calls, lam=1.0, quiet=False):
    """Times one shape in fresh processes; prints its table (unless ``quiet``); returns
    (label, ok) rows and the summary ratios (first call each first in its process,
    median call, median call's processor time)."""
    t = 2 ** (depth + 1) - 1
    say = (lambda *a, **k: None) if quiet else print
    say(f"== tree_pav + tree_pav_backward on fresh {rows} x {t} N(0,1) scores, lambda = {lam:g}, "
          f"vs numpy.sort(q) (default axis) of the same values ({2 * processes} fresh processes, "
          f"{calls} calls each) ==")
    if hasattr(os, "getloadavg"):
        say("   machine load average (1, 5, 15 min): " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    runs = {False: [], True: []}
    for sort_first in (False, True):
        say(f"   first calls: {'numpy.sort, then ours' if sort_first else 'ours, then numpy.sort'}")
        for p in range(processes):
            seed = p + (processes if sort_first else 0)
            command = [sys.executable, __file__, "--child-seed", str(seed), "--rows", str(rows),
                       "--depth", str(depth), "--calls", str(calls), "--child-lam", repr(lam)]
            out = subprocess.run(command + (["--child-sort-first"] if sort_first else []),
                                 check=True, capture_output=True, text=True).stdout
            run = json.loads(out)
            runs[sort_first].append(run)
            f, k, m = run["first"], run["faults"], run["median"]
            say(f"   process {seed:2d}: first call {f['ours'] * 1e3:8.3f} ms, {k['ours']:4d} faults "
                  f"(sort {f['sort'] * 1e3:8.3f} ms, {k['sort']:4d} faults)   "
                  f"median {m['ours'] * 1e3:8.3f} ms (sort {m['sort'] * 1e3:8.3f} ms)")

    def med(group, kind, what):
        return statistics.median(r[kind][what] for r in group)

    say("\n   median over processes                  forward+backward   numpy.sort   ratio"
          "   (processor time ratio)   faults (ours, sort)")
    rows_ = [("first", runs[False], runs[False], "first call, ours first"),
             ("first", runs[True], runs[True], "first call, sort first"),
             ("first", runs[False], runs[True], "first call, each first in its process"),
             ("median", runs[False] + runs[True], runs[False] + runs[True], "median call")]
    verdicts, summary = [], {}
    for kind, ours_group, sort_group, label in rows_:
        ours, sort = med(ours_group, kind, "ours"), med(sort_group, kind, "sort")
        cpu = med(ours_group, kind + "_cpu", "ours") / med(sort_group, kind + "_cpu", "sort")
        verdicts.append((f"{rows} x {t}, {label}", ours / sort <= 2.0))
        summary[label] = (ours / sort, cpu)
        counts = ""
        if kind == "first":
            counts = f"   {med(ours_group, 'faults', 'ours'):6.0f} {med(sort_group, 'faults', 'sort'):6.0f}"
        say(f"   {label:38s} {ours * 1e3:12.3f} ms {sort * 1e3:9.3f} ms {ours / sort:7.2f}   ({cpu:5.2f}){counts}")
    runs_all = runs[False] + runs[True]
    for place in ("first", "second"):
        ours = statistics.median(r["median"]["in_round_" + place]["ours"] for r in runs_all)
        sort = statistics.median(r["median"]["in_round_" + place]["sort"] for r in runs_all)
        cpu = (statistics.median(r["median_cpu"]["in_round_" + place]["ours"] for r in runs_all)
               / statistics.median(r["median_cpu"]["in_round_" + place]["sort"] for r in runs_all))
        label = f"median call, each {place} in its round"
        say(f"   {label:38s} {ours * 1e3:12.3f} ms {sort * 1e3:9.3f} ms {ours / sort:7.2f}   ({cpu:5.2f})")
    say("   (the first of the two calls in a process faults in the pages of its outputs; the second")
    say("   reuses the memory the first freed; the third row compares each call when it comes first")
    say("   in its process, so both pay for that memory. Within a round the call that comes first")
    say("   writes its outputs to memory that is cold or must be faulted in, the second reuses the")
    say("   memory the first freed: the median call mixes the two, the last two rows separate them)\n")
    return verdicts, summary


def run_grid(rows_list, nodes_list, lams, processes, calls, max_values):
    """The shape grid: every rows x nodes (up to ``max_values`` values) at every lambda,
    each in ``2 processes`` fresh processes; one line per case with the ratios to one
    ``numpy.sort`` of the same values (wall clock; processor time in parentheses) of the
    first call (each first in its process) and of the median call."""
    print(f"== grid: forward + backward / one numpy.sort of the same values, fresh N(0,1) scores; "
          f"{2 * processes} fresh processes per case, {calls} calls each ==")
    if hasattr(os, "getloadavg"):
        print("   machine load average (1, 5, 15 min): " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(f"   {'rows':>6} {'nodes':>6} {'lambda':>7}   {'first call':>16}   {'median call':>16}   within 2x")
    failed = []
    for lam in lams:
        for rows in rows_list:
            for nodes in nodes_list:
                if rows * nodes > max_values:
                    continue
                (depth,) = [d for _, d in parse_shapes(f"{rows}x{nodes}")]
                _, summary = run_shape(rows, depth, processes, calls, lam, quiet=True)
                first = summary["first call, each first in its process"]
                median = summary["median call"]
                ok = first[0] <= 2.0 and median[0] <= 2.0
                if not ok:
                    failed.append(f"{rows}x{nodes} lambda={lam:g}")
                print(f"   {rows:6d} {nodes:6d} {lam:7g}   {first[0]:6.2f} ({first[1]:5.2f})   "
                      f"{median[0]:6.2f} ({median[1]:5.2f})   {'yes' if ok else 'NO'}", flush=True)
    print(f"   {len(failed)} case(s) above 2x: {', '.join(failed) if failed else 'none'}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processes", type=int, default=7, help="fresh processes per order of the first calls")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--shapes", default="512x127,4096x255,64x1023,8192x31,2048x63,1x127,4x127,16x127,64x127,16x255,1x31",
                        help="comma-separated rows x nodes (nodes = 2**(depth+1) - 1)")
    parser.add_argument("--grid", action="store_true",
                        help="time the grid --grid-rows x --grid-nodes at every --lams instead of --shapes")
    parser.add_argument("--grid-rows", default="1,4,16,64,512,2048,8192")
    parser.add_argument("--grid-nodes", default="7,31,63,127,255,1023")
    parser.add_argument("--lams", default="1,0.1,10", help="comma-separated lambdas of the grid")
    parser.add_argument("--max-values", type=int, default=2**22, help="grid: skip shapes with more values")
    parser.add_argument("--rows", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--child-lam", type=float, default=1.0, help=argparse.SUPPRESS)
    parser.add_argument("--depth", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--child-seed", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--child-sort-first", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_seed is not None:
        child(args.rows, args.depth, args.calls, args.child_seed, args.child_sort_first, args.child_lam)
        return
    if args.grid:
        ints = lambda text: [int(x) for x in text.split(",")]  # noqa: E731
        run_grid(ints(args.grid_rows), ints(args.grid_nodes), [float(x) for x in args.lams.split(",")],
                 args.processes, args.calls, args.max_values)
        return

    verdicts = []
    for rows, depth in parse_shapes(args.shapes):
        verdicts += run_shape(rows, depth, args.processes, args.calls)[0]
    print("== Acceptance (issue 13): forward + backward <= 2 x numpy.sort (wall clock, medians over processes) ==")
    for label, ok in verdicts:
        print(f"   {label:52s} {'PASS' if ok else 'FAIL'}")


if __name__ == "__main__":
    main()

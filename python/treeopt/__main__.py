"""Command line entry point: the ``treeopt`` command, also ``python -m treeopt``.

``fit``, ``predict`` and ``show`` work on CSV files (:mod:`treeopt.cli`); ``demo``:

The demo fits a provably optimal sparse tree (GOSDT) on scikit-learn's embedded
breast-cancer data, binarized with :class:`treeopt.NumericBinarizer`, and shows
it next to a CART tree with the same number of leaves on the same 0/1 features.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import TYPE_CHECKING, Any, Sequence, TypeVar

from .cli import add_commands, run

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["main"]

_Number = TypeVar("_Number", int, float)


def _number(text: str, kind: type[_Number]) -> _Number:
    try:
        return kind(text)
    except ValueError:
        what = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None


def _positive_int(text: str) -> int:
    value = _number(text, int)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text}")
    return value


def _non_negative_float(text: str) -> float:
    value = _number(text, float)
    if not (math.isfinite(value) and value >= 0):  # also rejects NaN and inf
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value


def _positive_float(text: str) -> float:
    value = _number(text, float)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0 (seconds), got {text}")
    return value


def _fraction(text: str) -> float:
    value = _number(text, float)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(
            f"must be a fraction strictly between 0 and 1 (e.g. 0.25), got {text}"
        )
    return value


def _seed(text: str) -> int:
    value = _number(text, int)
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(
            f"must be an integer from 0 to {2**32 - 1} (a random seed), got {text}"
        )
    return value


def _max_depth(text: str) -> int | None:
    if text.strip().lower() in ("none", "inf", "-1"):
        return None
    value = _number(text, int)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0 or 'none', got {text}")
    return value


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="treeopt",
        description="treeopt: provably optimal sparse decision trees. "
        "`treeopt COMMAND --help` explains each command.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_commands(sub)
    demo = sub.add_parser(
        "demo",
        help="fit GOSDT and CART on the breast-cancer data and compare them",
        description=(
            "Binarize scikit-learn's breast-cancer data with NumericBinarizer, fit "
            "GOSDTClassifier on a stratified train split and compare it with a CART "
            "tree (DecisionTreeClassifier) with the same number of leaves."
        ),
    )
    for flag, kind, default, what in (
        ("--regularization", _non_negative_float, 0.01, "penalty per leaf"),
        ("--max-thresholds", _positive_int, 4,
         "thresholds per numeric column for NumericBinarizer"),
        ("--max-depth", _max_depth, 3, "depth limit for GOSDT; 'none' for no limit"),
        ("--time-limit", _positive_float, 60.0, "GOSDT time limit in seconds"),
        ("--test-size", _fraction, 0.25, "fraction of rows held out for testing"),
        ("--random-state", _seed, 0, "seed of the train/test split and of CART"),
    ):
        demo.add_argument(flag, type=kind, default=default, help=f"{what} (default: %(default)s)")
    demo.add_argument("--verbose", action="store_true", help="print solver progress")
    demo.set_defaults(run=_demo)
    return parser


def _objective(predictions: NDArray[Any], y: NDArray[Any], n_leaves: int, regularization: float) -> float:
    return float((predictions != y).mean() + regularization * n_leaves)


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.4f}"


def _demo(args: argparse.Namespace) -> int:
    import numpy as np
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    from treeopt import GOSDTClassifier, NumericBinarizer, Tree

    data = load_breast_cancer()
    X, y = data.data, data.target
    class_names = [str(c) for c in data.target_names]
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=args.test_size, stratify=y, random_state=args.random_state
    )
    binarizer = NumericBinarizer(max_thresholds=args.max_thresholds).fit(X_tr)
    names = [str(n) for n in binarizer.get_feature_names_out(list(data.feature_names))]
    B_tr = np.asarray(binarizer.transform(X_tr), dtype=np.uint8)
    B_te = np.asarray(binarizer.transform(X_te), dtype=np.uint8)

    print(
        f"treeopt demo: breast cancer ({X.shape[0]} rows, {X.shape[1]} numeric columns, "
        f"labels {class_names[0]}/{class_names[1]})"
    )
    print(
        f"NumericBinarizer(max_thresholds={args.max_thresholds}) -> {B_tr.shape[1]} binary "
        f"features; {len(y_tr)} train / {len(y_te)} test rows (stratified)"
    )

    lam = args.regularization
    gosdt = GOSDTClassifier(
        regularization=lam,
        max_depth=args.max_depth,
        time_limit=args.time_limit,
        verbose=args.verbose,
    )
    start = time.perf_counter()
    gosdt.fit(B_tr, y_tr)
    seconds = time.perf_counter() - start
    k = int(gosdt.n_leaves_)

    depth = "" if args.max_depth is None else f", max_depth={args.max_depth}"
    print(f"\n== GOSDT (regularization={lam}{depth}): {gosdt.status_}, {seconds:.2f} s ==")
    print(gosdt.tree_.to_text(feature_names=names, class_names=class_names))

    # CART with the same number of leaves and depth limit (scikit-learn needs >= 2
    # leaves and depth >= 1)
    cart_leaves = max(k, 2)
    cart_depth = None if args.max_depth is None else max(args.max_depth, 1)
    cart = DecisionTreeClassifier(
        max_leaf_nodes=cart_leaves, max_depth=cart_depth, random_state=args.random_state
    )
    cart.fit(B_tr, y_tr)
    cart_tree = Tree.from_sklearn(cart, binary_features=True)  # fitted on 0/1 columns
    cart_params = f"max_leaf_nodes={cart_leaves}"
    if cart_depth is not None:
        cart_params += f", max_depth={cart_depth}"
    print(f"\n== CART (DecisionTreeClassifier({cart_params})) ==")
    print(cart_tree.to_text(feature_names=names, class_names=class_names))

    rows = [
        ("leaves", str(k), str(cart_tree.n_leaves)),
        ("depth", str(gosdt.tree_.depth), str(cart_tree.depth)),
        (
            "objective (train)",
            _fmt(gosdt.objective_),
            _fmt(_objective(cart.predict(B_tr), y_tr, cart_tree.n_leaves, lam)),
        ),
        ("certified lower bound", _fmt(gosdt.lower_bound_), "-"),
        ("train accuracy", _fmt(gosdt.score(B_tr, y_tr)), _fmt(cart.score(B_tr, y_tr))),
        ("test accuracy", _fmt(gosdt.score(B_te, y_te)), _fmt(cart.score(B_te, y_te))),
    ]
    print(f"\n{'':<24}{'GOSDT':>10}{'CART':>10}")
    for label, a, b in rows:
        print(f"{label:<24}{a:>10}{b:>10}")

    stats = gosdt.search_stats_
    parts = [f"status {gosdt.status_}"]
    for key in ("subproblems", "expansions"):
        if key in stats:
            parts.append(f"{int(stats[key]):,} {key}")
    if "seconds" in stats:
        parts.append(f"{float(stats['seconds']):.2f} s")
    print("\nsearch: " + ", ".join(parts))
    print(
        "objective = misclassification rate + regularization x leaves (train); "
        "optimal = objective meets the certified lower bound"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line interface; returns the exit status."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())

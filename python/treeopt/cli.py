"""The ``treeopt`` command: fit a tree on a CSV (or Parquet) file, save it, show it, apply it.

``treeopt fit DATA.csv --target COLUMN`` fits one of the estimators on every other column,
prints its rules, its training accuracy and, for the certified solvers, the objective, the
certified lower bound and the status, and with ``--out model.json`` saves it.
``treeopt predict model.json DATA.csv`` applies a saved model (the target column may be
absent), ``treeopt show model.json`` prints it as rules, Graphviz dot or JSON.

A saved model is one JSON document (schema ``treeopt.model/1``): the input columns, the
binarization of numeric columns for the estimators that read 0/1 columns (each output
column ``column <= threshold`` or a 0/1 column passed through), and the tree itself in
:meth:`treeopt.Tree.to_dict` form. ``predict`` applies the same binarization, then the
tree; the printed rules name the binarized columns ``age <= 23.5`` and so say exactly
what ``predict`` does.

Errors in the input (a missing file or column, an empty file, a non-numeric column, a
target with a single class) end the command with a message on stderr and exit status 1;
wrong options exit with status 2 (argparse).
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import math
import os
import sys
import time
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence, TextIO

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
    from sklearn.base import BaseEstimator

    from .tree import Tree

__all__ = ["add_commands", "CommandError"]

#: The schema name of a saved model document.
MODEL_SCHEMA = "treeopt.model/1"

#: Thresholds per numeric column for the estimators that read 0/1 columns only.
DEFAULT_MAX_THRESHOLDS = 8


class CommandError(Exception):
    """A problem with the user's files or options: printed as ``treeopt: error: ...``
    and the command exits with status 1."""


# --------------------------------------------------------------------------- #
# the estimators the command can fit
# --------------------------------------------------------------------------- #

class _ModelKind:
    """How ``fit`` builds one estimator from the command's options.

    ``options`` maps each supported command option to the estimator parameter it sets;
    ``binary_input`` says the estimator reads 0/1 columns only (numeric columns are then
    binarized first); ``certified`` says it reports an objective, a lower bound and a
    status; ``fixed`` holds parameters the command sets itself.
    """

    def __init__(
        self,
        class_name: str,
        options: dict[str, str],
        binary_input: bool = False,
        certified: bool = False,
        fixed: dict[str, Any] | None = None,
        about: str = "",
    ) -> None:
        self.class_name = class_name
        self.options = options
        self.binary_input = binary_input
        self.certified = certified
        self.fixed = fixed or {}
        self.about = about

    def estimator(self, args: argparse.Namespace, report_progress: bool) -> Any:
        """The estimator the options ask for; ``report_progress`` sets ``verbose`` on
        the estimators that have it (their reports feed the status line)."""
        import treeopt

        cls = getattr(treeopt, self.class_name)
        params = dict(self.fixed)
        for option, param in self.options.items():
            value = getattr(args, option)
            if value is not None:
                params[param] = value
        if "verbose" in cls._get_param_names():
            params["verbose"] = report_progress
        return cls(**params)


_SEARCH_OPTIONS = {
    "max_depth": "max_depth",
    "regularization": "regularization",
    "time_limit": "time_limit",
    "memory_limit": "memory_limit",
}

MODELS = {
    "gosdt": _ModelKind(
        "GOSDTClassifier", {**_SEARCH_OPTIONS, "max_thresholds": "max_thresholds"}, certified=True,
        about="optimal sparse tree (GOSDT) on the numeric columns as they are",
    ),
    "dl85": _ModelKind(
        "DL85Classifier", {**_SEARCH_OPTIONS, "max_thresholds": "max_thresholds"}, certified=True,
        about="optimal tree of bounded depth (DL8.5, depth 3 by default)",
    ),
    "osdt": _ModelKind(
        "OSDTClassifier",
        {k: v for k, v in _SEARCH_OPTIONS.items() if k != "max_depth"},
        binary_input=True, certified=True,
        about="optimal sparse tree by OSDT's best-first search, on binarized columns",
    ),
    "optimal": _ModelKind(
        "OptimalTreeClassifier", dict(_SEARCH_OPTIONS), certified=True,
        about="GOSDT with thresholds, depth and lower bound guessed by a boosted ensemble",
    ),
    "ec45": _ModelKind(
        "EC45Classifier", {}, binary_input=True, fixed={"random_state": 0},
        about="cost-aware greedy tree (EC4.5, entropy), on binarized columns",
    ),
    "ecart": _ModelKind(
        "ECARTClassifier", {}, binary_input=True, fixed={"random_state": 0},
        about="cost-aware greedy tree (ECART, Gini), on binarized columns",
    ),
    "latent": _ModelKind(
        "LatentTreeClassifier", {"max_depth": "depth", "regularization": "pruning"},
        fixed={"random_state": 0, "predictor_input": "leaves"},
        about="oblique latent tree trained by gradient descent (--max-depth is its depth, "
        "--regularization its pruning strength)",
    ),
}


# --------------------------------------------------------------------------- #
# reading tables
# --------------------------------------------------------------------------- #

def _read_table(path: str) -> tuple[list[str], list[list[Any]]]:
    """``(column names, columns)`` of a CSV or Parquet file, each column a list of its
    values (strings for CSV). Raises :class:`CommandError` on a missing, unreadable or
    empty file, a row of the wrong length or duplicate column names."""
    if not os.path.exists(path):
        raise CommandError(f"no such file: {path}")
    if os.path.isdir(path):
        raise CommandError(f"{path} is a directory, not a data file")
    if path.lower().endswith((".parquet", ".pq")):
        names, columns = _read_parquet(path)
    else:
        names, columns = _read_csv(path)
    if len(set(names)) != len(names):
        seen, dup = set(), None
        for n in names:
            if n in seen:
                dup = n
                break
            seen.add(n)
        raise CommandError(f"{path}: the column name {dup!r} appears twice in the header")
    if not columns or not columns[0]:
        raise CommandError(f"{path} has a header but no data rows")
    return names, columns


def _read_csv(path: str) -> tuple[list[str], list[list[str]]]:
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.reader(f))
    except UnicodeDecodeError as exc:
        raise CommandError(f"{path} is not a UTF-8 text (CSV) file: {exc.reason}") from None
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror}") from None
    rows = [r for r in rows if r]  # blank lines
    if not rows:
        raise CommandError(f"{path} is empty: expected a CSV file with a header row")
    names = [n.strip() for n in rows[0]]
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(names):
            raise CommandError(
                f"{path}, line {line}: {len(row)} values for {len(names)} columns in the header"
            )
    return names, [list(col) for col in zip(*rows[1:])] if len(rows) > 1 else [[] for _ in names]


def _read_parquet(path: str) -> tuple[list[str], list[list[Any]]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise CommandError(
            f"reading {path} needs pyarrow (pip install pyarrow), or give a CSV file"
        ) from None
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises its own error types
        raise CommandError(f"cannot read {path} as Parquet: {exc}") from None
    data = table.to_pydict()
    names = list(data)
    return names, [data[n] for n in names]


def _numeric_matrix(path: str, names: Sequence[str], columns: Sequence[Sequence[Any]]) -> NDArray[np.float64]:
    """The float64 matrix of ``columns`` (named ``names``), or a :class:`CommandError`
    naming every non-numeric column, or the first missing or infinite value."""
    import numpy as np

    bad: list[str] = []
    out = np.empty((len(columns[0]) if columns else 0, len(columns)), dtype=np.float64)
    for j, (name, col) in enumerate(zip(names, columns)):
        for i, v in enumerate(col):
            if v is None or (isinstance(v, str) and not v.strip()):
                raise CommandError(
                    f"{path}: column {name!r} has a missing value in data row {i + 1}; "
                    "treeopt needs every value"
                )
            if isinstance(v, bool):
                v = float(v)
            try:
                x = float(v)
            except (TypeError, ValueError):
                bad.append(f"{name!r} (e.g. {v!r})")
                break
            if not math.isfinite(x):
                raise CommandError(
                    f"{path}: column {name!r} has the value {v!r} in data row {i + 1}; "
                    "treeopt needs finite numbers"
                )
            out[i, j] = x
    if bad:
        raise CommandError(
            f"{path}: non-numeric columns {', '.join(bad)}; treeopt reads numeric and 0/1 "
            "columns: encode categories as 0/1 columns (one per category) first"
        )
    return out


def _class_labels(values: Sequence[Any]) -> list[int] | list[str]:
    """The target's values as class labels: ints when every value is an integer, else
    the strings as written."""
    labels = [v.strip() if isinstance(v, str) else v for v in values]
    try:
        as_float = [float(v) for v in labels]
    except (TypeError, ValueError):
        return [str(v) for v in labels]
    if all(math.isfinite(x) and x == int(x) for x in as_float):
        return [int(x) for x in as_float]
    return [str(v) for v in labels]


def _feature_table(path: str, features: Sequence[str]) -> tuple[NDArray[np.float64], dict[str, list[Any]]]:
    """The float64 matrix of the columns ``features`` of the file at ``path`` (in that
    order) and the file's columns by name."""
    names, columns = _read_table(path)
    missing = [f for f in features if f not in names]
    if missing:
        raise CommandError(
            f"{path} lacks the column{'s' if len(missing) > 1 else ''} "
            f"{', '.join(map(repr, missing))} the model was trained on"
        )
    by_name = dict(zip(names, columns))
    X = _numeric_matrix(path, features, [by_name[f] for f in features])
    return X, by_name


# --------------------------------------------------------------------------- #
# the saved model: binarization + tree
# --------------------------------------------------------------------------- #

def _binarized_matrix(X: NDArray[np.float64], binarization: Sequence[Sequence[Any]]) -> NDArray[np.uint8]:
    """The 0/1 matrix a model that reads 0/1 columns sees for the raw columns ``X``:
    output column ``k`` is ``X[:, j] <= t`` for ``binarization[k] == [j, t]``, or the 0/1
    column ``j`` itself (read as ``X[:, j] > 0.5``) for ``[j, None]``."""
    import numpy as np

    out = np.empty((X.shape[0], len(binarization)), dtype=np.uint8)
    for k, (j, t) in enumerate(binarization):
        out[:, k] = X[:, j] > 0.5 if t is None else X[:, j] <= t
    return out


class SavedModel:
    """A fitted model as the command saves and reads it: the input columns
    (``features``), the binarization (or None), the tree and what ``fit`` measured."""

    def __init__(self, document: object, source: str = "model") -> None:
        from .tree import Tree

        if not isinstance(document, dict) or document.get("schema") != MODEL_SCHEMA:
            raise CommandError(f"{source} is not a treeopt model (expected schema {MODEL_SCHEMA!r})")
        try:
            self.tree = Tree.from_dict(document["tree"])
            self.features = [str(f) for f in document["features"]]
            self.binarization = document.get("binarization")
        except (KeyError, TypeError, ValueError) as exc:
            raise CommandError(f"{source} is a damaged treeopt model: {exc}") from None
        self.document = document

    @classmethod
    def load(cls, path: str) -> SavedModel:
        """Read a model saved by ``treeopt fit --out``."""
        if not os.path.exists(path):
            raise CommandError(f"no such file: {path}")
        try:
            with open(path, encoding="utf-8") as f:
                document = json.load(f)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CommandError(f"cannot read {path} as a JSON model: {exc}") from None
        return cls(document, source=path)

    def predict(self, X: NDArray[np.float64]) -> NDArray[Any]:
        """Class labels of the raw feature rows ``X`` (columns in ``features`` order)."""
        rows: NDArray[Any] = X if self.binarization is None else _binarized_matrix(X, self.binarization)
        return self.tree.predict(rows)

    def rules(self) -> str:
        """The tree as rules, on the columns its tests read."""
        return self.tree.to_text()

    def summary_lines(self) -> list[str]:
        """What ``fit`` printed besides the rules: model, target, score, certificate."""
        d = self.document
        lines = [f"model: {d['model']} ({d['estimator']})", f"target: {d['target']}"]
        fit = d.get("fit", {})
        if "training_accuracy" in fit:
            lines.append(f"training accuracy: {fit['training_accuracy']:.4f} ({fit['n_rows']} rows)")
        if "objective" in fit:
            gap = max(fit["objective"] - fit["lower_bound"], 0.0)
            lines.append(f"objective: {fit['objective']:.6f}")
            lines.append(f"certified lower bound: {fit['lower_bound']:.6f} (gap {gap:.6f})")
            lines.append(f"status: {fit['status']}")
        return lines


def _fitted_tree(estimator: Any, names: Sequence[str]) -> Tree:
    """The fitted estimator's tree with its columns named ``names``."""
    from .tree import Tree

    d = estimator.tree_.to_dict()
    d["feature_names"] = list(names)
    return Tree.from_dict(d)


# --------------------------------------------------------------------------- #
# progress: a live status line on a terminal
# --------------------------------------------------------------------------- #

class StatusLineHandler(logging.Handler):
    """Draws the ``treeopt`` logger's reports as one line on a terminal, rewritten in
    place: a search's numbers (elapsed, lower bound, best objective, gap, subproblems),
    or the message of another report (a latent tree's epoch). :meth:`finish` clears it."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__(logging.INFO)
        self.stream = stream
        self.width = 0

    def emit(self, record: logging.LogRecord) -> None:
        try:
            p = getattr(record, "progress", None)
            if p and "lower_bound" in p:
                text = (
                    f"{p['elapsed']:7.1f}s  lower bound {p['lower_bound']:.6f}  "
                    f"best objective {p['objective']:.6f}  gap {p['gap']:.6f}  "
                    f"subproblems {p['subproblems']:,}"
                )
            else:
                text = record.getMessage()
            self.stream.write("\r" + text.ljust(self.width))
            self.width = len(text)
            self.stream.flush()
        except Exception:  # pragma: no cover - logging's policy for failing handlers
            self.handleError(record)

    def finish(self) -> None:
        """Clear the status line (the fit is over)."""
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


class _Progress:
    """While a fit runs: the live status line when stderr is a terminal and ``--quiet``
    is not given, else no progress output at all."""

    def __init__(self, quiet: bool) -> None:
        self.logger = logging.getLogger("treeopt")
        #: Whether the status line is shown (the estimators then report progress).
        self.live = not quiet and sys.stderr.isatty()
        self.handler: logging.Handler = StatusLineHandler(sys.stderr) if self.live else logging.NullHandler()

    def __enter__(self) -> _Progress:
        self.saved = (self.logger.level, self.logger.propagate)
        self.logger.addHandler(self.handler)
        self.logger.setLevel(logging.INFO)
        self.logger.propagate = False
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        if isinstance(self.handler, StatusLineHandler):
            self.handler.finish()
        self.logger.removeHandler(self.handler)
        self.logger.setLevel(self.saved[0])
        self.logger.propagate = self.saved[1]
        return False


# --------------------------------------------------------------------------- #
# the subcommands
# --------------------------------------------------------------------------- #

def _fit(args: argparse.Namespace) -> int:
    import numpy as np

    from .binarize import NumericBinarizer

    kind = MODELS[args.model]
    for option in ("max_depth", "regularization", "time_limit", "memory_limit", "max_thresholds"):
        given = getattr(args, option) is not None
        if given and option not in kind.options and not (option == "max_thresholds" and kind.binary_input):
            flag = "--" + option.replace("_", "-")
            takers = sorted(m for m, k in MODELS.items() if option in k.options)
            raise CommandError(f"{flag} does not apply to --model {args.model} (it does to {', '.join(takers)})")

    names, columns = _read_table(args.data)
    if args.target not in names:
        raise CommandError(f"{args.data} has no column {args.target!r}; its columns are {', '.join(names)}")
    features = [n for n in names if n != args.target]
    if not features:
        raise CommandError(f"{args.data} has no column besides the target {args.target!r}")
    by_name = dict(zip(names, columns))
    X = _numeric_matrix(args.data, features, [by_name[f] for f in features])
    y = np.asarray(_class_labels(by_name[args.target]))
    classes = np.unique(y)
    if len(classes) < 2:
        raise CommandError(
            f"the target {args.target!r} has one class only ({classes[0]!r}); a classifier needs two or more"
        )

    binarization: list[list[int | float | None]] | None = None
    X_model: NDArray[Any]
    X_model, model_names = X, features
    if kind.binary_input:
        k = DEFAULT_MAX_THRESHOLDS if args.max_thresholds is None else args.max_thresholds
        binarizer = NumericBinarizer(max_thresholds=k).fit(X)
        binarization = [[int(j), None if t is None else float(t)] for j, t in binarizer.output_columns_]
        model_names = [str(n) for n in binarizer.get_feature_names_out(features)]
        X_model = _binarized_matrix(X, binarization)

    progress = _Progress(args.quiet)
    estimator = kind.estimator(args, report_progress=progress.live)
    start = time.perf_counter()
    with progress:
        estimator.fit(X_model, y)
    seconds = time.perf_counter() - start

    document: dict[str, Any] = {
        "schema": MODEL_SCHEMA,
        "model": args.model,
        "estimator": f"{kind.class_name}({', '.join(f'{k}={v!r}' for k, v in sorted(_given_params(estimator).items()))})",
        "target": args.target,
        "features": features,
        "binarization": binarization,
        "tree": _fitted_tree(estimator, model_names).to_dict(),
        "fit": {"n_rows": int(X.shape[0]), "seconds": round(seconds, 3)},
    }
    model = SavedModel(document)
    document["fit"]["training_accuracy"] = float(np.mean(model.predict(X) == y))
    if kind.certified:
        document["fit"].update(
            objective=float(estimator.objective_),
            lower_bound=float(estimator.lower_bound_),
            status=str(estimator.status_),
        )
    print(model.rules())
    print()
    for line in model.summary_lines():
        print(line)
    print(f"fit time: {seconds:.2f} s")
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8") as f:
                json.dump(document, f, indent=1)
                f.write("\n")
        except OSError as exc:
            raise CommandError(f"cannot write {args.out}: {exc.strerror}") from None
        print(f"saved to {args.out}")
    return 0


def _given_params(estimator: BaseEstimator) -> dict[str, Any]:
    """The estimator's parameters that differ from their defaults (``verbose`` aside)."""
    import inspect

    defaults = {
        name: p.default for name, p in inspect.signature(type(estimator).__init__).parameters.items()
        if p.default is not inspect.Parameter.empty
    }
    return {
        k: v for k, v in estimator.get_params().items()
        if k in defaults and k != "verbose" and v != defaults[k]
    }


def _predict(args: argparse.Namespace) -> int:
    model = SavedModel.load(args.model)
    X, by_name = _feature_table(args.data, model.features)
    predictions = model.predict(X)
    target = model.document["target"]
    lines = ["prediction"] + [str(p) for p in predictions.tolist()]
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8", newline="") as f:
                f.write("\n".join(lines) + "\n")
        except OSError as exc:
            raise CommandError(f"cannot write {args.out}: {exc.strerror}") from None
    else:
        sys.stdout.write("\n".join(lines) + "\n")
    if target in by_name:
        import numpy as np

        y = np.asarray(_class_labels(by_name[target]))
        accuracy = float(np.mean(predictions == y))
        print(f"accuracy on {args.data} ({len(y)} rows, column {target!r}): {accuracy:.4f}", file=sys.stderr)
    return 0


def _show(args: argparse.Namespace) -> int:
    model = SavedModel.load(args.model)
    if args.format == "json":
        print(json.dumps(model.document, indent=1))
    elif args.format == "dot":
        print(model.tree.to_dot())
    else:
        for line in model.summary_lines():
            print(line)
        print()
        print(model.rules())
    return 0


# --------------------------------------------------------------------------- #
# the parser
# --------------------------------------------------------------------------- #

def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text}")
    return value


def _finite(low: float, inclusive: bool, what: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
        if not (math.isfinite(value) and (value >= low if inclusive else value > low)):
            raise argparse.ArgumentTypeError(f"must be a finite number {'>=' if inclusive else '>'} {low:g}{what}, got {text}")
        return value
    return parse


def _data_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", metavar="DATA", help="CSV file with a header row (or .parquet with pyarrow)")


def _model_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL.json", help="a model saved by `treeopt fit --out`")


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``fit``, ``predict`` and ``show`` to the ``treeopt`` command's subparsers;
    each sets ``run`` to the function that carries it out."""
    models = "\n".join(f"  {name:8s} {kind.about}" for name, kind in MODELS.items())
    fit = subparsers.add_parser(
        "fit",
        help="fit a tree on a CSV/Parquet file and print its rules",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Fit a classification tree on every column of DATA except --target, print its\n"
            "rules, its training accuracy and, for the certified models (gosdt, dl85,\n"
            "osdt, optimal), the objective, the certified lower bound and the status.\n"
            "Columns must be numeric (0/1 columns included). Models that read 0/1\n"
            "columns only (osdt, ec45, ecart) get each numeric column binarized into\n"
            "`column <= threshold` columns (at most --max-thresholds per column), and\n"
            "the saved model records them so that `treeopt predict` does the same.\n\n"
            f"models:\n{models}"
        ),
    )
    _data_argument(fit)
    fit.add_argument("--target", required=True, metavar="COLUMN", help="the column to predict (class labels)")
    fit.add_argument("--model", choices=list(MODELS), default="gosdt", help="which tree to fit (default: gosdt)")
    fit.add_argument("--max-depth", type=_positive_int, metavar="D", help="depth limit (the latent tree's depth)")
    fit.add_argument(
        "--regularization", type=_finite(0, True, ""), metavar="L",
        help="penalty per leaf added to the error rate (latent: pruning strength)",
    )
    fit.add_argument("--time-limit", type=_finite(0, False, " (seconds)"), metavar="S",
                     help="seconds after which the search returns its best tree with a proven gap")
    fit.add_argument("--memory-limit", type=_positive_int, metavar="BYTES", help="memory budget of the search in bytes")
    fit.add_argument(
        "--max-thresholds", type=_positive_int, metavar="K",
        help=f"thresholds per numeric column (gosdt, dl85: default all; osdt, ec45, ecart: default {DEFAULT_MAX_THRESHOLDS})",
    )
    fit.add_argument("--out", metavar="MODEL.json", help="save the fitted model to this JSON file")
    fit.add_argument("--quiet", action="store_true", help="no progress output")
    fit.set_defaults(run=_fit)

    predict = subparsers.add_parser(
        "predict",
        help="apply a saved model to a CSV/Parquet file",
        description=(
            "Predict the class of every row of DATA with a model saved by `treeopt fit --out`. "
            "DATA needs the columns the model was trained on (others are ignored; the target "
            "column may be absent, and when present the accuracy is printed on stderr). "
            "Predictions are written as a one-column CSV (header `prediction`)."
        ),
    )
    _model_argument(predict)
    _data_argument(predict)
    predict.add_argument("--out", metavar="PREDICTIONS.csv", help="write the predictions here instead of stdout")
    predict.set_defaults(run=_predict)

    show = subparsers.add_parser(
        "show",
        help="print a saved model as rules, Graphviz dot or JSON",
        description="Print a model saved by `treeopt fit --out`.",
    )
    _model_argument(show)
    show.add_argument(
        "--format", choices=["text", "dot", "json"], default="text",
        help="text: summary and rules (default); dot: Graphviz; json: the saved document",
    )
    show.set_defaults(run=_show)


def run(args: argparse.Namespace) -> int:
    """Carry out a parsed subcommand; a :class:`CommandError` becomes a message on
    stderr and exit status 1."""
    try:
        status: int = args.run(args)
        return status
    except CommandError as exc:
        print(f"treeopt: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader of stdout left (`treeopt show ... | head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0

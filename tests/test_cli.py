"""End to end: the installed ``treeopt`` console script, run in a subprocess on the shared
CSV files, for every subcommand and every error case. The rules ``treeopt show`` prints
are followed by the rules interpreter of ``test_rules_interpreter`` on the raw CSV rows
and must give exactly what ``treeopt predict`` writes."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_rules_interpreter import interpret_text

pytestmark = pytest.mark.usefixtures("datasets_dir")


def _console_script():
    found = shutil.which("treeopt", path=str(Path(sys.executable).parent)) or shutil.which("treeopt")
    assert found, "the treeopt console script is not installed: pip install -e ."
    return found


def treeopt(*args, stdin=None, stderr=subprocess.PIPE):
    """Run the console script; returns the CompletedProcess (text)."""
    return subprocess.run(
        [_console_script(), *map(str, args)], capture_output=stderr is subprocess.PIPE,
        text=True, timeout=600, stdin=stdin,
    )


def _read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def _check_rules_say_what_predict_does(model_path, data_path, tmp_path):
    """``show``'s rules, followed on the raw rows, give ``predict``'s output."""
    shown = treeopt("show", model_path)
    assert shown.returncode == 0, shown.stderr
    rules = shown.stdout.split("\n\n", 1)[1].rstrip("\n")
    out = tmp_path / "predictions.csv"
    applied = treeopt("predict", model_path, data_path, "--out", out)
    assert applied.returncode == 0, applied.stderr
    header, rows = _read_csv(out)
    assert header == ["prediction"]
    predicted = [r[0] for r in rows]
    names, data = _read_csv(data_path)
    features = json.loads(Path(model_path).read_text())["features"]
    index = [names.index(f) for f in features]
    raw = [[float(row[j]) for j in index] for row in data]
    # a model on binarized columns names them "age <= 23.5" (or a 0/1 column's own name):
    # the interpreter reads those names as tests on the raw columns
    followed = interpret_text(rules, features, raw)
    assert len(predicted) == len(data)
    assert followed == predicted
    return predicted


MODELS = [
    ("gosdt", ["--max-depth", "3", "--regularization", "0.005"]),
    ("dl85", ["--max-depth", "2"]),
    ("osdt", ["--regularization", "0.02", "--max-thresholds", "3", "--time-limit", "60"]),
    ("optimal", ["--max-depth", "3", "--time-limit", "60"]),
    ("ec45", ["--max-thresholds", "4"]),
    ("ecart", []),
    ("latent", ["--max-depth", "2", "--regularization", "0.5"]),
]


@pytest.mark.parametrize("model,options", MODELS, ids=[m for m, _ in MODELS])
def test_fit_show_predict_round_trip_on_compas(model, options, datasets_dir, tmp_path):
    data = datasets_dir / "compas.csv"
    path = tmp_path / "model.json"
    fitted = treeopt("fit", data, "--target", "two_year_recid", "--model", model, *options, "--out", path)
    assert fitted.returncode == 0, fitted.stderr
    assert fitted.stderr == "", "no progress output when stderr is not a terminal"
    out = fitted.stdout
    assert out.startswith("if ") and "predict " in out
    document = json.loads(path.read_text())
    assert document["schema"] == "treeopt.model/1" and document["model"] == model
    assert "two_year_recid" not in document["features"]
    accuracy = document["fit"]["training_accuracy"]
    assert f"training accuracy: {accuracy:.4f}" in out
    certified = model in ("gosdt", "dl85", "osdt", "optimal")
    assert ("certified lower bound:" in out) == certified
    if certified:
        fit = document["fit"]
        assert f"status: {fit['status']}" in out and f"objective: {fit['objective']:.6f}" in out
        assert fit["lower_bound"] <= fit["objective"] + 1e-12
    # 0/1-only estimators see binarized columns, recorded for predict
    assert (document["binarization"] is not None) == (model in ("osdt", "ec45", "ecart"))
    # the rules printed by fit are those of the saved model
    shown = treeopt("show", path)
    assert shown.stdout.split("\n\n", 1)[1].strip() == out.split("\n\n", 1)[0].strip()
    predicted = _check_rules_say_what_predict_does(path, data, tmp_path)
    _, rows = _read_csv(data)
    truth = [r[-1] for r in rows]
    assert sum(p == t for p, t in zip(predicted, truth)) / len(truth) == pytest.approx(accuracy)


@pytest.mark.parametrize("model", ["dl85", "osdt"])
def test_numeric_dataset(model, datasets_dir, tmp_path):
    data = datasets_dir / "numeric" / "rice.csv"
    path = tmp_path / "rice.json"
    options = ["--max-depth", "2"] if model == "dl85" else ["--max-thresholds", "4", "--regularization", "0.02"]
    fitted = treeopt("fit", data, "--target", "label", "--model", model, *options, "--out", path)
    assert fitted.returncode == 0, fitted.stderr
    assert "status: optimal" in fitted.stdout
    document = json.loads(path.read_text())
    if model == "osdt":  # thresholds recorded: at most 4 per column, each named in the tree
        thresholds = [t for _, t in document["binarization"]]
        assert 0 < len(thresholds) <= 4 * len(document["features"])
        assert document["tree"]["feature_names"][0].startswith("x0 <= ")
    _check_rules_say_what_predict_does(path, data, tmp_path)


def test_predict_without_the_target_column_and_to_stdout(datasets_dir, tmp_path):
    data = datasets_dir / "compas.csv"
    path = tmp_path / "m.json"
    assert treeopt("fit", data, "--target", "two_year_recid", "--model", "osdt", "--max-thresholds", "2",
                   "--regularization", "0.05", "--out", path).returncode == 0
    names, rows = _read_csv(data)
    # columns reordered, target dropped, an extra column added
    keep = [n for n in names if n != "two_year_recid"][::-1]
    unlabeled = tmp_path / "unlabeled.csv"
    with open(unlabeled, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(keep + ["note"])
        for r in rows[:50]:
            w.writerow([r[names.index(n)] for n in keep] + ["x"])
    applied = treeopt("predict", path, unlabeled)
    assert applied.returncode == 0, applied.stderr
    lines = applied.stdout.splitlines()
    assert lines[0] == "prediction" and len(lines) == 51 and set(lines[1:]) <= {"0", "1"}
    assert applied.stderr == "", "no accuracy without the target column"
    labeled = treeopt("predict", path, data)
    assert "accuracy on" in labeled.stderr
    assert labeled.stdout.splitlines()[1:51] == lines[1:]


def test_show_formats(datasets_dir, tmp_path):
    path = tmp_path / "m.json"
    assert treeopt("fit", datasets_dir / "compas.csv", "--target", "two_year_recid", "--model", "dl85",
                   "--max-depth", "2", "--out", path, "--quiet").returncode == 0
    dot = treeopt("show", path, "--format", "dot")
    assert dot.returncode == 0 and dot.stdout.startswith("digraph Tree {") and "priors_count" in dot.stdout
    as_json = treeopt("show", path, "--format", "json")
    assert json.loads(as_json.stdout) == json.loads(path.read_text())
    text = treeopt("show", path)
    assert text.stdout.startswith("model: dl85 (DL85Classifier(max_depth=2))\ntarget: two_year_recid\n")


def test_help_of_every_command():
    top = treeopt("--help")
    assert top.returncode == 0
    for command in ("fit", "predict", "show", "demo"):
        assert command in top.stdout
    for command, must_mention in (
        ("fit", ["--target", "--model", "--max-depth", "--regularization", "--time-limit",
                 "--memory-limit", "--out", "--quiet", "gosdt", "latent"]),
        ("predict", ["MODEL.json", "DATA", "--out"]),
        ("show", ["--format", "dot", "json"]),
        ("demo", ["--regularization"]),
    ):
        helped = treeopt(command, "--help")
        assert helped.returncode == 0, helped.stderr
        for word in must_mention:
            assert word in helped.stdout, (command, word)
    # python -m treeopt is the same command
    module = subprocess.run([sys.executable, "-m", "treeopt", "fit", "--help"], capture_output=True, text=True)
    assert module.returncode == 0 and "--target" in module.stdout


def _write(path, text):
    path.write_text(text)
    return path


def _error(result, *fragments, code=1):
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)
    assert "Traceback" not in result.stderr


def test_error_cases(datasets_dir, tmp_path):
    compas = datasets_dir / "compas.csv"
    target = ("--target", "two_year_recid")
    _error(treeopt("fit", tmp_path / "absent.csv", *target), "no such file:", "absent.csv")
    _error(treeopt("fit", compas, "--target", "recid"), "has no column 'recid'", "two_year_recid")
    _error(treeopt("fit", _write(tmp_path / "empty.csv", ""), *target), "is empty")
    _error(treeopt("fit", _write(tmp_path / "header.csv", "a,b\n"), "--target", "b"), "no data rows")
    _error(treeopt("fit", _write(tmp_path / "ragged.csv", "a,b\n1,0\n2\n"), "--target", "b"), "line 3")
    _error(
        treeopt("fit", _write(tmp_path / "text.csv", "sex,age,y\nmale,3,0\nfemale,4,1\n"), "--target", "y"),
        "non-numeric columns 'sex' (e.g. 'male')", "0/1 columns",
    )
    _error(treeopt("fit", _write(tmp_path / "gap.csv", "a,y\n1,0\n,1\n"), "--target", "y"), "missing value")
    _error(treeopt("fit", _write(tmp_path / "inf.csv", "a,y\n1,0\ninf,1\n"), "--target", "y"), "finite numbers")
    _error(treeopt("fit", _write(tmp_path / "one.csv", "a,y\n1,1\n2,1\n"), "--target", "y"), "one class only")
    _error(treeopt("fit", _write(tmp_path / "only.csv", "y\n1\n0\n"), "--target", "y"), "no column besides")
    _error(treeopt("fit", compas, *target, "--model", "osdt", "--max-depth", "3"),
           "--max-depth does not apply to --model osdt")
    # usage errors: argparse's status 2
    _error(treeopt("fit", compas), "--target", code=2)
    _error(treeopt("fit", compas, *target, "--model", "xgboost"), "invalid choice", code=2)
    _error(treeopt("fit", compas, *target, "--time-limit", "-1"), "--time-limit", code=2)
    _error(treeopt("fit", compas, *target, "--max-depth", "two"), "must be an integer", code=2)
    _error(treeopt("frobnicate"), "invalid choice", code=2)

    model = tmp_path / "m.json"
    assert treeopt("fit", compas, *target, "--model", "dl85", "--max-depth", "1", "--out", model).returncode == 0
    _error(treeopt("predict", tmp_path / "absent.json", compas), "no such file:")
    _error(treeopt("predict", model, tmp_path / "absent.csv"), "no such file:")
    _error(treeopt("predict", _write(tmp_path / "bad.json", "{not json"), compas), "cannot read", "as a JSON model")
    _error(treeopt("predict", _write(tmp_path / "other.json", '{"schema": "x"}'), compas), "is not a treeopt model")
    _error(treeopt("show", _write(tmp_path / "broken.json", '{"schema": "treeopt.model/1"}')), "damaged treeopt model")
    _error(treeopt("predict", model, _write(tmp_path / "few.csv", "age,sex=female\n30,1\n")),
           "lacks the columns", "priors_count")
    _error(treeopt("predict", model, _write(tmp_path / "empty2.csv", "")), "is empty")
    _error(treeopt("fit", compas, *target, "--out", tmp_path / "no" / "dir" / "m.json", "--model", "dl85",
                   "--max-depth", "1"), "cannot write")


def test_parquet(datasets_dir, tmp_path):
    """Parquet files are read with pyarrow when it is installed, else refused clearly."""
    pq_path = tmp_path / "compas.parquet"
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        pq_path.write_bytes(b"PAR1")
        _error(treeopt("fit", pq_path, "--target", "two_year_recid"), "needs pyarrow")
        return
    names, rows = _read_csv(datasets_dir / "compas.csv")
    pq.write_table(pa.table({n: [float(r[j]) for r in rows] for j, n in enumerate(names)}), pq_path)
    model = tmp_path / "m.json"
    fitted = treeopt("fit", pq_path, "--target", "two_year_recid", "--model", "dl85", "--max-depth", "2",
                     "--out", model)
    assert fitted.returncode == 0, fitted.stderr
    from_csv = treeopt("predict", model, datasets_dir / "compas.csv")
    from_parquet = treeopt("predict", model, pq_path)
    assert from_parquet.stdout == from_csv.stdout


def _run_on_a_terminal(*args):
    """Run the console script with stderr on a pseudo-terminal; returns (status, stdout,
    what the terminal received)."""
    import pty
    import select

    leader, follower = pty.openpty()
    proc = subprocess.Popen([_console_script(), *map(str, args)], stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    received = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            received += chunk
        elif proc.poll() is not None:
            break
    out = proc.stdout.read().decode()
    proc.wait(timeout=60)
    os.close(leader)
    return proc.returncode, out, received.decode()


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_live_status_line_on_a_terminal_and_quiet(datasets_dir):
    args = ("fit", datasets_dir / "numeric" / "magic.csv", "--target", "label", "--regularization", "0.0005",
            "--time-limit", "2.5")
    code, out, terminal = _run_on_a_terminal(*args)
    assert code == 0, terminal
    assert "status: time_limit" in out
    # one line rewritten in place: carriage returns, no newline between the updates
    updates = [u for u in terminal.split("\r") if "best objective" in u]
    assert len(updates) >= 3, terminal
    for u in updates:
        assert re.match(r"^ *[0-9.]+s  lower bound [0-9.]+  best objective [0-9.]+  gap [0-9.]+  subproblems [0-9,]+ *$", u), u
    assert "\n" not in terminal.strip(), "the status line is cleared, not scrolled"
    code, out, terminal = _run_on_a_terminal(*args, "--quiet")
    assert code == 0 and "status: time_limit" in out
    assert terminal == "", "--quiet prints nothing on the terminal"

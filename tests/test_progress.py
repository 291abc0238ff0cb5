"""``verbose=True`` goes through :mod:`logging` (logger ``treeopt``): records a handler
can read, silenced or redirected by the standard configuration, and shown on stderr
only when logging is not configured at all."""

from __future__ import annotations

import io
import logging
import subprocess
import sys

import pytest
from sklearn.datasets import load_breast_cancer

from treeopt import DL85Classifier, GOSDTClassifier

PROGRESS_KEYS = {"elapsed", "lower_bound", "objective", "gap", "subproblems"}


def _long_fit(**params):
    """A GOSDT fit that searches for about 1.2 s (stopped by its time limit)."""
    X, y = load_breast_cancer(return_X_y=True)
    return GOSDTClassifier(regularization=0.001, max_depth=5, time_limit=1.2, **params).fit(X, y)


@pytest.fixture
def treeopt_logger():
    """The ``treeopt`` logger, restored after the test."""
    logger = logging.getLogger("treeopt")
    saved = (logger.level, logger.propagate, list(logger.handlers))
    yield logger
    logger.setLevel(saved[0])
    logger.propagate = saved[1]
    logger.handlers[:] = saved[2]


def test_search_reports_are_records_with_their_numbers(caplog):
    caplog.set_level(logging.INFO, logger="treeopt")
    clf = _long_fit(verbose=True)
    assert clf.status_ == "time_limit"
    reports = [r for r in caplog.records if getattr(r, "progress", None)]
    assert len(reports) >= 2, "a search of 1.2 s reports at least twice (every 0.5 s)"
    for r in reports:
        assert r.name == "treeopt" and r.levelno == logging.INFO
        p = r.progress
        assert set(p) == PROGRESS_KEYS
        assert 0 <= p["lower_bound"] <= p["objective"] + 1e-12
        assert p["gap"] == pytest.approx(p["objective"] - p["lower_bound"])
        assert f"subproblems {p['subproblems']}" in r.getMessage()
    elapsed = [r.progress["elapsed"] for r in reports]
    assert elapsed == sorted(elapsed)
    # the closing summary names the status and the certificate of the tree returned
    last = caplog.records[-1].getMessage()
    assert last.startswith("time_limit: objective") and f"{clf.lower_bound_:.6f}" in last


def test_quiet_fit_logs_nothing(caplog):
    caplog.set_level(logging.DEBUG, logger="treeopt")
    X, y = load_breast_cancer(return_X_y=True)
    DL85Classifier(max_depth=2, max_thresholds=8).fit(X, y)
    assert caplog.records == []


def test_a_handler_redirects_the_reports(treeopt_logger, capfd):
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    treeopt_logger.addHandler(handler)
    treeopt_logger.setLevel(logging.INFO)
    treeopt_logger.propagate = False
    _long_fit(verbose=True)
    lines = stream.getvalue().splitlines()
    assert sum("lower bound" in line for line in lines) >= 3
    assert capfd.readouterr() == ("", ""), "redirected reports must not reach stdout/stderr"


def test_a_level_silences_the_reports(treeopt_logger, capfd):
    stream = io.StringIO()
    treeopt_logger.addHandler(logging.StreamHandler(stream))
    treeopt_logger.setLevel(logging.WARNING)
    _long_fit(verbose=True)
    assert stream.getvalue() == ""
    assert capfd.readouterr() == ("", "")


_SCRIPT = """
import logging, sys
from sklearn.datasets import load_breast_cancer
from treeopt import GOSDTClassifier
{configure}
X, y = load_breast_cancer(return_X_y=True)
GOSDTClassifier(regularization=0.001, max_depth=5, time_limit=0.8, verbose=True).fit(X, y)
"""


def _run(configure):
    """stdout and stderr of a fresh process (pytest's own logging handlers absent)."""
    proc = subprocess.run(
        [sys.executable, "-c", _SCRIPT.format(configure=configure)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


def test_unconfigured_logging_shows_verbose_on_stderr_and_standard_configuration_takes_over():
    out, err = _run("")
    assert out == ""
    assert "[treeopt]" in err and "lower bound" in err and "time_limit: objective" in err

    out, err = _run('logging.getLogger("treeopt").setLevel(logging.WARNING)')
    assert (out, err) == ("", "")

    out, err = _run("logging.basicConfig(level=logging.INFO, stream=sys.stdout, format='LOG %(name)s %(message)s')")
    assert err == ""
    assert "LOG treeopt" in out and "lower bound" in out

    out, err = _run("logging.disable(logging.INFO)")
    assert (out, err) == ("", "")


def test_progress_formatting_is_lazy_and_numbers_exact(caplog):
    from treeopt._progress import search_progress

    caplog.set_level(logging.INFO, logger="treeopt")
    search_progress(1.5, 0.25, 0.375, 42)
    (record,) = caplog.records
    assert record.progress == {"elapsed": 1.5, "lower_bound": 0.25, "objective": 0.375, "gap": 0.125, "subproblems": 42}
    assert record.getMessage() == "    1.50s  lower bound 0.250000  objective 0.375000  gap 0.125000  subproblems 42"

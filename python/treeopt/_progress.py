"""Progress of long fits, through the standard :mod:`logging` module (logger ``treeopt``).

Every estimator with ``verbose=True`` reports here: the Rust searches (GOSDT, DL8.5, OSDT)
about twice a second with their elapsed time, certified lower bound, best objective and
number of subproblems; the certified estimators once more when the search ends; latent
trees once per epoch. Each report is an ``INFO`` record of the logger ``treeopt`` whose
``progress`` attribute holds its numbers as a dict (``None`` when it has none), so a
handler can draw them its own way (the ``treeopt`` command draws a live status line).

When logging is not configured at all (no handler anywhere, no level set on ``treeopt``),
``verbose=True`` still shows the reports, on stderr, as scikit-learn's ``verbose`` does.
Any standard configuration takes over: ``logging.getLogger("treeopt").setLevel(logging.WARNING)``
silences them, a handler redirects them, ``logging.disable(logging.INFO)`` drops them.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

__all__ = ["logger", "report", "search_progress"]

#: The logger every progress report goes to.
logger = logging.getLogger("treeopt")


class _CurrentStderrHandler(logging.Handler):
    """Writes to whatever ``sys.stderr`` is when a record arrives (as logging's own
    last-resort handler does), so redirected or captured stderr receives it."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:  # pragma: no cover - logging's own policy for failing handlers
            self.handleError(record)


_unconfigured_handler = _CurrentStderrHandler(logging.INFO)
_unconfigured_handler.setFormatter(logging.Formatter("[treeopt] %(message)s"))


def _logging_configured() -> bool:
    """Whether the user configured logging for ``treeopt``: a level on its logger, or a
    handler on it or on an ancestor."""
    return logger.level != logging.NOTSET or logger.hasHandlers()


def report(message: str, *args: object, progress: dict[str, Any] | None = None) -> None:
    """Log one progress report at ``INFO`` on the ``treeopt`` logger.

    Parameters
    ----------
    message : str
        ``%``-style format of the report, filled with ``args`` only if it is shown.
    *args
        Arguments of ``message``.
    progress : dict or None
        The report's numbers, set as the record's ``progress`` attribute.
    """
    extra = {"progress": progress}
    if _logging_configured():
        logger.info(message, *args, extra=extra)
    elif not logger.manager.disable >= logging.INFO:
        record = logger.makeRecord(logger.name, logging.INFO, __file__, 0, message, args, None, extra=extra)
        _unconfigured_handler.handle(record)


def search_progress(elapsed: float, lower_bound: float, objective: float, subproblems: int) -> None:
    """The report of a running search (called by the Rust binding when ``verbose``)."""
    gap = max(objective - lower_bound, 0.0)
    report(
        "%8.2fs  lower bound %.6f  objective %.6f  gap %.6f  subproblems %d",
        elapsed, lower_bound, objective, gap, subproblems,
        progress={
            "elapsed": float(elapsed),
            "lower_bound": float(lower_bound),
            "objective": float(objective),
            "gap": float(gap),
            "subproblems": int(subproblems),
        },
    )

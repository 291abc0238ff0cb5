"""The numpydoc docstring of a method that takes the rows ``X`` of a fitted estimator."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["FITTED_ROWS", "ROWS", "takes_rows"]

_Method = TypeVar("_Method", bound="Callable[..., Any]")

#: ``X`` of a method of a fitted estimator (the default), and the same rows when the
#: estimator also takes a DataFrame and names them against ``n_features_in_``.
ROWS = "array-like of shape (n_samples, n_features)"
FITTED_ROWS = "array-like or DataFrame of shape (n_samples, n_features_in_)"


def takes_rows(summary: str, returns: str, x: str = ROWS) -> Callable[[_Method], _Method]:
    """Decorator giving a method that takes the rows ``X`` its docstring: the
    ``summary``, the parameter ``X`` described as ``x`` and the ``Returns`` section
    ``returns`` (the type, then any indented description lines)."""
    sections = f"Parameters\n----------\nX : {x}\n\nReturns\n-------\n{returns}\n"

    def document(method: _Method) -> _Method:
        method.__doc__ = f"{summary}\n\n" + textwrap.indent(sections, " " * 8) + " " * 8
        return method

    return document

"""scikit-learn's estimator checks as one parametrized test, for every test module.

``test_sklearn_estimator_checks = sklearn_checks_test([...], expected_failed)`` in a
test module runs every check of ``parametrize_with_checks`` on each estimator.
Expected failures are strict: a check declared as failing that starts passing fails
the run, so no list of expected failures can silently go stale (from scikit-learn 1.7,
whose ``parametrize_with_checks`` has ``xfail_strict``; on 1.6 such a check shows as
XPASS).
"""

from __future__ import annotations

import inspect

from sklearn.utils.estimator_checks import parametrize_with_checks

__all__ = ["sklearn_checks_test"]


def sklearn_checks_test(estimators, expected_failed_checks=None):
    """The test running scikit-learn's checks on ``estimators``; assign it to a name
    starting with ``test_`` for pytest to collect it. ``expected_failed_checks`` is
    the callable of ``parametrize_with_checks`` (estimator -> {check name: reason})."""

    strict = {"xfail_strict": True} if "xfail_strict" in inspect.signature(parametrize_with_checks).parameters else {}

    @parametrize_with_checks(list(estimators), expected_failed_checks=expected_failed_checks, **strict)
    def test_sklearn_estimator_checks(estimator, check):
        check(estimator)

    return test_sklearn_estimator_checks

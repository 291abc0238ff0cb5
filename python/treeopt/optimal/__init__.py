"""Provably optimal trees over 0/1 or numeric features: scikit-learn estimators over the Rust solvers.

``_base`` holds :class:`~treeopt.optimal._base.CertifiedTreeClassifier`, the fit every
solver shares (validation, weights, limits, the certificate attributes); each solver is
one module that sets its parameters and calls its Rust search: ``_gosdt``
(:class:`GOSDTClassifier`), ``_dl85`` (:class:`DL85Classifier`) and ``_osdt``
(:class:`OSDTClassifier`, 0/1 only); ``_regressor`` holds the regressors under squared
error (:class:`GOSDTRegressor`, :class:`DL85Regressor`); ``_numeric`` packs numeric
columns and caps their thresholds; ``_rashomon`` holds :class:`RashomonSet`, every
tree within a bound of the optimum.
"""

from ._dl85 import DL85Classifier
from ._gosdt import GOSDTClassifier
from ._osdt import OSDT_BOUNDS, OSDT_POLICIES, OSDTClassifier
from ._rashomon import RashomonSet
from ._regressor import DL85Regressor, GOSDTRegressor

__all__ = [
    "DL85Classifier",
    "DL85Regressor",
    "GOSDTClassifier",
    "GOSDTRegressor",
    "OSDTClassifier",
    "OSDT_BOUNDS",
    "OSDT_POLICIES",
    "RashomonSet",
]

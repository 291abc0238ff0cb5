"""treeopt: decision trees people can read and trust.

Provably optimal sparse trees (GOSDT) with a Rust core, one shared tree model and
scikit-learn style estimators and transformers.

GOSDT and DL8.5 take numeric columns as they are (every midpoint a candidate
split, or ``max_thresholds`` of them) as well as 0/1 ones; OSDT and the greedy trees
learn from 0/1 features, made from numeric columns by :class:`NumericBinarizer` (or
:class:`ThresholdGuessBinarizer`). Categorical
(string) columns are one-hot encoded, e.g. with :class:`BinnedOneHotEncoder`, which
also bins numeric columns, or with scikit-learn's ``OneHotEncoder``.
"""

from ._core import __version__
from .tree import Tree
from .binarize import BinnedOneHotEncoder, NumericBinarizer
from .optimal import DL85Classifier, DL85Regressor, GOSDTClassifier, GOSDTRegressor, OSDTClassifier, RashomonSet
from .greedy import CostAwareTreeClassifier, EC45Classifier, ECARTClassifier
from .extract import ExtractedTreeClassifier, ExtractedTreeRegressor
from .guess import OptimalTreeClassifier, ThresholdGuessBinarizer
from .latent import LatentTreeClassifier, LatentTreeRegressor

__all__ = ["BinnedOneHotEncoder", "CostAwareTreeClassifier", "DL85Classifier", "DL85Regressor", "EC45Classifier", "ECARTClassifier", "ExtractedTreeClassifier", "ExtractedTreeRegressor", "GOSDTClassifier", "GOSDTRegressor", "LatentTreeClassifier", "LatentTreeRegressor", "NumericBinarizer", "OSDTClassifier", "OptimalTreeClassifier", "RashomonSet", "ThresholdGuessBinarizer", "Tree", "__version__"]

"""treeopt: decision trees people can read and trust.

Provably optimal sparse trees (GOSDT) with a Rust core, one shared tree model and
scikit-learn style estimators and transformers.
"""

from ._core import __version__
from ._tree import Tree
from .binarize import NumericBinarizer
from .optimal import DL85Classifier, GOSDTClassifier
from .greedy import CostAwareTreeClassifier, EC45Classifier, ECARTClassifier
from .extract import ExtractedTreeClassifier, ExtractedTreeRegressor
from .guess import OptimalTreeClassifier, ThresholdGuessBinarizer
from .latent import LatentTreeClassifier, LatentTreeRegressor
from .optimal import OSDTClassifier

__all__ = ["CostAwareTreeClassifier", "DL85Classifier", "EC45Classifier", "ECARTClassifier", "ExtractedTreeClassifier", "ExtractedTreeRegressor", "GOSDTClassifier", "LatentTreeClassifier", "LatentTreeRegressor", "NumericBinarizer", "OSDTClassifier", "OptimalTreeClassifier", "ThresholdGuessBinarizer", "Tree", "__version__"]

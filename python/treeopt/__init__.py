"""treeopt: decision trees people can read and trust.

Provably optimal sparse trees (GOSDT) with a Rust core, one shared tree model and
scikit-learn style estimators and transformers.
"""

from ._core import __version__
from ._tree import Tree
from .binarize import NumericBinarizer
from .optimal import DL85Classifier, GOSDTClassifier
from .extract import ExtractedTreeClassifier, ExtractedTreeRegressor
from .latent import LatentTreeClassifier, LatentTreeRegressor

__all__ = ["DL85Classifier", "ExtractedTreeClassifier", "ExtractedTreeRegressor", "GOSDTClassifier", "LatentTreeClassifier", "LatentTreeRegressor", "NumericBinarizer", "Tree", "__version__"]

"""treeopt: decision trees people can read and trust.

Provably optimal sparse trees (GOSDT) with a Rust core, one shared tree model and
scikit-learn style estimators and transformers.
"""

from ._core import __version__
from ._tree import Tree
from .binarize import NumericBinarizer
from .optimal import GOSDTClassifier

__all__ = ["GOSDTClassifier", "NumericBinarizer", "Tree", "__version__"]

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sklearn.base import BaseEstimator, TransformerMixin

class KBinsDiscretizer(TransformerMixin, BaseEstimator):
    # quantile_method exists from scikit-learn 1.7 (default "warn", "averaged_inverted_cdf" from 1.9).
    bin_edges_: NDArray[np.object_]
    n_bins_: NDArray[np.intp]
    def __init__(self, n_bins: int | ArrayLike = 5, *, encode: str = "onehot", strategy: str = "quantile", quantile_method: str = ..., dtype: Any = None, subsample: int | None = 200000, random_state: Any = None) -> None: ...
    def fit(self, X: ArrayLike, y: Any = None, sample_weight: ArrayLike | None = None) -> KBinsDiscretizer: ...
    def transform(self, X: ArrayLike) -> NDArray[Any]: ...

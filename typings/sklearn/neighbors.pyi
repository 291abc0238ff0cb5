from typing import Any, Literal, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sklearn.base import BaseEstimator

class NearestNeighbors(BaseEstimator):
    def __init__(self, *, n_neighbors: int = 5, radius: float = 1.0, algorithm: str = "auto", leaf_size: int = 30, metric: Any = "minkowski", p: float = 2, metric_params: dict[str, Any] | None = None, n_jobs: int | None = None) -> None: ...
    def fit(self, X: ArrayLike, y: Any = None) -> NearestNeighbors: ...
    @overload
    def kneighbors(self, X: ArrayLike | None = None, n_neighbors: int | None = None, *, return_distance: Literal[False]) -> NDArray[np.intp]: ...
    @overload
    def kneighbors(self, X: ArrayLike | None = None, n_neighbors: int | None = None, return_distance: Literal[True] = True) -> tuple[NDArray[np.float64], NDArray[np.intp]]: ...

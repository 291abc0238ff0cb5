from typing import Any

import numpy as np
from numpy.typing import NDArray

NODE_DTYPE: np.dtype[np.void]

class Tree:
    node_count: int
    max_depth: int
    children_left: NDArray[np.intp]
    children_right: NDArray[np.intp]
    feature: NDArray[np.intp]
    threshold: NDArray[np.float64]
    value: NDArray[np.float64]
    def __init__(self, n_features: int, n_classes: NDArray[np.intp], n_outputs: int) -> None: ...
    def __setstate__(self, d: dict[str, Any]) -> None: ...
    def __getstate__(self) -> dict[str, Any]: ...

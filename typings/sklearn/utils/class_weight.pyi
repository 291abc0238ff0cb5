from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

def compute_sample_weight(class_weight: dict[Any, float] | str | list[Any] | None, y: ArrayLike, *, indices: ArrayLike | None = None) -> NDArray[np.float64]: ...

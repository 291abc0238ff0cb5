from typing import Any

import numpy as np
from numpy.random import RandomState

def check_random_state(seed: int | np.integer[Any] | RandomState | None) -> RandomState: ...
def get_tags(estimator: object) -> Any: ...

"""Type stub of ``treeopt._core``, the compiled binding of treeopt's Rust solvers.

Kept in step with ``rust/python/src`` by ``tests/test_typing.py`` (every public name of
the module, every argument list and every field). The result classes are frozen: their
fields are read-only (``Final``).
"""

from typing import Final, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import NDArray

__version__: str

_Matrix = Union[NDArray[np.uint8], NDArray[np.float64]]

class GosdtSearch:
    """GOSDT: penalty per leaf, optional depth limit, reference errors, cost matrix."""

    def __init__(
        self,
        regularization: float,
        max_depth: Optional[int] = None,
        reference_errors: Optional[NDArray[np.float64]] = None,
        misclassification_cost: Optional[NDArray[np.float64]] = None,
        min_samples_leaf: int = 1,
    ) -> None: ...

class Dl85Search:
    """DL8.5: a depth-limited optimal tree with a minimum leaf support."""

    def __init__(
        self,
        max_depth: int,
        min_samples_leaf: int,
        regularization: float,
        reference_errors: Optional[NDArray[np.float64]] = None,
        misclassification_cost: Optional[NDArray[np.float64]] = None,
    ) -> None: ...

class OsdtSearch:
    """OSDT (two classes): penalty per leaf, queue policy, bounds off, warm start."""

    def __init__(
        self,
        regularization: float,
        policy: str = "curiosity",
        disabled_bounds: Optional[Sequence[str]] = None,
        warm_start: Optional[Tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]] = None,
    ) -> None: ...

class SearchStats:
    """Work counters of a search."""

    expansions: Final[int]
    memory_bytes: Final[int]
    seconds: Final[float]
    subproblems: Final[int]

class OsdtStats:
    """OSDT's counters and the warm start's objective."""

    leaf_sets: Final[int]
    leaves: Final[int]
    peak_bytes: Final[int]
    peak_queue: Final[int]
    time_to_optimum: Final[float]
    trees_evaluated: Final[int]
    trees_queued: Final[int]
    trees_to_optimum: Final[int]
    warm_start_objective: Final[Optional[float]]

class FitResult:
    """A fitted tree (node arrays in the layout of ``treeopt.Tree``) and its certificate."""

    children_left: Final[NDArray[np.int64]]
    children_right: Final[NDArray[np.int64]]
    feature: Final[NDArray[np.int64]]
    threshold: Final[NDArray[np.float64]]
    value: Final[NDArray[np.float64]]
    labels: Final[NDArray[np.int64]]
    labels_are_argmax: Final[bool]
    node_depth: Final[NDArray[np.int64]]
    stats: Final[SearchStats]
    objective: Final[float]
    lower_bound: Final[float]
    guessed_lower_bound: Final[Optional[float]]
    status: Final[str]
    interrupt: Final[Optional[BaseException]]
    osdt: Final[Optional[OsdtStats]]

def fit(
    x: _Matrix,
    y: Union[NDArray[np.uint32], NDArray[np.float64]],
    sample_weight: Optional[NDArray[np.float64]],
    search: Union[GosdtSearch, Dl85Search, OsdtSearch],
    n_classes: Optional[int] = None,
    time_limit: Optional[float] = None,
    memory_limit: Optional[int] = None,
    verbose: bool = False,
    slow_fit_warning: Optional[Tuple[float, str]] = None,
    threads: int = 1,
) -> FitResult:
    """Fit a tree: class indices (uint32, with ``n_classes``) or real targets (float64)."""

def class_codes(
    y: NDArray[np.int64],
) -> Optional[Tuple[NDArray[np.int64], NDArray[np.int64]]]:
    """The distinct labels ascending and each label's index among them, or None for an
    empty ``y`` or one spanning more than 4 x len(y) values."""

def zero_one_problem(
    x: NDArray[np.uint8], y: NDArray[np.int64]
) -> Optional[Tuple[NDArray[np.int64], NDArray[np.uint32]]]:
    """``class_codes(y)`` (the codes as uint32) when every value of ``x`` is 0 or 1; None
    when one is not, when either array is not C-contiguous, or as ``class_codes``."""

def osdt_bound_names() -> list[str]:
    """The names of OSDT's bounds, in the order of the paper's presentation."""

def osdt_policy_names() -> list[str]:
    """The names of OSDT's scheduling policies."""

class PavInfo:
    """Groups and support sets of a forward pass of ``TreePAV``."""

    group: Final[NDArray[np.int64]]
    value: Final[NDArray[np.float64]]
    denominator: Final[NDArray[np.float64]]
    support: Final[NDArray[np.bool_]]

class TreePAV:
    """Reusable solver of the latent-tree pruning problem, with its backward pass."""

    def __init__(self) -> None: ...
    def forward(self, q: NDArray[np.float64], lam: float) -> Tuple[NDArray[np.float64], NDArray[np.float64]]: ...
    def backward(
        self, q: NDArray[np.float64], grad_a: NDArray[np.float64], grad_z: NDArray[np.float64]
    ) -> NDArray[np.float64]: ...
    def backward_at(
        self, q: NDArray[np.float64], lam: float, grad_a: NDArray[np.float64], grad_z: NDArray[np.float64]
    ) -> Optional[NDArray[np.float64]]: ...
    def forward_checked(
        self, q: object, lam: object, most_values: int
    ) -> Optional[Tuple[NDArray[np.float64], NDArray[np.float64]]]: ...
    def backward_checked(
        self, q: object, lam: object, grad_a: object, grad_z: object, most_values: int
    ) -> Optional[NDArray[np.float64]]: ...
    def solved_shape(self) -> Optional[Tuple[int, int]]: ...
    def set_max_held_bytes(self, bytes: int) -> None: ...
    def held_bytes(self) -> int: ...
    def info(self) -> PavInfo: ...

class RashomonGraph:
    """Every tree within the bound of the optimum, as an and/or graph of subproblems
    (costs in weight units: divide by ``total_weight`` for objectives)."""

    total_weight: Final[float]
    optimal_objective: Final[float]
    objective_bound: Final[float]
    n_nodes: Final[int]
    def levels(self) -> list[Tuple[float, int]]: ...
    def tree(self, level: int, index: int) -> list[Tuple[int, float, int, int, int]]: ...
    def votes(self, x: NDArray[np.float64]) -> NDArray[np.float64]: ...
    def unused(self) -> list[int]: ...
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(bytes: bytes) -> RashomonGraph: ...

def rashomon_set(
    x: _Matrix,
    y: NDArray[np.uint32],
    n_classes: int,
    sample_weight: Optional[NDArray[np.float64]],
    regularization: float,
    rashomon_bound: float,
    bound_type: str,
    max_depth: Optional[int] = None,
    min_samples_leaf: int = 1,
    time_limit: Optional[float] = None,
    memory_limit: Optional[int] = None,
) -> RashomonGraph:
    """Every tree within the bound of the optimum; ``TimeoutError`` / ``MemoryError`` past the limits."""

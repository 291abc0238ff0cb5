from typing import Any

from numpy.typing import ArrayLike, NDArray

from sklearn.base import BaseEstimator, ClassifierMixin

class DummyClassifier(ClassifierMixin, BaseEstimator):
    def __init__(self, *, strategy: str = "prior", random_state: Any = None, constant: Any = None) -> None: ...
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> DummyClassifier: ...
    def predict(self, X: ArrayLike) -> NDArray[Any]: ...

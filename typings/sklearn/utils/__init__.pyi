from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.random import RandomState

@dataclass
class InputTags:
    one_d_array: bool = False
    two_d_array: bool = True
    three_d_array: bool = False
    sparse: bool = False
    categorical: bool = False
    string: bool = False
    dict: bool = False
    positive_only: bool = False
    allow_nan: bool = False
    pairwise: bool = False

@dataclass
class TargetTags:
    required: bool
    one_d_labels: bool = False
    two_d_labels: bool = False
    positive_only: bool = False
    multi_output: bool = False
    single_output: bool = True

@dataclass
class TransformerTags:
    preserves_dtype: list[str] = ...

@dataclass
class ClassifierTags:
    poor_score: bool = False
    multi_class: bool = True
    multi_label: bool = False

@dataclass
class RegressorTags:
    poor_score: bool = False

@dataclass
class Tags:
    estimator_type: str | None
    target_tags: TargetTags
    transformer_tags: TransformerTags | None = None
    classifier_tags: ClassifierTags | None = None
    regressor_tags: RegressorTags | None = None
    array_api_support: bool = False
    no_validation: bool = False
    non_deterministic: bool = False
    requires_fit: bool = True
    _skip_test: bool = False
    input_tags: InputTags = ...

def check_random_state(seed: int | np.integer[Any] | RandomState | None) -> RandomState: ...
def get_tags(estimator: object) -> Tags: ...

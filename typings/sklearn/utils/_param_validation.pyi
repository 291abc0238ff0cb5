from numbers import Real
from typing import Any, Literal

class Interval:
    def __init__(self, type: type[Any], left: float | int | None, right: float | int | None, *, closed: Literal["left", "right", "both", "neither"]) -> None: ...

class Options:
    def __init__(self, type: type[Any], options: set[Any], *, deprecated: set[Any] | None = None) -> None: ...

class StrOptions(Options):
    def __init__(self, options: set[str], *, deprecated: set[str] | None = None) -> None: ...

class HasMethods:
    def __init__(self, methods: str | list[str]) -> None: ...

__all__ = ["HasMethods", "Interval", "Options", "Real", "StrOptions"]

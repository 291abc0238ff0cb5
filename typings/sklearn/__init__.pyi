from typing import Any

__version__: str

def get_config() -> dict[str, Any]: ...

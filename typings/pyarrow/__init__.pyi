from typing import Any

class Table:
    column_names: list[str]
    num_rows: int
    def to_pandas(self, **kwargs: Any) -> Any: ...
    def column(self, i: int | str) -> Any: ...

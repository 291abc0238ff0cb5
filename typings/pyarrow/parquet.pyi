from os import PathLike

from pyarrow import Table

def read_table(source: str | PathLike[str], *, columns: list[str] | None = None) -> Table: ...

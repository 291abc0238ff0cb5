"""What the comparison harnesses share when they finish: the rows as JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional


def save_json(path: Optional[str], rows) -> None:
    """Write ``rows`` to ``path`` as indented JSON (nothing when ``path`` is None)."""
    if path:
        Path(path).write_text(json.dumps(rows, indent=1, default=str))

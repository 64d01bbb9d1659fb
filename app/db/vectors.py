"""pgvector values in hand-written SQL: the text form a `CAST(:v AS vector)` parameter takes."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

_FORMATS: dict[int, str] = {}


def vector_literal(v: Iterable[float]) -> str:
    """pgvector's text form; 7 significant digits keep every bit a float32 has that matters."""
    values = tuple(v.tolist() if isinstance(v, np.ndarray) else v)
    fmt = _FORMATS.get(len(values))
    if fmt is None:  # one %-format per dimension: 2-3x faster than joining per-element f-strings
        fmt = _FORMATS[len(values)] = "[" + ",".join(["%.7g"] * len(values)) + "]"
    return fmt % values

"""pgvector values in hand-written SQL, in pgvector's binary format (app.db.engine registers the
`pgvector` package's asyncpg codec on every connection).

A `CAST(:v AS vector)` (or `vector[]`) parameter takes `as_db_vector(...)`; a selected `vector`
column comes back as a `pgvector.Vector`, read with `from_db_vector`. No text form on either
way: printing 384 floats and parsing them back cost more than the query around them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pgvector import Vector

Vec = Vector  # a parameter for the codec: a numpy array would be taken for a nested SQL array


def as_db_vector(v: Iterable[float]) -> Vec:
    """A vector as the codec sends it (float32): one value, also inside a `vector[]` parameter."""
    return Vector(v if isinstance(v, np.ndarray) else list(v))


def from_db_vector(value: Any) -> NDArray[np.float32] | None:
    """A `vector` column's value as float32 numpy (None stays None)."""
    if value is None:
        return None
    if isinstance(value, Vector):
        return value.to_numpy()
    return np.asarray(value, dtype=np.float32)

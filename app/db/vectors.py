"""pgvector values in hand-written SQL, in pgvector's binary format (app.db.engine registers the
`pgvector` package's asyncpg codec on every connection).

A `CAST(:v AS vector)` (or `vector[]`) parameter takes `as_db_vector(...)`; a selected `vector`
column comes back as a `pgvector.Vector`, read with `from_db_vector`. No text form on either
way: printing 384 floats and parsing them back cost more than the query around them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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


def pack_vectors(vectors: NDArray[np.float32]) -> bytes:
    """Several vectors of one row (a message's sentences) as one `bytea`: float16, row after row.
    Half of float32's bytes; the cosine it gives differs by about 1e-3, far below what ranks turns
    apart (LoCoMo's replay ranks the same with either: docs/benchmarks.md, issue 11 round 4)."""
    return np.ascontiguousarray(vectors, dtype="<f2").tobytes()


def pack_many(vectors: NDArray[np.float32], counts: Sequence[int]) -> list[bytes | None]:
    """Consecutive runs of `vectors`, `counts[i]` rows for row i, each `pack_vectors`'d (None for
    a run of none): the inverse of `unpack_many`."""
    out: list[bytes | None] = []
    at = 0
    for k in counts:
        out.append(pack_vectors(vectors[at : at + k]) if k else None)
        at += k
    return out


def unpack_vectors(value: bytes, dim: int) -> NDArray[np.float32]:
    """`pack_vectors`'s bytes back as an (n, dim) float32 array."""
    return np.frombuffer(value, dtype="<f2").reshape(-1, dim).astype(np.float32)


def unpack_many(values: list[bytes], dim: int) -> tuple[NDArray[np.float32], NDArray[np.int64]]:
    """Several rows' `pack_vectors` bytes as one (total, dim) float32 array, with how many vectors
    each row holds (its run of rows in the array)."""
    counts = np.fromiter((len(v) for v in values), np.int64, len(values)) // (np.dtype("<f2").itemsize * dim)
    return unpack_vectors(b"".join(values), dim), counts

"""What every embedder offers (app/ai/factories.py picks one from settings)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of `dim` dimensions, in order."""

    name: str
    dim: int

    async def start(self) -> None:
        """Load what the first call would otherwise wait for."""

    async def embed(self, texts: Sequence[str]) -> Vectors: ...

    async def aclose(self) -> None: ...


class EmbedderUnavailable(RuntimeError):
    """The model endpoint is down or refusing (after retries): retry the whole batch later."""


class EmbedderMismatch(RuntimeError):
    """The embedder's dimension is not the one the database was installed with."""

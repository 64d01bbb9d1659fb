"""The worker's one model, taken in turns by its steps: new messages' embeddings first.

Lanes run side by side (app/worker.py) and the model never runs two of their calls at once. A
message is searchable once embedded, a latency users see; a summary's sentences (the local
summariser embeds up to 256 per summary) or extracted facts are not. So an `urgent` view (the
message embedding step's) goes ahead of every waiting call of the others, and the others' calls
are taken in pieces of PIECE texts, each a turn of its own: a new message waits for at most one
piece, not for a whole summary's sentences of another tenant's backlog (bench/hostile: a lone
message took ~2 s to become searchable while an attacker's summaries were being written, 0.15 s
without them).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Sequence

import numpy as np

from app.ai.embedder import Embedder, Vectors

PIECE = 32  # texts per turn of a call that is not urgent (the local model's own sub-batch size)


class SharedModel:
    """The worker's embedder behind turn-taking: steps call it as any `Embedder`. `turns` calls
    run at once (each on the model's own threads), the rest wait in order, urgent ones first."""

    def __init__(self, embedder: Embedder, *, piece: int = PIECE, turns: int = 1) -> None:
        self._embedder = embedder
        self._piece = piece
        self._turns = turns
        self._running = 0
        self._waiting: tuple[collections.deque[asyncio.Future[None]], ...] = (
            collections.deque(),  # urgent
            collections.deque(),  # the rest
        )
        self.name, self.dim = embedder.name, embedder.dim
        self.urgent = _Urgent(self)

    async def start(self) -> None:
        await self._embedder.start()

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """Not urgent: one turn per piece of texts, the vectors in the texts' order. The pieces
        are cut from the texts shortest first: a model call pads its texts to its longest, and
        pieces of mixed lengths cost ~30 % more CPU per text than pieces of similar ones (256
        chat sentences in pieces of 32, docs/benchmarks.md "Made searchable, session 16")."""
        if len(texts) <= self._piece:
            return await self._turn(texts, urgent=False)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        ranked = [texts[i] for i in order]
        pieces = [
            await self._turn(ranked[i : i + self._piece], urgent=False)
            for i in range(0, len(ranked), self._piece)
        ]
        vectors = np.concatenate(pieces)
        out: Vectors = np.empty_like(vectors)
        out[order] = vectors
        return out

    async def _turn(self, texts: Sequence[str], *, urgent: bool) -> Vectors:
        await self._acquire(urgent)
        try:
            return await self._embedder.embed(texts)
        finally:
            self._release()

    async def _acquire(self, urgent: bool) -> None:
        first, rest = self._waiting
        if self._running < self._turns and not first and (urgent or not rest):
            self._running += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = first if urgent else rest
        queue.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release()  # handed the turn as it was cancelled: pass it on
            else:
                queue.remove(waiter)
            raise

    def _release(self) -> None:
        # The turn goes straight to the next waiter (urgent ones first): `_running` stays as it
        # is, so a newcomer cannot slip in between.
        for queue in self._waiting:
            while queue:
                waiter = queue.popleft()
                if not waiter.done():
                    waiter.set_result(None)
                    return
        self._running -= 1

    async def aclose(self) -> None:
        """The embedder belongs to the caller, who closes it."""


class _Urgent:
    """The shared model for a step whose output users wait for: its calls go first, whole."""

    def __init__(self, shared: SharedModel) -> None:
        self._shared = shared
        self.name, self.dim = shared.name, shared.dim

    async def start(self) -> None:
        await self._shared.start()

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return await self._shared._turn(texts, urgent=True)

    async def aclose(self) -> None:
        """The embedder belongs to the caller, who closes it."""

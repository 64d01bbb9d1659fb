"""Concurrent embedding calls of one process merged into one model call at a time.

Queries come one text a request. Sixteen searches at once made sixteen model calls side by side
in threads, each paying the model's fixed cost and all fighting the event loop for the GIL and the
two cores (bench/hostile `waiting_searches`: 35 % of the API process's samples in onnxruntime, the
other tenant's p99 at 289 ms). One call for whatever arrived meanwhile costs little more than one
call for one text. Used for queries only: the worker's batches of 128 stay apart, so a query never
waits behind one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from app.ai.embedder import Embedder, Vectors
from app.ai.model_gate import ModelGate


class Batcher:
    """Texts of concurrent requests in one model call: while a call runs, the next ones queue."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._queue: list[tuple[Sequence[str], asyncio.Future[Vectors]]] = []
        self._task: asyncio.Task[None] | None = None

    async def embed(self, texts: Sequence[str]) -> Vectors:
        future: asyncio.Future[Vectors] = asyncio.get_running_loop().create_future()
        self._queue.append((texts, future))
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._drain(), name="engram-embed-batch")
        return await future

    async def _drain(self) -> None:
        while self._queue:
            batch, self._queue = self._queue, []
            try:
                vectors = await self._embedder.embed([t for texts, _ in batch for t in texts])
            except Exception as exc:  # every waiter of this call gets the error (a 503 to its API)
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            start = 0
            for texts, future in batch:
                if not future.done():  # its request may have gone (client disconnected)
                    future.set_result(vectors[start : start + len(texts)])
                start += len(texts)


class BatchedEmbedder:
    """The API process's query embedder over its local model: batched, with the model's readiness."""

    def __init__(self, gate: ModelGate) -> None:
        self._gate = gate
        self._batcher = Batcher(gate)
        self.name = gate.name
        self.dim = gate.dim

    async def start(self) -> None:
        await self._gate.start()

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return await self._batcher.embed(texts)

    async def readiness(self) -> str:
        return await self._gate.readiness()

    async def aclose(self) -> None:
        await self._gate.aclose()

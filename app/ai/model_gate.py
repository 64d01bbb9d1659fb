"""The embedder while its model is prepared in the background, so the API answers meanwhile.

A first run exports the local model to ONNX (~30 s on a small machine). Loading it before
serving left `/healthz` silent all that time. Instead the API serves at once: `/readyz` says
the model is being prepared, a request that needs the model waits briefly for it and otherwise
gets a 503 with Retry-After, and the worker starts once the model is ready.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence

import structlog

from app.ai.embedder import Embedder, Vectors
from app.errors import ServiceUnavailable

_log = structlog.get_logger("engram.model")
# While the model is exported, a request waits this long, then gets a 503: long enough to cover
# the export's last second, short enough not to hold its database connection for long. A model
# only being loaded from its cache (a few seconds) is worth waiting for: up to LOAD_WAIT_SECONDS.
EXPORT_WAIT_SECONDS = 2.0
LOAD_WAIT_SECONDS = 60.0
RETRY_AFTER_SECONDS = 5


def preparing_note(*, exporting: bool) -> str:
    """What a user waits for while the model is prepared, with an estimate."""
    return "first run exports the model, ~30 s" if exporting else "loading the model"


class ModelGate:
    """Wraps an embedder whose `start()` runs in the background; `embed` waits for it."""

    def __init__(self, inner: Embedder, *, exporting: bool, owned: bool = True) -> None:
        """`owned`: the gate closes `inner` with itself; a borrowed model is its lender's to close."""
        self._inner = inner
        self._owned = owned
        self.name = inner.name
        self.dim = inner.dim
        self._preparing = preparing_note(exporting=exporting)
        self._wait = EXPORT_WAIT_SECONDS if exporting else LOAD_WAIT_SECONDS
        self._ready = asyncio.Event()
        self._error: str | None = None
        self._task: asyncio.Task[None] | None = None

    def prepare(self) -> None:
        """Start loading the model without waiting for it."""
        self._task = asyncio.create_task(self._load(), name="engram-model-load")

    async def _load(self) -> None:
        _log.info("model: preparing", model=self.name, note=self._preparing)
        started = time.monotonic()
        try:
            await self._inner.start()
        except Exception as exc:  # reported by /readyz and every caller; the API keeps serving
            self._error = type(exc).__name__
            _log.exception("model: could not be prepared", model=self.name)
            return
        self._ready.set()
        _log.info("model: ready", model=self.name, seconds=round(time.monotonic() - started, 1))

    def status(self) -> str:
        """`ok`, `preparing (...)` or `error: ...`, as /readyz shows it."""
        if self._ready.is_set():
            return "ok"
        if self._error is not None:
            return f"error: {self._error}"
        return f"preparing ({self._preparing})"

    async def readiness(self) -> str:
        """`status()`, as /readyz asks every embedder (a remote one checks its endpoint)."""
        return self.status()

    async def wait_ready(self, stop: asyncio.Event) -> bool:
        """Wait until the model is ready (True), or could not be loaded or `stop` is set (False)."""
        if self._task is None:
            return self._ready.is_set()
        waiters = [asyncio.ensure_future(stop.wait()), self._task]
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        waiters[0].cancel()
        return self._ready.is_set()

    async def start(self) -> None:
        await self._inner.start()
        self._ready.set()

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if not self._ready.is_set():
            if self._task is not None and self._error is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(self._task), self._wait)
            if not self._ready.is_set():
                raise ServiceUnavailable(
                    f"The embedding model is {self.status()}; retry shortly.",
                    headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
                )
        return await self._inner.embed(texts)

    async def aclose(self) -> None:
        if self._task is not None and not self._task.done():
            # The load runs in a thread that cannot be interrupted; leave it, do not wait for it.
            self._task.cancel()
        if self._owned:
            await self._inner.aclose()

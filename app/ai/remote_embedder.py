"""Query embeddings from the worker's endpoint (app/ai/embed_server.py), for API processes that load
no model of their own (ENGRAM_EMBED_URL).

Never hangs a request: a call waits at most ENGRAM_EMBED_TIMEOUT_SECONDS, and after a failure the
next calls within a second fail at once instead of each waiting out the timeout again. A failure
is `EmbedderDown`, a 503 problem+json with Retry-After: a search by meaning cannot be answered
without its query's vector, and says so (keyword search does not embed and keeps working; a memory
read ranks its facts without the query, app/memory/service.py).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import httpx
import numpy as np
import orjson
import structlog

from app.ai.embed_server import DIM_HEADER
from app.ai.embedder import Vectors
from app.config import Settings
from app.errors import ServiceUnavailable

_log = structlog.get_logger("engram.remote_embedder")

FAIL_FAST_SECONDS = 1.0
RETRY_AFTER_SECONDS = 2


class EmbedderDown(ServiceUnavailable):
    """The shared embedding endpoint did not answer in time (or at all)."""


class RemoteEmbedder:
    """An `Embedder` whose model runs in the worker; `status()` as /readyz shows it."""

    def __init__(self, settings: Settings, url: str) -> None:
        self.url = url.rstrip("/")
        self.name = f"remote {self.url}"
        self.dim = settings.embedding_dim
        self._timeout = settings.embed_timeout_seconds
        self._client: httpx.AsyncClient | None = None
        self._down_until = 0.0
        self._last_error: str | None = None

    async def start(self) -> None:
        """Nothing to load: the worker holds the model (it may start after this process)."""

    def status(self) -> str:
        """`ok`, or `unreachable (...)` since the last call failed: search by meaning is 503 then,
        everything else serves, so /readyz reports it as degraded, not unavailable."""
        return "ok" if self._last_error is None else f"unreachable ({self._last_error})"

    async def readiness(self) -> str:
        """`status()` after asking the endpoint's /healthz (what /readyz shows)."""
        try:
            answer = await self._http().get(f"{self.url}/healthz", timeout=min(self._timeout, 1.0))
            answer.raise_for_status()
        except httpx.HTTPError as exc:
            self._last_error = type(exc).__name__
        else:
            self._last_error = None
        return self.status()

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            # Keep-alive connections to the one endpoint; the pool bounds what a burst opens.
            self._client = httpx.AsyncClient(
                timeout=self._timeout, limits=httpx.Limits(max_connections=32, max_keepalive_connections=8)
            )
        return self._client

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if time.monotonic() < self._down_until:
            raise self._down()
        try:
            answer = await self._http().post(
                f"{self.url}/embed",
                content=orjson.dumps({"texts": list(texts)}),
                headers={"content-type": "application/json"},
            )
            if answer.status_code != 200:
                raise httpx.HTTPStatusError(
                    f"status {answer.status_code}", request=answer.request, response=answer
                )
            dim = int(answer.headers.get(DIM_HEADER, "0"))
            if dim != self.dim:
                raise ValueError(f"the endpoint's vectors have {dim} dimensions, not {self.dim}")
            vectors = np.frombuffer(answer.content, dtype="<f4").reshape(len(texts), dim).astype(np.float32)
        except (httpx.HTTPError, ValueError) as exc:
            self._last_error = type(exc).__name__
            self._down_until = time.monotonic() + FAIL_FAST_SECONDS
            _log.warning("query embedding failed", url=self.url, error=f"{type(exc).__name__}: {exc}")
            raise self._down() from None
        self._last_error = None
        return vectors

    def _down(self) -> EmbedderDown:
        return EmbedderDown(
            f"The embedding endpoint ({self.url}) did not answer ({self._last_error}); search by "
            "meaning is unavailable until it does. Keyword search (`mode: keyword`) still works.",
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

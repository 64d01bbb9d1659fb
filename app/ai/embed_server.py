"""The worker's query-embedding endpoint: the API processes embed search queries with the worker's
model instead of loading one each (ENGRAM_WORKER_EMBED_PORT here, ENGRAM_EMBED_URL there).

Each API process loading its own model cost ~80 MB PSS apiece (docs/benchmarks.md, issue 16), to
embed one short query now and then. Here one model serves them all: `POST /embed` takes
`{"texts": [...]}` and answers the vectors as raw little-endian float32 (`X-Engram-Dim` per row),
`GET /healthz` says the model is loaded. Requests that arrive while a model call runs go together
in the next call (one call for a burst of searches). The model is the worker's own embedder, not
its turn-taking `SharedModel`: an onnxruntime session is thread-safe, so a query does not wait
behind an indexing batch. It runs in the worker's event loop as a plain ASGI app under uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator, MutableMapping, Sequence
from typing import Any

import orjson
import structlog
import uvicorn

from app.ai.batcher import Batcher
from app.ai.embedder import Embedder

_log = structlog.get_logger("engram.embed_server")

MAX_BODY_BYTES = 256 * 1024  # a request is a few queries (ENGRAM_MAX_QUERY_CHARS each)
MAX_TEXTS = 64
DIM_HEADER = "x-engram-dim"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class EmbedApp:
    """The ASGI app: `POST /embed`, `GET /healthz`; nothing else."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.batcher = Batcher(embedder)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        path, method = scope["path"], scope["method"]
        if path == "/healthz" and method == "GET":
            body = orjson.dumps({"status": "ok", "model": self.embedder.name, "dim": self.embedder.dim})
            await _respond(send, 200, body, b"application/json")
            return
        if path != "/embed" or method != "POST":
            await _respond(send, 404, b'{"detail":"not found"}', b"application/json")
            return
        raw = await _read_body(receive)
        texts = _texts(raw)
        if texts is None:
            detail = f'send {{"texts": [...]}}: at most {MAX_TEXTS} strings, {MAX_BODY_BYTES} bytes'
            await _respond(send, 422, orjson.dumps({"detail": detail}), b"application/json")
            return
        try:
            vectors = await self.batcher.embed(texts)
        except Exception as exc:
            _log.warning("query embedding failed", error=f"{type(exc).__name__}: {exc}")
            await _respond(send, 503, orjson.dumps({"detail": type(exc).__name__}), b"application/json")
            return
        out = vectors.astype("<f4", copy=False).tobytes()
        dim = (DIM_HEADER.encode(), str(self.embedder.dim).encode())
        await _respond(send, 200, out, b"application/octet-stream", [dim])


async def _read_body(receive: Receive) -> bytes | None:
    """The request body, or None past MAX_BODY_BYTES."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _texts(raw: bytes | None) -> list[str] | None:
    if raw is None:
        return None
    try:
        texts = orjson.loads(raw).get("texts")
    except (orjson.JSONDecodeError, AttributeError):
        return None
    if not isinstance(texts, list) or not 0 < len(texts) <= MAX_TEXTS:
        return None
    if not all(isinstance(t, str) for t in texts):
        return None
    return texts


async def _respond(
    send: Send, status: int, body: bytes, media: bytes, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", media), (b"content-length", str(len(body)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # The worker's own SIGINT/SIGTERM handlers stop it (and this server with it): uvicorn
        # must not replace them.
        yield


class EmbedServer:
    """The endpoint in the running event loop: `start()`, then `aclose()` when the worker stops."""

    def __init__(self, embedder: Embedder, *, host: str, port: int) -> None:
        config = uvicorn.Config(
            EmbedApp(embedder),
            host=host,
            port=port,
            lifespan="off",
            log_config=None,
            access_log=False,
            timeout_keep_alive=60,  # the API processes keep their connections
        )
        self._server = _Server(config)
        self._task: asyncio.Task[None] | None = None
        self.where = f"http://{host}:{port}"

    async def start(self) -> None:
        self._task = asyncio.create_task(self._server.serve(), name="engram-embed-server")
        while not self._server.started:  # listening before the worker says it serves
            if self._task.done():
                self._task.result()  # raises why it could not start (port taken, ...)
                raise RuntimeError(f"the embedding endpoint could not listen on {self.where}")
            await asyncio.sleep(0.05)
        _log.info("serving query embeddings", url=self.where)

    async def aclose(self) -> None:
        if self._task is not None:
            self._server.should_exit = True
            with contextlib.suppress(Exception):
                await self._task

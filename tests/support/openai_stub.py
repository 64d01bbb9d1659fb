"""A small local server speaking the OpenAI wire format, for the client code under test.

Behaviour is scripted per test: answer normally, refuse with 429 / 500 a number of times, stall
past the client's timeout, or send malformed bodies. It records every request it receives.
"""

from __future__ import annotations

import asyncio
import hashlib
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response


@dataclass
class Script:
    dim: int = 384
    fail_with: int | None = None  # HTTP status to answer with...
    failures: int = 0  # ...this many times
    stall_seconds: float = 0.0
    malformed: bool = False
    requests: list[dict[str, Any]] = field(default_factory=list)


def fake_vector(text: str, dim: int) -> list[float]:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    v = np.random.default_rng(seed).normal(size=dim)
    return [float(x) for x in v / np.linalg.norm(v)]


def _app(script: Script) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/embeddings")
    async def embeddings(request: Request) -> Response:
        body = await request.json()
        script.requests.append({"body": body, "auth": request.headers.get("authorization")})
        if script.stall_seconds:
            await asyncio.sleep(script.stall_seconds)
        if script.failures > 0 and script.fail_with is not None:
            script.failures -= 1
            return JSONResponse({"error": {"message": "slow down", "type": "rate_limit"}}, script.fail_with)
        if script.malformed:
            return Response("{not json", media_type="application/json")
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [
            {"object": "embedding", "index": i, "embedding": fake_vector(t, script.dim)}
            for i, t in reversed(list(enumerate(inputs)))  # out of order on purpose
        ]
        return JSONResponse(
            {
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            }
        )

    return app


@contextmanager
def serve_app(app: FastAPI, *, abandon_requests: bool = False) -> Iterator[str]:
    """Run an app on a free loopback port in a thread; yields its base URL (…/v1).

    `abandon_requests`: stop without waiting for requests still in flight (a stub's stalled one,
    which its client gave up on); uvicorn then also skips the lifespan's shutdown, which a stub
    has none of but Engram's app needs (its engine, its worker)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        server.force_exit = abandon_requests
        thread.join(timeout=10)


@contextmanager
def serve(script: Script) -> Iterator[str]:
    """Run the embeddings stub; yields its base URL (…/v1)."""
    with serve_app(_app(script), abandon_requests=True) as url:
        yield url

"""The worker's query-embedding endpoint and its client (app/ai/embed_server.py, remote_embedder.py)
in one event loop, with a stand-in model: vectors come back whole and in order, concurrent queries
share model calls, and an endpoint that is down or hung fails fast and clearly."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator, Sequence

import httpx
import numpy as np
import pytest

from app.ai.embed_server import EmbedServer
from app.ai.embedder import Vectors
from app.ai.remote_embedder import EmbedderDown, RemoteEmbedder
from app.config import Settings
from tests.support.procs import free_port

DIM = 384


class CountingModel:
    """Each text's vector is its length in the first slot; counts calls and texts per call."""

    name, dim = "stand-in", DIM

    def __init__(self, delay: float = 0.05) -> None:
        self.calls: list[int] = []
        self.delay = delay

    async def start(self) -> None:
        pass

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(len(texts))
        await asyncio.sleep(self.delay)  # a model call long enough for others to queue behind it
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        out[:, 0] = [len(t) for t in texts]
        return out

    async def aclose(self) -> None:
        pass


def _settings(url: str, timeout: float = 2.0) -> Settings:
    return Settings(embed_url=url, run_worker=False, embed_timeout_seconds=timeout)


@pytest.fixture
async def served() -> AsyncIterator[tuple[CountingModel, str]]:
    model = CountingModel()
    port = free_port()
    server = EmbedServer(model, host="127.0.0.1", port=port)
    await server.start()
    try:
        yield model, f"http://127.0.0.1:{port}"
    finally:
        await server.aclose()


async def test_vectors_come_back_in_order_and_concurrent_queries_share_calls(
    served: tuple[CountingModel, str],
) -> None:
    model, url = served
    client = RemoteEmbedder(_settings(url), url)
    try:
        one = await client.embed(["abc"])
        assert one.shape == (1, DIM) and one.dtype == np.float32 and one[0, 0] == 3
        texts = ["x" * n for n in range(1, 33)]
        answers = await asyncio.gather(*(client.embed([t]) for t in texts))
        assert [int(a[0, 0]) for a in answers] == list(range(1, 33))
        assert len(model.calls) < 1 + len(texts)  # bursts went together
        assert client.status() == "ok" and await client.readiness() == "ok"
    finally:
        await client.aclose()


async def test_refuses_what_is_not_a_list_of_texts(served: tuple[CountingModel, str]) -> None:
    _, url = served
    async with httpx.AsyncClient() as http:
        assert (await http.post(f"{url}/embed", json={"texts": "one"})).status_code == 422
        assert (await http.post(f"{url}/embed", json={"texts": ["a"] * 65})).status_code == 422
        assert (await http.post(f"{url}/embed", content=b"x" * 300_000)).status_code == 422
        assert (await http.get(f"{url}/elsewhere")).status_code == 404
        assert (await http.get(f"{url}/healthz")).json()["dim"] == DIM


async def test_an_endpoint_that_is_down_fails_at_once_then_fast() -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens
    client = RemoteEmbedder(_settings(url), url)
    try:
        with pytest.raises(EmbedderDown) as down:
            await client.embed(["q"])
        assert down.value.status == 503 and down.value.headers == {"Retry-After": "2"}
        assert client.status().startswith("unreachable")
        assert (await client.readiness()).startswith("unreachable")  # /readyz asks the endpoint
        started = time.monotonic()
        with pytest.raises(EmbedderDown):
            await client.embed(["q"])  # within the fail-fast second: not even tried
        assert time.monotonic() - started < 0.05
    finally:
        await client.aclose()


async def test_a_hung_endpoint_costs_at_most_the_timeout() -> None:
    """A listener that accepts and never answers (a stuck worker)."""
    with socket.socket() as hung:
        hung.bind(("127.0.0.1", 0))
        hung.listen(8)
        url = f"http://127.0.0.1:{hung.getsockname()[1]}"
        client = RemoteEmbedder(_settings(url, timeout=0.3), url)
        try:
            started = time.monotonic()
            with pytest.raises(EmbedderDown):
                await client.embed(["q"])
            assert time.monotonic() - started < 1.5
        finally:
            await client.aclose()


def test_embed_url_needs_the_worker_off() -> None:
    with pytest.raises(ValueError, match="ENGRAM_RUN_WORKER=false"):
        Settings(embed_url="http://127.0.0.1:9200")

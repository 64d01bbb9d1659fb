"""One model per machine: `engram serve --workers 2` whose API processes embed search queries through
`engram worker`'s endpoint (ENGRAM_EMBED_URL -> ENGRAM_WORKER_EMBED_PORT), as real processes.

The API processes must not load the model at all (that is the point: ~80 MB PSS each), search by
meaning must work through the worker, and with the worker gone it must fail fast and clearly
(503 problem+json, Retry-After) while keyword search, appends and memory reads go on.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time
from collections.abc import Iterator

import httpx
import psutil
import pytest

from app.db.embedded import EmbeddedPostgres
from tests.support.db import create_database, wait_until
from tests.support.procs import Server, free_port, start_worker


@pytest.fixture
async def db_url(pg: EmbeddedPostgres) -> str:
    return await create_database(pg, migrate=False)  # `engram serve` migrates it


@pytest.fixture
def embed_port() -> int:
    return free_port()


@pytest.fixture
def server(db_url: str, embed_port: int) -> Iterator[Server]:
    server = Server(
        args=("--workers", "2"),
        ENGRAM_DATABASE_URL=db_url,
        ENGRAM_RUN_WORKER="false",
        ENGRAM_EMBED_URL=f"http://127.0.0.1:{embed_port}",
        ENGRAM_EMBED_TIMEOUT_SECONDS="2",
    )
    try:
        server.wait_ready(timeout=120)  # ready without any worker: nothing to load
        yield server
    finally:
        assert server.stop() == 0


def _api_processes(server: Server) -> list[psutil.Process]:
    """`engram serve`, its two API processes (once both started) and their helpers."""
    deadline = time.monotonic() + 60
    while True:
        procs = [psutil.Process(server.proc.pid), *psutil.Process(server.proc.pid).children(recursive=True)]
        if len(procs) >= 3 or time.monotonic() > deadline:
            return procs
        time.sleep(0.2)


def _loads_model(proc: psutil.Process) -> bool:
    return any("onnxruntime" in m.path for m in proc.memory_maps())


def _search(server: Server, mode: str) -> httpx.Response:
    body = {"query": "which city did I move to", "user_id": "ada", "mode": mode, "limit": 3}
    return httpx.post(f"{server.url}/v1/search", json=body, timeout=30)


def test_api_processes_load_no_model_and_search_through_the_worker(
    server: Server, db_url: str, embed_port: int
) -> None:
    procs = _api_processes(server)
    assert len(procs) >= 3
    assert not [p.pid for p in procs if _loads_model(p)]

    # No worker yet: search by meaning says why it cannot answer, at once; keyword search answers.
    started = time.monotonic()
    r = _search(server, "semantic")
    assert r.status_code == 503, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert "Retry-After" in r.headers
    assert "keyword" in r.json()["detail"]
    assert time.monotonic() - started < 5
    assert _search(server, "keyword").status_code == 200
    ready = httpx.get(f"{server.url}/readyz", timeout=5)
    assert ready.status_code == 200 and ready.json()["status"] == "degraded", ready.text

    base = server.url
    session = {"user_id": "ada", "session_id": "s1"}
    assert httpx.post(f"{base}/v1/sessions", json=session).status_code == 201
    said = [
        {"role": "user", "content": "I moved to Lisbon last spring, the light there is wonderful."},
        {"role": "user", "content": "My sister works as a nurse in Toronto."},
    ]
    assert httpx.post(f"{base}/v1/sessions/s1/messages", json={"messages": said}).status_code == 201

    worker = start_worker(db_url, ENGRAM_WORKER_EMBED_PORT=str(embed_port))
    try:
        asyncio.run(wait_until("SELECT count(*) = 0 FROM messages WHERE embed_status = 'pending'", db_url))
        assert _loads_model(psutil.Process(worker.pid))  # the one model, in the worker
        # Both API processes (new connections each) embed through the worker; the fail-fast
        # second after the earlier failure is long past.
        for _ in range(4):
            r = _search(server, "semantic")
            assert r.status_code == 200, r.text
            assert "Lisbon" in r.json()["results"][0]["content"]
        assert httpx.get(f"http://127.0.0.1:{embed_port}/healthz", timeout=5).json()["status"] == "ok"
    finally:
        worker.send_signal(signal.SIGKILL)  # gone without a goodbye, as a crashed worker
        worker.wait(timeout=30)

    started = time.monotonic()
    for _ in range(3):
        assert _search(server, "hybrid").status_code == 503
    assert time.monotonic() - started < 10  # each within the timeout, none hangs
    memory = httpx.get(f"{base}/v1/sessions/s1/memory", params={"query": "where do I live"}, timeout=30)
    assert memory.status_code == 200, memory.text
    assert _search(server, "keyword").status_code == 200
    assert not [p.pid for p in _api_processes(server) if _loads_model(p)]


def test_run_worker_with_embed_url_is_refused(db_url: str) -> None:
    """The in-process worker needs a model of its own: the two settings together are a mistake."""
    proc = Server(ENGRAM_DATABASE_URL=db_url, ENGRAM_EMBED_URL="http://127.0.0.1:9")
    try:
        code = proc.proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.stop()
        raise
    assert code != 0
    assert b"ENGRAM_RUN_WORKER=false" in proc.proc.stderr.read()  # type: ignore[union-attr]

"""`engram serve --workers 2`: the API processes are forked from the supervisor after it imported
the app (app/prefork.py), so the pages of those imports are counted once, not once per process.

Spawned processes (uvicorn's own supervisor) each import everything again: their anonymous memory
is all their own (PSS = RSS). Forked ones map their parent's pages until they write to them.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import httpx
import psutil
import pytest

from app.db.embedded import EmbeddedPostgres
from tests.support.db import create_database
from tests.support.procs import Server, anonymous_kb, free_port


@pytest.fixture
async def db_url(pg: EmbeddedPostgres) -> str:
    return await create_database(pg, migrate=False)  # `engram serve` migrates it


@pytest.fixture
def server(db_url: str) -> Iterator[Server]:
    # No model in the API processes (the production shape): what they hold is the app.
    server = Server(
        args=("--workers", "2"),
        ENGRAM_DATABASE_URL=db_url,
        ENGRAM_RUN_WORKER="false",
        ENGRAM_EMBED_URL=f"http://127.0.0.1:{free_port()}",
    )
    try:
        server.wait_ready(timeout=120)
        yield server
    finally:
        server.stop()


def _api_processes(server: Server, n: int = 2) -> list[psutil.Process]:
    """The supervisor's children that serve the port (not a resource tracker)."""
    deadline = time.monotonic() + 60
    while True:
        kids = [p for p in psutil.Process(server.proc.pid).children() if _serves(p, server.port)]
        if len(kids) >= n or time.monotonic() > deadline:
            return kids
        time.sleep(0.2)


def _serves(proc: psutil.Process, port: int) -> bool:
    try:
        return any(c.laddr.port == port for c in proc.net_connections("tcp"))
    except psutil.Error:  # gone (the one a test killed) or not yet reaped
        return False


def test_api_processes_are_forked_from_the_preloaded_supervisor_and_share_its_pages(server: Server) -> None:
    supervisor = psutil.Process(server.proc.pid)
    procs = _api_processes(server)
    assert len(procs) == 2
    # Forked: no thread was running in the supervisor (nothing that would not survive a fork).
    assert supervisor.num_threads() == 1
    assert all(p.cmdline() == supervisor.cmdline() for p in procs)  # not `-c ...spawn_main(...)`
    for p in procs:
        anon, pss = anonymous_kb(p.pid)
        # Spawned, each process's anonymous memory is its own (PSS ~= RSS, ~90 MB of imports);
        # forked after the preload, much of it is shared with the supervisor and the sibling.
        assert pss < 0.75 * anon, (p.pid, anon, pss)
    r = httpx.get(f"{server.url}/readyz", timeout=10)
    assert r.status_code == 200


def test_the_app_built_before_the_fork_serves_in_every_process(server: Server) -> None:
    """Every request on a connection of its own (the kernel hands them to either process): the
    prebuilt app's routes, its lean append and memory read, problem+json and request ids."""
    sid = "prefork-session"
    with httpx.Client(base_url=server.url, timeout=30, limits=httpx.Limits(max_keepalive_connections=0)) as c:
        assert c.post("/v1/sessions", json={"session_id": sid, "user_id": "prefork-user"}).status_code == 201
        for i in range(20):
            r = c.post(
                f"/v1/sessions/{sid}/messages",
                json={"messages": [{"role": "user", "content": f"note {i}"}]},
                headers={"X-Request-ID": f"prefork-{i}"},
            )
            assert r.status_code == 201, r.text
            assert r.headers["x-request-id"] == f"prefork-{i}"
            memory = c.get(f"/v1/sessions/{sid}/memory", params={"max_tokens": 500})
            assert memory.status_code == 200
            assert memory.json()["messages"][-1]["content"] == f"note {i}"
            missing = c.get("/v1/sessions/no-such-session")
            assert missing.status_code == 404
            assert missing.headers["content-type"] == "application/problem+json"
        assert c.get("/openapi.json").json()["info"]["title"] == "Engram"


def test_a_dead_api_process_is_replaced_and_sigterm_stops_all_quickly(server: Server) -> None:
    first = _api_processes(server)
    os.kill(first[0].pid, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        now = _api_processes(server)
        if len(now) == 2 and first[0].pid not in {p.pid for p in now}:
            break
        time.sleep(0.2)
    else:
        pytest.fail("the killed API process was not replaced")
    deadline = time.monotonic() + 60
    while httpx.get(f"{server.url}/readyz", timeout=10).status_code != 200 and time.monotonic() < deadline:
        time.sleep(0.2)
    everyone = [psutil.Process(server.proc.pid), *_api_processes(server)]
    started = time.monotonic()
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(timeout=30) == 0
    took = time.monotonic() - started
    _, alive = psutil.wait_procs(everyone, timeout=5)
    assert not alive
    # The goal is under 3 s (as tests/system/test_first_run.py: 5 s leaves room for a loaded machine).
    assert took < 5, took

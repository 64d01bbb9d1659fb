"""`engram` as a user runs it: real processes, the embedded PostgreSQL, signals."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import psutil
import pytest

from tests.support.procs import ENGRAM, Server, engram_env, free_port

SYSTEM_PG = "postgresql://postgres@127.0.0.1:5432/test"


def _postgres_running_in(data_dir: Path) -> bool:
    for proc in psutil.process_iter(attrs=["name", "cmdline"]):
        cmd = " ".join(proc.info["cmdline"] or [])
        if proc.info["name"] == "postgres" and str(data_dir.resolve()) in cmd:
            return True
    return False


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "data")
    try:
        srv.wait_ready()
        yield srv
    finally:
        srv.stop()


@pytest.fixture
async def http(server: Server) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as c:
        yield c


@pytest.mark.parametrize(
    "command",
    [[ENGRAM], [sys.executable, "-m", "app"], [sys.executable, "-m", "app.cli"]],
    ids=["engram", "python -m app", "python -m app.cli"],
)
def test_help_lists_the_commands(command: list[str]) -> None:
    out = subprocess.run([*command, "--help"], capture_output=True, text=True, check=True).stdout
    for name in ("serve", "migrate", "openapi"):
        assert name in out


async def test_embedded_data_survives_a_restart_and_shutdown_is_clean(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = Server(data)
    first.wait_ready()
    async with httpx.AsyncClient(base_url=first.url) as c:
        assert (await c.post("/v1/sessions", json={"user_id": "u", "session_id": "s"})).status_code == 201
        r = await c.post("/v1/sessions/s/messages", json={"messages": [{"role": "user", "content": "kept"}]})
        assert r.status_code == 201
    assert first.stop() == 0
    assert not _postgres_running_in(data), "embedded PostgreSQL still running after shutdown"

    second = Server(data)
    try:
        second.wait_ready()
        async with httpx.AsyncClient(base_url=second.url) as c:
            items = (await c.get("/v1/sessions/s/messages")).json()["items"]
        assert [m["content"] for m in items] == ["kept"]
    finally:
        assert second.stop() == 0


def test_two_instances_with_different_data_dirs_do_not_clash(tmp_path: Path) -> None:
    # One after the other: two first starts at once (two initdb, two model loads) took longer than
    # a start's timeout on a loaded machine. Both still run side by side for the checks.
    a = Server(tmp_path / "a")
    b: Server | None = None
    try:
        a.wait_ready(timeout=300)
        b = Server(tmp_path / "b")
        b.wait_ready(timeout=300)
        with httpx.Client(timeout=60) as http:
            r = http.post(f"{a.url}/v1/sessions", json={"user_id": "u", "session_id": "only-a"})
            assert r.status_code == 201, r.text
            assert http.get(f"{a.url}/v1/sessions/only-a").status_code == 200
            assert http.get(f"{b.url}/v1/sessions/only-a").status_code == 404
    finally:
        # Both stopped before either is checked: none left running.
        codes = (a.stop(), b.stop() if b is not None else 0)
        assert codes == (0, 0)


async def test_sigterm_lets_an_in_flight_append_finish(server: Server, http: httpx.AsyncClient) -> None:
    assert (await http.post("/v1/sessions", json={"user_id": "u", "session_id": "s"})).status_code == 201
    body = (
        b'{"messages": ['
        + b",".join(b'{"role": "user", "content": "%d %s"}' % (i, b"x" * 2000) for i in range(500))
        + b"]}"
    )
    half = len(body) // 2

    async def upload() -> AsyncIterator[bytes]:
        yield body[:half]
        # The request is in flight (headers and half the body sent): now ask the server to stop.
        server.proc.send_signal(signal.SIGTERM)
        await asyncio.sleep(0.3)
        yield body[half:]

    r = await http.post(
        "/v1/sessions/s/messages",
        content=upload(),
        headers={"Content-Type": "application/json", "Content-Length": str(len(body))},
    )
    assert r.status_code == 201, r.text
    assert len(r.json()["messages"]) == 500
    assert server.proc.wait(timeout=40) == 0


def _system_pg_reachable() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 5432), timeout=1).close()
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _system_pg_reachable(), reason="no PostgreSQL without pgvector on 127.0.0.1:5432")
def test_database_without_pgvector_stops_with_a_clear_message() -> None:
    for cmd in (["migrate"], ["serve", "--port", str(free_port())]):
        done = subprocess.run(
            [ENGRAM, *cmd],
            env=engram_env(ENGRAM_DATABASE_URL=SYSTEM_PG),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 1, done.stderr
        assert "pgvector" in done.stderr
        assert "Traceback" not in done.stderr


def test_logs_are_json_lines_carrying_the_request_id(tmp_path: Path) -> None:
    srv = Server(tmp_path / "data", ENGRAM_LOG_LEVEL="info")
    try:
        srv.wait_ready()
        r = httpx.get(f"{srv.url}/v1/sessions/nope", headers={"X-Request-ID": "trace-123"})
        assert r.status_code == 404
        assert r.headers["X-Request-ID"] == "trace-123"
    finally:
        assert srv.stop() == 0
    lines = [
        json.loads(line) for line in srv.proc.stderr.read().decode().splitlines() if line.startswith("{")
    ]  # type: ignore[union-attr]
    ours = [e for e in lines if e.get("request_id") == "trace-123"]
    assert any(e.get("path") == "/v1/sessions/nope" and e.get("status") == 404 for e in ours), lines[-5:]
    assert all("timestamp" in e and "level" in e for e in lines)

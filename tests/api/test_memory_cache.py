"""The window cache when Redis fails: answers keep coming from PostgreSQL, and an entry that
missed writes while Redis was away is never served when it comes back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from asgi_lifespan import LifespanManager

from tests.support.app import STARTUP, client_for, make_app, make_settings, ready_model
from tests.support.openai_stub import serve_app
from tests.support.redis_server import RedisServer


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    yield server
    server.close()


@pytest.fixture
async def client(database_url: str, own_redis: RedisServer) -> AsyncIterator[httpx.AsyncClient]:
    settings = make_settings(
        database_url, auth="off", run_worker=False, redis_url=own_redis.url, redis_timeout_seconds=0.2
    )
    app = make_app(settings)
    async with (
        LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as manager,
        client_for(manager.app) as c,  # type: ignore[arg-type]
    ):
        # Readiness moves with Redis alone below: start once the model (loaded in the
        # background) is ready, which under load took longer than the first requests (CI).
        await ready_model(c)
        yield c


async def _session(client: httpx.AsyncClient) -> str:
    r = await client.post("/v1/sessions", json={"user_id": "cache-user"})
    assert r.status_code == 201, r.text
    return str(r.json()["session_id"])


async def _append(client: httpx.AsyncClient, sid: str, text: str) -> None:
    r = await client.post(
        f"/v1/sessions/{sid}/messages", json={"messages": [{"role": "user", "content": text}]}
    )
    assert r.status_code == 201, r.text


async def _contents(client: httpx.AsyncClient, sid: str) -> tuple[list[str], str]:
    r = await client.get(f"/v1/sessions/{sid}/memory", params={"max_tokens": 10_000})
    assert r.status_code == 200, r.text
    return [m["content"] for m in r.json()["messages"]], r.headers["X-Engram-Cache"]


async def _metric(client: httpx.AsyncClient, name: str) -> float:
    text = (await client.get("/metrics")).text
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not exposed")


async def test_redis_killed_and_restarted(client: httpx.AsyncClient, own_redis: RedisServer) -> None:
    sid = await _session(client)
    await _append(client, sid, "one")
    assert (await _contents(client, sid)) == (["one"], "miss")
    assert (await _contents(client, sid)) == (["one"], "hit")

    own_redis.kill()
    await _append(client, sid, "two")  # no error to the client
    assert (await _contents(client, sid))[0] == ["one", "two"]
    ready = (await client.get("/readyz")).json()
    assert ready["status"] == "degraded" and ready["checks"]["redis"].startswith("error")
    assert await _metric(client, "engram_cache_up") == 0.0

    own_redis.start()
    await asyncio.sleep(1.1)  # past the cache's back-off after an error
    await _append(client, sid, "three")
    assert (await _contents(client, sid))[0] == ["one", "two", "three"]
    contents, source = await _contents(client, sid)
    assert (contents, source) == (["one", "two", "three"], "hit")
    assert (await client.get("/readyz")).json()["status"] == "ready"
    assert await _metric(client, "engram_cache_up") == 1.0


async def test_no_stale_entry_after_redis_was_unreachable(
    client: httpx.AsyncClient, own_redis: RedisServer
) -> None:
    """A frozen Redis keeps its entries but misses the writes of the outage; once it answers
    again, its old entry must not be served."""
    sid = await _session(client)
    await _append(client, sid, "before")
    await _contents(client, sid)
    assert (await _contents(client, sid)) == (["before"], "hit")

    own_redis.pause()
    try:
        await _append(client, sid, "during")  # the write-through cannot reach Redis
        assert (await _contents(client, sid))[0] == ["before", "during"]
    finally:
        own_redis.resume()
    await asyncio.sleep(1.1)
    # Redis still holds the entry from before the outage; it must not be served.
    assert (await _contents(client, sid))[0] == ["before", "during"]
    assert (await _contents(client, sid)) == (["before", "during"], "hit")


async def test_deleting_a_user_removes_their_cache_entries(
    client: httpx.AsyncClient, own_redis: RedisServer
) -> None:
    sid = await _session(client)
    await _append(client, sid, "private words")
    await _contents(client, sid)
    r: Any = aioredis.Redis.from_url(own_redis.url)
    try:
        keys = await r.keys(f"*{sid}*")
        assert keys, "the entry was cached"
        assert (await client.delete("/v1/users/cache-user")).status_code == 204
        assert await r.keys(f"*{sid}*") == []
    finally:
        await r.aclose()


async def test_a_read_right_after_an_append_hits_the_cache(database_url: str, own_redis: RedisServer) -> None:
    """The agent loop: append a turn, read the memory at once. The write-through is done before
    the append answers, so the read finds the entry at the new version (a hit) instead of racing
    it (a miss that rebuilds the whole window from PostgreSQL). The race is made certain: Redis
    holds every write for 150 ms (CLIENT PAUSE WRITE; reads go on), so a write-through still
    running after the answer would leave the entry one version behind for the read."""
    settings = make_settings(
        database_url, auth="off", run_worker=False, redis_url=own_redis.url, redis_timeout_seconds=2.0
    )
    sources: list[str] = []
    admin = aioredis.from_url(own_redis.url)
    try:
        with serve_app(make_app(settings)) as url:
            async with httpx.AsyncClient(base_url=url.removesuffix("/v1")) as c:
                sid = await _session(c)
                await _append(c, sid, "turn 0")
                await _contents(c, sid)  # builds the entry
                for i in range(1, 6):
                    await admin.execute_command("CLIENT", "PAUSE", "150", "WRITE")
                    await _append(c, sid, f"turn {i}")
                    contents, source = await _contents(c, sid)
                    assert contents[-1] == f"turn {i}"
                    sources.append(source)
    finally:
        await admin.aclose()
    assert sources == ["hit"] * 5

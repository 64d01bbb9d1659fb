"""The lane (app/db/lane.py): the hot paths' single statements on connections kept checked out,
so a plain append and a cached memory read check nothing out of the request pool; a connection
the server ended, or whose statement was cancelled, is replaced, and one that merely saw an SQL
error is kept."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import pytest
from asgi_lifespan import LifespanManager
from fastapi import FastAPI
from sqlalchemy import event, text
from sqlalchemy import exc as sa_exc
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.engine import make_engine
from app.db.lane import Lane
from tests.support.app import ADMIN_TOKEN, STARTUP, client_for, make_app, make_settings, new_tenant_client
from tests.support.db import backends_named

PID = "SELECT pg_backend_pid()"


@pytest.fixture(scope="module")
async def served(database_url: str) -> AsyncIterator[tuple[FastAPI, dict[str, Any]]]:
    application = make_app(make_settings(database_url, run_worker=False))
    async with LifespanManager(application, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as manager:
        yield manager.app, manager._state  # type: ignore[misc]


@pytest.fixture
async def client(served: tuple[FastAPI, dict[str, Any]]) -> AsyncIterator[httpx.AsyncClient]:
    app = served[0]
    async with (
        client_for(app, {"Authorization": f"Bearer {ADMIN_TOKEN}"}) as admin,
        await new_tenant_client(app, admin) as c,
    ):
        yield c


class Checkouts:
    """Counts the request pool's checkouts while it is listening."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.n = 0
        self._pool = engine.sync_engine.pool
        event.listen(self._pool, "checkout", self._seen)

    def _seen(self, *_: Any) -> None:
        self.n += 1

    def close(self) -> None:
        event.remove(self._pool, "checkout", self._seen)


async def _session(c: httpx.AsyncClient, sid: str) -> None:
    r = await c.post("/v1/sessions", json={"user_id": f"u-{sid}", "session_id": sid})
    assert r.status_code == 201, r.text


async def test_a_plain_append_and_a_cached_memory_read_take_no_pool_connection(
    served: tuple[FastAPI, dict[str, Any]], client: httpx.AsyncClient
) -> None:
    await _session(client, "lane-1")
    one = {"messages": [{"role": "user", "content": "I keep bees on the roof."}]}
    assert (await client.post("/v1/sessions/lane-1/messages", json=one)).status_code == 201
    r = await client.get("/v1/sessions/lane-1/memory")
    assert r.status_code == 200, r.text
    checkouts = Checkouts(served[1]["engine"])
    try:
        r = await client.post("/v1/sessions/lane-1/messages", json=one)
        assert r.status_code == 201, r.text
        r = await client.get("/v1/sessions/lane-1/memory")
        assert r.status_code == 200 and r.headers["x-engram-cache"] == "hit", r.text
        assert [m["content"] for m in r.json()["messages"]] == [one["messages"][0]["content"]] * 2
        assert checkouts.n == 0
        # The counter does count: an append with an idempotency key runs in a pool transaction.
        r = await client.post("/v1/sessions/lane-1/messages", json=one, headers={"Idempotency-Key": "k1"})
        assert r.status_code == 201, r.text
        assert checkouts.n == 1
    finally:
        checkouts.close()


async def test_lane_connections_the_server_ended_are_replaced(
    served: tuple[FastAPI, dict[str, Any]], client: httpx.AsyncClient, db: AsyncEngine
) -> None:
    await _session(client, "lane-2")
    one = {"messages": [{"role": "user", "content": "The hive swarmed in May."}]}
    assert (await client.post("/v1/sessions/lane-2/messages", json=one)).status_code == 201
    async with db.connect() as conn:
        ended = (
            await conn.execute(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE application_name = 'engram-lane' AND datname = current_database()"
                )
            )
        ).scalar_one()
    assert ended >= 1
    statuses = []
    for _ in range(6):
        r = await client.get("/v1/sessions/lane-2/memory")
        statuses.append(r.status_code)
        if r.status_code != 200:  # a connection that had not yet seen its end: an outage, retried
            assert r.status_code == 503 and r.headers["content-type"] == "application/problem+json"
    assert statuses[-3:] == [200, 200, 200], statuses
    assert statuses.count(503) <= served[1]["settings"].db_lane_size


@pytest.fixture
async def lane(database_url: str) -> AsyncIterator[Lane]:
    settings = make_settings(database_url)
    one = Lane(make_engine(settings, database_url, pool_size=1, max_overflow=0), size=1, timeout=0.3)
    yield one
    await one.aclose()


async def test_an_sql_error_keeps_the_connection_a_cancelled_statement_drops_it(lane: Lane) -> None:
    first = await lane.fetchrow(PID)
    assert first is not None
    with pytest.raises(asyncpg.DivisionByZeroError):
        await lane.fetch("SELECT 1 / 0")
    same = await lane.fetchrow(PID)
    assert same is not None and same[0] == first[0]

    sleeping = asyncio.create_task(lane.fetch("SELECT pg_sleep(30)"))
    await asyncio.sleep(0.2)
    sleeping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await sleeping
    after = await asyncio.wait_for(lane.fetchrow(PID), 5)  # not behind the cancelled sleep
    assert after is not None and after[0] != first[0]


async def test_a_full_lane_waits_then_gives_the_pool_timeout(lane: Lane) -> None:
    holding = asyncio.create_task(lane.fetch("SELECT pg_sleep(1)"))
    await asyncio.sleep(0.1)
    assert lane.stats() == {"size": 1, "open": 1, "in_use": 1, "waiting": 0}
    with pytest.raises(sa_exc.TimeoutError):
        await lane.fetch("SELECT 1")
    await holding
    held = asyncio.create_task(lane.fetch("SELECT pg_sleep(0.2)"))
    await asyncio.sleep(0.05)
    waiting = asyncio.create_task(lane.fetch("SELECT 2"))
    await asyncio.sleep(0.05)
    assert lane.stats()["waiting"] == 1
    assert [r[0] for r in await waiting] == [2]
    await held


async def test_a_bursts_extra_connections_close_once_idle(
    database_url: str, db: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("app.db.lane.IDLE_SECONDS", 0.3)
    name = f"lane-idle-{uuid.uuid4().hex[:8]}"
    settings = make_settings(database_url)
    engine = make_engine(settings, database_url, pool_size=3, max_overflow=0, application_name=name)
    lane = Lane(engine, size=3, timeout=5)

    try:
        await asyncio.gather(*(lane.fetch("SELECT pg_sleep(0.1)") for _ in range(3)))  # a burst
        assert await backends_named(db, name) == 3
        await asyncio.sleep(0.5)
        for _ in range(3):  # each take closes the longest idle one, never the one it takes
            await lane.fetch("SELECT 1")
        assert await backends_named(db, name) == 1
        await asyncio.gather(*(lane.fetch("SELECT pg_sleep(0.1)") for _ in range(3)))  # the slots came back
        assert await backends_named(db, name) == 3
        assert lane.stats() == {"size": 3, "open": 3, "in_use": 0, "waiting": 0}
    finally:
        await lane.aclose()


async def test_waiters_are_served_in_the_order_they_came(lane: Lane) -> None:
    done: list[int] = []

    async def one(i: int) -> None:
        await lane.fetch("SELECT pg_sleep(0.02)")
        done.append(i)

    first = asyncio.create_task(one(0))
    await asyncio.sleep(0.005)
    rest = []
    for i in range(1, 6):
        rest.append(asyncio.create_task(one(i)))
        await asyncio.sleep(0)  # each has asked before the next starts
    # A taker that comes while the others wait goes behind them.
    await first
    rest.append(asyncio.create_task(one(6)))
    await asyncio.gather(*rest)
    assert done == list(range(7))

"""The worker's database connections: its pool closes what a burst opened once it idles (and
hands out no connection the server closed), and a wake-up sends one delivery lane to look for
webhook deliveries, not all of them, each with a connection of its own."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.embedded import EmbeddedPostgres
from app.db.engine import make_engine
from app.jobs.step import StepResult
from app.metrics import Metrics
from app.webhooks.dispatch import DeliveryLanes
from tests.support.app import make_settings
from tests.support.db import backends_named, create_database, engine_for, until


@pytest.fixture(scope="module")
async def own_db(pg: EmbeddedPostgres) -> str:
    """A database of its own: no other test's worker queues deliveries here."""
    return await create_database(pg)


@pytest.fixture
async def db(own_db: str) -> AsyncIterator[AsyncEngine]:
    engine = engine_for(own_db)
    yield engine
    await engine.dispose()


async def test_a_bursts_connections_close_once_idle_and_none_closed_is_handed_out(
    own_db: str, db: AsyncEngine
) -> None:
    name = f"idle-pool-{uuid.uuid4().hex[:8]}"
    engine = make_engine(
        make_settings(own_db), own_db, pool_size=5, max_overflow=0, application_name=name, idle_seconds=1
    )
    opened = 0

    @event.listens_for(engine.sync_engine, "connect")
    def _opened(*_: Any) -> None:
        nonlocal opened
        opened += 1

    async def one(sql: str = "SELECT 1") -> Any:
        async with engine.connect() as conn:
            return (await conn.execute(text(sql))).scalar_one()

    try:
        await asyncio.gather(*(one("SELECT pg_sleep(0.2)") for _ in range(3)))  # a burst
        assert await backends_named(db, name) == 3
        for _ in range(8):  # a steady trickle keeps using the most recently used connection
            assert await one() == 1
            await asyncio.sleep(0.25)
        assert await backends_named(db, name) == 1  # the server ended the other two
        assert opened == 3
        results = await asyncio.gather(*(one("SELECT 2") for _ in range(3)))  # the next burst
        assert results == [2, 2, 2]  # the two ended ones were replaced on checkout, no error
        assert await asyncio.gather(*(one("SELECT pg_sleep(0.05)") for _ in range(3)))  # all three again
        assert opened == 5  # only those two: the one in use all along was kept, not renewed with them
        await asyncio.sleep(1.5)  # every connection in the pool idle past the limit
        assert await backends_named(db, name) == 0
        assert await asyncio.gather(*(one("SELECT 3") for _ in range(3))) == [3, 3, 3]
    finally:
        await engine.dispose()


class Counting:
    """The delivery lanes' step runner, counting the claims (each a connection and a transaction)."""

    def __init__(self, runner: Any) -> None:
        self.runner = runner
        self.claims = 0

    async def run(self, step: Any) -> StepResult:
        self.claims += 1
        result: StepResult = await self.runner.run(step)
        return result


async def test_a_wake_up_sends_one_delivery_lane_to_look(own_db: str) -> None:
    settings = make_settings(own_db, webhook_concurrency=4, worker_poll_seconds=60.0)
    engine = make_engine(settings, own_db)
    lanes = DeliveryLanes(settings=settings, engine=engine, metrics=Metrics())
    counting = Counting(lanes.runner)
    lanes.runner = counting  # type: ignore[assignment]
    stop = asyncio.Event()
    task = asyncio.create_task(lanes.run(stop))

    async def all_asleep() -> bool:
        return len(lanes._sleeping) == 4

    try:
        await until(all_asleep, within=10)
        assert counting.claims == 4  # each lane looked once at the start
        for n in range(1, 4):
            lanes.nudge()
            await asyncio.sleep(0.1)
            await until(all_asleep, within=10)
            assert counting.claims == 4 + n  # one lane looked (and found nothing): not all four
    finally:
        stop.set()
        await task
        await engine.dispose()

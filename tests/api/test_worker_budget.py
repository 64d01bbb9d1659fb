"""Derived work's CPU-heavy text rules run off the event loop, each item within a time budget:
an item over budget fails alone (its error recorded, retried with backoff), its child process is
replaced, and other work and API requests proceed meanwhile."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.ai.local_embedder import LocalEmbedder
from app.db.embedded import EmbeddedPostgres
from app.jobs.cpu import BudgetExceeded, CpuPool
from app.jobs.retry import RetryPolicy
from app.metrics import Metrics
from app.worker import CPU_RULES, Worker
from tests.support.app import STARTUP, client_for, make_app, make_settings
from tests.support.cpu_work import burn
from tests.support.db import create_database, engine_for, fetch


async def test_a_runaway_call_is_killed_at_its_budget_and_the_pool_keeps_serving() -> None:
    # With the worker's preload: the process's one fork server keeps the first pool's list, and
    # tests/api/test_cpu_pool_fork.py checks that the children share the rules' pages.
    pool = CpuPool(processes=2, budget_seconds=2.0, preload=CPU_RULES, nice=10)
    try:
        assert await asyncio.gather(pool(burn, 0.5), pool(burn, 0.5)) == [0.5, 0.5]  # both children up
        # Below the API's priority: a request that wants a core gets it before derived work.
        assert {await pool(os.nice, 0) for _ in range(4)} == {min(19, os.nice(0) + 10)}
        started = time.monotonic()
        runaway = asyncio.create_task(pool(burn, 600.0))
        await asyncio.sleep(0.2)
        # The other child serves while the runaway burns.
        assert [await pool(burn, 0.01) for _ in range(5)] == [0.01] * 5
        with pytest.raises(BudgetExceeded, match="past its 2 s budget"):
            await runaway
        assert time.monotonic() - started < 15
        # The killed child was replaced: the pool still has its two children.
        assert await asyncio.gather(pool(burn, 0.3), pool(burn, 0.3)) == [0.3, 0.3]
    finally:
        await pool.aclose()


@dataclass(frozen=True)
class _Item:
    id: int
    seconds: float


class _Burn:
    """A step whose model call is CPU work through the worker's pool."""

    kind = "burn"
    limit = 1

    def __init__(self, pool: CpuPool) -> None:
        self.pool = pool

    async def claim(self, conn: AsyncConnection) -> list[_Item]:
        rows = (
            await conn.execute(
                text(
                    "SELECT id, seconds FROM burn_items WHERE status = 'pending' AND run_after <= now() "
                    "ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
                )
            )
        ).all()
        return [_Item(r.id, r.seconds) for r in rows]

    async def call(self, items: Sequence[_Item]) -> list[float]:
        return [await self.pool(burn, item.seconds) for item in items]

    async def store(self, conn: AsyncConnection, done: Sequence[tuple[_Item, float]]) -> None:
        for item, _ in done:
            await conn.execute(text("UPDATE burn_items SET status = 'done' WHERE id = :i"), {"i": item.id})

    async def fail(
        self, conn: AsyncConnection, failed: Sequence[_Item], error: str, retry: RetryPolicy
    ) -> None:
        for item in failed:
            await conn.execute(
                text(
                    "UPDATE burn_items SET attempts = attempts + 1, error = :e, "
                    "run_after = now() + interval '1 hour' WHERE id = :i"
                ),
                {"i": item.id, "e": error},
            )


async def test_an_item_over_budget_fails_alone_while_other_work_and_requests_proceed(
    pg: EmbeddedPostgres, embedder: LocalEmbedder
) -> None:
    url = await create_database(pg)
    engine = engine_for(url)
    async with engine.begin() as conn:
        await conn.execute(
            text(
                "CREATE TABLE burn_items (id int PRIMARY KEY, seconds float NOT NULL, "
                "status text NOT NULL DEFAULT 'pending', attempts int NOT NULL DEFAULT 0, error text, "
                "run_after timestamptz NOT NULL DEFAULT now())"
            )
        )
        await conn.execute(
            text("INSERT INTO burn_items (id, seconds) VALUES (1, 0.05), (2, 600), (3, 0.05), (4, 0.05)")
        )
    settings = make_settings(
        url, auth="off", run_worker=False, redis_url=None, worker_item_budget_seconds=3.0
    )
    # The worker in the API's process and event loop, as in embedded mode.
    worker = Worker(settings=settings, engine=engine, embedder=embedder, redis=None, metrics=Metrics())
    worker.steps.insert(1, _Burn(worker.cpu))
    app = make_app(settings)
    stop = asyncio.Event()
    latencies: list[float] = []
    async with (
        LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app) as c,
    ):  # type: ignore[arg-type]
        assert (await c.post("/v1/sessions", json={"user_id": "u", "session_id": "s"})).status_code == 201
        task = asyncio.create_task(worker.run(stop))
        try:
            started = time.monotonic()
            killed = False
            while not killed:  # the runaway burns, then is killed at 3 s and its failure stored
                assert time.monotonic() - started < 60, "the runaway was never stopped"
                t0 = time.perf_counter()
                r = await c.post(
                    "/v1/sessions/s/messages", json={"messages": [{"role": "user", "content": "I like tea."}]}
                )
                latencies.append(time.perf_counter() - t0)
                assert r.status_code == 201, r.text
                await asyncio.sleep(0.05)
                killed = (await fetch(engine, "SELECT error IS NOT NULL FROM burn_items WHERE id = 2"))[0][0]
            deadline = time.monotonic() + 60
            rows: list[tuple[object, ...]] = []
            while time.monotonic() < deadline:
                rows = [
                    tuple(r)
                    for r in await fetch(engine, "SELECT id, status, error FROM burn_items ORDER BY id")
                ]
                pending = await fetch(engine, "SELECT count(*) FROM messages WHERE embed_status <> 'done'")
                if [r[1] for r in rows] == ["done", "pending", "done", "done"] and pending[0][0] == 0:
                    break
                await asyncio.sleep(0.2)
        finally:
            stop.set()
            await asyncio.wait_for(task, 60)
    await engine.dispose()
    assert [r[1] for r in rows] == ["done", "pending", "done", "done"], rows
    assert rows[1][2] is not None and "BudgetExceeded" in str(rows[1][2]) and "3 s budget" in str(rows[1][2])
    assert pending[0][0] == 0, "messages appended while the runaway burnt were embedded"
    latencies.sort()
    p50, worst = latencies[len(latencies) // 2] * 1000, latencies[-1] * 1000
    print(f"appends while a runaway burnt: n={len(latencies)} p50={p50:.0f} ms max={worst:.0f} ms")
    # The event loop never waited for the runaway: every request answered well within its budget.
    assert max(latencies) < 2.5, latencies[-5:]  # the runaway burns for ten minutes
    assert len(latencies) > 20

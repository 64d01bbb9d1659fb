"""Helpers for tests that need a database of their own (no shared app worker touching it)."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from app.db.embedded import EmbeddedPostgres
from app.db.engine import async_url, binary_vectors
from app.db.migrate import upgrade


async def create_database(pg: EmbeddedPostgres, *, migrate: bool = True) -> str:
    """A new, empty (migrated) database on the test server; returns its URL."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    engine = create_async_engine(async_url(pg.url), isolation_level="AUTOCOMMIT")
    async with engine.connect() as conn:
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
    await engine.dispose()
    url = pg.url.replace("/postgres?", f"/{name}?")
    if migrate:
        await upgrade(url, 384)
    return url


def engine_for(url: str) -> AsyncEngine:
    engine = create_async_engine(async_url(url))
    binary_vectors(engine)  # vectors travel as in the app
    return engine


async def fetch(engine: AsyncEngine, sql: str, **params: Any) -> list[Any]:
    async with engine.connect() as conn:
        return list((await conn.execute(text(sql), params)).all())


async def until(probe: Callable[[], Awaitable[Any]], within: float = 60, every: float = 0.05) -> Any:
    """Await `probe()` until it gives something truthy, and return that; fail after `within` s."""
    deadline = time.monotonic() + within
    while True:
        value = await probe()
        if value:
            return value
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(every)


async def wait_until(predicate_sql: str, url: str, within: float = 120) -> None:
    """Poll until the query's first column is true, or fail after `within` seconds."""
    engine = engine_for(url)
    try:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if (await fetch(engine, predicate_sql))[0][0]:
                return
            await asyncio.sleep(0.2)
        raise AssertionError(f"timed out waiting for: {predicate_sql}")
    finally:
        await engine.dispose()

"""The read-only requests' connection (app/db/request.read_connection): in autocommit while the
request reads (no BEGIN / COMMIT round trips), and back in transaction mode when it returns to the
pool, where every other request relies on its statements being one transaction."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import text
from starlette.requests import Request

from app.db.engine import make_engine
from app.db.lane import Lane
from app.db.request import read_connection
from tests.support.app import make_settings

XID = text("SELECT txid_current()")  # the same for two statements of one transaction


async def own_transactions(conn: Any) -> bool:
    """Whether each statement on `conn` is a transaction of its own."""
    return bool((await conn.execute(XID)).scalar_one() != (await conn.execute(XID)).scalar_one())


async def test_reads_autocommit_and_the_pool_gets_its_connection_back_in_transactions(
    database_url: str,
) -> None:
    engine = make_engine(make_settings(database_url), database_url, pool_size=1, max_overflow=0)
    lane = Lane(engine, size=1, timeout=1)  # part of every request's state; unused here
    request = Request({"type": "http", "state": {"engine": engine, "lane": lane}})
    try:
        for _ in range(2):
            async with asynccontextmanager(read_connection)(request) as conn:
                assert await own_transactions(conn)
        async with engine.connect() as conn:  # the pool's one connection, as the next request gets it
            assert not await own_transactions(conn)
            await conn.execute(text("CREATE TEMP TABLE left_behind (x int)"))
            await conn.rollback()
        async with engine.connect() as conn:
            found = await conn.execute(text("SELECT to_regclass('pg_temp.left_behind') IS NULL"))
            assert found.scalar_one() is True, "a statement after a read committed on its own"
    finally:
        await engine.dispose()

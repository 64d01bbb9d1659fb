"""The per-request transaction and read connection, the bodies of app/deps.py's `Conn` and
`ReadConn`. Apart from app/db/engine.py because they need FastAPI's `Request` to resolve, and the
worker, which makes engines too, loads no web framework.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.db.sql import checked_out

AfterCommit = list[Callable[[], Awaitable[None]]]


async def transaction(request: Request) -> AsyncIterator[AsyncConnection]:
    """One transaction per request: committed when the handler returns, rolled back if it raises.

    Begun lazily, by the first statement (SQLAlchemy's autobegin): a handler whose one statement
    is atomic on its own may send it on the driver's connection before that (app.db.sql.driver),
    in autocommit, one round trip without BEGIN and COMMIT.

    Used with `scope="function"` so the commit happens before the response is sent: an
    acknowledged write is a durable write. Work the handler puts in `request.state.after_commit`
    runs after a commit and still before the response (never after a rollback): what the client
    does next must see it (the window cache's write-through).
    """
    engine: AsyncEngine = request.state.engine
    after: AfterCommit = []
    request.state.after_commit = after
    async with engine.connect() as conn:
        yield conn
        if conn.in_transaction():
            await conn.commit()
    for work in after:
        await work()


async def read_connection(request: Request) -> AsyncIterator[AsyncConnection]:
    """A connection in autocommit for requests that only read: no BEGIN / COMMIT round trips.

    Each statement sees its own snapshot; a reader that needs several reads to agree does them
    in one statement.
    """
    engine: AsyncEngine = request.state.engine
    async with engine.connect() as conn:
        # Autocommit set on the driver's adapter itself, as SQLAlchemy's AUTOCOMMIT isolation level
        # does for asyncpg, without SQLAlchemy's per-checkout set and reset of the level around it
        # (a greenlet each way): 12 % of a kept memory read's API CPU (docs/benchmarks.md, session
        # 17). Put back before the connection returns to the pool, where transactions are the rule.
        raw = checked_out(conn)
        assert raw is not None, "just checked out by engine.connect()"
        adapter: Any = raw.dbapi_connection  # SQLAlchemy's asyncpg adapter
        adapter.autocommit = True
        try:
            yield conn
        finally:
            adapter.autocommit = False

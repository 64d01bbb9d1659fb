"""A few connections kept checked out for the hot paths' single statements (a memory read's
version, a plain append), each sent in autocommit on the driver's connection.

Why not the request pool: checking a connection out of SQLAlchemy's pool and back in runs the
pool's synchronous code in a greenlet each way, ~100 µs of CPU per request, where the statement
itself costs the client ~30; asyncpg's own pool costs ~60-90 µs (a task per release, the reset
query unless replaced). Taking an idle connection from a list costs ~2 µs (docs/benchmarks.md,
session 18). The connections come from an engine of their own (app.db.engine.make_engine), so
they are set up exactly as the request pool's (codecs, time zone, application name) and the
request pool keeps its size.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
from sqlalchemy import exc as sa_exc
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.db.outage import is_outage

# A connection left unused this long is closed (the stack's bottom, checked as another is taken):
# a burst's extra connections do not stay open as idle PostgreSQL backends (~10 MB each of the
# production shape's footprint, bench/footprint.py).
IDLE_SECONDS = 30.0


class _Pinned:
    __slots__ = ("conn", "driver", "used")

    def __init__(self, conn: AsyncConnection, driver: asyncpg.Connection) -> None:
        self.conn = conn  # the engine's connection, kept checked out
        self.driver = driver
        self.used = time.monotonic()  # when it was last given back


class Lane:
    """At most `size` connections, opened on first need; a statement waits for a free one up to
    `timeout` seconds (then the pool's own TimeoutError: a 503, as for the request pool)."""

    def __init__(self, engine: AsyncEngine, *, size: int, timeout: float) -> None:
        self._engine = engine
        self._size = size
        self._timeout = timeout
        # A stack, so the warm connections serve and the rest stay idle. None is a slot not yet
        # opened (or whose connection was dropped): its taker opens one.
        self._idle: list[_Pinned | None] = [None] * size
        # Takers waiting, served in order: a returned connection goes to the first of them, not
        # back to the stack, where a newer request could take it first (with asyncio.Queue such a
        # taker went to the back of the line again: p99 doubled at c64).
        self._waiters: collections.deque[asyncio.Future[_Pinned | None]] = collections.deque()
        self._all: set[_Pinned] = set()
        self._closed = False

    def stats(self) -> dict[str, int]:
        """For the metrics: slots, connections open and in use, statements waiting for one."""
        idle = sum(1 for p in self._idle if p is not None)
        return {
            "size": self._size,
            "open": len(self._all),
            "in_use": len(self._all) - idle,
            "waiting": sum(1 for w in self._waiters if not w.done()),
        }

    async def fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        async with self._driver() as con:
            rows: list[asyncpg.Record] = await con.fetch(sql, *args)
            return rows

    async def fetchrow(self, sql: str, *args: Any) -> asyncpg.Record | None:
        async with self._driver() as con:
            row: asyncpg.Record | None = await con.fetchrow(sql, *args)
            return row

    @asynccontextmanager
    async def _driver(self) -> AsyncIterator[asyncpg.Connection]:
        pinned = await self._take()
        try:
            yield pinned.driver
        except asyncpg.PostgresError as exc:
            # The server refused the statement and the connection is fine, unless the server is
            # ending the session: then it is dropped like any broken one.
            if is_outage(exc):
                await self._drop(pinned)
            else:
                self._give(pinned)
            raise
        except BaseException:
            # Broken, or cancelled mid-statement (the protocol's state is not known): not reused.
            await self._drop(pinned)
            raise
        else:
            self._give(pinned)

    def _give(self, pinned: _Pinned | None) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(pinned)
                return
        if pinned is not None:
            pinned.used = time.monotonic()
        self._idle.append(pinned)

    async def _wait(self) -> _Pinned | None:
        waiter: asyncio.Future[_Pinned | None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout(self._timeout):
                return await waiter
        except BaseException as exc:
            if waiter.done() and not waiter.cancelled():
                self._give(waiter.result())  # handed over as this taker gave up: to the next
            else:
                waiter.cancel()  # _give skips it
            if isinstance(exc, TimeoutError):
                raise sa_exc.TimeoutError(
                    f"no database lane connection free within {self._timeout} s"
                ) from None
            raise

    async def _take(self) -> _Pinned:
        if self._closed:
            raise sa_exc.TimeoutError("the database lane is closed (shutting down)")
        pinned = self._idle.pop() if self._idle else await self._wait()
        # From here the slot is this taker's: given back (as None if its connection went) on any
        # failure or cancellation, so no slot is ever lost.
        try:
            await self._close_idle()
            if pinned is not None and not pinned.driver.is_closed():
                return pinned
            if pinned is not None:
                gone, pinned = pinned, None
                await self._drop(gone, give_slot=False)
            conn = await self._engine.connect()
            try:
                raw = await conn.get_raw_connection()
            except BaseException:
                await conn.close()
                raise
        except BaseException:
            self._give(pinned)
            raise
        fresh = _Pinned(conn, raw.driver_connection)
        self._all.add(fresh)
        return fresh

    async def _close_idle(self) -> None:
        """Closes the connection given back longest ago (the lowest in the stack) if it has been
        idle past IDLE_SECONDS; its slot stays, as None."""
        for i, oldest in enumerate(self._idle):
            if oldest is not None:
                if time.monotonic() - oldest.used > IDLE_SECONDS:
                    self._idle[i] = None
                    await self._drop(oldest, give_slot=False)
                return

    async def _drop(self, pinned: _Pinned, *, give_slot: bool = True) -> None:
        self._all.discard(pinned)
        if give_slot:
            self._give(None)
        try:
            await pinned.conn.invalidate()
            await pinned.conn.close()
        except Exception:  # already gone; the engine forgets it either way
            pass

    async def aclose(self) -> None:
        """Closes its connections and its engine (at shutdown, once the requests are done)."""
        self._closed = True
        for pinned in list(self._all):
            self._all.discard(pinned)
            await pinned.conn.close()
        await self._engine.dispose()

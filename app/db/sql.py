"""Small helpers for hand-written SQL: typed bind parameters, and statements sent on the asyncpg
connection itself."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg
from sqlalchemy import BindParameter, TextClause, bindparam
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.dialects.postgresql.asyncpg import dialect as asyncpg_dialect
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.pool import PoolProxiedConnection


def jsonb(name: str) -> BindParameter[object]:
    """A JSONB parameter: the driver gets JSON, PostgreSQL gets jsonb (not text)."""
    return bindparam(name, type_=JSONB)


@dataclass(frozen=True)
class Direct:
    """A `text()` statement compiled once to asyncpg's `$n` form, for the hottest statements:
    sent on the driver's connection it skips SQLAlchemy's execute layers (a third of an append's
    client CPU) and, outside a begun transaction, runs in autocommit: one round trip, no BEGIN
    or COMMIT."""

    sql: str
    names: Sequence[str]

    @classmethod
    def of(cls, clause: TextClause) -> Direct:
        compiled = clause.compile(dialect=asyncpg_dialect())  # type: ignore[no-untyped-call]
        return cls(compiled.string, tuple(compiled.positiontup or ()))

    def args(self, params: Mapping[str, Any]) -> list[Any]:
        return [params[name] for name in self.names]


def checked_out(conn: AsyncConnection) -> PoolProxiedConnection | None:
    """The pool's connection under `conn` when it is checked out and usable, read without I/O, so
    without the greenlet `get_raw_connection` runs it in (each one maps and unmaps a 16 KB frame
    stack: one of three per append); None otherwise."""
    sync = conn.sync_connection
    if sync is not None and not sync.closed and not sync.invalidated:
        return sync.connection
    return None


async def driver(conn: AsyncConnection) -> asyncpg.Connection:
    """The asyncpg connection under `conn` (the codecs of app.db.engine are registered on it).

    A statement sent here while `conn` has not yet run one is outside any transaction (SQLAlchemy
    begins its transaction with its first statement), so it commits on its own."""
    raw = checked_out(conn) or await conn.get_raw_connection()
    found: asyncpg.Connection = raw.driver_connection
    return found

"""Audit events written in batches: a request only appends its event to a list (no database work
on the hot path); a task writes the list every ENGRAM_AUDIT_FLUSH_SECONDS in one statement.

The price: an API process that crashes loses the events of its last flush interval (a clean stop
writes them). Measured against an INSERT in each request's own transaction in
docs/benchmarks.md ("audit trail").
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import structlog
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.audit.service import LOCK_CLASS
from app.jsonutil import dumps
from app.metrics import Metrics

_log = structlog.get_logger("engram.audit")

# One round trip per batch. Users and sessions are named only while they exist: an event about an
# unknown id (a 404, a probe) or one buffered across a user's purge is kept without them. A
# session's user is filled in from the session. Events of a tenant deleted meanwhile are dropped.
_INSERT = text(
    "INSERT INTO audit_events (tenant_id, at, key_id, client, request_id, method, operation, status, "
    "user_id, session_id, ids) "
    "SELECT e.t, e.at, e.k, e.c, e.r, e.m, e.o, e.st, coalesce(s.user_id, u.user_id), s.session_id, "
    "CAST(e.ids AS jsonb) "
    "FROM unnest(CAST(:t AS text[]), CAST(:at AS timestamptz[]), CAST(:k AS uuid[]), "
    "  CAST(:c AS text[]), CAST(:r AS text[]), CAST(:m AS text[]), CAST(:o AS text[]), "
    "  CAST(:st AS int[]), CAST(:u AS text[]), CAST(:s AS text[]), CAST(:ids AS text[])) "
    "  WITH ORDINALITY AS e(t, at, k, c, r, m, o, st, u, s, ids, n) "
    "JOIN tenants ON tenants.tenant_id = e.t "
    "LEFT JOIN sessions s ON s.tenant_id = e.t AND s.session_id = e.s "
    "LEFT JOIN users u ON u.tenant_id = e.t AND u.user_id = e.u "
    "ORDER BY e.n"
)


# In a fixed order, so two flushes never wait on each other in a circle.
_SHARED = text(
    "SELECT pg_advisory_xact_lock_shared(:cls, hashtext(t)) FROM unnest(CAST(:t AS text[])) AS t ORDER BY t"
)


@dataclass(frozen=True)
class Event:
    tenant_id: str
    at: datetime
    key_id: uuid.UUID | None
    client: str | None
    request_id: str | None
    method: str
    operation: str
    status: int
    user_id: str | None
    session_id: str | None
    ids: dict[str, Any] = field(default_factory=dict)


class AuditWriter:
    def __init__(self, engine: AsyncEngine, *, every: float, max_buffer: int, metrics: Metrics) -> None:
        self.engine = engine
        self.every = every
        self.max_buffer = max_buffer
        self.metrics = metrics
        self._buffer: list[Event] = []
        self._task: asyncio.Task[None] | None = None

    def record(self, event: Event) -> None:
        self._buffer.append(event)
        self._trim()

    def _trim(self) -> None:
        if len(self._buffer) > self.max_buffer:  # the database has refused them for a long while
            drop = len(self._buffer) - self.max_buffer
            del self._buffer[:drop]
            self.metrics.audit_events.labels("dropped").inc(drop)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="engram-audit")

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with contextlib.suppress(Exception):
            await self.flush()  # a clean stop writes what is left (or logs why not)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.flush()
            except Exception as exc:  # the database is down: the events wait for the next flush
                _log.warning("audit events not written yet", error=f"{type(exc).__name__}: {exc}"[:500])

    async def flush(self) -> int:
        batch, self._buffer = self._buffer, []
        if not batch:
            return 0
        try:
            async with self.engine.begin() as conn:
                # Its own statement: the insert's snapshot is taken once no purge is under way.
                tenants = sorted({e.tenant_id for e in batch})
                await conn.execute(_SHARED, {"cls": LOCK_CLASS, "t": tenants})
                await conn.execute(_INSERT, _columns(batch))
        except BaseException:
            self._buffer[:0] = batch  # kept, oldest first, for the next try
            self._trim()
            raise
        self.metrics.audit_events.labels("written").inc(len(batch))
        return len(batch)


def _columns(batch: list[Event]) -> dict[str, list[Any]]:
    return {
        "t": [e.tenant_id for e in batch],
        "at": [e.at for e in batch],
        "k": [e.key_id for e in batch],
        "c": [e.client for e in batch],
        "r": [e.request_id for e in batch],
        "m": [e.method for e in batch],
        "o": [e.operation for e in batch],
        "st": [e.status for e in batch],
        "u": [e.user_id for e in batch],
        "s": [e.session_id for e in batch],
        "ids": [dumps(e.ids).decode() for e in batch],
    }

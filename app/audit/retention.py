"""The audit trail's own retention: events older than their tenant's `audit_retention_days`
(else ENGRAM_AUDIT_RETENTION_DAYS) are removed by the worker, a batch per transaction."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.audit.service import ALLOW_DELETE

BATCH = 10_000
_EXPIRED = text(
    "DELETE FROM audit_events WHERE id IN ("
    "  SELECT a.id FROM audit_events a JOIN tenants t USING (tenant_id) "
    "  WHERE a.at < now() - make_interval(days => coalesce(t.audit_retention_days, :days)) "
    "  LIMIT :n)"
)


async def expire(engine: AsyncEngine, *, default_days: int) -> int:
    removed = 0
    while True:
        async with engine.begin() as conn:
            await conn.execute(ALLOW_DELETE)  # transaction-local: only this sweep may delete
            n = (await conn.execute(_EXPIRED, {"days": default_days, "n": BATCH})).rowcount
        removed += n
        if n < BATCH:
            return removed

"""Housekeeping of the messages domain, run by the worker."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

SWEEP_BATCH = 5000


async def sweep_idempotency_keys(engine: AsyncEngine, *, ttl: timedelta) -> int:
    """Delete expired Idempotency-Key records, a bounded batch per transaction; returns how many."""
    removed = 0
    while True:
        async with engine.begin() as conn:
            result = await conn.execute(
                text(
                    "DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys "
                    "  WHERE created_at < now() - CAST(:ttl AS interval) LIMIT :n)"
                ),
                {"ttl": ttl, "n": SWEEP_BATCH},
            )
        count = int(result.rowcount or 0)
        removed += count
        if count < SWEEP_BATCH:
            return removed

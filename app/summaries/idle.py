"""Summaries for sessions that went quiet: short sessions never reach the policy's thresholds, so
the worker queues a summary of every message of a session idle for ENGRAM_SUMMARY_IDLE_SECONDS
(no append since), however few. Ended sessions are queued when they end (app.summaries.service)."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.summaries.tasks import KIND

BATCH = 500  # sessions queued per sweep at most; the next sweep takes the rest

# A scan of the sessions with unsummarised messages, every sweep interval: no index, because one on
# updated_at would make every append's session update a non-HOT update. An existing job (pending,
# or failed: it stays failed until forced) is left as it is.
_QUEUE = text(
    "INSERT INTO jobs (tenant_id, kind, session_id, force_to_seq) "
    "SELECT tenant_id, :k, session_id, last_seq FROM sessions "
    "WHERE summarized_seq < last_seq AND updated_at < now() - make_interval(secs => :idle) "
    "ORDER BY updated_at LIMIT :n "
    "ON CONFLICT (tenant_id, kind, session_id) DO NOTHING"
)


async def queue_idle(engine: AsyncEngine, *, idle_seconds: float) -> int:
    """Queue a summary up to the last message of sessions idle for `idle_seconds`; how many."""
    async with engine.begin() as conn:
        result = await conn.execute(_QUEUE, {"k": KIND, "idle": idle_seconds, "n": BATCH})
    return int(result.rowcount or 0)

"""Importance that fades unless a fact is mentioned again, and the sweep that expires faded facts.

A fact's importance halves every ENGRAM_FACT_HALF_LIFE_DAYS since it was last mentioned (a new
mention refreshes it). With ENGRAM_FACT_EXPIRE_BELOW set, the worker expires facts the system
extracted whose faded importance fell below it, once they were last mentioned at least
ENGRAM_FACT_EXPIRE_AFTER_DAYS ago: expired facts are invalidated (kept, with an INVALIDATE event),
never deleted. Facts added over the API are the caller's to remove and never expire.
"""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.crypto import fields
from app.facts import events


def decayed_importance(half_life_days: float, alias: str = "") -> str:
    """SQL for the faded importance now, of the row `alias` (a column prefix, e.g. "f.")."""
    days = f"extract(epoch FROM now() - {alias}last_mentioned_at) / 86400.0"
    return f"({alias}importance * power(0.5, greatest(0.0, {days}) / {float(half_life_days)!r}))"


async def expire_facts(engine: AsyncEngine, *, half_life_days: float, below: float, after_days: float) -> int:
    """Invalidate faded facts; returns how many."""
    async with engine.begin() as conn:
        rows = (
            await conn.execute(
                text(
                    "UPDATE facts SET invalid_at = greatest(valid_from, now()), updated_at = now() "
                    "WHERE invalid_at IS NULL AND actor = 'system' "
                    "AND last_mentioned_at < now() - make_interval(secs => :after) "
                    f"AND {decayed_importance(half_life_days)} < :below "
                    "RETURNING tenant_id, user_id, fact_id, content"
                ),
                {"after": after_days * 86400.0, "below": below},
            )
        ).all()
        by_user: defaultdict[tuple[str, str], list[events.Event]] = defaultdict(list)
        for r in rows:
            by_user[(r.tenant_id, r.user_id)].append(
                events.Event(
                    fact_id=r.fact_id,
                    event="INVALIDATE",
                    old_content=fields.open_text(
                        r.content, tenant=r.tenant_id, table="facts", field="content", row=r.fact_id
                    ),
                    new_content=None,
                    actor="system",
                    reason="expired",
                )
            )
        for (tenant_id, user_id), log in by_user.items():
            await events.record(conn, tenant_id=tenant_id, user_id=user_id, events=log)
    return len(rows)

"""Retention: drop a session's oldest messages past a maximum count or age, run by the worker.

Off by default. Rules come from settings (ENGRAM_RETENTION_MAX_MESSAGES / _MAX_AGE_DAYS) and
can be set per session in its metadata, e.g. {"retention": {"max_messages": 500,
"max_age_days": 30}}, which wins over the global rule. Only messages a summary already covers
(seq <= summarized_seq) are ever removed, so the session's memory stays whole; the rest waits
for the next summary. Each removal is recorded in `retention_events`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import structlog
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.jsonutil import dumps
from app.sessions import counters

_log = structlog.get_logger("engram.retention")
BATCH = 200


@dataclass(frozen=True)
class Rule:
    max_messages: int | None = None
    max_age_days: float | None = None

    @property
    def active(self) -> bool:
        return self.max_messages is not None or self.max_age_days is not None

    def as_json(self) -> dict[str, Any]:
        return {"max_messages": self.max_messages, "max_age_days": self.max_age_days}


def session_rule(metadata: Any, default: Rule) -> Rule:
    """The session's own rule (metadata "retention"), field by field over the global one.
    A malformed value is ignored rather than failing the sweep."""
    own = metadata.get("retention") if isinstance(metadata, dict) else None
    if not isinstance(own, dict):
        return default
    n = own.get("max_messages", default.max_messages)
    age = own.get("max_age_days", default.max_age_days)
    ok_n = n is None or (isinstance(n, int) and not isinstance(n, bool) and n >= 1)
    ok_age = age is None or (isinstance(age, int | float) and not isinstance(age, bool) and age > 0)
    if not ok_n:
        n = default.max_messages
    if not ok_age:
        age = default.max_age_days
    return Rule(max_messages=n, max_age_days=None if age is None else float(age))


async def apply_retention(engine: AsyncEngine, *, default: Rule) -> int:
    """One pass over the sessions that have a rule; returns the messages removed."""
    removed = 0
    after: tuple[str, str] = ("", "")
    while True:
        async with engine.connect() as conn:
            rows = (
                await conn.execute(
                    text(
                        "SELECT tenant_id, session_id, metadata FROM sessions "
                        "WHERE summarized_seq > 0 AND (CAST(:all AS boolean) OR metadata ? 'retention') "
                        "AND (tenant_id, session_id) > (:t, :s) ORDER BY tenant_id, session_id LIMIT :n"
                    ),
                    {"all": default.active, "t": after[0], "s": after[1], "n": BATCH},
                )
            ).all()
        for row in rows:
            rule = session_rule(row.metadata, default)
            if rule.active:
                async with engine.begin() as conn:
                    removed += await _apply_one(conn, t=row.tenant_id, s=row.session_id, rule=rule)
        if len(rows) < BATCH:
            return removed
        after = (rows[-1].tenant_id, rows[-1].session_id)


async def _apply_one(conn: AsyncConnection, *, t: str, s: str, rule: Rule) -> int:
    # The session row is locked so the watermark cannot move under the delete.
    row = (
        await conn.execute(
            text("SELECT summarized_seq FROM sessions WHERE tenant_id = :t AND session_id = :s FOR UPDATE"),
            {"t": t, "s": s},
        )
    ).first()
    if row is None:
        return 0
    reasons = []
    cut = 0  # delete seq <= cut (and <= summarized_seq)
    if rule.max_messages is not None:
        nth = (
            await conn.execute(
                text(
                    "SELECT seq FROM messages WHERE tenant_id = :t AND session_id = :s "
                    "ORDER BY seq DESC OFFSET :n LIMIT 1"
                ),
                {"t": t, "s": s, "n": rule.max_messages},
            )
        ).scalar()
        if nth is not None:
            cut = nth
            reasons.append("max_messages")
    if rule.max_age_days is not None:
        aged = (
            await conn.execute(
                text(
                    "SELECT max(seq) FROM messages WHERE tenant_id = :t AND session_id = :s "
                    "AND created_at < now() - make_interval(secs => :secs)"
                ),
                {"t": t, "s": s, "secs": rule.max_age_days * 86400},
            )
        ).scalar()
        if aged is not None and aged > cut:
            cut = aged
            reasons = [*reasons, "max_age_days"]
    cut = min(cut, row.summarized_seq)
    if cut <= 0:
        return 0
    done = (
        await conn.execute(
            text(
                "WITH d AS (DELETE FROM messages WHERE tenant_id = :t AND session_id = :s AND seq <= :cut "
                "  RETURNING seq) "
                "INSERT INTO retention_events "
                "  (tenant_id, session_id, removed, from_seq, to_seq, reason, rule) "
                "SELECT :t, :s, count(*), min(seq), max(seq), :reason, CAST(:rule AS jsonb) FROM d "
                "HAVING count(*) > 0 RETURNING removed"
            ),
            {"t": t, "s": s, "cut": cut, "reason": ",".join(reasons), "rule": dumps(rule.as_json()).decode()},
        )
    ).scalar()
    if not done:
        return 0
    await counters.invalidate(conn, tenant_id=t, session_id=s)
    _log.info("retention removed messages", tenant_id=t, session_id=s, removed=done, up_to_seq=cut)
    return int(done)

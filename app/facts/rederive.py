"""Derived memory follows its sources: what an edited or deleted message had given is derived again.

A message edit (new text) or delete writes a `message_changes` row and makes the session's
`extract` job due, in the transaction of the edit or delete (`record_change`), so nothing is lost;
the worker's extraction step (app.facts.tasks.Extract) then, in one transaction:
- strips the changed message from the sources of every fact of the user that cites it; a fact left
  with no source is invalidated where it began (it was never said; history reason "source edited"
  or "source deleted"), and a fact it had superseded holds again ("restored");
- reads an edited message again, as a new statement reconciled with what remains;
- rewinds the session's summaries to before the message (the summaries covering it are removed and
  a summary job is forced up to where they reached), so the worker rewrites them.
`plan` is the pure part, tested on its own.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.db.vectors import from_db_vector
from app.facts import events
from app.facts.reconcile import Current, SpeakerFacts
from app.jobs.due import SUMMARIZE


@dataclass(frozen=True)
class Change:
    id: int
    message_id: uuid.UUID
    seq: int
    change: str  # "edited" or "deleted"


@dataclass(frozen=True)
class Citing:
    """A stored fact that cites a changed message."""

    fact_id: uuid.UUID
    content: str
    speaker: str | None
    valid: bool
    source_message_ids: tuple[uuid.UUID, ...]


@dataclass(frozen=True)
class Lost:
    """A fact whose every source is gone or changed."""

    fact_id: uuid.UUID
    content: str
    valid: bool
    reason: str
    sources: tuple[uuid.UUID, ...]


@dataclass(frozen=True)
class Plan:
    lost: list[Lost]
    keep_sources: dict[uuid.UUID, list[uuid.UUID]]  # every citing fact -> its sources left
    # The facts a lost fact had superseded, by speaker: they hold again.
    restored: list[tuple[str | None, Current]] = field(default_factory=list)


async def pending_changes(conn: AsyncConnection, *, tenant_id: str, session_id: str) -> list[Change]:
    rows = (
        await conn.execute(
            text(
                "SELECT id, message_id, seq, change FROM message_changes "
                "WHERE tenant_id = :t AND session_id = :s ORDER BY id"
            ),
            {"t": tenant_id, "s": session_id},
        )
    ).all()
    return [Change(r.id, r.message_id, r.seq, r.change) for r in rows]


async def citing(
    conn: AsyncConnection, *, tenant_id: str, user_id: str, message_ids: Sequence[uuid.UUID]
) -> list[Citing]:
    rows = (
        await conn.execute(
            text(
                "SELECT fact_id, content, speaker, invalid_at IS NULL AS valid, source_message_ids "
                "FROM facts "
                "WHERE tenant_id = :t AND user_id = :u AND source_message_ids && CAST(:ids AS uuid[])"
            ),
            {"t": tenant_id, "u": user_id, "ids": list(message_ids)},
        )
    ).all()
    return [Citing(r.fact_id, r.content, r.speaker, r.valid, tuple(r.source_message_ids)) for r in rows]


def plan(changes: Sequence[Change], cited: Sequence[Citing]) -> Plan:
    """Which facts lose every source (and why), and what each citing fact keeps."""
    why = {c.message_id: c.change for c in changes}  # the last change of a message wins
    lost: list[Lost] = []
    keep: dict[uuid.UUID, list[uuid.UUID]] = {}
    for f in cited:
        left = [m for m in f.source_message_ids if m not in why]
        keep[f.fact_id] = left
        if not left:
            gone = tuple(m for m in f.source_message_ids if m in why)
            reason = "source deleted" if any(why[m] == "deleted" for m in gone) else "source edited"
            lost.append(Lost(f.fact_id, f.content, f.valid, reason, gone))
    return Plan(lost, keep)


async def with_restored(conn: AsyncConnection, *, tenant_id: str, p: Plan) -> Plan:
    """The plan with the facts its lost facts had superseded (they hold again once it is applied)."""
    lost = [f.fact_id for f in p.lost if f.valid]
    if not lost:
        return p
    rows = (
        await conn.execute(
            text(
                "SELECT fact_id, content, subject, exclusive, valid_from, importance, source_message_ids, "
                "speaker, embedding AS vec FROM facts "
                "WHERE tenant_id = :t AND superseded_by = ANY(CAST(:ids AS uuid[]))"
            ),
            {"t": tenant_id, "ids": lost},
        )
    ).all()
    return replace(p, restored=[(r.speaker, current_from_row(r)) for r in rows])


def current_from_row(r: Any) -> Current:
    """A current fact as reconciliation sees it, from a row of facts with its vector as `vec`
    text (the one reading of such rows, for the extraction step and the restore above)."""
    return Current(
        fact_id=r.fact_id,
        content=r.content,
        subject=r.subject,
        exclusive=r.exclusive,
        valid_from=r.valid_from,
        importance=r.importance,
        source_message_ids=tuple(r.source_message_ids),
        vector=from_db_vector(r.vec),
    )


def without(facts: dict[str | None, SpeakerFacts], p: Plan) -> dict[str | None, SpeakerFacts]:
    """The user's facts as reconciliation should see them once the plan is applied: lost facts no
    longer current, changed messages no longer recorded as sources (an edited message read again is
    a new statement, not one read before)."""
    gone = {f.fact_id for f in p.lost}
    out: dict[str | None, SpeakerFacts] = {}
    for speaker, mine in facts.items():
        current = [
            replace(c, source_message_ids=tuple(p.keep_sources.get(c.fact_id, c.source_message_ids)))
            for c in mine.current
            if c.fact_id not in gone
        ]
        changed = {m for f in p.lost for m in f.sources}
        known = [replace(k, source_message_ids=k.source_message_ids - changed) for k in mine.known]
        out[speaker] = SpeakerFacts(current=current, known=known)
    for speaker, c in p.restored:
        out.setdefault(speaker, SpeakerFacts(current=[], known=[])).current.append(c)
    return out


async def apply_plan(conn: AsyncConnection, *, tenant_id: str, user_id: str, p: Plan) -> None:
    """Write the plan and its history events."""
    if p.keep_sources:
        await conn.execute(
            text(
                "UPDATE facts f SET source_message_ids = CAST(v.src AS uuid[]), updated_at = now() "
                "FROM unnest(CAST(:ids AS uuid[]), CAST(:srcs AS text[])) AS v(id, src) "
                "WHERE f.tenant_id = :t AND f.fact_id = v.id"
            ),
            {
                "t": tenant_id,
                "ids": list(p.keep_sources),
                "srcs": ["{" + ",".join(str(m) for m in v) + "}" for v in p.keep_sources.values()],
            },
        )
    log: list[events.Event] = []
    for f in p.lost:
        if not f.valid:
            continue
        await conn.execute(
            text(
                "UPDATE facts SET invalid_at = valid_from, updated_at = now() "
                "WHERE tenant_id = :t AND fact_id = :f AND invalid_at IS NULL"
            ),
            {"t": tenant_id, "f": f.fact_id},
        )
        log.append(
            events.Event(
                fact_id=f.fact_id,
                event="INVALIDATE",
                old_content=f.content,
                new_content=None,
                actor="system",
                reason=f.reason,
                source_message_ids=f.sources,
            )
        )
        # What it had replaced holds again.
        restored = (
            await conn.execute(
                text(
                    "UPDATE facts SET invalid_at = NULL, superseded_by = NULL, updated_at = now() "
                    "WHERE tenant_id = :t AND superseded_by = :f RETURNING fact_id, content"
                ),
                {"t": tenant_id, "f": f.fact_id},
            )
        ).all()
        log.extend(
            events.Event(
                fact_id=r.fact_id,
                event="UPDATE",
                old_content=r.content,
                new_content=r.content,
                actor="system",
                reason=f"restored: what replaced it lost its source ({f.reason})",
                related_fact_id=f.fact_id,
                source_message_ids=f.sources,
            )
            for r in restored
        )
    await events.record(conn, tenant_id=tenant_id, user_id=user_id, events=log)


async def rewind_summaries(conn: AsyncConnection, *, tenant_id: str, session_id: str, from_seq: int) -> None:
    """Summaries covering `from_seq` (and the later ones, each built on the one before) are removed
    and a summary job up to where they reached is made due, so the worker writes them again. The
    job is only inserted, never waited for: a summary step holding it also waits for this step's
    session row, and the other order would deadlock."""
    reached = (
        await conn.execute(
            text("SELECT summarized_seq FROM sessions WHERE tenant_id = :t AND session_id = :s"),
            {"t": tenant_id, "s": session_id},
        )
    ).scalar()
    if reached is None or reached < from_seq:
        return
    await conn.execute(
        text("DELETE FROM summaries WHERE tenant_id = :t AND session_id = :s AND to_seq >= :seq"),
        {"t": tenant_id, "s": session_id, "seq": from_seq},
    )
    await conn.execute(
        text(
            "UPDATE sessions SET summarized_seq = coalesce((SELECT max(to_seq) FROM summaries "
            "WHERE tenant_id = :t AND session_id = :s), 0), cache_gen = cache_gen + 1 "
            "WHERE tenant_id = :t AND session_id = :s"
        ),
        {"t": tenant_id, "s": session_id},
    )
    await conn.execute(
        text(
            "INSERT INTO jobs (tenant_id, kind, session_id, force_to_seq) VALUES (:t, :k, :s, :to) "
            "ON CONFLICT DO NOTHING"
        ),
        {"t": tenant_id, "s": session_id, "k": SUMMARIZE, "to": reached},
    )


async def done_with(conn: AsyncConnection, *, tenant_id: str, changes: Sequence[Change]) -> None:
    await conn.execute(
        text("DELETE FROM message_changes WHERE tenant_id = :t AND id = ANY(CAST(:ids AS bigint[]))"),
        {"t": tenant_id, "ids": [c.id for c in changes]},
    )


def edited_ids(changes: Sequence[Change]) -> list[uuid.UUID]:
    last: dict[uuid.UUID, str] = {}
    for c in changes:
        last[c.message_id] = c.change
    return [m for m, c in last.items() if c == "edited"]

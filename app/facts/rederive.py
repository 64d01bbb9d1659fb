"""Derived memory follows its sources: what an edited or deleted message had given is derived again.

A message edit (new text) or delete writes a `message_changes` row and makes the session's
`extract` job due, in the transaction of the edit or delete (`record_change`), so nothing is lost;
the worker's extraction step (app.facts.tasks.Extract) then, in one transaction:
- strips the changed message from the sources of every fact of the user that cites it; a fact left
  with no source is invalidated where it began (it was never said; history reason "source edited"
  or "source deleted"), and a fact it had superseded holds again ("restored");
- undoes the negations the message made: a fact whose ending was a negation read from it ("I no
  longer eat fish") holds again ("restored"), since a negation is stored only as that INVALIDATE
  event (it has no fact of its own that could lose its source);
- a fact that holds again but has since been followed by a newer fact of its slot, the same
  statement said again or an opposite preference, holds until that one began (superseded by it), so
  two homes or "Likes fish." twice are never current at once;
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

from app.crypto import fields
from app.db.vectors import from_db_vector
from app.facts import events
from app.facts.reconcile import Current, SpeakerFacts, displaces
from app.jobs.due import SUMMARIZE
from app.sessions import counters


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
class Restored:
    """An ended fact that holds again: what ended it came from a changed message."""

    speaker: str | None
    fact: Current
    reason: str  # the history event's
    sources: tuple[uuid.UUID, ...]  # the changed messages that had ended it
    related: uuid.UUID | None  # the lost fact that had superseded it (None: a negation had ended it)
    # A newer current fact that leaves it no room (same slot, same statement, opposite preference):
    # it holds again only until that one began.
    until: Current | None = None


@dataclass(frozen=True)
class Plan:
    lost: list[Lost]
    keep_sources: dict[uuid.UUID, list[uuid.UUID]]  # every citing fact -> its sources left
    changed: dict[uuid.UUID, str] = field(default_factory=dict)  # message -> "edited" / "deleted"
    restored: list[Restored] = field(default_factory=list)


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
    rows = fields.open_contents(rows, tenant=tenant_id, table="facts", id_col="fact_id")
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
    return Plan(lost, keep, why)


_FACT_FIELDS = (
    "f.fact_id, f.content, f.subject, f.exclusive, f.valid_from, f.importance, f.source_message_ids, "
    "f.speaker, f.embedding AS vec"
)
# Facts a lost (still valid) fact had superseded.
_SUPERSEDED_BY = text(
    f"SELECT {_FACT_FIELDS}, f.superseded_by FROM facts f "
    "WHERE f.tenant_id = :t AND f.superseded_by = ANY(CAST(:ids AS uuid[]))"
)
# Facts whose last ending is a negation read from one of the changed messages, still ended by it
# (no fact superseded them, so nothing else has ended them since).
_NEGATED_BY = text(
    "WITH last AS ("
    "  SELECT DISTINCT ON (e.fact_id) e.fact_id, e.reason, e.source_message_ids FROM fact_events e"
    "  WHERE e.tenant_id = :t AND e.user_id = :u AND e.event = 'INVALIDATE'"
    "  AND e.fact_id IN (SELECT x.fact_id FROM fact_events x WHERE x.tenant_id = :t AND x.user_id = :u"
    "                    AND x.event = 'INVALIDATE' AND x.reason = 'negated'"
    "                    AND x.source_message_ids && CAST(:ids AS uuid[]))"
    "  ORDER BY e.fact_id, e.id DESC"
    f") SELECT {_FACT_FIELDS}, last.source_message_ids AS ended_by FROM last "
    "JOIN facts f ON f.tenant_id = :t AND f.fact_id = last.fact_id "
    "WHERE last.reason = 'negated' AND last.source_message_ids && CAST(:ids AS uuid[]) "
    "AND f.invalid_at IS NOT NULL AND f.superseded_by IS NULL"
)


async def with_restored(conn: AsyncConnection, *, tenant_id: str, user_id: str, p: Plan) -> Plan:
    """The plan with the facts that hold again once it is applied: those its lost facts had
    superseded, and those a negation read from a changed message had ended."""
    restored: list[Restored] = []
    by_lost = {f.fact_id: f for f in p.lost if f.valid}
    if by_lost:
        rows = (await conn.execute(_SUPERSEDED_BY, {"t": tenant_id, "ids": list(by_lost)})).all()
        for r in fields.open_contents(rows, tenant=tenant_id, table="facts", id_col="fact_id"):
            lost = by_lost[r.superseded_by]
            restored.append(
                Restored(
                    speaker=r.speaker,
                    fact=current_from_row(r),
                    reason=f"restored: what replaced it lost its source ({lost.reason})",
                    sources=lost.sources,
                    related=lost.fact_id,
                )
            )
    if p.changed:
        gone = {f.fact_id for f in p.lost}
        rows = (await conn.execute(_NEGATED_BY, {"t": tenant_id, "u": user_id, "ids": list(p.changed)})).all()
        for r in fields.open_contents(rows, tenant=tenant_id, table="facts", id_col="fact_id"):
            if r.fact_id in gone:  # said only in changed messages too: it stays as it ended
                continue
            by = tuple(m for m in r.ended_by if m in p.changed)
            why = "source deleted" if any(p.changed[m] == "deleted" for m in by) else "source edited"
            restored.append(
                Restored(
                    speaker=r.speaker,
                    fact=current_from_row(r),
                    reason=f"restored: the negation that ended it lost its source ({why})",
                    sources=by,
                    related=None,
                )
            )
    return replace(p, restored=restored)


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


def settle(facts: dict[str | None, SpeakerFacts], p: Plan) -> tuple[dict[str | None, SpeakerFacts], Plan]:
    """The user's facts as reconciliation should see them once the plan is applied, and the plan
    with each restored fact's end: lost facts are no longer current, changed messages no longer
    recorded as sources (an edited message read again is a new statement, not one read before), and
    a restored fact is current again unless a newer fact leaves it no room (`reconcile.displaces`),
    in which case it holds until that one began."""
    gone = {f.fact_id for f in p.lost}
    changed = frozenset(p.changed)
    out: dict[str | None, SpeakerFacts] = {}
    for speaker, mine in facts.items():
        current = [
            replace(c, source_message_ids=tuple(p.keep_sources.get(c.fact_id, c.source_message_ids)))
            for c in mine.current
            if c.fact_id not in gone
        ]
        known = [replace(k, source_message_ids=k.source_message_ids - changed) for k in mine.known]
        out[speaker] = SpeakerFacts(current=current, known=known)
    restored: list[Restored] = []
    for r in p.restored:
        mine = out.setdefault(r.speaker, SpeakerFacts(current=[], known=[]))
        others = [*mine.current, *(x.fact for x in p.restored if x.speaker == r.speaker and x is not r)]
        newer = [c for c in others if c.valid_from >= r.fact.valid_from and displaces(c, r.fact)]
        until = min(newer, key=lambda c: (c.valid_from, str(c.fact_id)), default=None)
        restored.append(replace(r, until=until))
    for r in restored:
        if r.until is None:
            out[r.speaker].current.append(r.fact)
    return out, replace(p, restored=restored)


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
    for r in p.restored:
        until = r.until
        await conn.execute(
            text(
                "UPDATE facts SET invalid_at = :end, superseded_by = :by, updated_at = now() "
                "WHERE tenant_id = :t AND fact_id = :f"
            ),
            {
                "t": tenant_id,
                "f": r.fact.fact_id,
                "end": until.valid_from if until else None,
                "by": until.fact_id if until else None,
            },
        )
        log.append(
            events.Event(
                fact_id=r.fact.fact_id,
                event="UPDATE",
                old_content=r.fact.content,
                new_content=r.fact.content,
                actor="system",
                reason=r.reason + ("; held until a newer fact began" if until else ""),
                related_fact_id=until.fact_id if until else r.related,
                source_message_ids=r.sources,
            )
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
    await counters.summaries_dropped(conn, tenant_id=tenant_id, session_id=session_id)
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

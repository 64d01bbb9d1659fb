"""The worker's fact tasks: extract and reconcile one step of a session, embed facts made over the API.

An extraction step reads the session's messages after its watermark (`extracted_seq`, at most
ENGRAM_FACT_MAX_INPUT_TOKENS of them), asks the extractor for candidates, embeds them, reconciles
them with the user's current facts and writes facts, events and the new watermark in one
transaction holding the job's row lock (app.jobs.queue) and a lock on the user: two workers never
run the same session, two sessions of one user reconcile one after the other, and a worker that
dies mid-step rolls back, so the step is redone. The watermark makes a step's messages read once;
reconciliation skips a source message it has already recorded, so a redone step changes nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.ai.embedder import Embedder
from app.ai.fact_extractor import FactExtractor, TurnRef
from app.ai.offload import Offload, inline
from app.crypto import fields
from app.crypto.envelope import UNREADABLE, DecryptError
from app.db.index_text import plain_tsv_sql
from app.db.vectors import Vec, as_db_vector
from app.facts import events, rederive
from app.facts.reconcile import (
    Add,
    Invalidate,
    Known,
    Mention,
    Op,
    SpeakerFacts,
    Thresholds,
    reconcile_speakers,
)
from app.jobs import queue
from app.jobs.fair import Rotation
from app.jobs.retry import RetryPolicy, next_try
from app.messages.turns import read_turns
from app.webhooks import outbox

KIND = "extract"


@dataclass(frozen=True)
class Unread:
    job: Any  # the claimed job with its session's row (app.jobs.queue.claim)
    step_to: int  # the new watermark
    turns: Sequence[TurnRef]  # empty when nothing is to be read; context turns first
    facts: dict[str | None, SpeakerFacts]  # by speaker (None: the user)
    changes: Sequence[rederive.Change] = ()  # edited or deleted messages to re-derive
    plan: rederive.Plan | None = None

    @property
    def trace_parent(self) -> str | None:
        """The trace of the request that made the job due (app.jobs.runner joins it)."""
        return self.job.trace_parent  # type: ignore[no-any-return]


class Extract:
    """Claim one session with unread messages and run one extraction step on it."""

    kind = KIND
    limit = 1

    def __init__(
        self,
        *,
        extractor: FactExtractor,
        embedder: Embedder,
        thresholds: Thresholds,
        max_input_tokens: int,
        offload: Offload = inline,
    ) -> None:
        self.extractor = extractor
        self.embedder = embedder
        self.rotation = Rotation()  # tenants take turns (app.jobs.fair)
        self.thresholds = thresholds
        self.max_input_tokens = max_input_tokens
        self.offload = offload  # reconciliation is pure Python over all the user's facts

    async def claim(self, conn: AsyncConnection) -> list[Unread]:
        job = await queue.claim(conn, KIND, self.rotation)
        if job is None:
            return []
        t, s, u = job.tenant_id, job.session_id, job.user_id  # the claim carries the session's row
        changes = await rederive.pending_changes(conn, tenant_id=t, session_id=s)
        if job.last_seq <= job.extracted_seq and not changes:
            return [Unread(job, job.extracted_seq, (), {})]
        turns: list[TurnRef] = []
        step_to = job.extracted_seq
        if job.last_seq > job.extracted_seq:
            turns, cut = await read_turns(
                conn,
                tenant_id=t,
                session_id=s,
                after=job.extracted_seq,
                upto=job.last_seq,
                budget=self.max_input_tokens,
            )
            step_to = turns[-1].seq if cut else job.last_seq
        # One user's facts are reconciled by one step at a time (sessions run side by side).
        await lock_user_facts(conn, tenant_id=t, user_id=u)
        facts = await user_facts(conn, tenant_id=t, user_id=u)
        context = await read_context(conn, tenant_id=t, session_id=s, before=turns[0].seq) if turns else []
        plan = None
        if changes:
            cited = await rederive.citing(
                conn, tenant_id=t, user_id=u, message_ids=[c.message_id for c in changes]
            )
            plan = rederive.plan(changes, cited)
            plan = await rederive.with_restored(conn, tenant_id=t, user_id=u, p=plan)
            facts, plan = rederive.settle(facts, plan)
            # An edited message already read is read again, as a new statement.
            again = await read_messages(
                conn, tenant_id=t, session_id=s, ids=rederive.edited_ids(changes), upto=job.extracted_seq
            )
            by_id = {c.message_id: c for c in context} | {a.message_id: a for a in again}
            context = sorted(by_id.values(), key=lambda x: x.seq)
        return [Unread(job, step_to, [*context, *turns], facts, changes, plan)]

    async def call(self, items: Sequence[Unread]) -> list[list[Op]]:
        (unread,) = items
        if all(x.context for x in unread.turns):
            return [[]]
        mine = unread.facts.get(None)
        candidates = await self.extractor.extract(
            turns=unread.turns,
            known_subjects=sorted({c.subject for c in mine.current if c.subject}) if mine else [],
        )
        vectors = np.zeros((0, 0), dtype=np.float32)
        if candidates:
            vectors = await self.embedder.embed([c.content for c in candidates])
        return [await self.offload(reconcile_speakers, candidates, vectors, unread.facts, self.thresholds)]

    async def store(self, conn: AsyncConnection, done: Sequence[tuple[Unread, list[Op]]]) -> None:
        for unread, ops in done:
            t, s, u = unread.job.tenant_id, unread.job.session_id, unread.job.user_id
            if unread.plan is not None:
                await rederive.apply_plan(conn, tenant_id=t, user_id=u, p=unread.plan)
            if ops:
                await apply(conn, tenant_id=t, user_id=u, session_id=s, ops=ops)
            if unread.changes:
                await rederive.done_with(conn, tenant_id=t, changes=unread.changes)
                first = min(c.seq for c in unread.changes)
                await rederive.rewind_summaries(conn, tenant_id=t, session_id=s, from_seq=first)
            read = unread.step_to > unread.job.extracted_seq or bool(unread.changes)
            # Caught up after reading something: a forced run with nothing new says nothing.
            if await _advance(conn, tenant_id=t, session_id=s, to=unread.step_to) and read:
                data = {"user_id": u, "session_id": s, "extracted_seq": unread.step_to}
                await outbox.emit(conn, tenant_id=t, user_id=u, type_="extraction.completed", data=data)

    async def fail(
        self, conn: AsyncConnection, failed: Sequence[Unread], error: str, retry: RetryPolicy
    ) -> None:
        await queue.fail(conn, kind=KIND, jobs=[u.job for u in failed], error=error, retry=retry)


async def lock_user_facts(conn: AsyncConnection, *, tenant_id: str, user_id: str) -> None:
    """Serialise changes to one user's facts (extraction steps of their sessions, manual adds)
    until the transaction ends."""
    await conn.execute(
        text("SELECT pg_advisory_xact_lock(hashtextextended(:t || chr(31) || :u, 0))"),
        {"t": tenant_id, "u": user_id},
    )


async def user_facts(
    conn: AsyncConnection, *, tenant_id: str, user_id: str
) -> dict[str | None, SpeakerFacts]:
    """The user's facts by speaker (None: the user): those valid now (with vectors), and all of
    them as `Known` (ended ones too)."""
    rows = (
        await conn.execute(
            text(
                "SELECT fact_id, content, subject, exclusive, valid_from, importance, source_message_ids, "
                "speaker, invalid_at IS NULL AS valid, "
                "CASE WHEN invalid_at IS NULL THEN embedding END AS vec FROM facts "
                "WHERE tenant_id = :t AND user_id = :u ORDER BY valid_from, fact_id"
            ),
            {"t": tenant_id, "u": user_id},
        )
    ).all()
    rows = fields.open_contents(rows, tenant=tenant_id, table="facts", id_col="fact_id")
    out: dict[str | None, SpeakerFacts] = {}
    for r in rows:
        mine = out.setdefault(r.speaker, SpeakerFacts(current=[], known=[]))
        mine.known.append(
            Known(subject=r.subject, content=r.content, source_message_ids=frozenset(r.source_message_ids))
        )
        if r.valid:
            mine.current.append(rederive.current_from_row(r))
    return out


_MESSAGES = text(
    "SELECT message_id, seq, role, name, content, created_at FROM messages "
    "WHERE tenant_id = :t AND session_id = :s AND message_id = ANY(CAST(:ids AS uuid[])) AND seq <= :upto"
)


async def read_messages(
    conn: AsyncConnection, *, tenant_id: str, session_id: str, ids: Sequence[uuid.UUID], upto: int
) -> list[TurnRef]:
    """The messages `ids` (those still there, up to `upto`) as turns to read again."""
    if not ids:
        return []
    rows = (
        await conn.execute(_MESSAGES, {"t": tenant_id, "s": session_id, "ids": list(ids), "upto": upto})
    ).all()
    rows = fields.open_contents(rows, tenant=tenant_id, table="messages", id_col="message_id")
    return [
        TurnRef(
            seq=r.seq,
            role=r.role,
            name=r.name,
            content=r.content,
            created_at=r.created_at,
            message_id=r.message_id,
        )
        for r in rows
    ]


_CONTEXT = text(
    "SELECT message_id, seq, role, name, content, created_at FROM messages "
    "WHERE tenant_id = :t AND session_id = :s AND seq < :before ORDER BY seq DESC LIMIT 4"
)


async def read_context(
    conn: AsyncConnection, *, tenant_id: str, session_id: str, before: int
) -> list[TurnRef]:
    """The few turns before `before`, as context (never sources): what "I meant Paris" corrects, the
    question a bare answer answers."""
    rows = (await conn.execute(_CONTEXT, {"t": tenant_id, "s": session_id, "before": before})).all()
    rows = fields.open_contents(rows, tenant=tenant_id, table="messages", id_col="message_id")
    return [
        TurnRef(
            seq=r.seq,
            role=r.role,
            name=r.name,
            content=r.content,
            created_at=r.created_at,
            message_id=r.message_id,
            context=True,
        )
        for r in reversed(rows)
    ]


_ADD = text(
    "INSERT INTO facts (fact_id, tenant_id, user_id, content, kind, subject, exclusive, topics, "
    "importance, actor, source_message_ids, session_id, valid_from, invalid_at, superseded_by, "
    "last_mentioned_at, embedding, speaker, plain_tsv) "
    "VALUES (:id, :t, :u, :content, :kind, :subject, :exclusive, :topics, :importance, 'system', "
    "CAST(:sources AS uuid[]), :s, :valid_from, :invalid_at, :superseded_by, :valid_from, "
    f"CAST(:v AS vector), :speaker, {plain_tsv_sql('kw')})"
)
# An UPDATE that sets a new content when `:changed` clears the vector of a changed text and gives
# it a fresh start in the embedding queue. `:changed` is decided on the plain texts by the caller:
# stored texts may be encrypted, and two encryptions of one text never compare equal.
REEMBED_IF_CHANGED = (
    "embedding = CASE WHEN CAST(:changed AS boolean) THEN NULL ELSE embedding END, "
    "embed_attempts = CASE WHEN CAST(:changed AS boolean) THEN 0 ELSE embed_attempts END, "
    "embed_after = CASE WHEN CAST(:changed AS boolean) THEN now() ELSE embed_after END "
)
# Likewise the keyword index of a sealed text (`:kw`: fields.keyword_text of the new text).
REINDEX_IF_CHANGED = (
    f"plain_tsv = CASE WHEN CAST(:changed AS boolean) THEN {plain_tsv_sql('kw')} ELSE plain_tsv END, "
)
_MENTION = text(
    "UPDATE facts SET content = CASE WHEN CAST(:changed AS boolean) THEN :content ELSE content END, "
    "importance = greatest(importance, :importance), "
    "source_message_ids = source_message_ids || CAST(:sources AS uuid[]), mention_count = mention_count + 1, "
    "last_mentioned_at = greatest(last_mentioned_at, :at), updated_at = now(), "
    f"{REINDEX_IF_CHANGED}{REEMBED_IF_CHANGED}"
    "WHERE tenant_id = :t AND fact_id = :id"
)
_INVALIDATE = text(
    "UPDATE facts SET invalid_at = greatest(valid_from, :at), superseded_by = :by, updated_at = now() "
    "WHERE tenant_id = :t AND fact_id = :id AND invalid_at IS NULL"
)


async def apply(
    conn: AsyncConnection, *, tenant_id: str, user_id: str, session_id: str, ops: Sequence[Op]
) -> None:
    """Write reconciliation's operations and their events. Adds go first, so a superseded fact's
    `superseded_by` always names a stored fact."""
    log: list[events.Event] = []
    for op in sorted(ops, key=lambda o: not isinstance(o, Add)):
        if isinstance(op, Add):
            c = op.candidate
            await conn.execute(
                _ADD,
                {
                    "id": op.fact_id,
                    "t": tenant_id,
                    "u": user_id,
                    "content": fields.seal_text(
                        c.content, tenant=tenant_id, table="facts", field="content", row=op.fact_id
                    ),
                    "kind": c.kind.value,
                    "subject": c.subject,
                    "exclusive": c.exclusive,
                    "topics": list(c.topics),
                    "importance": min(1.0, max(0.0, c.importance)),
                    "sources": list(c.source_message_ids),
                    "s": session_id,
                    "valid_from": c.valid_from,
                    "invalid_at": op.invalid_at,
                    "superseded_by": op.superseded_by,
                    "v": as_db_vector(op.vector),
                    "speaker": c.speaker,
                    "kw": fields.keyword_text(c.content),
                },
            )
            log.append(_added(op))
        elif isinstance(op, Mention):
            await conn.execute(
                _MENTION,
                {
                    "t": tenant_id,
                    "id": op.fact_id,
                    "content": fields.seal_text(
                        op.new_content, tenant=tenant_id, table="facts", field="content", row=op.fact_id
                    ),
                    "changed": op.new_content != op.old_content,
                    "kw": fields.keyword_text(op.new_content),
                    "importance": op.importance,
                    "sources": list(op.source_message_ids),
                    "at": op.at,
                },
            )
            if op.merged:
                log.append(
                    events.Event(
                        fact_id=op.fact_id,
                        event="UPDATE",
                        old_content=op.old_content,
                        new_content=op.new_content,
                        actor="system",
                        reason="merged",
                        source_message_ids=op.source_message_ids,
                    )
                )
        else:
            await invalidate(conn, tenant_id=tenant_id, op=op)
            log.append(invalidated(op, actor="system"))
    await events.record(conn, tenant_id=tenant_id, user_id=user_id, events=log)


async def invalidate(conn: AsyncConnection, *, tenant_id: str, op: Invalidate) -> None:
    await conn.execute(_INVALIDATE, {"t": tenant_id, "id": op.fact_id, "at": op.at, "by": op.superseded_by})


def _added(op: Add) -> events.Event:
    reason = "superseded on arrival" if op.superseded_by is not None else "extracted"
    return events.Event(
        fact_id=op.fact_id,
        event="ADD",
        old_content=None,
        new_content=op.candidate.content,
        actor="system",
        reason=reason,
        related_fact_id=op.superseded_by,
        source_message_ids=op.candidate.source_message_ids,
    )


def invalidated(op: Invalidate, *, actor: events.Actor) -> events.Event:
    return events.Event(
        fact_id=op.fact_id,
        event="INVALIDATE",
        old_content=op.content,
        new_content=None,
        actor=actor,
        reason=op.reason,
        related_fact_id=op.superseded_by,
        source_message_ids=op.source_message_ids,
    )


async def _advance(conn: AsyncConnection, *, tenant_id: str, session_id: str, to: int) -> bool:
    """Move the watermark; keep the job while unread messages remain. The session row is locked
    first, so a batch appended during this step is seen here and its job is not lost. True when
    every message of the session has been read."""
    session = (
        await conn.execute(
            text(
                "UPDATE sessions SET extracted_seq = greatest(extracted_seq, :to) "
                "WHERE tenant_id = :t AND session_id = :s RETURNING last_seq"
            ),
            {"t": tenant_id, "s": session_id, "to": to},
        )
    ).first()
    if session is not None and session.last_seq > to:
        await queue.keep(conn, kind=KIND, tenant_id=tenant_id, session_id=session_id)
        return False
    await queue.done(conn, kind=KIND, tenant_id=tenant_id, session_id=session_id)
    return session is not None


# --- facts written over the API are embedded here, off the request path ---
# A fact without a vector is pending while `embed_after` has come; a failure retries it with
# backoff, and after the last attempt `embed_after` is 'infinity' (failed) until its content changes.

_CLAIM_UNEMBEDDED = text(
    "SELECT fact_id, tenant_id, content FROM facts WHERE embedding IS NULL AND embed_after <= now() "
    "ORDER BY embed_after LIMIT :n FOR UPDATE SKIP LOCKED"
)
_STORE_VECTORS = text(
    "UPDATE facts f SET embedding = v.e, embed_error = NULL "
    "FROM unnest(CAST(:ids AS uuid[]), CAST(:vecs AS vector[])) AS v(id, e) WHERE f.fact_id = v.id"
)
_FAIL_VECTORS = text(
    "UPDATE facts SET embed_attempts = embed_attempts + 1, embed_error = :err, "
    "embed_after = CASE WHEN embed_attempts + 1 >= :max THEN 'infinity' "
    f"ELSE {next_try('embed_attempts')} END "
    "WHERE fact_id = ANY(CAST(:ids AS uuid[]))"
)


@dataclass(frozen=True)
class Unembedded:
    fact_id: uuid.UUID
    content: str


class EmbedFacts:
    """Embed a batch of facts that have no vector yet (added or edited over the API)."""

    kind = "embed_facts"

    def __init__(self, *, embedder: Embedder, batch_size: int) -> None:
        self.embedder = embedder
        self.limit = batch_size

    async def claim(self, conn: AsyncConnection) -> list[Unembedded]:
        rows = (await conn.execute(_CLAIM_UNEMBEDDED, {"n": self.limit})).all()
        out, unreadable = [], []
        for r in rows:
            try:
                content = fields.open_text(
                    r.content, tenant=r.tenant_id, table="facts", field="content", row=r.fact_id
                )
            except DecryptError:  # failed at once (as app.indexing.tasks does for messages)
                unreadable.append(r.fact_id)
                continue
            out.append(Unembedded(r.fact_id, content))
        if unreadable:
            await conn.execute(
                text(
                    "UPDATE facts SET embed_attempts = embed_attempts + 1, embed_error = :err, "
                    "embed_after = 'infinity' WHERE fact_id = ANY(CAST(:ids AS uuid[]))"
                ),
                {"ids": unreadable, "err": UNREADABLE},
            )
        return out

    async def call(self, items: Sequence[Unembedded]) -> list[Vec]:
        return [as_db_vector(v) for v in await self.embedder.embed([i.content for i in items])]

    async def store(self, conn: AsyncConnection, done: Sequence[tuple[Unembedded, Vec]]) -> None:
        await conn.execute(
            _STORE_VECTORS, {"ids": [f.fact_id for f, _ in done], "vecs": [v for _, v in done]}
        )

    async def fail(
        self, conn: AsyncConnection, failed: Sequence[Unembedded], error: str, retry: RetryPolicy
    ) -> None:
        await conn.execute(
            _FAIL_VECTORS, {"ids": [f.fact_id for f in failed], "err": error, **retry.params()}
        )

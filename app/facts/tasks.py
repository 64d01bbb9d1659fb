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

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import orjson
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.ai.embedder import Embedder
from app.ai.fact_extractor import FactExtractor
from app.facts import events
from app.facts.reconcile import Add, Current, Invalidate, Known, Mention, Op, Thresholds, reconcile
from app.indexing.tasks import RetryPolicy, vector_literal
from app.jobs import queue
from app.messages.turns import read_turns

KIND = "extract"


@dataclass
class StepResult:
    claimed: bool = False
    read: int = 0  # messages this step read
    changes: int = 0  # operations applied
    failed: bool = False


async def extract_next(
    engine: AsyncEngine,
    *,
    extractor: FactExtractor,
    embedder: Embedder,
    thresholds: Thresholds,
    max_input_tokens: int,
    retry: RetryPolicy,
    embed_lock: asyncio.Lock | None,
    llm_lock: asyncio.Lock | None,
) -> StepResult:
    """Claim one session with unread messages and run one extraction step on it."""
    result = StepResult()
    async with engine.begin() as conn:
        job = await queue.claim(conn, KIND)
        if job is None:
            return result
        result.claimed = True
        t, s = job.tenant_id, job.session_id
        session = job  # the claim carries the session's row, key-share locked for the step
        u = session.user_id
        step_to = session.extracted_seq
        if session.last_seq > session.extracted_seq:
            turns, cut = await read_turns(
                conn,
                tenant_id=t,
                session_id=s,
                after=session.extracted_seq,
                upto=session.last_seq,
                budget=max_input_tokens,
            )
            step_to = turns[-1].seq if cut else session.last_seq
            result.read = len(turns)
            # One user's facts are reconciled by one step at a time (sessions run side by side).
            await lock_user_facts(conn, tenant_id=t, user_id=u)
            current, known = await _user_facts(conn, tenant_id=t, user_id=u)
            try:
                async with llm_lock if llm_lock is not None else contextlib.nullcontext():
                    candidates = await extractor.extract(
                        turns=turns, known_subjects=sorted({c.subject for c in current if c.subject})
                    )
                vectors = np.zeros((0, 0), dtype=np.float32)
                if candidates:
                    async with embed_lock if embed_lock is not None else contextlib.nullcontext():
                        vectors = await embedder.embed([c.content for c in candidates])
            except Exception as exc:  # model trouble of any kind: on the job, retried with backoff
                await queue.fail(
                    conn, kind=KIND, tenant_id=t, session_id=s, attempts=job.attempts, error=exc, retry=retry
                )
                result.failed = True
                return result
            ops = reconcile(list(zip(candidates, vectors, strict=True)), current, thresholds, known)
            await apply(conn, tenant_id=t, user_id=u, session_id=s, ops=ops)
            result.changes = len(ops)
        await _advance(conn, tenant_id=t, session_id=s, to=step_to)
    return result


async def lock_user_facts(conn: AsyncConnection, *, tenant_id: str, user_id: str) -> None:
    """Serialise changes to one user's facts (extraction steps of their sessions, manual adds)
    until the transaction ends."""
    await conn.execute(
        text("SELECT pg_advisory_xact_lock(hashtextextended(:t || chr(31) || :u, 0))"),
        {"t": tenant_id, "u": user_id},
    )


async def _user_facts(
    conn: AsyncConnection, *, tenant_id: str, user_id: str
) -> tuple[list[Current], list[Known]]:
    """The user's facts valid now (with vectors), and all of them as `Known` (ended ones too)."""
    rows = (
        await conn.execute(
            text(
                "SELECT fact_id, content, subject, exclusive, valid_from, importance, source_message_ids, "
                "invalid_at IS NULL AS valid, "
                "CASE WHEN invalid_at IS NULL THEN embedding::text END AS vec FROM facts "
                "WHERE tenant_id = :t AND user_id = :u ORDER BY valid_from, fact_id"
            ),
            {"t": tenant_id, "u": user_id},
        )
    ).all()
    current = [
        Current(
            fact_id=r.fact_id,
            content=r.content,
            subject=r.subject,
            exclusive=r.exclusive,
            valid_from=r.valid_from,
            importance=r.importance,
            source_message_ids=tuple(r.source_message_ids),
            vector=np.asarray(orjson.loads(r.vec), dtype=np.float32) if r.vec is not None else None,
        )
        for r in rows
        if r.valid
    ]
    known = [
        Known(subject=r.subject, content=r.content, source_message_ids=frozenset(r.source_message_ids))
        for r in rows
    ]
    return current, known


_ADD = text(
    "INSERT INTO facts (fact_id, tenant_id, user_id, content, kind, subject, exclusive, topics, "
    "importance, actor, source_message_ids, session_id, valid_from, invalid_at, superseded_by, "
    "last_mentioned_at, embedding) "
    "VALUES (:id, :t, :u, :content, :kind, :subject, :exclusive, :topics, :importance, 'system', "
    "CAST(:sources AS uuid[]), :s, :valid_from, :invalid_at, :superseded_by, :valid_from, CAST(:v AS vector))"
)
_MENTION = text(
    "UPDATE facts SET content = :content, importance = greatest(importance, :importance), "
    "source_message_ids = source_message_ids || CAST(:sources AS uuid[]), mention_count = mention_count + 1, "
    "last_mentioned_at = greatest(last_mentioned_at, :at), updated_at = now(), "
    "embedding = CASE WHEN content = :content THEN embedding END "
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
                    "content": c.content,
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
                    "v": vector_literal(op.vector),
                },
            )
            log.append(_added(op))
        elif isinstance(op, Mention):
            await conn.execute(
                _MENTION,
                {
                    "t": tenant_id,
                    "id": op.fact_id,
                    "content": op.new_content,
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


async def _advance(conn: AsyncConnection, *, tenant_id: str, session_id: str, to: int) -> None:
    """Move the watermark; keep the job while unread messages remain. The session row is locked
    first, so a batch appended during this step is seen here and its job is not lost."""
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
    else:
        await queue.done(conn, kind=KIND, tenant_id=tenant_id, session_id=session_id)


# --- facts written over the API are embedded here, off the request path ---

_CLAIM_UNEMBEDDED = text(
    "SELECT fact_id, content FROM facts WHERE embedding IS NULL "
    "ORDER BY created_at LIMIT :n FOR UPDATE SKIP LOCKED"
)


async def embed_facts(
    engine: AsyncEngine, *, embedder: Embedder, batch_size: int, lock: asyncio.Lock | None
) -> int:
    """Embed one batch of facts that have no vector yet; returns how many."""
    async with engine.begin() as conn:
        rows = (await conn.execute(_CLAIM_UNEMBEDDED, {"n": batch_size})).all()
        if not rows:
            return 0
        async with lock if lock is not None else contextlib.nullcontext():
            vectors = await embedder.embed([r.content for r in rows])
        await conn.execute(
            text(
                "UPDATE facts f SET embedding = CAST(v.e AS vector) "
                "FROM unnest(CAST(:ids AS uuid[]), CAST(:vecs AS text[])) AS v(id, e) WHERE f.fact_id = v.id"
            ),
            {"ids": [r.fact_id for r in rows], "vecs": [vector_literal(v) for v in vectors]},
        )
    return len(rows)

"""The embedding step: claim pending messages, embed them in one model call, store the vectors.

A message is searchable from that commit. The vectors of its longest sentences (a refinement of
search by meaning for long turns) are made in the same call while the worker keeps up, and queued
for a later step of lower priority (app/indexing/sentence_tasks.py) when it is behind (a full
claim, or messages that waited), so new messages do not wait for them.

Run by app.jobs.runner (one transaction holding the rows' locks, the shared model lock around the
call, bisection on error, backoff). The queue is the message rows themselves (`embed_status`,
`embed_after`, `embed_attempts`, `embed_error`), written by the append at no extra cost. Claims are
fair: a batch is shared across tenants, then users, in rotation, so one tenant's backlog does not
hold up another's new message.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.ai.embedder import Embedder
from app.crypto.envelope import UNREADABLE
from app.db.index_text import message_sentences, message_text
from app.db.vectors import Vec, as_db_vector, pack_many
from app.indexing import sentence_tasks
from app.indexing.contents import readable
from app.indexing.fair_claim import FairQueue
from app.jobs.fair import Rotation
from app.jobs.retry import RetryPolicy, next_try
from app.webhooks import outbox

KIND = "embed"

QUEUE = FairQueue(
    table="messages",
    due="{m}embed_status = 'pending' AND {m}embed_after <= now()",
    order="embed_after",
    cols="message_id, tenant_id, name, content, trace_parent, embedded_at, "
    "extract(epoch FROM clock_timestamp() - embed_after) AS waited",
)
# A claim whose oldest message has waited this long (or a full claim) is behind: its messages'
# sentences are left to the sentence step, so the messages' own wait stops growing. At least
# twice the poll interval (`behind_seconds`), so polling alone never counts as behind.
BEHIND_SECONDS = 0.5


def behind_seconds(poll_seconds: float) -> float:
    """How long a claimed message may have waited before the worker counts as behind."""
    return max(BEHIND_SECONDS, 2 * poll_seconds)


_DUE = QUEUE.due_sql
# How long the oldest due pending message has waited: since it was written (appended, edited or
# imported) or its retry came due. Not its age: an imported message from last year waits seconds.
LAG = f"coalesce(extract(epoch FROM now() - min(embed_after) FILTER (WHERE {_DUE})), 0)"


_STORE = text(
    "UPDATE messages m SET embedding = v.e, embed_status = 'done', "
    "embed_attempts = m.embed_attempts + 1, embed_error = NULL, embedded_at = clock_timestamp() "
    "FROM unnest(CAST(:ids AS uuid[]), CAST(:vecs AS vector[])) AS v(id, e) "
    "WHERE m.message_id = v.id"
)
_FAIL = text(
    "UPDATE messages m SET embed_attempts = m.embed_attempts + 1, embed_error = :err, "
    "embed_status = CASE WHEN m.embed_attempts + 1 >= :max THEN 'failed' ELSE 'pending' END, "
    # A failed row is not retried by itself: its `embed_after` records when it failed
    # (`failed_at` over the API) rather than a next try that will not come.
    "embed_after = CASE WHEN m.embed_attempts + 1 >= :max THEN now() "
    f"ELSE {next_try('m.embed_attempts')} END "
    "WHERE m.message_id = ANY(CAST(:ids AS uuid[])) "
    "RETURNING m.tenant_id, m.user_id, m.session_id, m.message_id, m.embed_status"
)


_UNREADABLE = text(
    "UPDATE messages SET embed_status = 'failed', embed_attempts = embed_attempts + 1, "
    "embed_error = :err, embed_after = now() WHERE message_id = ANY(CAST(:ids AS uuid[]))"
)


@dataclass(frozen=True)
class Pending:
    message_id: uuid.UUID
    content: str
    trace_parent: str | None = None  # the append's trace (tracing on): the step joins it
    sentences: tuple[str, ...] = ()  # its sentences' texts, embedded in the same call (no backlog)
    later: bool = False  # it has sentences, queued for the sentence step (a backlog: not now)
    again: bool = False  # embedded before (a re-embedding): sentence vectors it had are dropped


@dataclass(frozen=True)
class Embedded:
    vector: Vec
    sentences: bytes | None  # pack_vectors of its sentences' vectors, when embedded with it


class EmbedMessages:
    kind = KIND

    def __init__(
        self, *, embedder: Embedder, batch_size: int, sentences: bool = True, behind: float = BEHIND_SECONDS
    ) -> None:
        self.embedder = embedder
        self.limit = batch_size
        self.sentences = sentences  # ENGRAM_INDEX_SENTENCES
        self.behind = behind  # behind_seconds(ENGRAM_WORKER_POLL_SECONDS)
        self.rotation = Rotation()

    async def claim(self, conn: AsyncConnection) -> list[Pending]:
        """A fair batch (app.indexing.fair_claim); what is embedded is the text a reader sees
        (speaker and content), not the content alone. A full claim, or one whose oldest message
        has waited `behind` seconds, means the worker is behind: the sentences are left to the
        sentence step, so the backlog becomes searchable at the model's rate for one text a
        message; otherwise they come in the same call."""
        rows = await QUEUE.claim(conn, self.rotation, self.limit)
        opened, unreadable = readable(rows)
        if unreadable:
            await conn.execute(_UNREADABLE, {"ids": unreadable, "err": UNREADABLE})
        backlog = len(rows) >= self.limit or max((r.waited for r in rows), default=0) >= self.behind
        pending = []
        for r, content in opened:
            texts = tuple(message_sentences(name=r.name, content=content)) if self.sentences else ()
            pending.append(
                Pending(
                    r.message_id,
                    message_text(name=r.name, content=content),
                    r.trace_parent,
                    sentences=() if backlog else texts,
                    later=backlog and bool(texts),
                    again=r.embedded_at is not None,
                )
            )
        return pending

    async def call(self, items: Sequence[Pending]) -> list[Embedded]:
        """The messages' texts and the sentences embedded now, in one model call."""
        texts = [i.content for i in items] + [s for i in items for s in i.sentences]
        vecs = await self.embedder.embed(texts)
        sentences = pack_many(vecs[len(items) :], [len(i.sentences) for i in items])
        return [Embedded(as_db_vector(v), p) for v, p in zip(vecs[: len(items)], sentences, strict=True)]

    async def store(self, conn: AsyncConnection, done: Sequence[tuple[Pending, Embedded]]) -> None:
        """The vectors (searchable from this commit) and the sentences' (made now, or queued);
        a message re-embedded without sentences loses the ones it had."""
        await conn.execute(
            _STORE, {"ids": [i.message_id for i, _ in done], "vecs": [e.vector for _, e in done]}
        )
        await sentence_tasks.keep(conn, [(i.message_id, e.sentences) for i, e in done if e.sentences])
        await sentence_tasks.queue(conn, [i.message_id for i, _ in done if i.later])
        gone = [i.message_id for i, e in done if i.again and not i.later and e.sentences is None]
        await sentence_tasks.forget(conn, gone)

    async def fail(
        self, conn: AsyncConnection, failed: Sequence[Pending], error: str, retry: RetryPolicy
    ) -> None:
        rows = (
            await conn.execute(_FAIL, {"ids": [i.message_id for i in failed], "err": error, **retry.params()})
        ).all()
        # Given up on: one `indexing.failed` webhook event per user, in this transaction.
        by_user: dict[tuple[str, str], list[Any]] = {}
        for r in rows:
            if r.embed_status == "failed":
                by_user.setdefault((r.tenant_id, r.user_id), []).append(r)
        for (tenant_id, user_id), gone in by_user.items():
            data = {
                "user_id": user_id,
                "messages": [{"session_id": r.session_id, "message_id": str(r.message_id)} for r in gone],
                "error": error,
            }
            await outbox.emit(conn, tenant_id=tenant_id, user_id=user_id, type_="indexing.failed", data=data)

"""The sentence step: the vectors of a searchable message's longest sentences, made after it.

A long turn is one mean-pooled vector in which its one relevant sentence is diluted; hybrid search
also scores its best candidates by their best sentence (app/search/sentences.py). Those vectors
are a refinement: the message is searchable by its own vector and its words as soon as the
embedding step stores them (app/indexing/tasks.py). Without a backlog that step embeds the
sentences in the same call (`keep`); with one (a full claim) it queues them here (`queue`), in the
same transaction, and this step makes them only when no message waits for its own vector (it
comes after the embedding step in the worker's priority order), so a burst of new messages
becomes searchable at the model's rate for one text a message, and the sentences follow when the
burst is through. Its calls are urgent on the model like the messages' (taken whole, not in
pieces: a piece per turn cost it ~15 % of its rate), so a new message may wait for one of them.
A failed call is retried with the derived work's backoff: an outage for as long as it lasts, an
input the model rejects up to ENGRAM_WORKER_MAX_ATTEMPTS, then dropped (the message keeps ranking
by its own vector, and no search waits on it).

The queue is `message_sentences` (`due_at` set), claimed fairly across tenants and users
(app/indexing/fair_claim.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import structlog
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.ai.embedder import Embedder
from app.db.index_text import message_sentences
from app.db.vectors import pack_many
from app.indexing.contents import readable
from app.indexing.fair_claim import FairQueue
from app.jobs.fair import Rotation
from app.jobs.retry import RetryPolicy, next_try
from app.jobs.runner import is_outage

KIND = "embed_sentences"
_log = structlog.get_logger("engram.jobs")

QUEUE = FairQueue(table="message_sentences", due="{m}due_at <= now()", order="due_at", cols="message_id")
# Searchable messages of a scope (`owner`: its tenant, user and session conditions, as the
# messages') whose sentences' vectors are still to come; one of the table's partial indexes.
REFINING = "SELECT count(*) FROM message_sentences WHERE {owner} AND due_at IS NOT NULL"
_MESSAGES = text(
    "SELECT message_id, tenant_id, name, content, trace_parent FROM messages "
    "WHERE message_id = ANY(CAST(:ids AS uuid[]))"
)
_QUEUE = text(
    "INSERT INTO message_sentences (message_id, tenant_id, user_id, session_id, due_at) "
    "SELECT message_id, tenant_id, user_id, session_id, clock_timestamp() FROM messages "
    "WHERE message_id = ANY(CAST(:ids AS uuid[])) "
    # Embedded again (a new model): the old sentences' vectors are of the old one.
    "ON CONFLICT (message_id) DO UPDATE SET vecs = NULL, due_at = EXCLUDED.due_at, attempts = 0"
)
_KEEP = text(
    "INSERT INTO message_sentences (message_id, tenant_id, user_id, session_id, vecs) "
    "SELECT m.message_id, m.tenant_id, m.user_id, m.session_id, v.vecs FROM messages m "
    "JOIN unnest(CAST(:ids AS uuid[]), CAST(:vecs AS bytea[])) AS v(id, vecs) ON m.message_id = v.id "
    "ON CONFLICT (message_id) DO UPDATE SET vecs = EXCLUDED.vecs, due_at = NULL, attempts = 0"
)
_FORGET = text("DELETE FROM message_sentences WHERE message_id = ANY(CAST(:ids AS uuid[]))")
# An outage is retried for as long as it lasts (the backoff grows to its cap and stays there):
# sentences are never lost to one. An input the model rejects is retried up to the derived work's
# attempts, then dropped: the message keeps ranking by its whole vector, and no scope waits on it.
_FAIL = text(
    f"UPDATE message_sentences SET attempts = attempts + 1, due_at = {next_try('least(attempts, 30)')} "
    "WHERE message_id = ANY(CAST(:ids AS uuid[])) "
    "AND (CAST(:outage AS boolean) OR attempts + 1 < :max)"
)
_GIVE_UP = text(
    "DELETE FROM message_sentences WHERE message_id = ANY(CAST(:ids AS uuid[])) AND attempts + 1 >= :max"
)


async def queue(conn: AsyncConnection, message_ids: Sequence[uuid.UUID]) -> None:
    """Queue the sentences of messages just embedded (in the embedding's transaction)."""
    if message_ids:
        await conn.execute(_QUEUE, {"ids": list(message_ids)})


async def keep(conn: AsyncConnection, made: Sequence[tuple[uuid.UUID, bytes]]) -> None:
    """Store the sentence vectors of messages just embedded (with the messages, or queued and made
    now), done with their queue row."""
    if made:
        await conn.execute(_KEEP, {"ids": [m for m, _ in made], "vecs": [v for _, v in made]})


async def forget(conn: AsyncConnection, message_ids: Sequence[uuid.UUID]) -> None:
    """Drop the sentence vectors (and queued work) of messages whose text changed or lost them."""
    if message_ids:
        await conn.execute(_FORGET, {"ids": list(message_ids)})


@dataclass(frozen=True)
class Sentences:
    message_id: uuid.UUID
    texts: tuple[str, ...]  # what is embedded for each (app/db/index_text.message_sentences)
    trace_parent: str | None = None  # the append's trace (tracing on): the step joins it


class EmbedSentences:
    kind = KIND

    def __init__(self, *, embedder: Embedder, batch_size: int) -> None:
        self.embedder = embedder
        self.limit = batch_size
        self.rotation = Rotation()

    async def claim(self, conn: AsyncConnection) -> list[Sentences]:
        rows = await QUEUE.claim(conn, self.rotation, self.limit)
        if not rows:
            return []
        messages = (await conn.execute(_MESSAGES, {"ids": [r.message_id for r in rows]})).all()
        opened, unreadable = readable(messages)
        # Unreadable now (its key is gone): the message keeps the vector it has, without sentences.
        await forget(conn, unreadable)
        return [
            Sentences(m.message_id, tuple(message_sentences(name=m.name, content=content)), m.trace_parent)
            for m, content in opened
        ]

    async def call(self, items: Sequence[Sentences]) -> list[bytes | None]:
        """Every item's sentences in one model call; None for an item that has none (any more)."""
        vecs = await self.embedder.embed([t for i in items for t in i.texts])
        return pack_many(vecs, [len(i.texts) for i in items])

    async def store(self, conn: AsyncConnection, done: Sequence[tuple[Sentences, bytes | None]]) -> None:
        await keep(conn, [(i.message_id, v) for i, v in done if v is not None])
        await forget(conn, [i.message_id for i, v in done if v is None])

    async def fail(
        self, conn: AsyncConnection, failed: Sequence[Sentences], error: str, retry: RetryPolicy
    ) -> None:
        ids = [i.message_id for i in failed]
        outage = is_outage(error)
        if not outage:
            gone = await conn.execute(_GIVE_UP, {"ids": ids, "max": retry.max_attempts})
            if gone.rowcount:
                _log.warning("sentence vectors given up", messages=gone.rowcount, error=error)
        await conn.execute(_FAIL, {"ids": ids, "outage": outage, **retry.params()})

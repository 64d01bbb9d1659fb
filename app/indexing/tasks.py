"""The embedding step: claim pending messages, embed them in one model call, store the vectors.

Run by app.jobs.runner (one transaction holding the rows' locks, the shared model lock around the
call, bisection on error, backoff). The queue is the message rows themselves (`embed_status`,
`embed_after`, `embed_attempts`, `embed_error`), written by the append at no extra cost.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.ai.embedder import Embedder
from app.db.vectors import vector_literal
from app.jobs.retry import RetryPolicy, next_try

KIND = "embed"

_CLAIM = text(
    "SELECT message_id, content FROM messages "
    "WHERE embed_status = 'pending' AND embed_after <= now() "
    "ORDER BY embed_after LIMIT :n FOR UPDATE SKIP LOCKED"
)
_STORE = text(
    "UPDATE messages m SET embedding = CAST(v.e AS vector), embed_status = 'done', "
    "embed_attempts = m.embed_attempts + 1, embed_error = NULL, embedded_at = clock_timestamp() "
    "FROM unnest(CAST(:ids AS uuid[]), CAST(:vecs AS text[])) AS v(id, e) "
    "WHERE m.message_id = v.id"
)
_FAIL = text(
    "UPDATE messages m SET embed_attempts = m.embed_attempts + 1, embed_error = :err, "
    "embed_status = CASE WHEN m.embed_attempts + 1 >= :max THEN 'failed' ELSE 'pending' END, "
    f"embed_after = {next_try('m.embed_attempts')} "
    "WHERE m.message_id = ANY(CAST(:ids AS uuid[]))"
)


@dataclass(frozen=True)
class Pending:
    message_id: uuid.UUID
    content: str


class EmbedMessages:
    kind = KIND

    def __init__(self, *, embedder: Embedder, batch_size: int) -> None:
        self.embedder = embedder
        self.limit = batch_size

    async def claim(self, conn: AsyncConnection) -> list[Pending]:
        rows = (await conn.execute(_CLAIM, {"n": self.limit})).all()
        return [Pending(r.message_id, r.content) for r in rows]

    async def call(self, items: Sequence[Pending]) -> list[str]:
        return [vector_literal(v) for v in await self.embedder.embed([i.content for i in items])]

    async def store(self, conn: AsyncConnection, done: Sequence[tuple[Pending, str]]) -> None:
        await conn.execute(_STORE, {"ids": [i.message_id for i, _ in done], "vecs": [v for _, v in done]})

    async def fail(
        self, conn: AsyncConnection, failed: Sequence[Pending], error: str, retry: RetryPolicy
    ) -> None:
        await conn.execute(_FAIL, {"ids": [i.message_id for i in failed], "err": error, **retry.params()})

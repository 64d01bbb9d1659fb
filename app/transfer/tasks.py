"""The worker's part of an import: vectors for imported summaries.

Summaries are otherwise embedded in the very step that writes them (app.summaries.tasks), so they
have no embedding queue of their own; an import queues an `embed_summaries` job per session in
the jobs table (app.jobs.queue) in its own transaction, and this step embeds that session's
summaries that have no vector, a batch at a time, retried with backoff like every job.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.ai.embedder import Embedder
from app.crypto import fields
from app.db.vectors import Vec, as_db_vector
from app.jobs import queue
from app.jobs.fair import Rotation
from app.jobs.retry import RetryPolicy

KIND = "embed_summaries"

_PENDING = text(
    "SELECT summary_id, content FROM summaries WHERE tenant_id = :t AND session_id = :s "
    "AND embedding IS NULL ORDER BY to_seq LIMIT :n"
)
_STORE = text(
    "UPDATE summaries x SET embedding = v.e "
    "FROM unnest(CAST(:ids AS uuid[]), CAST(:vecs AS vector[])) AS v(id, e) "
    "WHERE x.tenant_id = :t AND x.summary_id = v.id"
)


@dataclass(frozen=True)
class Unembedded:
    job: Any  # the claimed job (app.jobs.queue.claim)
    rows: Sequence[Any]  # a batch of the session's summaries without a vector


class EmbedSummaries:
    """Claim one session's job and embed a batch of its summaries."""

    kind = KIND
    limit = 1

    def __init__(self, *, embedder: Embedder, batch_size: int) -> None:
        self.embedder = embedder
        self.rotation = Rotation()  # tenants take turns (app.jobs.fair)
        self.batch_size = batch_size

    async def claim(self, conn: AsyncConnection) -> list[Unembedded]:
        job = await queue.claim(conn, KIND, self.rotation)
        if job is None:
            return []
        params = {"t": job.tenant_id, "s": job.session_id, "n": self.batch_size}
        rows = (await conn.execute(_PENDING, params)).all()
        return [
            Unembedded(
                job, fields.open_contents(rows, tenant=job.tenant_id, table="summaries", id_col="summary_id")
            )
        ]

    async def call(self, items: Sequence[Unembedded]) -> list[list[Vec]]:
        (batch,) = items
        if not batch.rows:
            return [[]]
        return [[as_db_vector(v) for v in await self.embedder.embed([r.content for r in batch.rows])]]

    async def store(self, conn: AsyncConnection, done: Sequence[tuple[Unembedded, list[Vec]]]) -> None:
        for batch, vectors in done:
            t, s = batch.job.tenant_id, batch.job.session_id
            if vectors:
                await conn.execute(
                    _STORE, {"t": t, "ids": [r.summary_id for r in batch.rows], "vecs": vectors}
                )
            if len(batch.rows) == self.batch_size:
                await queue.keep(conn, kind=KIND, tenant_id=t, session_id=s)
            else:
                await queue.done(conn, kind=KIND, tenant_id=t, session_id=s)

    async def fail(
        self, conn: AsyncConnection, failed: Sequence[Unembedded], error: str, retry: RetryPolicy
    ) -> None:
        await queue.fail(conn, kind=KIND, jobs=[b.job for b in failed], error=error, retry=retry)

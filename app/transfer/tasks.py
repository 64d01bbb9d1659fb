"""The worker's part of an import: vectors for imported summaries.

Summaries are otherwise embedded in the very step that writes them (app.summaries.tasks), so they
have no embedding queue of their own; an import queues an `embed_summaries` job per session in
the jobs table (app.jobs.queue) in its own transaction, and this step embeds that session's
summaries that have no vector, a batch at a time, retried with backoff like every job.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.ai.embedder import Embedder
from app.indexing.tasks import RetryPolicy, vector_literal
from app.jobs import queue

KIND = "embed_summaries"

_PENDING = text(
    "SELECT summary_id, content FROM summaries WHERE tenant_id = :t AND session_id = :s "
    "AND embedding IS NULL ORDER BY to_seq LIMIT :n"
)
_STORE = text(
    "UPDATE summaries x SET embedding = CAST(v.e AS vector) "
    "FROM unnest(CAST(:ids AS uuid[]), CAST(:vecs AS text[])) AS v(id, e) "
    "WHERE x.tenant_id = :t AND x.summary_id = v.id"
)


@dataclass
class StepResult:
    claimed: bool = False
    embedded: int = 0  # summaries given a vector
    failed: bool = False


async def embed_summaries_next(
    engine: AsyncEngine, *, embedder: Embedder, batch_size: int, retry: RetryPolicy, lock: asyncio.Lock | None
) -> StepResult:
    """Claim one session's job and embed a batch of its summaries."""
    result = StepResult()
    async with engine.begin() as conn:
        job = await queue.claim(conn, KIND)
        if job is None:
            return result
        result.claimed = True
        t, s = job.tenant_id, job.session_id
        rows = (await conn.execute(_PENDING, {"t": t, "s": s, "n": batch_size})).all()
        if rows:
            try:
                async with lock if lock is not None else contextlib.nullcontext():
                    vectors = await embedder.embed([r.content for r in rows])
            except Exception as exc:  # model trouble of any kind: on the job, retried with backoff
                await queue.fail(
                    conn, kind=KIND, tenant_id=t, session_id=s, attempts=job.attempts, error=exc, retry=retry
                )
                result.failed = True
                return result
            await conn.execute(
                _STORE,
                {"t": t, "ids": [r.summary_id for r in rows], "vecs": [vector_literal(v) for v in vectors]},
            )
            result.embedded = len(rows)
        if len(rows) == batch_size:
            await queue.keep(conn, kind=KIND, tenant_id=t, session_id=s)
        else:
            await queue.done(conn, kind=KIND, tenant_id=t, session_id=s)
    return result

"""The summary task: roll a session's summary forward by one step.

A step reads the previous summary and the messages after it (up to the policy's target, at
most ENGRAM_SUMMARY_MAX_INPUT_TOKENS of them), asks the summariser for the new summary, embeds
it and stores it with the seqs it covers, all in one transaction that holds the job's row lock
(app.jobs.queue): two workers never run the same session, and a worker that dies
mid-step rolls back, so the step is simply done again. Steps chain: each starts right after the
previous one's `to_seq`, so the chain covers every message exactly once.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.ai.embedder import Embedder
from app.ai.offload import Offload, inline
from app.ai.summarizer import Summarizer, Turn
from app.ai.tokenizer import Tokenizer, count_tokens
from app.crypto import fields
from app.db.index_text import plain_tsv_sql
from app.db.vectors import Vec, as_db_vector
from app.jobs import queue
from app.jobs.due import SummaryPolicy
from app.jobs.fair import Rotation
from app.jobs.retry import RetryPolicy
from app.messages.turns import read_turns
from app.sessions import counters
from app.webhooks import outbox

KIND = "summarize"


@dataclass(frozen=True)
class Due:
    job: Any  # the claimed job with its session's row (app.jobs.queue.claim)
    start: int  # the summary chain's watermark before this step
    step_to: int  # where this step ends
    turns: Sequence[Turn]  # empty when every message in the range was deleted
    previous: str | None

    @property
    def trace_parent(self) -> str | None:
        """The trace of the request that made the job due (app.jobs.runner joins it)."""
        return self.job.trace_parent  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Summary:
    content: str
    tokens: int
    vector: Vec


class Summarize:
    """Claim one due session and summarise one step of it."""

    kind = KIND
    limit = 1

    def __init__(
        self,
        *,
        summarizer: Summarizer,
        embedder: Embedder,
        tokenizer: Tokenizer,
        policy: SummaryPolicy,
        offload: Offload = inline,
    ) -> None:
        """`offload`: where the summary's tokens are counted. The worker passes its text-rule
        children, which hold the token table, so its main process loads none (app.ai.tokenizer)."""
        self.summarizer = summarizer
        self.embedder = embedder
        self.rotation = Rotation()  # tenants take turns (app.jobs.fair)
        self.tokenizer = tokenizer
        self.policy = policy
        self.offload = offload

    async def claim(self, conn: AsyncConnection) -> list[Due]:
        job = await queue.claim(conn, KIND, self.rotation)
        if job is None:
            return []
        t, s = job.tenant_id, job.session_id
        session = job  # the claim carries the session's row, key-share locked for the step
        target = (
            job.force_to_seq if job.force_to_seq is not None else session.last_seq - self.policy.keep_recent
        )
        target = min(target, session.last_seq)
        start = session.summarized_seq
        if target <= start:
            return [Due(job, start, start, (), None)]
        turns, cut = await read_turns(
            conn, tenant_id=t, session_id=s, after=start, upto=target, budget=self.policy.max_input_tokens
        )
        # A backlog longer than the input budget rolls forward in several steps.
        step_to = turns[-1].seq if cut else target
        previous = None
        if turns:
            last = (
                await conn.execute(
                    text(
                        "SELECT summary_id, content FROM summaries WHERE tenant_id = :t AND session_id = :s "
                        "ORDER BY to_seq DESC LIMIT 1"
                    ),
                    {"t": t, "s": s},
                )
            ).first()
            if last is not None:
                previous = fields.open_text(
                    last.content, tenant=t, table="summaries", field="content", row=last.summary_id
                )
        return [Due(job, start, step_to, turns, previous)]

    async def call(self, items: Sequence[Due]) -> list[Summary | None]:
        (due,) = items
        if not due.turns:
            return [None]
        content = await self.summarizer.summarize(
            previous=due.previous, turns=due.turns, max_tokens=self.policy.max_tokens
        )
        vector = (await self.embedder.embed([content]))[0]
        tokens = await self.offload(count_tokens, self.tokenizer.name, content)
        return [Summary(content, tokens, as_db_vector(vector))]

    async def store(self, conn: AsyncConnection, done: Sequence[tuple[Due, Summary | None]]) -> None:
        for due, summary in done:
            t, s = due.job.tenant_id, due.job.session_id
            if summary is not None:
                summary_id = uuid.uuid4()
                stored = await conn.execute(
                    _INSERT,
                    {
                        "id": summary_id,
                        "t": t,
                        "s": s,
                        "u": due.job.user_id,
                        "from": due.start + 1,
                        "to": due.step_to,
                        "n": len(due.turns),
                        "c": fields.seal_text(
                            summary.content, tenant=t, table="summaries", field="content", row=summary_id
                        ),
                        "tok": summary.tokens,
                        "p": self.summarizer.name,
                        "v": summary.vector,
                        "kw": fields.keyword_text(summary.content),
                    },
                )
                if stored.rowcount:
                    data = {
                        "user_id": due.job.user_id,
                        "session_id": s,
                        "summary_id": str(summary_id),
                        "from_seq": due.start + 1,
                        "to_seq": due.step_to,
                    }
                    await outbox.emit(
                        conn, tenant_id=t, user_id=due.job.user_id, type_="summary.created", data=data
                    )
            moved = due.step_to > due.start
            await _advance(conn, t=t, s=s, to=due.step_to, moved=moved, job=due.job, policy=self.policy)

    async def fail(
        self, conn: AsyncConnection, failed: Sequence[Due], error: str, retry: RetryPolicy
    ) -> None:
        await queue.fail(conn, kind=KIND, jobs=[d.job for d in failed], error=error, retry=retry)


_INSERT = text(
    "INSERT INTO summaries (summary_id, tenant_id, session_id, user_id, from_seq, to_seq, "
    "message_count, content, token_count, provider, embedding, plain_tsv) "
    f"VALUES (:id, :t, :s, :u, :from, :to, :n, :c, :tok, :p, CAST(:v AS vector), {plain_tsv_sql('kw')}) "
    "ON CONFLICT (tenant_id, session_id, to_seq) DO NOTHING"
)


async def _advance(
    conn: AsyncConnection, *, t: str, s: str, to: int, moved: bool, job: Any, policy: SummaryPolicy
) -> None:
    """Move the watermark, then keep the job if more is due, else drop it.

    The session row is locked first (an append waiting on it has committed by the time the lock
    is ours), so a batch appended during this step is seen here and its due work is not lost.
    """
    session = (
        await conn.execute(
            text("SELECT last_seq FROM sessions WHERE tenant_id = :t AND session_id = :s FOR UPDATE"),
            {"t": t, "s": s},
        )
    ).first()
    if session is None:
        return
    tokens = (
        await conn.execute(
            text(
                "SELECT coalesce(sum(token_count), 0) FROM messages "
                "WHERE tenant_id = :t AND session_id = :s AND seq > :to"
            ),
            {"t": t, "s": s, "to": to},
        )
    ).scalar_one()
    await counters.summarized(conn, tenant_id=t, session_id=s, to_seq=to, tokens=tokens, replaced=moved)
    forced = job.force_to_seq is not None and to < job.force_to_seq
    if forced or policy.due(pending_messages=session.last_seq - to, pending_tokens=tokens):
        await queue.keep(conn, kind=KIND, tenant_id=t, session_id=s)
    else:
        await queue.done(conn, kind=KIND, tenant_id=t, session_id=s)

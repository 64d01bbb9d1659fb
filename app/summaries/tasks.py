"""The summary task: roll a session's summary forward by one step.

A step reads the previous summary and the messages after it (up to the policy's target, at
most ENGRAM_SUMMARY_MAX_INPUT_TOKENS of them), asks the summariser for the new summary, embeds
it and stores it with the seqs it covers, all in one transaction that holds the job's row lock
(app.jobs.queue): two workers never run the same session, and a worker that dies
mid-step rolls back, so the step is simply done again. Steps chain: each starts right after the
previous one's `to_seq`, so the chain covers every message exactly once.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass
from typing import Any

import structlog
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.ai.embedder import Embedder
from app.ai.summarizer import Summarizer
from app.ai.tokenizer import Tokenizer
from app.indexing.tasks import RetryPolicy, vector_literal
from app.jobs import queue
from app.messages.turns import read_turns
from app.summaries.policy import SummaryPolicy

_log = structlog.get_logger("engram.summaries")
KIND = "summarize"


@dataclass
class StepResult:
    claimed: bool = False
    summarized: int = 0  # messages this step covered
    failed: bool = False


async def summarize_next(
    engine: AsyncEngine,
    *,
    summarizer: Summarizer,
    embedder: Embedder,
    tokenizer: Tokenizer,
    policy: SummaryPolicy,
    retry: RetryPolicy,
    embed_lock: asyncio.Lock | None,
    llm_lock: asyncio.Lock | None,
) -> StepResult:
    """Claim one due session and summarise one step of it. The locks are held around the model
    calls that run on this machine's CPU (shared with the embedding lanes)."""
    result = StepResult()
    async with engine.begin() as conn:
        job = await queue.claim(conn, KIND)
        if job is None:
            return result
        result.claimed = True
        t, s = job.tenant_id, job.session_id
        session = job  # the claim carries the session's row, key-share locked for the step
        target = job.force_to_seq if job.force_to_seq is not None else session.last_seq - policy.keep_recent
        target = min(target, session.last_seq)
        start = session.summarized_seq
        step_to = start
        if target > start:
            turns, cut = await read_turns(
                conn, tenant_id=t, session_id=s, after=start, upto=target, budget=policy.max_input_tokens
            )
            # A backlog longer than the input budget rolls forward in several steps.
            step_to = turns[-1].seq if cut else target
            if turns:  # else every message in the range was deleted: just move the watermark
                previous = (
                    await conn.execute(
                        text(
                            "SELECT content FROM summaries WHERE tenant_id = :t AND session_id = :s "
                            "ORDER BY to_seq DESC LIMIT 1"
                        ),
                        {"t": t, "s": s},
                    )
                ).scalar()
                try:
                    async with llm_lock if llm_lock is not None else contextlib.nullcontext():
                        content = await summarizer.summarize(
                            previous=previous, turns=turns, max_tokens=policy.max_tokens
                        )
                    async with embed_lock if embed_lock is not None else contextlib.nullcontext():
                        vector = (await embedder.embed([content]))[0]
                except Exception as exc:  # model trouble of any kind: on the job, retried with backoff
                    await queue.fail(
                        conn,
                        kind=KIND,
                        tenant_id=t,
                        session_id=s,
                        attempts=job.attempts,
                        error=exc,
                        retry=retry,
                    )
                    result.failed = True
                    return result
                await conn.execute(
                    _INSERT,
                    {
                        "id": uuid.uuid4(),
                        "t": t,
                        "s": s,
                        "u": session.user_id,
                        "from": start + 1,
                        "to": step_to,
                        "n": len(turns),
                        "c": content,
                        "tok": tokenizer.count(content),
                        "p": summarizer.name,
                        "v": vector_literal(vector),
                    },
                )
                result.summarized = len(turns)
        await _advance(conn, t=t, s=s, to=step_to, moved=step_to > start, job=job, policy=policy)
    return result


_INSERT = text(
    "INSERT INTO summaries (summary_id, tenant_id, session_id, user_id, from_seq, to_seq, "
    "message_count, content, token_count, provider, embedding) "
    "VALUES (:id, :t, :s, :u, :from, :to, :n, :c, :tok, :p, CAST(:v AS vector)) "
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
    await conn.execute(
        text(
            "UPDATE sessions SET summarized_seq = greatest(summarized_seq, :to), unsummarized_tokens = :tok, "
            "cache_gen = cache_gen + CASE WHEN CAST(:moved AS boolean) THEN 1 ELSE 0 END "
            "WHERE tenant_id = :t AND session_id = :s"
        ),
        {"t": t, "s": s, "to": to, "tok": tokens, "moved": moved},
    )
    forced = job.force_to_seq is not None and to < job.force_to_seq
    if forced or policy.due(pending_messages=session.last_seq - to, pending_tokens=tokens):
        await queue.keep(conn, kind=KIND, tenant_id=t, session_id=s)
    else:
        await queue.done(conn, kind=KIND, tenant_id=t, session_id=s)

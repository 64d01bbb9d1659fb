"""Summaries: the latest, the history, and forcing one (which the worker then writes)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.crypto import fields
from app.errors import NotFound
from app.jobs import queue
from app.pagination import INT, Keyset, Page, PageRequest
from app.summaries.schemas import SummarizeAccepted, SummaryOut, SummaryState
from app.summaries.tasks import KIND

_COLS = "summary_id, session_id, from_seq, to_seq, message_count, content, token_count, provider, created_at"


async def _session_row(conn: AsyncConnection, *, tenant_id: str, session_id: str) -> Any:
    row = (
        await conn.execute(
            text("SELECT last_seq, summarized_seq FROM sessions WHERE tenant_id = :t AND session_id = :s"),
            {"t": tenant_id, "s": session_id},
        )
    ).first()
    if row is None:
        raise NotFound(f"No session {session_id}.")
    return row


async def summary_state(conn: AsyncConnection, *, tenant_id: str, session_id: str) -> SummaryState:
    session = await _session_row(conn, tenant_id=tenant_id, session_id=session_id)
    row = (
        (
            await conn.execute(
                text(
                    f"SELECT {_COLS} FROM summaries WHERE tenant_id = :t AND session_id = :s "
                    "ORDER BY to_seq DESC LIMIT 1"
                ),
                {"t": tenant_id, "s": session_id},
            )
        )
        .mappings()
        .first()
    )
    return SummaryState(
        session_id=session_id,
        last_seq=session.last_seq,
        summarized_seq=session.summarized_seq,
        summary=SummaryOut(**fields.open_row(dict(row), tenant_id)) if row is not None else None,
        job=await queue.state(conn, kind=KIND, tenant_id=tenant_id, session_id=session_id),
    )


_SUMMARIES = Keyset("summaries", (INT,), ("to_seq",), descending=True)


async def list_summaries(
    conn: AsyncConnection, *, tenant_id: str, session_id: str, page: PageRequest
) -> Page[SummaryOut]:
    """Newest first: each step of the progressive summary, with the seqs it covers."""
    await _session_row(conn, tenant_id=tenant_id, session_id=session_id)
    seek = _SUMMARIES.seek(page)
    rows = (
        (
            await conn.execute(
                text(
                    f"SELECT {_COLS} FROM summaries "
                    f"WHERE {seek.where('tenant_id = :t', 'session_id = :s')} {seek.tail}"
                ),
                {"t": tenant_id, "s": session_id, **seek.params},
            )
        )
        .mappings()
        .all()
    )
    return seek.page([SummaryOut(**fields.open_row(dict(r), tenant_id)) for r in rows], lambda s: (s.to_seq,))


async def force_summary(engine: AsyncEngine, *, tenant_id: str, session_id: str) -> SummarizeAccepted:
    """Queue a summary of every message so far (also revives a failed summary job), in a
    transaction of its own: committed on return, so a worker can take it at once."""
    async with engine.begin() as conn:
        return await _force(conn, tenant_id=tenant_id, session_id=session_id)


async def _force(conn: AsyncConnection, *, tenant_id: str, session_id: str) -> SummarizeAccepted:
    session = await _session_row(conn, tenant_id=tenant_id, session_id=session_id)
    job = await queue.force(
        conn, kind=KIND, tenant_id=tenant_id, session_id=session_id, to_seq=session.last_seq
    )
    return SummarizeAccepted(
        session_id=session_id,
        up_to_seq=session.last_seq,
        done=session.summarized_seq >= session.last_seq,
        job=job,
    )


async def wait_for_summary(
    engine: AsyncEngine, *, tenant_id: str, session_id: str, accepted: SummarizeAccepted, seconds: float
) -> SummarizeAccepted:
    """Wait (bounded) until the summary watermark reaches the forced seq, or the job fails."""

    async def probe() -> SummaryState:
        async with engine.connect() as conn:
            return await summary_state(conn, tenant_id=tenant_id, session_id=session_id)

    state = await queue.wait_until(
        probe,
        lambda s: s.summarized_seq >= accepted.up_to_seq or (s.job is not None and s.job.status == "failed"),
        seconds,
    )
    done = state.summarized_seq >= accepted.up_to_seq
    return SummarizeAccepted(
        session_id=session_id,
        up_to_seq=accepted.up_to_seq,
        done=done,
        summary=state.summary if done else None,
        job=state.job,
    )

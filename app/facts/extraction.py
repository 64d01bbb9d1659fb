"""How far fact extraction has read a session, and forcing it to read everything now."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.errors import NotFound
from app.facts.schemas import ExtractAccepted, ExtractionState
from app.facts.tasks import KIND
from app.jobs import queue


async def extraction_state(conn: AsyncConnection, *, tenant_id: str, session_id: str) -> ExtractionState:
    row = (
        await conn.execute(
            text("SELECT last_seq, extracted_seq FROM sessions WHERE tenant_id = :t AND session_id = :s"),
            {"t": tenant_id, "s": session_id},
        )
    ).first()
    if row is None:
        raise NotFound(f"No session {session_id}.")
    changes = (
        await conn.execute(
            text("SELECT count(*) FROM message_changes WHERE tenant_id = :t AND session_id = :s"),
            {"t": tenant_id, "s": session_id},
        )
    ).scalar_one()
    return ExtractionState(
        session_id=session_id,
        last_seq=row.last_seq,
        extracted_seq=row.extracted_seq,
        pending_changes=changes,
        job=await queue.state(conn, kind=KIND, tenant_id=tenant_id, session_id=session_id),
    )


def settled(state: ExtractionState, up_to_seq: int) -> bool:
    """Every message up to `up_to_seq` read, and no extraction or re-derivation still due: a job
    row that is still there (pending, or being run right now) means not done, whatever the
    watermark says."""
    return state.extracted_seq >= up_to_seq and state.job is None and state.pending_changes == 0


async def force_extraction(engine: AsyncEngine, *, tenant_id: str, session_id: str) -> ExtractAccepted:
    """Queue extraction up to the newest message (a failed job revives), committed on return so a
    worker can take it at once."""
    async with engine.begin() as conn:
        state = await extraction_state(conn, tenant_id=tenant_id, session_id=session_id)
        done = settled(state, state.last_seq)
        job = state.job
        if state.extracted_seq < state.last_seq:
            job = await queue.force(
                conn, kind=KIND, tenant_id=tenant_id, session_id=session_id, to_seq=state.last_seq
            )
    return ExtractAccepted(session_id=session_id, up_to_seq=state.last_seq, done=done, job=job)


async def wait_for_extraction(
    engine: AsyncEngine, *, tenant_id: str, session_id: str, accepted: ExtractAccepted, seconds: float
) -> ExtractAccepted:
    async def probe() -> ExtractionState:
        async with engine.connect() as conn:
            return await extraction_state(conn, tenant_id=tenant_id, session_id=session_id)

    state = await queue.wait_until(
        probe,
        lambda s: settled(s, accepted.up_to_seq) or (s.job is not None and s.job.status == "failed"),
        seconds,
    )
    return ExtractAccepted(
        session_id=session_id,
        up_to_seq=accepted.up_to_seq,
        done=settled(state, accepted.up_to_seq),
        job=state.job,
    )

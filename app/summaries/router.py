"""Summaries: HTTP in, a service call, HTTP out."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from app.deps import Conn, Engine, SessionIdPath, TenantId, Wake
from app.page_params import page_query
from app.pagination import Page, PageRequest
from app.problems import problem_responses
from app.summaries import service
from app.summaries.schemas import SummarizeAccepted, SummaryOut, SummaryState

router = APIRouter(prefix="/sessions/{session_id}", tags=["summaries"])

# Summaries are long: a smaller page than the other lists.
SummaryPage = Annotated[
    PageRequest, Depends(page_query(default=20, maximum=100, cursor_help="A `next_cursor`."))
]


@router.get(
    "/summary",
    summary="Get the latest summary",
    description="The session's latest summary, how far it reaches (`summarized_seq` of `last_seq`) "
    "and the summary work still queued or failed for it.",
    responses=problem_responses(404),
)
async def get_summary(session_id: SessionIdPath, conn: Conn, tenant: TenantId) -> SummaryState:
    return await service.summary_state(conn, tenant_id=tenant, session_id=session_id)


@router.get(
    "/summaries",
    summary="List the summary history",
    description="Every step of the session's progressive summary, newest first. Each step's "
    "`from_seq`..`to_seq` follows the previous one's, so the steps cover every message once.",
    responses=problem_responses(400, 404),
)
async def list_summaries(
    session_id: SessionIdPath,
    conn: Conn,
    tenant: TenantId,
    page: SummaryPage,
) -> Page[SummaryOut]:
    return await service.list_summaries(conn, tenant_id=tenant, session_id=session_id, page=page)


@router.post(
    "/summarize",
    status_code=202,
    summary="Summarise now",
    description="Queues a summary of every message so far, whatever the policy says (and retries "
    "a failed one). The worker writes it; with `wait_seconds` the answer waits, bounded, until "
    "it exists (`done`).",
    responses=problem_responses(404),
)
async def summarize(
    session_id: SessionIdPath,
    engine: Engine,
    tenant: TenantId,
    wake: Wake,
    wait_seconds: Annotated[
        float, Query(ge=0, le=60, description="Wait up to this long for the summary.")
    ] = 0.0,
) -> SummarizeAccepted:
    # Committed before the wait (and the wake-up), so the worker can see the job.
    accepted = await service.force_summary(engine, tenant_id=tenant, session_id=session_id)
    await wake.poke()
    if accepted.done or wait_seconds <= 0:
        return accepted
    return await service.wait_for_summary(
        engine, tenant_id=tenant, session_id=session_id, accepted=accepted, seconds=wait_seconds
    )

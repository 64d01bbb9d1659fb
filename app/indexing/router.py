"""Indexing progress and failed derived work: HTTP in, a service call, HTTP out."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Query

from app.deps import CheckedLimits, Conn, TenantId, Wake
from app.indexing import service
from app.indexing.schemas import FailedItem, IndexingStatus, RetryRequest, RetryResult
from app.page_params import PageParams
from app.pagination import Page
from app.problems import problem_responses

router = APIRouter(prefix="/indexing", tags=["indexing"])

UserQ = Annotated[str | None, Query(description="Only this user.")]
SessionQ = Annotated[str | None, Query(description="Only this session.")]


def _check(limits: CheckedLimits, user_id: str | None, session_id: str | None) -> None:
    for field, value in (("user_id", user_id), ("session_id", session_id)):
        if value is not None:
            limits.check_id(value, ["query", field])


@router.get(
    "",
    summary="Indexing progress",
    description="How much of your tenant (or of one user or session) is searchable by meaning: "
    "pending and failed embeddings, the worker's lag, and for a session `indexed_seq` against "
    "`last_seq`.",
    responses=problem_responses(404),
)
async def indexing_status(
    conn: Conn, tenant: TenantId, limits: CheckedLimits, user_id: UserQ = None, session_id: SessionQ = None
) -> IndexingStatus:
    _check(limits, user_id, session_id)
    return await service.status(conn, tenant_id=tenant, user_id=user_id, session_id=session_id)


@router.get(
    "/failed",
    summary="Failed derived work",
    description="Messages whose embedding failed after every retry, with the last error.",
    responses=problem_responses(400),
)
async def list_failed(
    conn: Conn,
    tenant: TenantId,
    limits: CheckedLimits,
    page: PageParams,
    user_id: UserQ = None,
    session_id: SessionQ = None,
) -> Page[FailedItem]:
    _check(limits, user_id, session_id)
    return await service.list_failed(
        conn, tenant_id=tenant, user_id=user_id, session_id=session_id, page=page
    )


@router.post(
    "/retry",
    summary="Retry failed derived work",
    description="Puts failed items (all of yours, or of a user, a session, or the given ids) back "
    "in the queue with fresh attempts.",
    responses=problem_responses(),
)
async def retry_failed(
    body: RetryRequest,
    conn: Conn,
    tenant: TenantId,
    limits: CheckedLimits,
    wake: Wake,
    tasks: BackgroundTasks,
) -> RetryResult:
    body.check_limits(limits)
    retried = await service.retry_failed(
        conn,
        tenant_id=tenant,
        user_id=body.user_id,
        session_id=body.session_id,
        message_ids=body.message_ids,
    )
    tasks.add_task(wake.poke)  # after the commit, so the woken worker finds the rows
    return RetryResult(retried=retried)

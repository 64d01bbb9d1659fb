"""Sessions: HTTP in, a service call, HTTP out."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Query, Request, Response

from app.audit.notes import note
from app.cache import evictions
from app.deps import Cache, CheckedLimits, Config, Conn, Engine, SessionIdPath, TenantId
from app.page_params import PageParams
from app.pagination import Page
from app.problems import problem_responses
from app.sessions import service
from app.sessions.schemas import SessionCreate, SessionOut, SessionPatch, SessionStats

router = APIRouter(prefix="/sessions", tags=["sessions"])


@router.post(
    "",
    status_code=201,
    summary="Create a session",
    description="Starts a session for a user (the user is created if new). Give `session_id` to "
    "choose the id, or let Engram generate one.",
    responses=problem_responses(409, 413),
)
async def create_session(
    body: SessionCreate, conn: Conn, tenant: TenantId, limits: CheckedLimits, request: Request
) -> SessionOut:
    body.check_limits(limits)
    out = await service.create_session(
        conn,
        tenant_id=tenant,
        session_id=body.session_id,
        user_id=body.user_id,
        metadata=body.metadata,
    )
    note(request, session_id=out.session_id, user_id=out.user_id)  # the audit trail's ids
    return out


@router.get(
    "/{session_id}",
    summary="Get a session",
    description="The session's user, metadata, timestamps and the seq of its newest message.",
    responses=problem_responses(404),
)
async def get_session(session_id: SessionIdPath, conn: Conn, tenant: TenantId) -> SessionOut:
    return await service.get_session(conn, tenant_id=tenant, session_id=session_id)


@router.get(
    "/{session_id}/stats",
    summary="Session statistics",
    description="Message and token counts, first and last message time, how much is summarised, "
    "indexing progress and what retention removed.",
    responses=problem_responses(404),
)
async def session_stats(session_id: SessionIdPath, conn: Conn, tenant: TenantId) -> SessionStats:
    return await service.session_stats(conn, tenant_id=tenant, session_id=session_id)


@router.get(
    "",
    summary="List sessions",
    description="Sessions newest first, of one user with `user_id` (404 if no such user), a page "
    "at a time (`cursor`).",
    responses=problem_responses(400, 404),
)
async def list_sessions(
    conn: Conn,
    tenant: TenantId,
    limits: CheckedLimits,
    page: PageParams,
    user_id: Annotated[str | None, Query(description="Only this user's sessions.")] = None,
) -> Page[SessionOut]:
    if user_id is not None:
        limits.check_id(user_id, ["query", "user_id"])
    return await service.list_sessions(conn, tenant_id=tenant, user_id=user_id, page=page)


@router.patch(
    "/{session_id}",
    summary="Update a session",
    description="Merges `metadata` (RFC 7396: null removes a key) and/or ends (`ended: true`) or "
    "reopens the session. An ended session refuses new messages; ending one queues a summary of "
    "its messages not yet summarised (ENGRAM_SUMMARY_ON_END).",
    responses=problem_responses(404, 413),
)
async def patch_session(
    session_id: SessionIdPath,
    body: SessionPatch,
    conn: Conn,
    tenant: TenantId,
    limits: CheckedLimits,
    settings: Config,
) -> SessionOut:
    body.check_limits(limits)
    return await service.patch_session(
        conn,
        tenant_id=tenant,
        session_id=session_id,
        metadata=body.metadata,
        ended=body.ended,
        summarize_on_end=settings.summary_on_end,
    )


@router.delete(
    "/{session_id}",
    status_code=204,
    summary="Delete a session",
    description="Deletes the session, its messages and everything derived from them.",
    responses=problem_responses(404),
)
async def delete_session(
    session_id: SessionIdPath,
    conn: Conn,
    tenant: TenantId,
    cache: Cache,
    engine: Engine,
    tasks: BackgroundTasks,
) -> Response:
    await service.delete_session(conn, tenant_id=tenant, session_id=session_id)
    tasks.add_task(
        evictions.evict_now, engine, cache, [(tenant, session_id)]
    )  # after the commit; the worker retries
    return Response(status_code=204, background=tasks)

"""Messages: HTTP in, a service call, HTTP out."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from enum import StrEnum
from functools import partial
from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Depends, Header, Query, Request, Response
from pydantic import AfterValidator, StringConstraints, TypeAdapter

from app import lean
from app.cache.write_through import write_through
from app.db.request import AfterCommit, RequestDb, writing
from app.deps import (
    AppParts,
    CheckedLimits,
    Conn,
    MessageQuota,
    Parts,
    SessionIdPath,
    TenantId,
    Tok,
    Wake,
    Writes,
    app_parts,
)
from app.jobs.due import SummaryPolicy
from app.messages import service
from app.messages.schemas import (
    AppendRequest,
    AppendResponse,
    MessageFilter,
    MessageOut,
    MessagePatch,
    Role,
)
from app.middleware import OperationRoute
from app.page_params import page_query
from app.pagination import Page, PageRequest
from app.problems import problem_responses
from app.timestamps import as_utc

router = APIRouter(prefix="/sessions/{session_id}/messages", tags=["messages"])


class Order(StrEnum):
    asc = "asc"
    desc = "desc"


def _filter(
    order: Annotated[Order, Query(description="By seq, ascending or descending.")] = Order.asc,
    role: Annotated[list[Role] | None, Query(description="Only these roles (repeatable).")] = None,
    created_after: Annotated[
        datetime | None, AfterValidator(as_utc), Query(description="created_at >= this.")
    ] = None,
    created_before: Annotated[
        datetime | None, AfterValidator(as_utc), Query(description="created_at < this.")
    ] = None,
) -> MessageFilter:
    return MessageFilter(order is Order.desc, role, created_after, created_before)


Filter = Annotated[MessageFilter, Depends(_filter)]
MessagePage = Annotated[PageRequest, Depends(page_query(cursor_help="A `next_cursor` or `prev_cursor`."))]


KEY_MAX, KEY_PATTERN = 255, r"^[\x21-\x7e]+$"
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=KEY_MAX,
        pattern=KEY_PATTERN,
        description="Any unique string (e.g. a UUID). A retry with the same key and body returns "
        "the first answer and stores nothing; the same key with another body is a 409.",
    ),
]
# The same bounds for the lean endpoint, which reads the header itself.
KEY = TypeAdapter(Annotated[str, StringConstraints(min_length=1, max_length=KEY_MAX, pattern=KEY_PATTERN)])


@router.post(
    "",
    status_code=201,
    summary="Append messages",
    description="Appends 1..N messages in order; each gets the next `seq` of the session. The "
    "answer comes once they are durably committed; embedding and other derived work happen "
    "later, in the background. Send `Idempotency-Key` to make retries safe.",
    responses=problem_responses(404, 409, 413, 429),
)
async def append_messages(
    session_id: SessionIdPath,
    body: AppendRequest,
    db: Writes,
    tenant: TenantId,
    parts: AppParts,
    tasks: BackgroundTasks,
    request: Request,
    response: Response,
    quota: MessageQuota,
    idempotency_key: IdempotencyKey = None,
) -> AppendResponse:
    # The spec's description of the route (and its FastAPI form); requests are served by
    # `append_endpoint` below, which shares `_append`.
    replayed, answer = await _append(
        db,
        parts,
        tasks,
        request.state.after_commit,  # made by `writes`
        quota=quota,
        tenant=tenant,
        session_id=session_id,
        body=body,
        idempotency_key=idempotency_key,
    )
    if replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return answer


async def _append(
    db: RequestDb,
    parts: Parts,
    tasks: BackgroundTasks,
    after_commit: AfterCommit,
    *,
    quota: MessageQuota,
    tenant: str,
    session_id: str,
    body: AppendRequest,
    idempotency_key: str | None,
) -> tuple[bool, AppendResponse]:
    """(replayed, answer); what comes after the commit is queued in `tasks` and `after_commit`."""
    settings, tokenizer, cache = parts.settings, parts.tokenizer, parts.cache
    body.check_limits(parts.limits)
    await quota(len(body.messages))
    done = await service.append_messages(
        db,
        tenant_id=tenant,
        session_id=session_id,
        body=body,
        tokenizer=tokenizer,
        idempotency_key=idempotency_key,
        idempotency_ttl=timedelta(hours=settings.idempotency_ttl_hours),
        policy=SummaryPolicy.from_settings(settings),
        extract_facts=settings.facts_enabled,
    )
    if done.replayed:
        return True, done.answer
    # After the commit: the woken worker finds the rows (after the response: nobody waits for it),
    # and the cache entry moves from the version before this append to the one after it (before
    # the response: an agent reads its memory right after appending, and that read should hit).
    tasks.add_task(parts.waker.poke)
    if cache.enabled and done.base is not None and done.new is not None:
        after_commit.append(
            partial(
                write_through,
                cache,
                tenant_id=tenant,
                session_id=session_id,
                base=done.base,
                new=done.new,
                messages=done.answer.messages,
                tokenizer=tokenizer,
            )
        )
    return False, done.answer


async def append_endpoint(request: Request) -> Response:
    """POST …/messages as a plain Starlette endpoint: the same checks, in FastAPI's order (path id,
    caller, then the header's and the body's errors in one 422), the same transaction (committed,
    and its after-commit work done, before the response), no dependency solving."""
    session_id = lean.path_id(request, "session_id")
    who = lean.caller(request)
    key, key_errors = lean.header(request, "Idempotency-Key", KEY)
    body = await lean.json_body(request, AppendRequest, errors=key_errors)
    state = request.state
    tasks = BackgroundTasks()
    quota = partial(state.admission.charge_messages, who)
    parts = app_parts(request)
    async with writing(request) as db:
        replayed, answer = await _append(
            db,
            parts,
            tasks,
            state.after_commit,
            quota=quota,
            tenant=who.tenant_id,
            session_id=session_id,
            body=body,
            idempotency_key=key,
        )
    headers = {"Idempotent-Replayed": "true"} if replayed else None
    return Response(lean.json_bytes(answer), 201, headers, media_type="application/json", background=tasks)


# Matched before every FastAPI route (app.main): the append is the hottest write.
lean_routes = [
    OperationRoute("/v1" + router.prefix, append_endpoint, methods=["POST"], name=append_messages.__name__)
]


@router.get(
    "",
    summary="List messages",
    description="Messages by `seq`, oldest first (`order=desc`: newest first), filtered by role "
    "and creation time, a page at a time: `next_cursor` continues, `prev_cursor` goes back.",
    responses=problem_responses(400, 404),
)
async def list_messages(
    session_id: SessionIdPath,
    conn: Conn,
    tenant: TenantId,
    page: MessagePage,  # before `found`: its parameters keep their place in the OpenAPI document
    found: Filter,
) -> Page[MessageOut]:
    return await service.list_messages(conn, tenant_id=tenant, session_id=session_id, page=page, found=found)


@router.get(
    "/{message_id}",
    summary="Get a message",
    description="One message of the session.",
    responses=problem_responses(404),
)
async def get_message(
    session_id: SessionIdPath, message_id: uuid.UUID, conn: Conn, tenant: TenantId
) -> MessageOut:
    return await service.get_message(conn, tenant_id=tenant, session_id=session_id, message_id=message_id)


@router.patch(
    "/{message_id}",
    summary="Edit a message",
    description="Replaces `content` and/or `name`, merges `metadata` (RFC 7396). A new content "
    "gets a new token count and is indexed again.",
    responses=problem_responses(404, 413),
)
async def patch_message(
    session_id: SessionIdPath,
    message_id: uuid.UUID,
    body: MessagePatch,
    conn: Conn,
    tenant: TenantId,
    limits: CheckedLimits,
    tokenizer: Tok,
    wake: Wake,
    tasks: BackgroundTasks,
) -> MessageOut:
    body.check_limits(limits)
    if body.content is not None:
        tasks.add_task(wake.poke)  # new content is embedded again
    return await service.patch_message(
        conn,
        tenant_id=tenant,
        session_id=session_id,
        message_id=message_id,
        content=body.content,
        name=body.name,
        metadata=body.metadata,
        tokenizer=tokenizer,
    )


@router.delete(
    "/{message_id}",
    status_code=204,
    summary="Delete a message",
    description="Deletes one message and what was derived from it. Its seq is not reused.",
    responses=problem_responses(404),
)
async def delete_message(
    session_id: SessionIdPath, message_id: uuid.UUID, conn: Conn, tenant: TenantId
) -> Response:
    await service.delete_message(conn, tenant_id=tenant, session_id=session_id, message_id=message_id)
    return Response(status_code=204)

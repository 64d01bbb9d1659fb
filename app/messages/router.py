"""Messages: HTTP in, a service call, HTTP out."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from enum import StrEnum
from functools import partial
from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Depends, Header, Query, Response
from pydantic import AfterValidator

from app.cache.write_through import write_through
from app.deps import (
    Cache,
    CheckedLimits,
    Commit,
    Config,
    Conn,
    MessageQuota,
    SessionIdPath,
    TenantId,
    Tok,
    Wake,
)
from app.errors import problem_responses
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
from app.pagination import Page, PageRequest, page_query
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


IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=255,
        pattern=r"^[\x21-\x7e]+$",
        description="Any unique string (e.g. a UUID). A retry with the same key and body returns "
        "the first answer and stores nothing; the same key with another body is a 409.",
    ),
]


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
    conn: Conn,
    tenant: TenantId,
    limits: CheckedLimits,
    tokenizer: Tok,
    settings: Config,
    wake: Wake,
    cache: Cache,
    tasks: BackgroundTasks,
    after_commit: Commit,
    response: Response,
    quota: MessageQuota,
    idempotency_key: IdempotencyKey = None,
) -> AppendResponse:
    body.check_limits(limits)
    await quota(len(body.messages))
    done = await service.append_messages(
        conn,
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
        response.headers["Idempotent-Replayed"] = "true"
        return done.answer
    # After the commit: the woken worker finds the rows (after the response: nobody waits for it),
    # and the cache entry moves from the version before this append to the one after it (before
    # the response: an agent reads its memory right after appending, and that read should hit).
    tasks.add_task(wake.poke)
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
    return done.answer


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

"""Admin endpoints of the audit trail: a tenant's setting, its events (pages, JSON Lines)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import StreamingResponse

from app.audit import service
from app.audit.schemas import AuditEventOut, AuditFilter, AuditSettings, AuditSettingsOut
from app.deps import Admin, CheckedLimits, Config, Conn, ExportEngine, Keys, ReadConn
from app.page_params import PageParams
from app.pagination import Page
from app.problems import problem_responses
from app.transfer.stream import IdleLimitedStream

router = APIRouter(prefix="/admin/tenants/{tenant_id}/audit", tags=["admin"], dependencies=[Admin])
NDJSON = "application/x-ndjson"


async def _filter(
    limits: CheckedLimits,
    operation: Annotated[str | None, Query(max_length=200, description="Only this operation.")] = None,
    key_id: Annotated[uuid.UUID | None, Query(description="Only requests made with this key.")] = None,
    user_id: Annotated[str | None, Query(max_length=1024, description="Only about this user.")] = None,
    session_id: Annotated[str | None, Query(max_length=1024, description="Only about this session.")] = None,
    since: Annotated[datetime | None, Query(description="Only events at or after this time.")] = None,
    until: Annotated[datetime | None, Query(description="Only events before this time.")] = None,
) -> AuditFilter:
    for name, value in (("operation", operation), ("user_id", user_id), ("session_id", session_id)):
        if value is not None:
            limits.check_id(value, ["query", name])
    return AuditFilter(operation, key_id, user_id, session_id, since, until)


Filter = Annotated[AuditFilter, Depends(_filter)]


@router.get(
    "",
    summary="Read a tenant's audit setting",
    description="Whether the tenant's reads and writes are recorded, and for how long.",
    responses=problem_responses(403, 404),
)
async def get_audit(tenant_id: str, conn: ReadConn, limits: CheckedLimits) -> AuditSettingsOut:
    limits.check_id(tenant_id, ["path", "tenant_id"])
    return await service.get_settings(conn, tenant_id=tenant_id)


@router.put(
    "",
    summary="Turn a tenant's audit trail on or off",
    description="From now on (at once on this process, within ENGRAM_API_KEY_CACHE_SECONDS on the "
    "others) every request the tenant's keys make is recorded: who (key id), what (operation and "
    "the ids it names), when, from where (client address) and its status; never content.",
    responses=problem_responses(403, 404),
)
async def set_audit(
    tenant_id: str, body: AuditSettings, conn: Conn, limits: CheckedLimits, keys: Keys
) -> AuditSettingsOut:
    limits.check_id(tenant_id, ["path", "tenant_id"])
    out = await service.set_settings(conn, tenant_id=tenant_id, body=body)
    keys.forget_tenant(tenant_id)
    return out


@router.get(
    "/events",
    summary="List a tenant's audit events",
    description="Newest first, filtered, a page at a time.",
    responses=problem_responses(400, 403),
)
async def list_audit_events(
    tenant_id: str,
    conn: ReadConn,
    limits: CheckedLimits,
    page: PageParams,  # before `found`: its parameters keep their place in the OpenAPI document
    found: Filter,
) -> Page[AuditEventOut]:
    limits.check_id(tenant_id, ["path", "tenant_id"])
    return await service.list_events(conn, tenant_id=tenant_id, found=found, page=page)


@router.get(
    "/export",
    summary="Export a tenant's audit events",
    description="Every matching event, oldest first, as JSON Lines (one `AuditEventOut` object per "
    "line), streamed.",
    response_class=StreamingResponse,
    responses={
        200: {"description": "The events.", "content": {NDJSON: {"schema": {"type": "string"}}}},
        **problem_responses(403, 404),
    },
)
async def export_audit_events(
    tenant_id: str, engine: ExportEngine, limits: CheckedLimits, settings: Config, found: Filter
) -> StreamingResponse:
    limits.check_id(tenant_id, ["path", "tenant_id"])
    stream = service.export_events(engine, tenant_id=tenant_id, found=found)
    await anext(stream)  # a missing tenant is a 404 before the answer starts
    return IdleLimitedStream(_rest(stream), idle_seconds=settings.export_idle_seconds, media_type=NDJSON)


async def _rest(stream: AsyncGenerator[bytes, None]) -> AsyncGenerator[bytes, None]:
    try:
        async for chunk in stream:
            yield chunk
    finally:
        await stream.aclose()  # ends the snapshot and returns its connection now, not at GC

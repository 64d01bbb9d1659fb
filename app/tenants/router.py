"""Admin endpoints: tenants and their API keys and limits (authorised by ENGRAM_ADMIN_TOKEN)."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Query, Response

from app.cache import evictions
from app.deps import Admin, Cache, CheckedLimits, Conn, Engine, Keys
from app.page_params import PageParams
from app.pagination import Page
from app.problems import problem_responses
from app.tenants import purge, service
from app.tenants.schemas import KeyCreate, KeyCreated, KeyOut, TenantLimits, TenantLimitsOut, TenantOut

router = APIRouter(prefix="/admin", tags=["admin"], dependencies=[Admin])


@router.post(
    "/keys",
    status_code=201,
    summary="Create an API key",
    description="Creates a key for a tenant (creating the tenant if new). The key is in this "
    "answer only: Engram stores its hash.",
    responses=problem_responses(403),
)
async def create_key(body: KeyCreate, conn: Conn, limits: CheckedLimits) -> KeyCreated:
    limits.check_id(body.tenant_id, ["tenant_id"])
    limits.check_text(body.name, ["name"])
    return await service.create_key(conn, tenant_id=body.tenant_id, name=body.name)


@router.get(
    "/keys",
    summary="List API keys",
    description="Keys (without their secret), oldest first, optionally of one tenant.",
    responses=problem_responses(400, 403),
)
async def list_keys(
    conn: Conn,
    limits: CheckedLimits,
    page: PageParams,
    tenant_id: Annotated[str | None, Query(max_length=128)] = None,
) -> Page[KeyOut]:
    if tenant_id is not None:
        # A NUL byte would reach PostgreSQL, which refuses it in text (a 500 before this check).
        limits.check_id(tenant_id, ["query", "tenant_id"])
    return await service.list_keys(conn, tenant_id=tenant_id, page=page)


@router.delete(
    "/keys/{key_id}",
    status_code=204,
    summary="Revoke an API key",
    description="The key stops working at once on this process, and within "
    "ENGRAM_API_KEY_CACHE_SECONDS on the others.",
    responses=problem_responses(403, 404),
)
async def revoke_key(key_id: uuid.UUID, conn: Conn, keys: Keys) -> Response:
    await service.revoke_key(conn, key_id=key_id)
    keys.forget(key_id)
    return Response(status_code=204)


@router.get(
    "/tenants/{tenant_id}/limits",
    summary="Read a tenant's limits",
    description="The tenant's own requests per second and messages per day (null: the server's "
    "settings ENGRAM_RATE_LIMIT_RPS and ENGRAM_QUOTA_MESSAGES_PER_DAY apply).",
    responses=problem_responses(403, 404),
)
async def get_tenant_limits(tenant_id: str, conn: Conn, limits: CheckedLimits) -> TenantLimitsOut:
    limits.check_id(tenant_id, ["path", "tenant_id"])
    return await service.get_limits(conn, tenant_id=tenant_id)


@router.put(
    "/tenants/{tenant_id}/limits",
    summary="Set a tenant's limits",
    description="Sets the tenant's own requests per second and messages per day (0: unlimited; "
    "null: the server's settings). Applies at once on this process, and within "
    "ENGRAM_API_KEY_CACHE_SECONDS on the others.",
    responses=problem_responses(403, 404),
)
async def set_tenant_limits(
    tenant_id: str, body: TenantLimits, conn: Conn, limits: CheckedLimits, keys: Keys
) -> TenantLimitsOut:
    limits.check_id(tenant_id, ["path", "tenant_id"])
    out = await service.set_limits(conn, tenant_id=tenant_id, limits=body)
    keys.forget_tenant(tenant_id)
    return out


@router.get(
    "/tenants",
    summary="List tenants",
    description="Every tenant by id, with its live keys, users, webhook endpoints and limits.",
    responses=problem_responses(400, 403),
)
async def list_tenants(
    conn: Conn,
    page: PageParams,
) -> Page[TenantOut]:
    return await service.list_tenants(conn, page=page)


@router.delete(
    "/tenants/{tenant_id}",
    status_code=204,
    summary="Delete a tenant and everything it owns",
    description="Purges the tenant as a user purge would each of its users: keys, users, sessions, "
    "messages, summaries, facts and their history, jobs, webhooks, and its Redis entries. Its "
    "keys stop working at once on this process, and within ENGRAM_API_KEY_CACHE_SECONDS on the "
    "others. Irreversible.",
    responses=problem_responses(403, 404),
)
async def delete_tenant(
    tenant_id: str,
    conn: Conn,
    limits: CheckedLimits,
    keys: Keys,
    cache: Cache,
    engine: Engine,
    tasks: BackgroundTasks,
) -> Response:
    limits.check_id(tenant_id, ["path", "tenant_id"])
    evict = await purge.delete_tenant(conn, tenant_id=tenant_id)
    keys.forget_tenant(tenant_id)
    tasks.add_task(evictions.evict_now, engine, cache, evict)  # after the commit; the worker retries
    return Response(status_code=204, background=tasks)

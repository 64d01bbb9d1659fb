"""Tenants as a whole: list them, and delete one with everything it owns.

Deleting a tenant is a user purge for every user at once: the same eviction records for Redis
(app.cache.evictions) in the same transaction, then one DELETE whose cascade removes its keys,
users, sessions, messages, summaries, facts and their history, jobs, webhook endpoints and
deliveries. The caller evicts the Redis windows after the commit (the worker's sweep retries).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.cache import evictions
from app.errors import NotFound
from app.pagination import Page, decode_cursor, encode_cursor
from app.tenants.schemas import TenantOut


async def list_tenants(conn: AsyncConnection, *, limit: int, cursor: str | None) -> Page[TenantOut]:
    params: dict[str, Any] = {"limit": limit + 1}
    after = ""
    if cursor:
        (last,), _ = decode_cursor(cursor, "tenants", 1)
        after = "WHERE t.tenant_id > :after"
        params["after"] = str(last)
    rows = (
        (
            await conn.execute(
                text(
                    "SELECT t.tenant_id, t.created_at, t.rate_limit_rps, t.messages_per_day, "
                    "(SELECT count(*) FROM api_keys k WHERE k.tenant_id = t.tenant_id "
                    "  AND k.revoked_at IS NULL) AS keys, "
                    "(SELECT count(*) FROM users u WHERE u.tenant_id = t.tenant_id) AS users, "
                    "(SELECT count(*) FROM webhook_endpoints w WHERE w.tenant_id = t.tenant_id) AS webhooks "
                    f"FROM tenants t {after} ORDER BY t.tenant_id LIMIT :limit"
                ),
                params,
            )
        )
        .mappings()
        .all()
    )
    items = [TenantOut(**r) for r in rows[:limit]]
    nxt = encode_cursor("tenants", [items[-1].tenant_id]) if len(rows) > limit else None
    return Page[TenantOut](items=items, next_cursor=nxt)


async def delete_tenant(conn: AsyncConnection, *, tenant_id: str) -> list[tuple[str, str]]:
    """Delete the tenant and everything it owns; returns the (tenant, session) pairs whose Redis
    entries must be evicted after the commit."""
    evict = await evictions.record(conn, tenant_id=tenant_id)
    found = (
        await conn.execute(text("DELETE FROM tenants WHERE tenant_id = :t RETURNING 1"), {"t": tenant_id})
    ).scalar()
    if not found:
        raise NotFound(f"No tenant {tenant_id}.")
    return evict

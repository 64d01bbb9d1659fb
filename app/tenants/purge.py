"""Deleting a tenant with everything it owns.

Deleting a tenant is a user purge for every user at once: the same eviction records for Redis
(app.cache.evictions) in the same transaction, then one DELETE whose cascade removes its keys,
users, sessions, messages, summaries, facts and their history, jobs, webhook endpoints and
deliveries. The caller evicts the Redis windows after the commit (the worker's sweep retries).
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.cache import evictions
from app.errors import NotFound


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

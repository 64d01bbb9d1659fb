"""Tenants, their limits and their API keys: keys are random, shown once, stored as sha256 hashes."""

from __future__ import annotations

import hashlib
import secrets
import uuid

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.errors import NotFound
from app.pagination import TEXT, TIMESTAMP, UUID, Keyset, Page, PageRequest
from app.tenants.schemas import KeyCreated, KeyOut, TenantLimits, TenantLimitsOut, TenantOut

KEY_PREFIX = "egm_"


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


async def ensure_tenant(conn: AsyncConnection, *, tenant_id: str) -> None:
    await conn.execute(
        text("INSERT INTO tenants (tenant_id) VALUES (:t) ON CONFLICT DO NOTHING"), {"t": tenant_id}
    )


async def create_key(conn: AsyncConnection, *, tenant_id: str, name: str) -> KeyCreated:
    await ensure_tenant(conn, tenant_id=tenant_id)
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    row = (
        (
            await conn.execute(
                text(
                    "INSERT INTO api_keys (key_id, tenant_id, name, prefix, key_hash) "
                    "VALUES (:id, :t, :n, :p, :h) RETURNING key_id, tenant_id, name, prefix, "
                    "created_at, revoked_at"
                ),
                {"id": uuid.uuid4(), "t": tenant_id, "n": name, "p": key[:10], "h": hash_key(key)},
            )
        )
        .mappings()
        .one()
    )
    return KeyCreated(**row, key=key)


_KEYS = Keyset("keys", (TIMESTAMP, UUID), ("created_at", "key_id"))
_TENANTS = Keyset("tenants", (TEXT,), ("t.tenant_id",))


async def list_keys(conn: AsyncConnection, *, tenant_id: str | None, page: PageRequest) -> Page[KeyOut]:
    seek = _KEYS.seek(page)
    where = [] if tenant_id is None else ["tenant_id = :t"]
    rows = (
        (
            await conn.execute(
                text(
                    "SELECT key_id, tenant_id, name, prefix, created_at, revoked_at FROM api_keys "
                    f"WHERE {seek.where(*where)} {seek.tail}"
                ),
                {"t": tenant_id, **seek.params},
            )
        )
        .mappings()
        .all()
    )
    return seek.page([KeyOut(**r) for r in rows], lambda k: (k.created_at, k.key_id))


async def list_tenants(conn: AsyncConnection, *, page: PageRequest) -> Page[TenantOut]:
    """Every tenant by id, with its live keys, users, webhook endpoints and limits."""
    seek = _TENANTS.seek(page)
    rows = (
        (
            await conn.execute(
                text(
                    "SELECT t.tenant_id, t.created_at, t.rate_limit_rps, t.messages_per_day, "
                    "(SELECT count(*) FROM api_keys k WHERE k.tenant_id = t.tenant_id "
                    "  AND k.revoked_at IS NULL) AS keys, "
                    "(SELECT count(*) FROM users u WHERE u.tenant_id = t.tenant_id) AS users, "
                    "(SELECT count(*) FROM webhook_endpoints w WHERE w.tenant_id = t.tenant_id) AS webhooks "
                    f"FROM tenants t WHERE {seek.where()} {seek.tail}"
                ),
                seek.params,
            )
        )
        .mappings()
        .all()
    )
    return seek.page([TenantOut(**r) for r in rows], lambda t: (t.tenant_id,))


async def revoke_key(conn: AsyncConnection, *, key_id: uuid.UUID) -> None:
    found = (
        await conn.execute(
            text(
                "UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE key_id = :k RETURNING 1"
            ),
            {"k": key_id},
        )
    ).scalar()
    if not found:
        raise NotFound(f"No API key {key_id}.")


KeyOwner = tuple[str, uuid.UUID, float | None, int | None, bool]


async def tenant_for_key(conn: AsyncConnection, *, key: str) -> KeyOwner | None:
    """(tenant, key id, the tenant's requests per second, its messages per day, whether it keeps an
    audit trail) of a live key, or None for an unknown or revoked one."""
    row = (
        await conn.execute(
            text(
                "SELECT k.tenant_id, k.key_id, t.rate_limit_rps, t.messages_per_day, t.audit FROM api_keys k "
                "JOIN tenants t USING (tenant_id) WHERE k.key_hash = :h AND k.revoked_at IS NULL"
            ),
            {"h": hash_key(key)},
        )
    ).first()
    return (row[0], row[1], row[2], row[3], row[4]) if row else None


async def set_limits(conn: AsyncConnection, *, tenant_id: str, limits: TenantLimits) -> TenantLimitsOut:
    row = (
        (
            await conn.execute(
                text(
                    "UPDATE tenants SET rate_limit_rps = :r, messages_per_day = :m WHERE tenant_id = :t "
                    "RETURNING tenant_id, rate_limit_rps, messages_per_day"
                ),
                {"t": tenant_id, "r": limits.rate_limit_rps, "m": limits.messages_per_day},
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"No tenant {tenant_id}.")
    return TenantLimitsOut(**row)


async def get_limits(conn: AsyncConnection, *, tenant_id: str) -> TenantLimitsOut:
    row = (
        (
            await conn.execute(
                text("SELECT tenant_id, rate_limit_rps, messages_per_day FROM tenants WHERE tenant_id = :t"),
                {"t": tenant_id},
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"No tenant {tenant_id}.")
    return TenantLimitsOut(**row)

"""The audit trail's settings per tenant, its events read back (pages, JSON Lines), and the one
other way its rows go besides retention: a user's purge."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import orjson
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.audit.schemas import AuditEventOut, AuditFilter, AuditSettings, AuditSettingsOut
from app.errors import NotFound
from app.pagination import INT, Keyset, Page, PageRequest

_COLS = "id, at, key_id, client, request_id, method, operation, status, user_id, session_id, ids"
EXPORT_PAGE = 1000
# A purge and a flush of buffered events (app.audit.writer) of one tenant take turns: the flush
# holds this lock shared while it reads which users exist and inserts, a purge exclusively before
# it removes the user's events. Either the flush saw the user gone, or the purge sees its rows.
LOCK_CLASS = 0x61756474  # "audt": the first key of pg_advisory_xact_lock(int, int)
LOCK = text("SELECT pg_advisory_xact_lock(:cls, hashtext(:t))")
# The trigger of migration 0011 lets a transaction delete audit rows only after it said so.
ALLOW_DELETE = text("SELECT set_config('engram.audit_delete', 'on', true)")
END_DELETE = text("SELECT set_config('engram.audit_delete', 'off', true)")


async def get_settings(conn: AsyncConnection, *, tenant_id: str) -> AuditSettingsOut:
    row = (
        await conn.execute(
            text("SELECT audit, audit_retention_days FROM tenants WHERE tenant_id = :t"), {"t": tenant_id}
        )
    ).first()
    if row is None:
        raise NotFound(f"No tenant {tenant_id}.")
    return AuditSettingsOut(tenant_id=tenant_id, enabled=row.audit, retention_days=row.audit_retention_days)


async def set_settings(conn: AsyncConnection, *, tenant_id: str, body: AuditSettings) -> AuditSettingsOut:
    row = (
        await conn.execute(
            text(
                "UPDATE tenants SET audit = :on, audit_retention_days = :days WHERE tenant_id = :t "
                "RETURNING audit, audit_retention_days"
            ),
            {"t": tenant_id, "on": body.enabled, "days": body.retention_days},
        )
    ).first()
    if row is None:
        raise NotFound(f"No tenant {tenant_id}.")
    return AuditSettingsOut(tenant_id=tenant_id, enabled=row.audit, retention_days=row.audit_retention_days)


def _where(tenant_id: str, found: AuditFilter) -> tuple[list[str], dict[str, Any]]:
    where = ["tenant_id = :t"]
    params: dict[str, Any] = {"t": tenant_id}
    for column, value in (
        ("operation", found.operation),
        ("key_id", found.key_id),
        ("user_id", found.user_id),
        ("session_id", found.session_id),
    ):
        if value is not None:
            where.append(f"{column} = :{column}")
            params[column] = value
    if found.since is not None:
        where.append("at >= :since")
        params["since"] = found.since
    if found.until is not None:
        where.append("at < :until")
        params["until"] = found.until
    return where, params


_EVENTS = Keyset("audit", (INT,), ("id",), descending=True)


async def list_events(
    conn: AsyncConnection, *, tenant_id: str, found: AuditFilter, page: PageRequest
) -> Page[AuditEventOut]:
    """Newest first, a page at a time (keyset on the id)."""
    where, params = _where(tenant_id, found)
    seek = _EVENTS.seek(page)
    rows = (
        (
            await conn.execute(
                text(f"SELECT {_COLS} FROM audit_events WHERE {seek.where(*where)} {seek.tail}"),
                {**params, **seek.params},
            )
        )
        .mappings()
        .all()
    )
    return seek.page([AuditEventOut(**r) for r in rows], lambda e: (e.id,))


async def export_events(
    engine: AsyncEngine, *, tenant_id: str, found: AuditFilter
) -> AsyncGenerator[bytes, None]:
    """Every matching event, oldest first, one JSON object per line, read with a server-side
    cursor a page at a time (memory stays flat however long the trail)."""
    where, params = _where(tenant_id, found)
    sql = text(f"SELECT {_COLS} FROM audit_events WHERE {' AND '.join(where)} ORDER BY id")
    async with engine.connect() as conn:
        await conn.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
        async with conn.begin():
            if not (await conn.execute(text("SELECT 1 FROM tenants WHERE tenant_id = :t"), params)).first():
                raise NotFound(f"No tenant {tenant_id}.")
            yield b""  # the tenant exists: the answer is a 200 from here on
            async with conn.stream(sql, params) as events:
                async for part in events.mappings().partitions(EXPORT_PAGE):
                    yield b"".join(_line(r) for r in part)


def _line(row: Any) -> bytes:
    return orjson.dumps(dict(row), default=str, option=orjson.OPT_UTC_Z) + b"\n"


async def forget_user(conn: AsyncConnection, *, tenant_id: str, user_id: str) -> None:
    """A purged user's events go with the user (in the purge's transaction, after the user's row)."""
    await conn.execute(LOCK, {"cls": LOCK_CLASS, "t": tenant_id})
    await conn.execute(ALLOW_DELETE)
    await conn.execute(
        text("DELETE FROM audit_events WHERE tenant_id = :t AND user_id = :u"), {"t": tenant_id, "u": user_id}
    )
    await conn.execute(END_DELETE)

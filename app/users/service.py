"""Users: upsert, read, list, and purge (which removes everything derived from them)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.audit import service as audit
from app.cache import evictions
from app.db.sql import jsonb
from app.errors import NotFound
from app.pagination import TEXT, Keyset, Page, PageRequest
from app.users.schemas import UserOut
from app.webhooks import outbox

_COLS = "user_id, metadata, created_at, updated_at"


async def upsert_user(
    conn: AsyncConnection, *, tenant_id: str, user_id: str, metadata: dict[str, Any]
) -> tuple[UserOut, bool]:
    """Create or replace a user's metadata; returns (user, created)."""
    row = (
        (
            await conn.execute(
                text(
                    "INSERT INTO users (tenant_id, user_id, metadata) VALUES (:t, :u, :m) "
                    "ON CONFLICT (tenant_id, user_id) DO UPDATE "
                    "SET metadata = excluded.metadata, updated_at = now() "
                    f"RETURNING {_COLS}, (xmax = 0) AS created"
                ).bindparams(jsonb("m")),
                {"t": tenant_id, "u": user_id, "m": metadata},
            )
        )
        .mappings()
        .one()
    )
    data = dict(row)
    created = bool(data.pop("created"))
    return UserOut(**data), created


async def ensure_user(conn: AsyncConnection, *, tenant_id: str, user_id: str) -> None:
    await conn.execute(
        text("INSERT INTO users (tenant_id, user_id) VALUES (:t, :u) ON CONFLICT DO NOTHING"),
        {"t": tenant_id, "u": user_id},
    )


async def get_user(conn: AsyncConnection, *, tenant_id: str, user_id: str) -> UserOut:
    row = (
        (
            await conn.execute(
                text(f"SELECT {_COLS} FROM users WHERE tenant_id = :t AND user_id = :u"),
                {"t": tenant_id, "u": user_id},
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"No user {user_id}.")
    return UserOut(**row)


_USERS = Keyset("users", (TEXT,), ("user_id",))


async def list_users(conn: AsyncConnection, *, tenant_id: str, page: PageRequest) -> Page[UserOut]:
    seek = _USERS.seek(page)
    rows = (
        (
            await conn.execute(
                text(f"SELECT {_COLS} FROM users WHERE {seek.where('tenant_id = :t')} {seek.tail}"),
                {"t": tenant_id, **seek.params},
            )
        )
        .mappings()
        .all()
    )
    return seek.page([UserOut(**r) for r in rows], lambda u: (u.user_id,))


async def purge_user(conn: AsyncConnection, *, tenant_id: str, user_id: str) -> list[tuple[str, str]]:
    """Delete the user and, by cascade, their sessions, messages and all derived rows.

    Returns the (tenant, session) pairs whose cache entries must be evicted after the commit.
    """
    evict = await evictions.record(conn, tenant_id=tenant_id, user_id=user_id)
    found = (
        await conn.execute(
            text("DELETE FROM users WHERE tenant_id = :t AND user_id = :u RETURNING 1"),
            {"t": tenant_id, "u": user_id},
        )
    ).scalar()
    if not found:
        raise NotFound(f"No user {user_id}.")
    await audit.forget_user(conn, tenant_id=tenant_id, user_id=user_id)  # the audit trail too
    # Their queued webhook events and delivery history go too; then the one saying so.
    await outbox.forget_user(conn, tenant_id=tenant_id, user_id=user_id)
    await outbox.emit(
        conn, tenant_id=tenant_id, user_id=user_id, type_="user.purged", data={"user_id": user_id}
    )
    return evict

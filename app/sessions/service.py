"""Sessions: create, read, list by user, patch (metadata merge, end), delete."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.cache import evictions
from app.db.sql import jsonb
from app.errors import Conflict, NotFound
from app.jobs.due import queue_final_summary
from app.merge_patch import merge_patch
from app.pagination import TEXT, TIMESTAMP, Keyset, Page, PageRequest
from app.sessions.schemas import SessionOut, SessionStats
from app.users.service import ensure_user

_COLS = "session_id, user_id, metadata, last_seq, created_at, updated_at, ended_at"


async def create_session(
    conn: AsyncConnection,
    *,
    tenant_id: str,
    session_id: str | None,
    user_id: str,
    metadata: dict[str, Any],
) -> SessionOut:
    await ensure_user(conn, tenant_id=tenant_id, user_id=user_id)
    row = (
        (
            await conn.execute(
                text(
                    "INSERT INTO sessions (tenant_id, session_id, user_id, metadata) "
                    "VALUES (:t, :s, :u, :m) ON CONFLICT DO NOTHING "
                    f"RETURNING {_COLS}"
                ).bindparams(jsonb("m")),
                {"t": tenant_id, "s": session_id or str(uuid.uuid4()), "u": user_id, "m": metadata},
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise Conflict(f"Session {session_id} already exists.")
    return SessionOut(**row)


async def get_session(conn: AsyncConnection, *, tenant_id: str, session_id: str) -> SessionOut:
    row = (
        (
            await conn.execute(
                text(f"SELECT {_COLS} FROM sessions WHERE tenant_id = :t AND session_id = :s"),
                {"t": tenant_id, "s": session_id},
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"No session {session_id}.")
    return SessionOut(**row)


async def require_session(conn: AsyncConnection, *, tenant_id: str, session_id: str) -> None:
    found = (
        await conn.execute(
            text("SELECT 1 FROM sessions WHERE tenant_id = :t AND session_id = :s"),
            {"t": tenant_id, "s": session_id},
        )
    ).scalar()
    if not found:
        raise NotFound(f"No session {session_id}.")


_SESSIONS = Keyset("sessions", (TIMESTAMP, TEXT), ("created_at", "session_id"), descending=True)


async def list_sessions(
    conn: AsyncConnection, *, tenant_id: str, user_id: str | None, page: PageRequest
) -> Page[SessionOut]:
    """Newest first. With `user_id`, only that user's (404 if the user does not exist)."""
    params: dict[str, Any] = {"t": tenant_id}
    where = ["tenant_id = :t"]
    if user_id is not None:
        exists = (
            await conn.execute(
                text("SELECT 1 FROM users WHERE tenant_id = :t AND user_id = :u"),
                {"t": tenant_id, "u": user_id},
            )
        ).scalar()
        if not exists:
            raise NotFound(f"No user {user_id}.")
        where.append("user_id = :u")
        params["u"] = user_id
    seek = _SESSIONS.seek(page)
    rows = (
        (
            await conn.execute(
                text(f"SELECT {_COLS} FROM sessions WHERE {seek.where(*where)} {seek.tail}"),
                {**params, **seek.params},
            )
        )
        .mappings()
        .all()
    )
    return seek.page([SessionOut(**r) for r in rows], lambda s: (s.created_at, s.session_id))


async def patch_session(
    conn: AsyncConnection,
    *,
    tenant_id: str,
    session_id: str,
    metadata: dict[str, Any] | None,
    ended: bool | None,
    summarize_on_end: bool = False,
) -> SessionOut:
    """With `summarize_on_end`, ending the session queues a summary of every message not yet
    covered (short sessions never reach the summary policy's thresholds)."""
    current = (
        await conn.execute(
            text(
                "SELECT metadata, ended_at, last_seq, summarized_seq FROM sessions "
                "WHERE tenant_id = :t AND session_id = :s FOR UPDATE"
            ),
            {"t": tenant_id, "s": session_id},
        )
    ).first()
    if current is None:
        raise NotFound(f"No session {session_id}.")
    merged = merge_patch(current.metadata, metadata) if metadata is not None else current.metadata
    if ended and current.ended_at is None and summarize_on_end:
        await queue_final_summary(
            conn,
            tenant_id=tenant_id,
            session_id=session_id,
            last_seq=current.last_seq,
            summarized_seq=current.summarized_seq,
        )
    row = (
        (
            await conn.execute(
                text(
                    "UPDATE sessions SET metadata = :m, updated_at = now(), "
                    "ended_at = CASE WHEN CAST(:ended AS boolean) IS NULL THEN ended_at "
                    "  WHEN CAST(:ended AS boolean) THEN coalesce(ended_at, now()) ELSE NULL END "
                    f"WHERE tenant_id = :t AND session_id = :s RETURNING {_COLS}"
                ).bindparams(jsonb("m")),
                {"t": tenant_id, "s": session_id, "m": merged, "ended": ended},
            )
        )
        .mappings()
        .one()
    )
    return SessionOut(**row)


async def delete_session(conn: AsyncConnection, *, tenant_id: str, session_id: str) -> None:
    """Delete the session and, by cascade, its messages and derived rows; its cache entry is
    recorded for eviction in the same transaction."""
    await evictions.record(conn, tenant_id=tenant_id, session_id=session_id)
    found = (
        await conn.execute(
            text("DELETE FROM sessions WHERE tenant_id = :t AND session_id = :s RETURNING 1"),
            {"t": tenant_id, "s": session_id},
        )
    ).scalar()
    if not found:
        raise NotFound(f"No session {session_id}.")


async def session_stats(conn: AsyncConnection, *, tenant_id: str, session_id: str) -> SessionStats:
    """One statement over the session's rows (an index range each), so the figures agree."""
    row = (
        (
            await conn.execute(
                text(
                    "SELECT s.user_id, s.last_seq, s.summarized_seq, s.unsummarized_tokens, m.*, b.by_role, "
                    "  (SELECT count(*) FROM summaries x WHERE x.tenant_id = :t AND x.session_id = :s) "
                    "    AS summaries, "
                    "  r.removed_by_retention, r.last_retention_at "
                    "FROM sessions s, LATERAL (SELECT count(*) AS message_count, "
                    "    coalesce(sum(token_count), 0) AS token_count, "
                    "    min(created_at) AS first_message_at, max(created_at) AS last_message_at, "
                    "    count(*) FILTER (WHERE seq <= s.summarized_seq) AS summarized_messages, "
                    "    count(*) FILTER (WHERE embed_status = 'done') AS indexed_messages, "
                    "    count(*) FILTER (WHERE embed_status = 'pending') AS pending_messages, "
                    "    count(*) FILTER (WHERE embed_status = 'failed') AS failed_messages "
                    "  FROM messages WHERE tenant_id = :t AND session_id = :s) m, "
                    "  LATERAL (SELECT coalesce(jsonb_object_agg(role, n), '{}') AS by_role FROM "
                    "    (SELECT role, count(*) AS n FROM messages WHERE tenant_id = :t AND session_id = :s "
                    "     GROUP BY role) g) b, "
                    "  LATERAL (SELECT coalesce(sum(removed), 0) AS removed_by_retention, "
                    "    max(created_at) AS last_retention_at FROM retention_events "
                    "    WHERE tenant_id = :t AND session_id = :s) r "
                    "WHERE s.tenant_id = :t AND s.session_id = :s"
                ),
                {"t": tenant_id, "s": session_id},
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"No session {session_id}.")
    return SessionStats(
        session_id=session_id,
        messages_by_role=dict(row["by_role"]),
        unsummarized_messages=row["message_count"] - row["summarized_messages"],
        **{k: v for k, v in row.items() if k in SessionStats.model_fields and k != "session_id"},
    )

"""How far derived work has got, what failed, and putting failed items back in the queue."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.errors import NotFound
from app.indexing.schemas import FailedItem, IndexingStatus
from app.indexing.sentence_tasks import REFINING
from app.indexing.tasks import LAG
from app.pagination import TIMESTAMP, UUID, Keyset, Page, PageRequest


def _owner(tenant_id: str, user_id: str | None, session_id: str | None) -> tuple[str, dict[str, Any]]:
    where, params = ["tenant_id = :t"], {"t": tenant_id}
    if user_id is not None:
        where.append("user_id = :u")
        params["u"] = user_id
    if session_id is not None:
        where.append("session_id = :s")
        params["s"] = session_id
    return " AND ".join(where), params


async def status(
    conn: AsyncConnection, *, tenant_id: str, user_id: str | None, session_id: str | None
) -> IndexingStatus:
    where, params = _owner(tenant_id, user_id, session_id)
    last_seq = None
    if session_id is not None:
        last_seq = (
            await conn.execute(
                text(f"SELECT last_seq FROM sessions WHERE {where}"),
                params,
            )
        ).scalar()
        if last_seq is None:
            raise NotFound(f"No session {session_id}.")
    elif user_id is not None:
        found = (
            await conn.execute(text("SELECT 1 FROM users WHERE tenant_id = :t AND user_id = :u"), params)
        ).scalar()
        if not found:
            raise NotFound(f"No user {user_id}.")
    row = (
        await conn.execute(
            text(
                "SELECT count(*) FILTER (WHERE embed_status = 'pending') AS pending, "
                "count(*) FILTER (WHERE embed_status = 'failed') AS failed, "
                "min(seq) AS first_unindexed, "
                f"{LAG} AS lag, ({REFINING.format(owner=where)}) AS refining "
                f"FROM messages WHERE {where} AND embed_status <> 'done'"
            ),
            params,
        )
    ).one()
    indexed_seq = None
    if last_seq is not None:
        indexed_seq = last_seq if row.first_unindexed is None else row.first_unindexed - 1
    return IndexingStatus(
        user_id=user_id,
        session_id=session_id,
        last_seq=last_seq,
        indexed_seq=indexed_seq,
        pending=row.pending,
        failed=row.failed,
        refining=row.refining,
        lag_seconds=round(float(row.lag), 3),
    )


_FAILED_ONLY = "embed_status = 'failed'"
# By embed_after: the time the last try failed.
_FAILED = Keyset("failed", (TIMESTAMP, UUID), ("embed_after", "message_id"))


async def list_failed(
    conn: AsyncConnection,
    *,
    tenant_id: str,
    user_id: str | None,
    session_id: str | None,
    page: PageRequest,
) -> Page[FailedItem]:
    where, params = _owner(tenant_id, user_id, session_id)
    seek = _FAILED.seek(page)
    rows = (
        (
            await conn.execute(
                text(
                    "SELECT message_id, session_id, user_id, seq, embed_attempts AS attempts, "
                    "embed_error AS error, embed_after AS failed_at FROM messages "
                    f"WHERE {seek.where(where, _FAILED_ONLY)} {seek.tail}"
                ),
                {**params, **seek.params},
            )
        )
        .mappings()
        .all()
    )
    return seek.page([FailedItem(**r) for r in rows], lambda f: (f.failed_at, f.message_id))


async def retry_failed(
    conn: AsyncConnection,
    *,
    tenant_id: str,
    user_id: str | None,
    session_id: str | None,
    message_ids: list[uuid.UUID] | None,
) -> int:
    where, params = _owner(tenant_id, user_id, session_id)
    if message_ids is not None:
        where += " AND message_id = ANY(CAST(:ids AS uuid[]))"
        params["ids"] = message_ids
    result = await conn.execute(
        text(
            "UPDATE messages SET embed_status = 'pending', embed_attempts = 0, embed_after = now(), "
            f"updated_at = now() WHERE {where} AND embed_status = 'failed'"
        ),
        params,
    )
    return int(result.rowcount or 0)

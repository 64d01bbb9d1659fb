"""Export: one user's sessions, messages, summaries, facts and fact history as JSON Lines
(app.transfer.format), streamed.

Everything is read in one REPEATABLE READ, read-only transaction, so the file is one consistent
snapshot however long the download takes, and in keyset pages, so memory stays at a page whatever
the user's size. The stream holds a connection of the export pool (ENGRAM_EXPORT_POOL_SIZE)
for as long as the client reads, and no longer than ENGRAM_EXPORT_IDLE_SECONDS without a read.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.crypto import fields
from app.errors import NotFound
from app.facts.events import open_event
from app.transfer.format import FORMAT, VERSION

# Rows per page: a message may hold ENGRAM_MAX_CONTENT_BYTES (100 kB), so a page stays under
# ~25 MB even then, and a few hundred bytes a row is the usual case.
PAGE = 250

_USER = text(
    "SELECT user_id, metadata, created_at, updated_at FROM users WHERE tenant_id = :t AND user_id = :u"
)
_SESSIONS = text(
    "SELECT session_id, metadata, last_seq, extracted_seq, created_at, updated_at, ended_at FROM sessions "
    "WHERE tenant_id = :t AND user_id = :u AND (created_at, session_id) > (:c, :s) "
    "ORDER BY created_at, session_id LIMIT :n"
)
_MESSAGES = text(
    "SELECT message_id, session_id, seq, role, name, content, metadata, token_count, created_at, updated_at "
    "FROM messages WHERE tenant_id = :t AND session_id = :s AND seq > :after ORDER BY seq LIMIT :n"
)
_SUMMARIES = text(
    "SELECT summary_id, session_id, from_seq, to_seq, message_count, content, token_count, provider, "
    "created_at FROM summaries WHERE tenant_id = :t AND session_id = :s AND to_seq > :after "
    "ORDER BY to_seq LIMIT :n"
)
_FACTS = text(
    "SELECT fact_id, content, kind, subject, exclusive, topics, importance, metadata, actor, "
    "source_message_ids, session_id, valid_from, invalid_at, superseded_by, mention_count, "
    "last_mentioned_at, last_used_at, created_at, updated_at, speaker FROM facts "
    "WHERE tenant_id = :t AND user_id = :u AND (valid_from, fact_id) > (:c, :f) "
    "ORDER BY valid_from, fact_id LIMIT :n"
)
# History in the order it happened (ids ascend with it); a deleted fact's events are kept too.
# One query through a server-side cursor: no index leads with (tenant, user, id), so keyset pages
# would sort the user's events again for every page.
_EVENTS = text(
    "SELECT fact_id, event, old_content, new_content, actor, reason, related_fact_id, "
    "source_message_ids, created_at FROM fact_events WHERE tenant_id = :t AND user_id = :u ORDER BY id"
)
_EPOCH = datetime(1, 1, 1, tzinfo=UTC)
_NIL = uuid.UUID(int=0)


def _line(kind: str, row: Any) -> bytes:
    record = {"type": kind, **row}
    # asyncpg's UUID is a subclass orjson does not take as a UUID: `default` spells it.
    return orjson.dumps(record, default=str, option=orjson.OPT_UTC_Z | orjson.OPT_NON_STR_KEYS) + b"\n"


async def export_user(
    engine: AsyncEngine, *, tenant_id: str, user_id: str, page_size: int = PAGE
) -> AsyncGenerator[bytes, None]:
    """The user's file, a page of lines per chunk. The first chunk (header and user) is produced
    before anything is sent, so a missing user is a 404 (NotFound from the first `anext`)."""
    async with engine.connect() as conn:
        await conn.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
        async with conn.begin():
            user = (await conn.execute(_USER, {"t": tenant_id, "u": user_id})).mappings().first()
            if user is None:
                raise NotFound(f"No user {user_id}.")
            header = {"version": VERSION, "exported_at": datetime.now(UTC), "user_id": user_id}
            yield _line(FORMAT, header) + _line("user", user)
            records = 1
            params = {"t": tenant_id, "u": user_id, "n": page_size}
            async for chunk, n in _sessions(conn, params):
                records += n
                yield chunk
            async for chunk, n in _pages(conn, _FACTS, params, "fact", ("valid_from", "fact_id"), ("c", "f")):
                records += n
                yield chunk
            async with conn.stream(_EVENTS, params) as events:
                async for part in events.mappings().partitions(page_size):
                    records += len(part)
                    yield b"".join(_line("fact_event", open_event(dict(r), tenant_id)) for r in part)
            yield _line("end", {"records": records})


async def _sessions(conn: AsyncConnection, params: dict[str, Any]) -> AsyncIterator[tuple[bytes, int]]:
    """Each session, then its messages, then its summaries."""
    key: dict[str, Any] = {"c": _EPOCH, "s": ""}
    while True:
        rows = (await conn.execute(_SESSIONS, {**params, **key})).mappings().all()
        for session in rows:
            yield _line("session", session), 1
            scope = {**params, "s": session["session_id"]}
            async for chunk in _pages(conn, _MESSAGES, scope, "message", ("seq",), ("after",)):
                yield chunk
            async for chunk in _pages(conn, _SUMMARIES, scope, "summary", ("to_seq",), ("after",)):
                yield chunk
        if len(rows) < params["n"]:
            return
        key = {"c": rows[-1]["created_at"], "s": rows[-1]["session_id"]}


async def _pages(
    conn: AsyncConnection,
    query: Any,
    params: dict[str, Any],
    kind: str,
    key_columns: tuple[str, ...],
    key_params: tuple[str, ...],
) -> AsyncIterator[tuple[bytes, int]]:
    """Keyset pages of one query, each page one chunk of lines."""
    start: dict[str, Any] = {"after": 0, "c": _EPOCH, "f": _NIL}  # before every key
    key = {p: start[p] for p in key_params}
    while True:
        rows = (await conn.execute(query, {**params, **key})).mappings().all()
        if rows:
            tenant = params["t"]
            yield b"".join(_line(kind, fields.open_row(dict(r), tenant)) for r in rows), len(rows)
        if len(rows) < params["n"]:
            return
        key = {p: rows[-1][c] for p, c in zip(key_params, key_columns, strict=True)}

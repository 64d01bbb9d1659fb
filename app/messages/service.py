"""Messages: batch append with gapless seq and idempotent retries; list, get, patch, delete."""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from app.ai.tokenizer import Tokenizer
from app.cache.window import Version
from app.crypto import fields
from app.db.index_text import message_keywords, plain_tsv_sql
from app.db.request import RequestDb
from app.db.sql import Direct, jsonb
from app.errors import IdempotencyConflict, NotFound, SessionEnded
from app.indexing import sentence_tasks
from app.jobs.due import SummaryPolicy, due_sql, record_change
from app.jsonutil import canonical, dumps
from app.merge_patch import merge_patch
from app.messages.schemas import AppendRequest, AppendResponse, MessageFilter, MessageOut
from app.pagination import INT, Keyset, Page, PageRequest
from app.sessions import counters
from app.sessions.service import require_session
from app.telemetry.context import current_traceparent

_COLS = "message_id, session_id, seq, role, name, content, metadata, token_count, created_at, updated_at"
# A cursor of one order is refused by the other: its position means the other side of the page.
_BY_SEQ = Keyset("messages", (INT,), ("seq",), two_way=True)
_BY_SEQ_DESC = Keyset("messages-desc", (INT,), ("seq",), descending=True, two_way=True)

# One round trip: bump the session's seq under its row lock (gapless: a rollback undoes the bump
# too), record a summary job if the batch makes one due (the policy's thresholds come as
# parameters), and insert the batch numbered from the old value. The jobs row is written in the
# same transaction as the messages, so a due summary cannot be lost. The rule is
# SummaryPolicy.due, in SQL (due_sql). A batch with a user message makes fact extraction due the same way.
_APPEND = text(
    f"""
    WITH s AS (
        UPDATE sessions SET {counters.APPENDED}
        WHERE tenant_id = :t AND session_id = :sid AND ended_at IS NULL
        RETURNING user_id, last_seq - :n AS base, last_seq, summarized_seq, unsummarized_tokens,
                  {counters.VERSION}
    ), j AS (
        INSERT INTO jobs (tenant_id, kind, session_id, trace_parent)
        SELECT :t, 'summarize', :sid, :tp FROM s WHERE {due_sql("s")}
        ON CONFLICT DO NOTHING
    ), x AS (
        INSERT INTO jobs (tenant_id, kind, session_id, trace_parent)
        SELECT :t, 'extract', :sid, :tp FROM s WHERE CAST(:extract AS boolean)
        ON CONFLICT DO NOTHING
    )
    INSERT INTO messages (message_id, tenant_id, session_id, user_id, seq, role, name, content,
                          metadata, token_count, created_at, updated_at, trace_parent, plain_tsv)
    SELECT m.id, :t, :sid, s.user_id, s.base + m.ord, m.role, m.name, m.content,
           CAST(m.meta AS jsonb), m.tok, coalesce(m.at, now()), now(), CAST(:tp AS text),
           to_tsvector('english'::regconfig, m.kw)
    FROM s, unnest(CAST(:ids AS uuid[]), CAST(:roles AS text[]), CAST(:names AS text[]),
                   CAST(:contents AS text[]), CAST(:metas AS text[]), CAST(:toks AS int[]),
                   CAST(:ats AS timestamptz[]), CAST(:kws AS text[]))
         WITH ORDINALITY AS m(id, role, name, content, meta, tok, at, kw, ord)
    RETURNING {_COLS}, (SELECT cache_gen FROM s) AS cache_gen, (SELECT epoch FROM s) AS epoch
    """
)
_APPEND_DIRECT = Direct.of(_APPEND)


@dataclass(frozen=True)
class Appended:
    answer: AppendResponse
    replayed: bool
    # The session's cache version before and after this append (None for a replay).
    base: Version | None = None
    new: Version | None = None


def _new_ids(n: int) -> list[uuid.UUID]:
    """`n` random (version 4) ids, as `uuid.uuid4` makes them, from one read of the system's
    randomness: uuid4 asks the kernel once per id, 100 system calls for a batch of 100."""
    raw = os.urandom(16 * n)
    return [uuid.UUID(bytes=raw[i : i + 16], version=4) for i in range(0, 16 * n, 16)]


def request_hash(body: AppendRequest) -> str:
    return hashlib.sha256(canonical(body.model_dump(mode="json"))).hexdigest()


async def append_messages(
    db: RequestDb,
    *,
    tenant_id: str,
    session_id: str,
    body: AppendRequest,
    tokenizer: Tokenizer,
    idempotency_key: str | None,
    idempotency_ttl: timedelta,
    policy: SummaryPolicy,
    extract_facts: bool,
) -> Appended:
    """Append the batch. A replay stores nothing and returns the first answer."""
    if idempotency_key is not None:
        replay = await _claim_key(
            await db.connection(),
            tenant_id=tenant_id,
            session_id=session_id,
            key=idempotency_key,
            digest=request_hash(body),
            ttl=idempotency_ttl,
        )
        if replay is not None:
            return Appended(answer=replay, replayed=True)

    msgs = body.messages
    toks = tokenizer.count_many([m.content for m in msgs])
    ids = _new_ids(len(msgs))
    params = {
        "t": tenant_id,
        "sid": session_id,
        "n": len(msgs),
        "ids": ids,
        "roles": [m.role.value for m in msgs],
        "names": [m.name for m in msgs],
        "contents": [
            fields.seal_text(m.content, tenant=tenant_id, table="messages", field="content", row=i)
            for m, i in zip(msgs, ids, strict=True)
        ],
        "metas": [
            dumps(fields.seal_meta(m.metadata, tenant=tenant_id, table="messages", row=i)).decode()
            for m, i in zip(msgs, ids, strict=True)
        ],
        "toks": toks,
        "tok_sum": sum(toks),
        "ats": [m.created_at for m in msgs],
        # The words of sealed texts, kept only on demand (app/db/index_text.py); None, a NULL
        # array, leaves `plain_tsv` NULL (unnest pads it).
        "kws": [message_keywords(name=m.name, content=m.content) for m in msgs]
        if fields.keeps_keywords()
        else None,
        **policy.sql_params(),
        "extract": extract_facts and any(m.role.value == "user" for m in msgs),
        "tp": current_traceparent(),  # None unless tracing is on
    }
    if idempotency_key is None:
        # The statement is atomic on its own: sent by itself on the lane, in autocommit, it is one
        # round trip (no BEGIN and COMMIT, no pool checkout), and committed when it returns.
        rows: Sequence[Any] = await db.lane.fetch(_APPEND_DIRECT.sql, *_APPEND_DIRECT.args(params))
    else:
        rows = (await (await db.connection()).execute(_APPEND, params)).mappings().all()
    if not rows:
        await _why_not_appended(await db.connection(), tenant_id=tenant_id, session_id=session_id)
    out = [_message_fields(r) for r in rows]
    if fields.keyring() is not None:  # the rows hold what was sealed: answer with what was sent
        sent = {str(i): m for i, m in zip(ids, msgs, strict=True)}  # asyncpg has its own UUID class
        for o in out:
            m = sent[str(o["message_id"])]
            o["content"], o["metadata"] = m.content, m.metadata
    answer = AppendResponse(messages=sorted((MessageOut(**o) for o in out), key=lambda m: m.seq))
    if idempotency_key is not None:
        await (await db.connection()).execute(
            text(
                "UPDATE idempotency_keys SET response = :r "
                "WHERE tenant_id = :t AND session_id = :s AND key = :k"
            ).bindparams(jsonb("r")),
            {
                "t": tenant_id,
                "s": session_id,
                "k": idempotency_key,
                "r": fields.seal_json(
                    answer.model_dump(mode="json"),
                    tenant=tenant_id,
                    table="idempotency_keys",
                    field="response",
                    row=f"{session_id}/{idempotency_key}",
                ),
            },
        )
    gen, epoch, last = rows[0]["cache_gen"], rows[0]["epoch"], answer.messages[-1].seq
    return Appended(
        answer=answer,
        replayed=False,
        base=Version(last_seq=last - len(msgs), cache_gen=gen, epoch=epoch),
        new=Version(last_seq=last, cache_gen=gen, epoch=epoch),
    )


def _message_fields(row: Any) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in ("cache_gen", "epoch")}


async def _claim_key(
    conn: AsyncConnection,
    *,
    tenant_id: str,
    session_id: str,
    key: str,
    digest: str,
    ttl: timedelta,
) -> AppendResponse | None:
    """Claim the key for this request, or return the answer of the request that holds it.

    A concurrent request with the same key blocks on the primary key until the first commits
    (then replays its answer) or rolls back (then claims the key itself).
    """
    try:
        claimed = (
            await conn.execute(
                text(
                    "INSERT INTO idempotency_keys (tenant_id, session_id, key, request_hash) "
                    "VALUES (:t, :s, :k, :h) ON CONFLICT (tenant_id, session_id, key) DO UPDATE "
                    "SET request_hash = excluded.request_hash, response = NULL, created_at = now() "
                    "WHERE idempotency_keys.created_at < now() - CAST(:ttl AS interval) "
                    "RETURNING 1"
                ),
                {"t": tenant_id, "s": session_id, "k": key, "h": digest, "ttl": ttl},
            )
        ).scalar()
    except IntegrityError:  # the session's foreign key: no such session in this tenant
        raise NotFound(f"No session {session_id}.") from None
    if claimed:
        return None
    row = (
        await conn.execute(
            text(
                "SELECT request_hash, response FROM idempotency_keys "
                "WHERE tenant_id = :t AND session_id = :s AND key = :k"
            ),
            {"t": tenant_id, "s": session_id, "k": key},
        )
    ).one()
    if row.request_hash != digest:
        raise IdempotencyConflict(
            "This Idempotency-Key was used for a different request body; use a new key."
        )
    return AppendResponse.model_validate(
        fields.open_json(
            row.response,
            tenant=tenant_id,
            table="idempotency_keys",
            field="response",
            row=f"{session_id}/{key}",
        )
    )


async def _why_not_appended(conn: AsyncConnection, *, tenant_id: str, session_id: str) -> None:
    ended = (
        await conn.execute(
            text("SELECT ended_at FROM sessions WHERE tenant_id = :t AND session_id = :s"),
            {"t": tenant_id, "s": session_id},
        )
    ).first()
    if ended is None:
        raise NotFound(f"No session {session_id}.")
    raise SessionEnded(f"Session {session_id} has ended; reopen it (PATCH ended=false) to append.")


async def list_messages(
    conn: AsyncConnection,
    *,
    tenant_id: str,
    session_id: str,
    page: PageRequest,
    found: MessageFilter,
) -> Page[MessageOut]:
    """Keyset pages by seq in either order; `prev_cursor` walks back toward the start."""
    await require_session(conn, tenant_id=tenant_id, session_id=session_id)
    where = ["tenant_id = :t", "session_id = :s"]
    params: dict[str, Any] = {"t": tenant_id, "s": session_id}
    if found.roles:
        where.append("role = ANY(CAST(:roles AS text[]))")
        params["roles"] = [r.value for r in found.roles]
    if found.created_after is not None:
        where.append("created_at >= :after")
        params["after"] = found.created_after
    if found.created_before is not None:
        where.append("created_at < :before")
        params["before"] = found.created_before
    # Forward in the requested order, or back (the page before the cursor) in the other.
    seek = (_BY_SEQ_DESC if found.descending else _BY_SEQ).seek(page)
    rows = (
        (
            await conn.execute(
                text(f"SELECT {_COLS} FROM messages WHERE {seek.where(*where)} {seek.tail}"),
                {**params, **seek.params},
            )
        )
        .mappings()
        .all()
    )
    items = [MessageOut(**fields.open_row(dict(r), tenant_id)) for r in rows]
    return seek.page(items, lambda m: (m.seq,))


async def get_message(
    conn: AsyncConnection, *, tenant_id: str, session_id: str, message_id: uuid.UUID
) -> MessageOut:
    row = (
        (
            await conn.execute(
                text(
                    f"SELECT {_COLS} FROM messages "
                    "WHERE tenant_id = :t AND session_id = :s AND message_id = :m"
                ),
                {"t": tenant_id, "s": session_id, "m": message_id},
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"No message {message_id} in session {session_id}.")
    return MessageOut(**fields.open_row(dict(row), tenant_id))


async def patch_message(
    conn: AsyncConnection,
    *,
    tenant_id: str,
    session_id: str,
    message_id: uuid.UUID,
    content: str | None,
    name: str | None,
    metadata: dict[str, Any] | None,
    tokenizer: Tokenizer,
) -> MessageOut:
    found = (
        await conn.execute(
            text(
                "SELECT seq, content, name, metadata, token_count FROM messages "
                "WHERE tenant_id = :t AND session_id = :s AND message_id = :m FOR UPDATE"
            ),
            {"t": tenant_id, "s": session_id, "m": message_id},
        )
    ).first()
    if found is None:
        raise NotFound(f"No message {message_id} in session {session_id}.")
    current = fields.open_row({"message_id": message_id, **found._asdict()}, tenant_id)
    new_content = current["content"] if content is None else content
    # The index reads the speaker's name too (app/db/index_text.py).
    changed = new_content != current["content"] or (name is not None and name != current["name"])
    new_tokens = tokenizer.count(new_content)
    # The job row before the session row: the order the worker's step takes them in.
    if changed:  # what was derived from the old text is derived again by the worker
        await record_change(
            conn,
            tenant_id=tenant_id,
            session_id=session_id,
            message_id=message_id,
            seq=current["seq"],
            change="edited",
        )
    await counters.message_changed(
        conn,
        tenant_id=tenant_id,
        session_id=session_id,
        seq=current["seq"],
        token_delta=new_tokens - current["token_count"],
    )
    row = (
        (
            await conn.execute(
                text(
                    "UPDATE messages SET content = :c, name = :n, metadata = :md, token_count = :tok, "
                    f"updated_at = now(), plain_tsv = {plain_tsv_sql('kw')}, "
                    # A new text invalidates its embedding; the worker derives it again.
                    "embedding = CASE WHEN CAST(:changed AS boolean) THEN NULL ELSE embedding END, "
                    "embed_status = CASE WHEN CAST(:changed AS boolean) THEN 'pending' "
                    "  ELSE embed_status END, "
                    "embed_attempts = CASE WHEN CAST(:changed AS boolean) THEN 0 ELSE embed_attempts END, "
                    "embed_after = CASE WHEN CAST(:changed AS boolean) THEN now() ELSE embed_after END, "
                    "embed_error = CASE WHEN CAST(:changed AS boolean) THEN NULL ELSE embed_error END "
                    f"WHERE tenant_id = :t AND session_id = :s AND message_id = :m RETURNING {_COLS}"
                ).bindparams(jsonb("md")),
                {
                    "t": tenant_id,
                    "s": session_id,
                    "m": message_id,
                    "c": fields.seal_text(
                        new_content, tenant=tenant_id, table="messages", field="content", row=message_id
                    ),
                    "n": current["name"] if name is None else name,
                    "md": fields.seal_meta(
                        current["metadata"]
                        if metadata is None
                        else merge_patch(current["metadata"], metadata),
                        tenant=tenant_id,
                        table="messages",
                        row=message_id,
                    ),
                    "tok": new_tokens,
                    "changed": changed,
                    "kw": fields.keyword_text(
                        message_keywords(name=current["name"] if name is None else name, content=new_content)
                    ),
                },
            )
        )
        .mappings()
        .one()
    )
    if changed:  # its sentences' vectors too; the worker queues them again with its new vector
        await sentence_tasks.forget(conn, [message_id])
    return MessageOut(**fields.open_row(dict(row), tenant_id))


async def delete_message(
    conn: AsyncConnection, *, tenant_id: str, session_id: str, message_id: uuid.UUID
) -> None:
    gone = (
        await conn.execute(
            text(
                "DELETE FROM messages WHERE tenant_id = :t AND session_id = :s AND message_id = :m "
                "RETURNING seq, token_count"
            ),
            {"t": tenant_id, "s": session_id, "m": message_id},
        )
    ).first()
    if gone is None:
        raise NotFound(f"No message {message_id} in session {session_id}.")
    # Facts and summaries it gave are derived again (or ended) by the worker.
    await record_change(
        conn,
        tenant_id=tenant_id,
        session_id=session_id,
        message_id=message_id,
        seq=gone.seq,
        change="deleted",
    )
    await counters.message_changed(
        conn, tenant_id=tenant_id, session_id=session_id, seq=gone.seq, token_delta=-gone.token_count
    )

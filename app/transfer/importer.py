"""Import: a validated upload (app.transfer.upload) written into one user of the caller's tenant,
all or nothing, in one transaction.

The records are staged in temporary tables a batch at a time, then written with one statement per
table: ids placed (kept where they already are the target user's, else derived from the target and
the old id, whatever else the database holds), references remapped, rows already present left as
they are (so importing a file twice changes nothing), the sessions' watermarks set from what they
hold, and the work still missing (embeddings; summaries or extraction only where the file leaves
them due) queued on the worker's usual paths.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.ai.tokenizer import Tokenizer
from app.errors import Conflict
from app.facts.tasks import KIND as EXTRACT
from app.facts.tasks import lock_user_facts
from app.jobs.due import SummaryPolicy
from app.jsonutil import dumps
from app.summaries.tasks import KIND as SUMMARIZE
from app.transfer import import_sql as q
from app.transfer.format import (
    FactEventRecord,
    FactRecord,
    MessageRecord,
    Record,
    SessionRecord,
    SummaryRecord,
    line_error,
)
from app.transfer.schemas import Counts, ImportResult
from app.transfer.sealing import seal_staged
from app.transfer.tasks import KIND as EMBED_SUMMARIES
from app.transfer.upload import Upload

# Candidates per id after the id itself (see import_sql.PLACE_IDS); past them an id cannot be placed.
TRIES = 3
_TABLES: dict[type[Any], str] = {
    SessionRecord: "imp_sessions",
    MessageRecord: "imp_messages",
    SummaryRecord: "imp_summaries",
    FactRecord: "imp_facts",
    FactEventRecord: "imp_events",
}


async def import_user(
    engine: AsyncEngine,
    *,
    tenant_id: str,
    user_id: str,
    upload: Upload,
    tokenizer: Tokenizer,
    policy: SummaryPolicy,
    extract_facts: bool,
) -> ImportResult:
    """Write the upload into (tenant, user) in a transaction of its own: committed on return."""
    async with engine.begin() as conn:
        staged = await _stage(conn, upload, tokenizer)
        await _refuse_duplicates(conn)
        params = {"t": tenant_id, "u": user_id}
        created = Counts(users=await _user(conn, params, upload))
        gen = time.time_ns() // 1000
        created.sessions = (await conn.execute(q.CREATE_SESSIONS, {**params, "gen": gen})).rowcount
        await _lock_sessions(conn, params, staged=staged["sessions"])
        await _refuse_foreign_fact_sessions(conn, params)
        # After the session locks, like a worker step (which holds its session, then this lock).
        await lock_user_facts(conn, tenant_id=tenant_id, user_id=user_id)
        await _place_ids(conn, params)
        await seal_staged(conn, tenant_id=tenant_id)
        created.messages = await _count(conn, q.MESSAGES, params)
        created.summaries = await _count(conn, q.SUMMARIES, {**params, "embed_kind": EMBED_SUMMARIES})
        created.facts = await _count(conn, q.FACTS, params)
        created.fact_events = await _count(conn, q.EVENTS, params)
        await conn.execute(
            q.WATERMARKS,
            {
                **params,
                **policy.sql_params(),
                "extract": extract_facts,
                "summarize_kind": SUMMARIZE,
                "extract_kind": EXTRACT,
            },
        )
    total = Counts(users=1, **staged)
    present = Counts(**{k: getattr(total, k) - v for k, v in created.model_dump().items()})
    return ImportResult(user_id=user_id, created=created, already_present=present)


async def _stage(conn: AsyncConnection, upload: Upload, tokenizer: Tokenizer) -> dict[str, int]:
    """Every record into its staging table, one statement per table and batch; returns the counts."""
    for table in q.STAGES:
        await conn.execute(q.create_stage(table))
    for ddl in q.SCRATCH:
        await conn.execute(text(ddl))
    counts: dict[str, int] = defaultdict(int)

    def rows_of(batch: list[tuple[int, Record]]) -> dict[str, tuple[str, int]]:
        """Per staging table: its rows of the batch as one JSON array, and how many."""
        rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for number, record in batch:
            table = _TABLES.get(type(record))
            if table is not None:
                rows[table].append(_row(number, record, tokenizer))
        return {table: (dumps(items).decode(), len(items)) for table, items in rows.items()}

    async for staged in upload.batches(rows_of):
        for table, (payload, n) in staged.items():
            await conn.execute(q.stage(table), {"rows": payload})
            counts[table] += n
    return {
        "sessions": counts["imp_sessions"],
        "messages": counts["imp_messages"],
        "summaries": counts["imp_summaries"],
        "facts": counts["imp_facts"],
        "fact_events": counts["imp_events"],
    }


def _row(number: int, record: Record, tokenizer: Tokenizer) -> dict[str, Any]:
    row = record.model_dump(mode="json", exclude={"type"})
    row["line"] = number
    if isinstance(record, MessageRecord | SummaryRecord):
        # Counted by this server's tokenizer: memory budgets rely on them being exact here.
        row["token_count"] = tokenizer.count(record.content)
    return row


async def _refuse_duplicates(conn: AsyncConnection) -> None:
    dup = (await conn.execute(q.DUPLICATE)).first()
    if dup is not None:
        raise line_error(dup.line, f"repeats the {dup.field} of an earlier line", "duplicate", [dup.field])


async def _user(conn: AsyncConnection, params: dict[str, str], upload: Upload) -> int:
    """Create the target user from the file's user record if new; returns 1 if created."""
    user = upload.check.user
    values = {
        **params,
        "md": dumps(user.metadata if user else {}).decode(),
        "c": user.created_at if user else None,
        "up": user.updated_at if user else None,
    }
    for _ in range(2):
        if (await conn.execute(q.CREATE_USER, values)).first() is not None:
            return 1
        if (await conn.execute(q.KEEP_USER, params)).first() is not None:
            return 0
        # Purged between the two statements: create it again.
    raise Conflict("The user was deleted while this import ran; send it again.")


async def _lock_sessions(conn: AsyncConnection, params: dict[str, str], *, staged: int) -> None:
    """Lock the file's sessions (appends and worker steps on them wait) and refuse the import if
    one belongs to another user: session ids are the tenant's, so it may know, but not write there."""
    rows = (await conn.execute(q.LOCK_SESSIONS, params)).all()
    if len(rows) < staged:
        raise Conflict("A session of the file was deleted while this import ran; nothing was imported.")
    for row in rows:
        if not row.mine:
            msg = f"session {row.session_id} belongs to another user of this tenant"
            raise Conflict(
                f"line {row.line}: {msg}.",
                errors=[{"loc": ["line", row.line, "session_id"], "msg": msg, "type": "owner"}],
                line=row.line,
            )


async def _refuse_foreign_fact_sessions(conn: AsyncConnection, params: dict[str, str]) -> None:
    row = (await conn.execute(q.FOREIGN_FACT_SESSION, params)).first()
    if row is not None:
        msg = f"session {row.session_id} belongs to another user of this tenant"
        raise line_error(row.line, msg, "owner", ["session_id"])


async def _place_ids(conn: AsyncConnection, params: dict[str, str]) -> None:
    await conn.execute(q.COLLECT_IDS)
    await conn.execute(q.PLACE_IDS, {**params, "tries": TRIES})
    if (await conn.execute(q.UNPLACED)).scalar_one():
        raise Conflict("Some ids of the file are taken and no derived id is free; nothing was imported.")


async def _count(conn: AsyncConnection, statement: Any, params: dict[str, Any]) -> int:
    return int((await conn.execute(statement, params)).scalar_one())

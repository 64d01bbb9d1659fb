"""Encryption of an import (ENGRAM_ENCRYPTION_KEYS on): the staged rows are sealed in place once
their ids are placed, before the set-based writes copy them into the tables.

A sealed value is bound to its row's id, and the ids an import writes are only known after
import_sql.PLACE_IDS; so the staging tables (temporary, dropped at commit) hold the file's plain
text for the length of the transaction, and the tables themselves never do.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.crypto import fields
from app.jsonutil import dumps

# Per staging table: its id column, its imp_map kind, the row's table, its texts, and whether it has metadata.
_STAGED: tuple[tuple[str, str, str, str, tuple[str, ...], bool], ...] = (
    ("imp_messages", "message_id", "m", "messages", ("content",), True),
    ("imp_summaries", "summary_id", "s", "summaries", ("content",), False),
    ("imp_facts", "fact_id", "f", "facts", ("content",), True),
    ("imp_events", "fact_id", "f", "fact_events", ("old_content", "new_content"), False),
)


async def seal_staged(conn: AsyncConnection, *, tenant_id: str) -> None:
    if fields.keyring() is None:
        return
    for stage, id_col, kind, table, texts, has_meta in _STAGED:
        cols = ", ".join(f"i.{c}" for c in (*texts, *(("metadata",) if has_meta else ())))
        rows = (
            await conn.execute(
                text(
                    f"SELECT i.line, p.new, {cols} FROM {stage} i "
                    f"JOIN imp_map p ON p.kind = '{kind}' AND p.old = i.{id_col}"
                )
            )
        ).all()
        if not rows:
            continue
        sealed: list[dict[str, Any]] = []
        for r in rows:
            m = r._mapping
            out: dict[str, Any] = {"line": r.line}
            for c in texts:
                out[c] = fields.seal_optional(m[c], tenant=tenant_id, table=table, field=c, row=r.new)
            if has_meta:
                out["metadata"] = fields.seal_meta(
                    m["metadata"] or {}, tenant=tenant_id, table=table, row=r.new
                )
            sealed.append(out)
        sets = ", ".join(f"{c} = v.{c}" for c in (*texts, *(("metadata",) if has_meta else ())))
        shape = ", ".join(
            ["line int", *(f"{c} text" for c in texts), *(("metadata jsonb",) if has_meta else ())]
        )
        await conn.execute(
            text(
                f"UPDATE {stage} i SET {sets} FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS v({shape}) "
                "WHERE i.line = v.line"
            ),
            {"rows": dumps(sealed).decode()},
        )

"""Encryption of an import (ENGRAM_ENCRYPTION_KEYS on): the staged rows are sealed in place once
their ids are placed, before the set-based writes copy them into the tables.

A sealed value is bound to its row's id, and the ids an import writes are only known after
import_sql.PLACE_IDS; so the staging tables (temporary, dropped at commit) hold the file's plain
text for the length of the transaction, and the tables themselves never do. With
ENGRAM_ENCRYPTION_KEYWORD_INDEX=keep the staged rows get the keyword index of their plain text
(`plain_tsv`) in the same step, as an append's rows do.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.crypto import fields
from app.db.index_text import message_keywords
from app.jsonutil import dumps

# Per staging table: its id column, its imp_map kind, the row's table, its texts, whether it has
# metadata, and whether it has a keyword index (`plain_tsv`, import_sql.INDEXED).
_STAGED: tuple[tuple[str, str, str, str, tuple[str, ...], bool, bool], ...] = (
    ("imp_messages", "message_id", "m", "messages", ("content",), True, True),
    ("imp_summaries", "summary_id", "s", "summaries", ("content",), False, True),
    ("imp_facts", "fact_id", "f", "facts", ("content",), True, True),
    ("imp_events", "fact_id", "f", "fact_events", ("old_content", "new_content"), False, False),
)


async def seal_staged(conn: AsyncConnection, *, tenant_id: str) -> None:
    if fields.keyring() is None:
        return
    for stage, id_col, kind, table, texts, has_meta, indexed in _STAGED:
        # The words of the plain text, kept on demand (fields.keyword_text): a message's with its name.
        keywords = indexed and fields.keeps_keywords()
        named = keywords and table == "messages"
        cols = ", ".join(
            f"i.{c}" for c in (*texts, *(("metadata",) if has_meta else ()), *(("name",) if named else ()))
        )
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
            if keywords and m["content"] is not None:
                plain = m["content"]
                out["kw"] = message_keywords(name=m["name"], content=plain) if named else plain
            sealed.append(out)
        sets = ", ".join(f"{c} = v.{c}" for c in (*texts, *(("metadata",) if has_meta else ())))
        if keywords:
            sets += ", plain_tsv = to_tsvector('english'::regconfig, v.kw)"
        shape = ", ".join(
            [
                "line int",
                *(f"{c} text" for c in texts),
                *(("metadata jsonb",) if has_meta else ()),
                *(("kw text",) if keywords else ()),
            ]
        )
        await conn.execute(
            text(
                f"UPDATE {stage} i SET {sets} FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS v({shape}) "
                "WHERE i.line = v.line"
            ),
            {"rows": dumps(sealed).decode()},
        )

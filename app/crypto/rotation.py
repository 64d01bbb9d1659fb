"""Re-encryption: the worker's sweep that moves every sealed value to the primary key.

When ENGRAM_ENCRYPTION_KEYS names a new first key (or is set on a database with plain rows), rows
sealed under another key id, or not sealed at all, are sealed again under the primary, table by
table in keyset batches of ENGRAM_ENCRYPTION_ROTATION_BATCH rows, one transaction each. Where a
table's sweep stands (the last key passed) is written in that transaction, so a worker killed
mid-way goes on from its last batch. Each row is written back only if it still holds what was read
(compare and set): an edit that lands meanwhile wins and is already sealed under the primary, so
nothing waits on the sweep and nothing written meanwhile is lost. A pass that rewrote anything is
followed by another; a clean pass over every table retires the other key ids
(`encryption_keys.retired_at`), which may then leave the list.

The same sweep applies ENGRAM_ENCRYPTION_KEYWORD_INDEX to the rows already written: with `keep`, a
sealed row without the keyword index of its plain text (`plain_tsv`) gets it; with `drop`, a row
that has one loses it. A pass is for one primary key and one setting (`encryption_rotation`'s
`key_id` and `keyword_index`): changing either starts a new pass, resumable like any other.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import orjson
import structlog
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.crypto import fields
from app.crypto.envelope import Keyring, key_id_of
from app.db.index_text import message_keywords, plain_tsv_sql
from app.db.sql import jsonb

_log = structlog.get_logger("engram.crypto")
RUN_SECONDS = 0.5  # work per sweep run before the worker's other steps get their turn


@dataclass(frozen=True)
class Table:
    name: str
    keys: tuple[str, ...]  # the keyset order (the primary key)
    row: str  # the SQL expression of the id a value's associated data names
    texts: tuple[str, ...] = ("content",)
    meta: bool = False
    json: str | None = None  # a JSON column sealed whole
    keywords: bool = False  # has `plain_tsv`, the keyword index of its sealed `content`


TABLES = (
    Table("messages", ("message_id",), "message_id::text", meta=True, keywords=True),
    Table("summaries", ("summary_id",), "summary_id::text", keywords=True),
    Table("facts", ("fact_id",), "fact_id::text", meta=True, keywords=True),
    Table("fact_events", ("id",), "fact_id::text", texts=("old_content", "new_content")),
    Table(
        "idempotency_keys",
        ("tenant_id", "session_id", "key"),
        "session_id || '/' || key",
        texts=(),
        json="response",
    ),
)


def _stale_text(value: str | None, primary: str) -> bool:
    return value is not None and key_id_of(value) != primary


def _stale_json(value: Any, primary: str) -> bool:
    if value is None:
        return False
    sealed = value.get(fields.SEALED) if isinstance(value, dict) else None
    return not isinstance(sealed, str) or key_id_of(sealed) != primary


def _resealed(t: Table, row: Any, ring: Keyring) -> dict[str, Any] | None:
    """The row's new values and the old ones they replace, or None if all are under the primary."""
    m = row._mapping
    primary, tenant, rid = ring.primary, m["tenant_id"], m["rid"]
    new: dict[str, Any] = {}
    for c in t.texts:
        if _stale_text(m[c], primary):
            plain = fields.open_text(m[c], tenant=tenant, table=t.name, field=c, row=rid)
            new[c] = fields.seal_text(plain, tenant=tenant, table=t.name, field=c, row=rid)
    if t.meta and fields.meta_key_ids(m["metadata"]) - {primary}:
        plain_meta = fields.open_meta(m["metadata"], tenant=tenant, table=t.name, row=rid)
        new["metadata"] = fields.seal_meta(plain_meta, tenant=tenant, table=t.name, row=rid)
    if t.json is not None and _stale_json(m[t.json], primary):
        plain_json = fields.open_json(m[t.json], tenant=tenant, table=t.name, field=t.json, row=rid)
        new[t.json] = fields.seal_json(plain_json, tenant=tenant, table=t.name, field=t.json, row=rid)
    return new or None


def _mode(ring: Keyring) -> str:
    return "keep" if ring.keep_keywords else "drop"


def _keyword_text(t: Table, row: Any, ring: Keyring) -> str | None:
    """What the row's `plain_tsv` should index under the setting: its plain text with `keep`
    (a message's with its speaker's name, as an append indexes it), nothing with `drop`."""
    if not ring.keep_keywords:
        return None
    m = row._mapping
    plain = fields.open_text(m["content"], tenant=m["tenant_id"], table=t.name, field="content", row=m["rid"])
    return message_keywords(name=m["name"], content=plain) if t.name == "messages" else plain


def _columns(t: Table) -> list[str]:
    return [*t.texts, *(["metadata"] if t.meta else []), *([t.json] if t.json else [])]


async def _batch(
    conn: AsyncConnection, t: Table, ring: Keyring, after: list[Any] | None, n: int
) -> tuple[list[Any] | None, int, int]:
    """One batch after `after` (None: from the start). Returns the last key read (None: the pass
    ended), the rows read and the rows rewritten."""
    keys = ", ".join(t.keys)
    where = ""
    params: dict[str, Any] = {"n": n}
    if after is not None:
        where = f"WHERE ({keys}) > ({', '.join(f':k{i}' for i in range(len(t.keys)))})"
        params.update({f"k{i}": v for i, v in enumerate(after)})
    cols = _columns(t)
    picked = ["tenant_id", f"{t.row} AS rid", *(k for k in t.keys if k != "tenant_id"), *cols]
    if t.keywords:
        picked += ["plain_tsv IS NOT NULL AS has_tsv", *(["name"] if t.name == "messages" else [])]
    rows = (
        await conn.execute(
            text(f"SELECT {', '.join(picked)} FROM {t.name} {where} ORDER BY {keys} LIMIT :n"),
            params,
        )
    ).all()
    updates = []
    for r in rows:
        new = _resealed(t, r, ring)
        m = r._mapping
        # The keyword index is out of step with the setting: missing under `keep` (or the content
        # is sealed only now), present under `drop`.
        reindex = t.keywords and (
            (ring.keep_keywords and (not m["has_tsv"] or "content" in (new or {})))
            or (not ring.keep_keywords and m["has_tsv"])
        )
        if new is None and not reindex:
            continue
        update: dict[str, Any] = {f"k{i}": m[k] for i, k in enumerate(t.keys)}
        for c in cols:
            update[f"old_{c}"] = m[c]
            update[f"new_{c}"] = (new or {}).get(c, m[c])
        if t.keywords:
            update["kw"] = _keyword_text(t, r, ring)
        updates.append(update)
    if updates:
        json_cols = [c for c in cols if c == "metadata" or c == t.json]
        sets = ", ".join(f"{c} = :new_{c}" for c in cols)
        if t.keywords:  # every write sets it: a row the sweep writes agrees with the setting
            sets += f", plain_tsv = {plain_tsv_sql('kw')}"
        # The content's own value is the check: an edit meanwhile re-seals it (a new nonce), so
        # its new name and keyword index are never overwritten with this read's.
        match = " AND ".join(
            [f"{k} = :k{i}" for i, k in enumerate(t.keys)]
            + [f"{c} IS NOT DISTINCT FROM :old_{c}" for c in cols]
        )
        stmt = text(f"UPDATE {t.name} SET {sets} WHERE {match}").bindparams(
            *[jsonb(f"{p}_{c}") for c in json_cols for p in ("old", "new")]
        )
        await conn.execute(stmt, updates)
    if len(rows) < n:
        return None, len(rows), len(updates)
    last = rows[-1]._mapping
    return [last[k] for k in t.keys], len(rows), len(updates)


@dataclass
class Progress:
    table: str
    key_id: str
    rewritten: int
    done: bool


class Rotation:
    """The sweep (one per worker); `run` is its body, called by the worker's sweep clock."""

    def __init__(self, engine: AsyncEngine, *, batch: int, on_rewritten: Any = None) -> None:
        self.engine = engine
        self.batch = batch
        self._on_rewritten = on_rewritten
        # The primary and keyword setting every table is done for (nothing to do).
        self.finished_for: tuple[str, str] | None = None

    async def run(self) -> int:
        """Re-encrypt for up to RUN_SECONDS; returns the rows rewritten."""
        ring = fields.keyring()
        if ring is None or self.finished_for == (ring.primary, _mode(ring)):
            return 0
        deadline = time.monotonic() + RUN_SECONDS
        total = 0
        pending = False
        for t in TABLES:
            while time.monotonic() < deadline:
                step = await self._step(t, ring)
                if step is None:  # done, or another worker holds the table
                    break
                total += step
            else:
                pending = True
        if not pending and await self._all_done(ring):
            self.finished_for = (ring.primary, _mode(ring))
        return total

    async def _step(self, t: Table, ring: Keyring) -> int | None:
        """One batch of table `t` in a transaction of its own; None when there is none to do."""
        async with self.engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO encryption_rotation (table_name, key_id) VALUES (:t, :k) "
                    "ON CONFLICT (table_name) DO NOTHING"
                ),
                {"t": t.name, "k": ring.primary},
            )
            state = (
                await conn.execute(
                    text(
                        "SELECT key_id, keyword_index, after, dirty, done FROM encryption_rotation "
                        "WHERE table_name = :t "
                        "FOR UPDATE SKIP LOCKED"
                    ),
                    {"t": t.name},
                )
            ).first()
            if state is None:
                return None
            mode = _mode(ring)
            if state.key_id != ring.primary or state.keyword_index != mode:  # a new sweep from the start
                after, dirty, done = "", False, False
            else:
                after, dirty, done = state.after, state.dirty, state.done
            if done:
                return None
            last, _, rewritten = await _batch(
                conn, t, ring, orjson.loads(after) if after else None, self.batch
            )
            dirty = dirty or rewritten > 0
            if last is None:  # the pass is over: clean, the table is done; else pass again
                after, done, dirty = "", not dirty, False
            else:
                after = orjson.dumps(last, default=str).decode()
            await conn.execute(
                text(
                    "UPDATE encryption_rotation SET key_id = :k, keyword_index = :m, after = :a, dirty = :d, "
                    "done = :done, rewritten = CASE WHEN key_id = :k AND keyword_index = :m "
                    "THEN rewritten ELSE 0 END + :n, updated_at = now() WHERE table_name = :t"
                ),
                {
                    "t": t.name,
                    "k": ring.primary,
                    "m": mode,
                    "a": after,
                    "d": dirty,
                    "done": done,
                    "n": rewritten,
                },
            )
        if rewritten and self._on_rewritten is not None:
            self._on_rewritten(t.name, rewritten)
        return rewritten

    async def _all_done(self, ring: Keyring) -> bool:
        async with self.engine.begin() as conn:
            done = (
                await conn.execute(
                    text(
                        "SELECT count(*) FROM encryption_rotation WHERE key_id = :k AND keyword_index = :m "
                        "AND done AND table_name = ANY(CAST(:names AS text[]))"
                    ),
                    {"k": ring.primary, "m": _mode(ring), "names": [t.name for t in TABLES]},
                )
            ).scalar_one()
            if done < len(TABLES):
                return False
            retired = (
                (
                    await conn.execute(
                        text(
                            "UPDATE encryption_keys SET retired_at = now() "
                            "WHERE key_id <> :k AND retired_at IS NULL RETURNING key_id"
                        ),
                        {"k": ring.primary},
                    )
                )
                .scalars()
                .all()
            )
        if retired:
            _log.info("encryption keys retired: no row is sealed under them", keys=sorted(retired))
        return True


async def status(conn: AsyncConnection) -> dict[str, Any]:
    """The keys that sealed data here and where the sweep of each table stands."""
    keys = (
        (
            await conn.execute(
                text("SELECT key_id, created_at, retired_at FROM encryption_keys ORDER BY created_at")
            )
        )
        .mappings()
        .all()
    )
    tables = (
        (
            await conn.execute(
                text(
                    "SELECT table_name, key_id, keyword_index, rewritten, done, updated_at "
                    "FROM encryption_rotation "
                    "ORDER BY table_name"
                )
            )
        )
        .mappings()
        .all()
    )
    return {"keys": [dict(k) for k in keys], "rotation": [dict(t) for t in tables]}

"""Encrypted fields: message content, summaries, fact text and metadata values (ENGRAM_ENCRYPTION_KEYS).

The keyring is a context variable: the fields are sealed and opened deep inside services that have
no settings in hand. The API's middleware sets it for each request (app/crypto/middleware.py), the
lifespan and `engram worker` for the worker's tasks (which inherit it), so two apps in one process
(the tests) each keep their own. Off (no keys), every function returns its input after one test.

Each value's associated data names its place, `tenant / table / field / row`, so a value moved to
another row, field or tenant does not open. Metadata keeps its keys in clear (filters and the
role-bias switch read them) and seals each value as `{"$enc": <envelope>, "$bi": <blind index>}`:
the blind index, a keyed hash of the whole value, is what a metadata filter matches (`filters`).
"""

from __future__ import annotations

from collections.abc import Iterable
from contextvars import ContextVar, Token
from types import SimpleNamespace
from typing import Any

import orjson

from app.crypto.envelope import Keyring, is_sealed, key_id_of
from app.jsonutil import canonical

_RING: ContextVar[Keyring | None] = ContextVar("engram_keyring", default=None)
SEALED = "$enc"
INDEX = "$bi"


def configure(spec: str | None, *, keep_keywords: bool = False) -> Keyring | None:
    """Use the keys of `spec` (ENGRAM_ENCRYPTION_KEYS) from now on in this context; None: off."""
    ring = Keyring(spec, keep_keywords=keep_keywords) if spec else None
    _RING.set(ring)
    return ring


def use(ring: Keyring | None) -> Token[Keyring | None]:
    """Use `ring` in this context until `done(token)`."""
    return _RING.set(ring)


def done(token: Token[Keyring | None]) -> None:
    _RING.reset(token)


def keyring() -> Keyring | None:
    return _RING.get()


def keeps_keywords() -> bool:
    """Encryption on with ENGRAM_ENCRYPTION_KEYWORD_INDEX=keep: a sealed text's words are indexed."""
    ring = _RING.get()
    return ring is not None and ring.keep_keywords


def keyword_text(plain: str) -> str | None:
    """What the `plain_tsv` column of a row whose text is sealed indexes (app/db/index_text.py):
    the plain text when the words are kept, else None (nothing: the row is found by meaning only)."""
    return plain if keeps_keywords() else None


def aad(tenant: str, table: str, field: str, row: object) -> bytes:
    return f"{tenant}\x1f{table}\x1f{field}\x1f{row}".encode()


def seal_text(value: str, *, tenant: str, table: str, field: str, row: object) -> str:
    ring = _RING.get()
    if ring is None:
        return value
    return ring.seal(value, aad(tenant, table, field, row))


def open_text(value: str, *, tenant: str, table: str, field: str, row: object) -> str:
    ring = _RING.get()
    if ring is None or not value.startswith("engram-enc:"):
        return value
    return ring.open(value, aad(tenant, table, field, row))


def open_optional(value: str | None, *, tenant: str, table: str, field: str, row: object) -> str | None:
    return None if value is None else open_text(value, tenant=tenant, table=table, field=field, row=row)


def seal_optional(value: str | None, *, tenant: str, table: str, field: str, row: object) -> str | None:
    return None if value is None else seal_text(value, tenant=tenant, table=table, field=field, row=row)


def _index_data(tenant: str, key: str, value: Any) -> bytes:
    return f"{tenant}\x1f{key}\x1f".encode() + canonical(value)


def seal_meta(meta: dict[str, Any], *, tenant: str, table: str, row: object) -> dict[str, Any]:
    ring = _RING.get()
    if ring is None or not meta:
        return meta
    out: dict[str, Any] = {}
    for key, value in meta.items():
        sealed = ring.seal(orjson.dumps(value).decode(), aad(tenant, table, f"metadata.{key}", row))
        out[key] = {SEALED: sealed, INDEX: ring.blind_index(ring.primary, _index_data(tenant, key, value))}
    return out


def _is_sealed_value(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get(SEALED), str) and is_sealed(value[SEALED])


def open_meta(meta: dict[str, Any], *, tenant: str, table: str, row: object) -> dict[str, Any]:
    ring = _RING.get()
    if ring is None or not meta:
        return meta
    return {
        key: orjson.loads(ring.open(value[SEALED], aad(tenant, table, f"metadata.{key}", row)))
        if _is_sealed_value(value)
        else value
        for key, value in meta.items()
    }


def meta_key_ids(meta: dict[str, Any]) -> set[str | None]:
    """The key ids of a stored metadata object's values (None for a value in clear)."""
    return {key_id_of(v[SEALED]) if _is_sealed_value(v) else None for v in meta.values()}


def filters(meta: dict[str, Any], tenant: str) -> list[dict[str, Any]]:
    """What a metadata filter becomes in SQL (`metadata @> f` for any f of the list).

    Off: the filter itself (JSON containment). On: the blind index of each of its values, once per
    listed key (rows not yet rotated carry an older key's index), plus the filter itself for rows
    stored before encryption was turned on. A value is matched whole: containment inside a nested
    object or array no longer matches an encrypted row (docs/encryption.md)."""
    ring = _RING.get()
    if ring is None:
        return [meta]
    out = [
        {k: {INDEX: ring.blind_index(kid, _index_data(tenant, k, v))} for k, v in meta.items()}
        for kid in ring.key_ids
    ]
    return [*out, meta]


def any_of(column: str, name: str, options: Iterable[dict[str, Any]], params: dict[str, Any]) -> str:
    """`column @> :name0 OR ...` for `filters`' list, its parameters added to `params`."""
    parts = []
    for i, option in enumerate(options):
        params[f"{name}{i}"] = option
        parts.append(f"{column} @> :{name}{i}")
    return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"


def seal_json(value: Any, *, tenant: str, table: str, field: str, row: object) -> Any:
    """A JSON document stored whole (an idempotent append's first answer): `{"$enc": ...}` on."""
    ring = _RING.get()
    if ring is None:
        return value
    return {SEALED: ring.seal(orjson.dumps(value).decode(), aad(tenant, table, field, row))}


def open_json(value: Any, *, tenant: str, table: str, field: str, row: object) -> Any:
    ring = _RING.get()
    if ring is None or not _is_sealed_value(value):
        return value
    return orjson.loads(ring.open(value[SEALED], aad(tenant, table, field, row)))


# A row's table, told by its id column (searches and exports read rows of several tables alike).
_ROW_IDS = (("summary_id", "summaries"), ("fact_id", "facts"), ("message_id", "messages"))


def open_row(row: dict[str, Any], tenant: str) -> dict[str, Any]:
    """`row` (read from messages, summaries or facts) with its content and metadata opened, in place."""
    if _RING.get() is None:
        return row
    found = next(((c, t) for c, t in _ROW_IDS if c in row), None)
    if found is None:
        return row
    id_col, table = found
    rid = row[id_col]
    content = row.get("content")
    if isinstance(content, str):
        row["content"] = open_text(content, tenant=tenant, table=table, field="content", row=rid)
    meta = row.get("metadata")
    if table != "summaries" and isinstance(meta, dict):  # a summary's metadata is its seqs, made in SQL
        row["metadata"] = open_meta(meta, tenant=tenant, table=table, row=rid)
    return row


def open_contents(rows: Iterable[Any], *, tenant: str, table: str, id_col: str) -> list[Any]:
    """SQLAlchemy rows with a `content` column, that column opened: rows as they were when off,
    else namespaces with the same attributes (the worker's steps read rows by attribute)."""
    if _RING.get() is None:
        return list(rows)
    out = []
    for r in rows:
        d = r._asdict()
        d["content"] = open_text(d["content"], tenant=tenant, table=table, field="content", row=d[id_col])
        out.append(SimpleNamespace(**d))
    return out

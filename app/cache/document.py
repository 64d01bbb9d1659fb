"""What a window cache entry holds: a message's and a summary's document, as the memory answer
shows them, built here and nowhere else, from an API object (the write-through of an append) or
from the JSON arrays PostgreSQL returns (a window read on a miss).

Each message document carries the tokens of its context line under "lt", counted once when it
enters the cache, so the line's form (`message_line`) belongs to the document too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from app.crypto import fields

Doc = dict[str, Any]
Count = Callable[[str], int]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros(column: str) -> str:
    """SQL: a timestamptz column as integer microseconds since the epoch (what `from_micros` reads)."""
    return f"(extract(epoch FROM {column}) * 1000000)::bigint"


# The messages columns a window reads, and the JSON array `message_from_row` takes, in its order.
MESSAGE_COLUMNS = "message_id, seq, role, name, content, metadata, token_count, created_at, updated_at"
MESSAGE_JSON = (
    "json_build_array(message_id, seq, role, name, content, metadata, token_count, "
    f"{micros('created_at')}, {micros('updated_at')})"
)
# The summaries columns as the JSON array `summary_from_row` takes.
SUMMARY_JSON = f"json_build_array(summary_id, from_seq, to_seq, content, token_count, {micros('created_at')})"


def iso(value: datetime) -> str:
    """The API's timestamp form (as pydantic writes it): ISO 8601 in UTC with a Z."""
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def from_micros(us: int) -> str:
    return iso(_EPOCH + timedelta(microseconds=us))


def message_doc(msg: Any) -> Doc:
    """A message from a MessageOut (an append's answer)."""
    return {
        "message_id": str(msg.message_id),
        "session_id": msg.session_id,
        "seq": msg.seq,
        "role": str(msg.role),
        "name": msg.name,
        "content": msg.content,
        "metadata": msg.metadata,
        "token_count": msg.token_count,
        "created_at": iso(msg.created_at),
        "updated_at": iso(msg.updated_at),
    }


def message_from_row(tenant_id: str, session_id: str, row: Sequence[Any]) -> Doc:
    """A message from its MESSAGE_JSON array (its sealed fields opened)."""
    mid, seq, role, name, content, metadata, tokens, created, updated = row
    if fields.keyring() is not None:
        where = {"tenant": tenant_id, "table": "messages", "row": mid}
        content = fields.open_text(content, field="content", **where)
        metadata = fields.open_meta(metadata, **where)
    return {
        "message_id": str(mid),
        "session_id": session_id,
        "seq": seq,
        "role": role,
        "name": name,
        "content": content,
        "metadata": metadata,
        "token_count": tokens,
        "created_at": from_micros(created),
        "updated_at": from_micros(updated),
    }


def summary_from_row(tenant_id: str, row: Sequence[Any] | None) -> Doc | None:
    """A summary from its SUMMARY_JSON array, its text opened (None: the session has none)."""
    if row is None:
        return None
    sid, from_seq, to_seq, content, tokens, created = row
    content = fields.open_text(content, tenant=tenant_id, table="summaries", field="content", row=sid)
    return {
        "summary_id": str(sid),
        "from_seq": from_seq,
        "to_seq": to_seq,
        "content": content,
        "token_count": tokens,
        "created_at": from_micros(created),
    }


def message_line(doc: Doc) -> str:
    """A message's line in the context (the template in app/memory/context.py)."""
    at = str(doc["created_at"])
    stamp = f"{at[:10]} {at[11:16]} UTC"
    who = f"{doc['role']} ({doc['name']})" if doc.get("name") else str(doc["role"])
    return f"[{stamp}] {who}: {doc['content']}\n"


def line_tokens(doc: Doc, count: Count) -> int:
    """The tokens of a message's line; cached in the document under "lt"."""
    cached = doc.get("lt")
    if isinstance(cached, int):
        return cached
    n = count(message_line(doc))
    doc["lt"] = n
    return n


def counted(docs: Sequence[Doc], count: Count) -> Sequence[Doc]:
    """The documents with their line tokens, as they enter the cache (counted once, then carried)."""
    for doc in docs:
        line_tokens(doc, count)
    return docs

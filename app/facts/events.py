"""The change log of facts: every ADD / UPDATE / INVALIDATE / DELETE, by the system or the API."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.crypto import fields
from app.webhooks import outbox

EventKind = Literal["ADD", "UPDATE", "INVALIDATE", "DELETE"]
Actor = Literal["system", "api"]


@dataclass(frozen=True)
class Event:
    fact_id: uuid.UUID
    event: EventKind
    old_content: str | None
    new_content: str | None
    actor: Actor
    reason: str | None = None
    related_fact_id: uuid.UUID | None = None
    source_message_ids: tuple[uuid.UUID, ...] = ()


_INSERT = text(
    "INSERT INTO fact_events (tenant_id, user_id, fact_id, event, old_content, new_content, actor, "
    "reason, related_fact_id, source_message_ids) "
    "SELECT :t, :u, e.fact_id, e.event, e.old, e.new, e.actor, e.reason, e.related, "
    "       coalesce(CAST(e.sources AS uuid[]), '{}') "
    "FROM jsonb_to_recordset(CAST(:events AS jsonb)) AS e(fact_id uuid, event text, old text, new text, "
    "     actor text, reason text, related uuid, sources text) "
    "RETURNING id, fact_id, event, actor, reason"
)


async def record(conn: AsyncConnection, *, tenant_id: str, user_id: str, events: Sequence[Event]) -> None:
    """Write the events in one statement, in the order given (ids ascend with it), and queue
    one `facts.changed` webhook event naming them, in the same transaction."""
    if not events:
        return
    payload = [
        {
            "fact_id": str(e.fact_id),
            "event": e.event,
            "old": fields.seal_optional(
                e.old_content, tenant=tenant_id, table="fact_events", field="old_content", row=e.fact_id
            ),
            "new": fields.seal_optional(
                e.new_content, tenant=tenant_id, table="fact_events", field="new_content", row=e.fact_id
            ),
            "actor": e.actor,
            "reason": e.reason,
            "related": str(e.related_fact_id) if e.related_fact_id else None,
            "sources": "{" + ",".join(str(m) for m in e.source_message_ids) + "}",
        }
        for e in events
    ]
    rows = (
        await conn.execute(_INSERT, {"t": tenant_id, "u": user_id, "events": orjson.dumps(payload).decode()})
    ).all()
    changes = [
        {"event_id": r.id, "fact_id": str(r.fact_id), "op": r.event, "actor": r.actor, "reason": r.reason}
        for r in sorted(rows, key=lambda r: r.id)
    ]
    await outbox.emit(
        conn,
        tenant_id=tenant_id,
        user_id=user_id,
        type_="facts.changed",
        data={"user_id": user_id, "changes": changes},
    )


def open_event(row: dict[str, Any], tenant_id: str) -> dict[str, Any]:
    """A fact_events row with its texts opened (encryption on), in place."""
    if fields.keyring() is not None:
        for col in ("old_content", "new_content"):
            row[col] = fields.open_optional(
                row[col], tenant=tenant_id, table="fact_events", field=col, row=row["fact_id"]
            )
    return row


async def redact(conn: AsyncConnection, *, tenant_id: str, fact_id: uuid.UUID) -> None:
    """Remove a deleted fact's text from its history (the events themselves stay)."""
    await conn.execute(
        text(
            "UPDATE fact_events SET old_content = NULL, new_content = NULL "
            "WHERE tenant_id = :t AND fact_id = :f"
        ),
        {"t": tenant_id, "f": fact_id},
    )

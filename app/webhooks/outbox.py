"""Webhook events into the outbox: one `webhook_deliveries` row per subscribed endpoint, written
on the connection of the change that causes the event, so the event commits (or rolls back) with
it. Nothing is sent here; the worker delivers (app/webhooks/tasks.py).

Events are thin: ids, kinds and sequence numbers, never message, summary or fact text, so the
outbox holds no personal content and a receiver reads what it needs over the API.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, Literal, get_args

import orjson
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

EventType = Literal[
    "summary.created",
    "facts.changed",
    "extraction.completed",
    "indexing.failed",
    "user.purged",
]
EVENT_TYPES: tuple[str, ...] = get_args(EventType)
PING = "webhook.ping"  # sent by `POST .../ping` to one endpoint, whatever it subscribes to

# One statement: no endpoint subscribed (the common case) inserts nothing, at the cost of one
# probe of ix_webhook_endpoints_tenant_id_created_at.
_EMIT = text(
    "INSERT INTO webhook_deliveries (event_id, tenant_id, endpoint_id, user_id, type, payload) "
    "SELECT :id, :t, endpoint_id, :u, :type, CAST(:p AS jsonb) FROM webhook_endpoints "
    "WHERE tenant_id = :t AND (events = '{}' OR :type = ANY(events))"
)
_PING = text(
    "INSERT INTO webhook_deliveries (event_id, tenant_id, endpoint_id, type, payload) "
    "SELECT :id, :t, endpoint_id, :type, CAST(:p AS jsonb) FROM webhook_endpoints "
    "WHERE tenant_id = :t AND endpoint_id = :e RETURNING id"
)


def envelope(event_id: uuid.UUID, type_: str, tenant_id: str, data: dict[str, Any]) -> str:
    """The body every receiver gets (Standard Webhooks' shape, plus the id and the tenant)."""
    return orjson.dumps(
        {
            "id": str(event_id),
            "type": type_,
            "timestamp": datetime.now(UTC).isoformat(),
            "tenant_id": tenant_id,
            "data": data,
        }
    ).decode()


async def emit(
    conn: AsyncConnection, *, tenant_id: str, type_: EventType, data: dict[str, Any], user_id: str = ""
) -> None:
    """Queue the event for every endpoint of the tenant that subscribes to `type_`. `user_id`
    orders it: one user's events reach an endpoint one at a time, in the order committed."""
    event_id = uuid.uuid4()
    await conn.execute(
        _EMIT,
        {
            "id": event_id,
            "t": tenant_id,
            "u": user_id,
            "type": type_,
            "p": envelope(event_id, type_, tenant_id, data),
        },
    )


async def ping(conn: AsyncConnection, *, tenant_id: str, endpoint_id: uuid.UUID) -> int | None:
    """Queue a ping for one endpoint; its delivery id, or None if there is no such endpoint."""
    event_id = uuid.uuid4()
    data = {"endpoint_id": str(endpoint_id)}
    found = (
        await conn.execute(
            _PING,
            {
                "id": event_id,
                "t": tenant_id,
                "e": endpoint_id,
                "type": PING,
                "p": envelope(event_id, PING, tenant_id, data),
            },
        )
    ).scalar()
    return int(found) if found is not None else None


async def forget_user(conn: AsyncConnection, *, tenant_id: str, user_id: str) -> None:
    """A purged user's deliveries go with them (history and undelivered events alike); waits for
    one in flight to finish."""
    await conn.execute(
        text("DELETE FROM webhook_deliveries WHERE tenant_id = :t AND user_id = :u"),
        {"t": tenant_id, "u": user_id},
    )

"""A webhook endpoint's deliveries over the admin API: list, read with every attempt, send again,
and the test ping."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.errors import NotFound
from app.jobs.queue import wait_until
from app.pagination import INT, Keyset, Page, PageRequest
from app.webhooks import outbox
from app.webhooks.schemas import AttemptOut, DeliveryDetail, DeliveryOut, DeliveryStatus
from app.webhooks.service import get_endpoint

_DELIVERIES = Keyset("webhook-deliveries", (INT,), ("id",), descending=True)  # newest first

_COLS = (
    "id AS delivery_id, event_id, type, nullif(user_id, '') AS user_id, status, attempts, "
    "CASE WHEN status = 'pending' THEN run_after END AS next_try_at, last_status, last_error, "
    "created_at, delivered_at, payload"
)


async def list_deliveries(
    conn: AsyncConnection,
    *,
    tenant_id: str,
    endpoint_id: uuid.UUID,
    status: DeliveryStatus | None,
    page: PageRequest,
) -> Page[DeliveryOut]:
    """Newest first."""
    await get_endpoint(conn, tenant_id=tenant_id, endpoint_id=endpoint_id)
    params: dict[str, Any] = {"t": tenant_id, "e": endpoint_id}
    where = ["tenant_id = :t", "endpoint_id = :e"]
    if status is not None:
        where.append("status = :status")
        params["status"] = status
    seek = _DELIVERIES.seek(page)
    rows = (
        (
            await conn.execute(
                text(f"SELECT {_COLS} FROM webhook_deliveries WHERE {seek.where(*where)} {seek.tail}"),
                {**params, **seek.params},
            )
        )
        .mappings()
        .all()
    )
    return seek.page([DeliveryOut(**r) for r in rows], lambda d: (d.delivery_id,))


async def get_delivery(
    conn: AsyncConnection, *, tenant_id: str, endpoint_id: uuid.UUID, delivery_id: int
) -> DeliveryDetail:
    row = (
        (
            await conn.execute(
                text(
                    f"SELECT {_COLS} FROM webhook_deliveries "
                    "WHERE tenant_id = :t AND endpoint_id = :e AND id = :d"
                ),
                {"t": tenant_id, "e": endpoint_id, "d": delivery_id},
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"No delivery {delivery_id} of webhook endpoint {endpoint_id}.")
    attempts = (
        (
            await conn.execute(
                text(
                    "SELECT attempted_at, status_code, error, seconds FROM webhook_attempts "
                    "WHERE delivery_id = :d ORDER BY id"
                ),
                {"d": delivery_id},
            )
        )
        .mappings()
        .all()
    )
    return DeliveryDetail(**row, attempt_log=[AttemptOut(**a) for a in attempts])


async def resend(
    conn: AsyncConnection, *, tenant_id: str, endpoint_id: uuid.UUID, delivery_id: int
) -> DeliveryDetail:
    """Queue a delivered or failed delivery again, now, with a fresh count of attempts (its
    event id stays: a receiver that has it already drops it)."""
    found = (
        await conn.execute(
            text(
                "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, run_after = now(), "
                "updated_at = now(), delivered_at = NULL "
                "WHERE tenant_id = :t AND endpoint_id = :e AND id = :d RETURNING 1"
            ),
            {"t": tenant_id, "e": endpoint_id, "d": delivery_id},
        )
    ).scalar()
    if not found:
        raise NotFound(f"No delivery {delivery_id} of webhook endpoint {endpoint_id}.")
    return await get_delivery(conn, tenant_id=tenant_id, endpoint_id=endpoint_id, delivery_id=delivery_id)


async def ping(engine: AsyncEngine, *, tenant_id: str, endpoint_id: uuid.UUID) -> int:
    """Queue a `webhook.ping` for the endpoint and commit; its delivery id."""
    async with engine.begin() as conn:
        delivery_id = await outbox.ping(conn, tenant_id=tenant_id, endpoint_id=endpoint_id)
    if delivery_id is None:
        raise NotFound(f"No webhook endpoint {endpoint_id} for tenant {tenant_id}.")
    return delivery_id


async def wait_for(
    engine: AsyncEngine, *, tenant_id: str, endpoint_id: uuid.UUID, delivery_id: int, seconds: float
) -> DeliveryDetail:
    """The delivery once it has been tried (or after `seconds`)."""

    async def probe() -> DeliveryDetail:
        async with engine.connect() as conn:
            return await get_delivery(
                conn, tenant_id=tenant_id, endpoint_id=endpoint_id, delivery_id=delivery_id
            )

    return await wait_until(probe, lambda d: d.attempts > 0 or d.status != "pending", seconds)

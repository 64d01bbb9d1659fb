"""Webhook endpoints of a tenant: create, list, read, delete, rotate the signing secret."""

from __future__ import annotations

import uuid

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.errors import Conflict, NotFound, ValidationFailed
from app.pagination import TIMESTAMP, UUID, Keyset, Page, PageRequest
from app.webhooks import signing
from app.webhooks.addresses import Refused, public_addresses
from app.webhooks.schemas import EndpointCreate, EndpointCreated, EndpointOut

_COLS = (
    "endpoint_id, tenant_id, url, events, description, created_at, updated_at, "
    "CASE WHEN previous_expires_at > now() THEN previous_expires_at END AS previous_secret_expires_at"
)


async def create_endpoint(
    conn: AsyncConnection, *, tenant_id: str, body: EndpointCreate, max_endpoints: int, block_private: bool
) -> EndpointCreated:
    if block_private:
        await check_public(body.url)
    # The tenant's row lock serialises creations, so the count below holds until the commit.
    exists = (
        await conn.execute(
            text("SELECT 1 FROM tenants WHERE tenant_id = :t FOR NO KEY UPDATE"), {"t": tenant_id}
        )
    ).scalar()
    if not exists:
        raise NotFound(f"No tenant {tenant_id}.")
    count = (
        await conn.execute(
            text("SELECT count(*) FROM webhook_endpoints WHERE tenant_id = :t"), {"t": tenant_id}
        )
    ).scalar_one()
    if count >= max_endpoints:
        raise Conflict(
            f"Tenant {tenant_id} has {count} webhook endpoints, "
            "the most allowed (ENGRAM_WEBHOOK_MAX_ENDPOINTS)."
        )
    secret = signing.new_secret()
    row = (
        (
            await conn.execute(
                text(
                    "INSERT INTO webhook_endpoints "
                    "(endpoint_id, tenant_id, url, events, description, secret) "
                    f"VALUES (:id, :t, :url, CAST(:events AS text[]), :d, :s) RETURNING {_COLS}"
                ),
                {
                    "id": uuid.uuid4(),
                    "t": tenant_id,
                    "url": body.url,
                    "events": list(body.events),
                    "d": body.description,
                    "s": secret,
                },
            )
        )
        .mappings()
        .one()
    )
    return EndpointCreated(**row, secret=secret)


async def check_public(url: str) -> None:
    """ENGRAM_WEBHOOK_BLOCK_PRIVATE: a URL whose host is not public is a 422 at creation."""
    import httpx

    parsed = httpx.URL(url)
    try:
        await public_addresses(parsed.host, parsed.port or (443 if parsed.scheme == "https" else 80))
    except Refused as exc:
        raise ValidationFailed(
            f"The webhook URL is refused: {exc} (ENGRAM_WEBHOOK_BLOCK_PRIVATE is on).",
            errors=[{"loc": ["body", "url"], "msg": str(exc), "type": "value_error"}],
        ) from None


_ENDPOINTS = Keyset("webhooks", (TIMESTAMP, UUID), ("created_at", "endpoint_id"))


async def list_endpoints(conn: AsyncConnection, *, tenant_id: str, page: PageRequest) -> Page[EndpointOut]:
    seek = _ENDPOINTS.seek(page)
    rows = (
        (
            await conn.execute(
                text(
                    f"SELECT {_COLS} FROM webhook_endpoints WHERE {seek.where('tenant_id = :t')} {seek.tail}"
                ),
                {"t": tenant_id, **seek.params},
            )
        )
        .mappings()
        .all()
    )
    return seek.page([EndpointOut(**r) for r in rows], lambda e: (e.created_at, e.endpoint_id))


async def get_endpoint(conn: AsyncConnection, *, tenant_id: str, endpoint_id: uuid.UUID) -> EndpointOut:
    row = (
        (
            await conn.execute(
                text(f"SELECT {_COLS} FROM webhook_endpoints WHERE tenant_id = :t AND endpoint_id = :e"),
                {"t": tenant_id, "e": endpoint_id},
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"No webhook endpoint {endpoint_id} for tenant {tenant_id}.")
    return EndpointOut(**row)


async def delete_endpoint(conn: AsyncConnection, *, tenant_id: str, endpoint_id: uuid.UUID) -> None:
    """Deletes the endpoint with its deliveries (waits for one in flight to finish)."""
    found = (
        await conn.execute(
            text("DELETE FROM webhook_endpoints WHERE tenant_id = :t AND endpoint_id = :e RETURNING 1"),
            {"t": tenant_id, "e": endpoint_id},
        )
    ).scalar()
    if not found:
        raise NotFound(f"No webhook endpoint {endpoint_id} for tenant {tenant_id}.")


async def rotate_secret(
    conn: AsyncConnection, *, tenant_id: str, endpoint_id: uuid.UUID, grace_seconds: int
) -> EndpointCreated:
    """A new secret signs from now on; the old one also signs for `grace_seconds`."""
    secret = signing.new_secret()
    row = (
        (
            await conn.execute(
                text(
                    "UPDATE webhook_endpoints SET previous_secret = CASE WHEN :g > 0 THEN secret END, "
                    "previous_expires_at = CASE WHEN :g > 0 THEN now() + make_interval(secs => :g) END, "
                    "secret = :s, updated_at = now() "
                    f"WHERE tenant_id = :t AND endpoint_id = :e RETURNING {_COLS}"
                ),
                {"t": tenant_id, "e": endpoint_id, "s": secret, "g": grace_seconds},
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"No webhook endpoint {endpoint_id} for tenant {tenant_id}.")
    return EndpointCreated(**row, secret=secret)

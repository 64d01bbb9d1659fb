"""Admin endpoints for a tenant's webhooks (authorised by ENGRAM_ADMIN_TOKEN)."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request, Response

from app.deps import Admin, Commit, Config, Conn, Engine, Wake
from app.page_params import PageParams
from app.pagination import Page
from app.problems import problem_responses
from app.webhooks import deliveries, service
from app.webhooks.schemas import (
    DeliveryDetail,
    DeliveryOut,
    DeliveryStatus,
    EndpointCreate,
    EndpointCreated,
    EndpointOut,
)

router = APIRouter(prefix="/admin/tenants/{tenant_id}/webhooks", tags=["webhooks"], dependencies=[Admin])


async def _tenant_id(
    request: Request, tenant_id: Annotated[str, Path(description="The tenant.", examples=["acme"])]
) -> str:
    request.state.limits.check_id(tenant_id, ["path", "tenant_id"])
    return tenant_id


Tenant = Annotated[str, Depends(_tenant_id)]


@router.post(
    "",
    status_code=201,
    summary="Create a webhook endpoint",
    description="Events of the tenant (all, or those in `events`) are POSTed to `url`, signed with "
    "the secret in this answer (Standard Webhooks: `webhook-id`, `webhook-timestamp`, "
    "`webhook-signature`). See docs/webhooks.md.",
    responses=problem_responses(403, 404, 409),
)
async def create_endpoint(
    tenant_id: Tenant, body: EndpointCreate, conn: Conn, settings: Config
) -> EndpointCreated:
    return await service.create_endpoint(
        conn,
        tenant_id=tenant_id,
        body=body,
        max_endpoints=settings.webhook_max_endpoints,
        block_private=settings.webhook_block_private,
    )


@router.get(
    "",
    summary="List webhook endpoints",
    description="The tenant's endpoints (without their secrets), oldest first.",
    responses=problem_responses(400, 403),
)
async def list_endpoints(tenant_id: Tenant, conn: Conn, page: PageParams) -> Page[EndpointOut]:
    return await service.list_endpoints(conn, tenant_id=tenant_id, page=page)


@router.get(
    "/{endpoint_id}",
    summary="Get a webhook endpoint",
    description="The endpoint, without its secret.",
    responses=problem_responses(403, 404),
)
async def get_endpoint(tenant_id: Tenant, endpoint_id: uuid.UUID, conn: Conn) -> EndpointOut:
    return await service.get_endpoint(conn, tenant_id=tenant_id, endpoint_id=endpoint_id)


@router.delete(
    "/{endpoint_id}",
    status_code=204,
    summary="Delete a webhook endpoint",
    description="Nothing more is sent there; its undelivered events and delivery history go too.",
    responses=problem_responses(403, 404),
)
async def delete_endpoint(tenant_id: Tenant, endpoint_id: uuid.UUID, conn: Conn) -> Response:
    await service.delete_endpoint(conn, tenant_id=tenant_id, endpoint_id=endpoint_id)
    return Response(status_code=204)


@router.post(
    "/{endpoint_id}/rotate-secret",
    summary="Rotate a webhook endpoint's secret",
    description="A new secret signs every delivery from now on. For `grace_seconds` the old one "
    "signs too (two signatures in `webhook-signature`), so the receiver can switch without "
    "refusing anything.",
    responses=problem_responses(403, 404),
)
async def rotate_secret(
    tenant_id: Tenant,
    endpoint_id: uuid.UUID,
    conn: Conn,
    grace_seconds: Annotated[
        int,
        Query(ge=0, le=7 * 86400, description="How long the old secret also signs (0: not at all)."),
    ] = 86400,
) -> EndpointCreated:
    return await service.rotate_secret(
        conn, tenant_id=tenant_id, endpoint_id=endpoint_id, grace_seconds=grace_seconds
    )


@router.post(
    "/{endpoint_id}/ping",
    status_code=202,
    summary="Send a test event",
    description="Queues a `webhook.ping` event for this endpoint. With `wait_seconds` the answer "
    "waits, bounded, for its first try and shows how it went (`attempt_log`).",
    responses=problem_responses(403, 404),
)
async def ping(
    tenant_id: Tenant,
    endpoint_id: uuid.UUID,
    engine: Engine,
    wake: Wake,
    wait_seconds: Annotated[
        float, Query(ge=0, le=60, description="Wait up to this long for the first try.")
    ] = 0.0,
) -> DeliveryDetail:
    delivery_id = await deliveries.ping(engine, tenant_id=tenant_id, endpoint_id=endpoint_id)
    await wake.poke()
    return await deliveries.wait_for(
        engine, tenant_id=tenant_id, endpoint_id=endpoint_id, delivery_id=delivery_id, seconds=wait_seconds
    )


@router.get(
    "/{endpoint_id}/deliveries",
    summary="List an endpoint's deliveries",
    description="Newest first, with each one's status (`pending`, `delivered`, `failed` after "
    "ENGRAM_WEBHOOK_MAX_ATTEMPTS), attempts and last error. Kept ENGRAM_WEBHOOK_RETENTION_DAYS.",
    responses=problem_responses(400, 403, 404),
)
async def list_deliveries(
    tenant_id: Tenant,
    endpoint_id: uuid.UUID,
    conn: Conn,
    page: PageParams,
    status: Annotated[DeliveryStatus | None, Query(description="Only deliveries in this state.")] = None,
) -> Page[DeliveryOut]:
    return await deliveries.list_deliveries(
        conn, tenant_id=tenant_id, endpoint_id=endpoint_id, status=status, page=page
    )


DeliveryId = Annotated[int, Path(ge=1, le=2**63 - 1, description="The delivery.")]


@router.get(
    "/{endpoint_id}/deliveries/{delivery_id}",
    summary="Get a delivery with its attempts",
    description="The delivery and every try of it: status code or error, and duration.",
    responses=problem_responses(403, 404),
)
async def get_delivery(
    tenant_id: Tenant, endpoint_id: uuid.UUID, delivery_id: DeliveryId, conn: Conn
) -> DeliveryDetail:
    return await deliveries.get_delivery(
        conn, tenant_id=tenant_id, endpoint_id=endpoint_id, delivery_id=delivery_id
    )


@router.post(
    "/{endpoint_id}/deliveries/{delivery_id}/retry",
    summary="Send a delivery again",
    description="Queues a failed (or delivered) delivery again, now, with the same event id.",
    responses=problem_responses(403, 404),
)
async def retry_delivery(
    tenant_id: Tenant, endpoint_id: uuid.UUID, delivery_id: DeliveryId, conn: Conn, commit: Commit, wake: Wake
) -> DeliveryDetail:
    commit.append(wake.poke)
    return await deliveries.resend(
        conn, tenant_id=tenant_id, endpoint_id=endpoint_id, delivery_id=delivery_id
    )

from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delivery_detail import DeliveryDetail
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    tenant_id: str,
    endpoint_id: UUID,
    delivery_id: int,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/admin/tenants/{tenant_id}/webhooks/{endpoint_id}/deliveries/{delivery_id}/retry".format(
            tenant_id=quote(str(tenant_id), safe=""),
            endpoint_id=quote(str(endpoint_id), safe=""),
            delivery_id=quote(str(delivery_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DeliveryDetail | Problem | None:
    if response.status_code == 200:
        response_200 = DeliveryDetail.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[DeliveryDetail | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    tenant_id: str,
    endpoint_id: UUID,
    delivery_id: int,
    *,
    client: AuthenticatedClient,
) -> Response[DeliveryDetail | Problem]:
    """Send a delivery again

     Queues a failed (or delivered) delivery again, now, with the same event id.

    Args:
        tenant_id (str): The tenant.
        endpoint_id (UUID):
        delivery_id (int): The delivery.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryDetail | Problem]
    """

    kwargs = _get_kwargs(
        tenant_id=tenant_id,
        endpoint_id=endpoint_id,
        delivery_id=delivery_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    tenant_id: str,
    endpoint_id: UUID,
    delivery_id: int,
    *,
    client: AuthenticatedClient,
) -> DeliveryDetail | Problem | None:
    """Send a delivery again

     Queues a failed (or delivered) delivery again, now, with the same event id.

    Args:
        tenant_id (str): The tenant.
        endpoint_id (UUID):
        delivery_id (int): The delivery.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryDetail | Problem
    """

    return sync_detailed(
        tenant_id=tenant_id,
        endpoint_id=endpoint_id,
        delivery_id=delivery_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    tenant_id: str,
    endpoint_id: UUID,
    delivery_id: int,
    *,
    client: AuthenticatedClient,
) -> Response[DeliveryDetail | Problem]:
    """Send a delivery again

     Queues a failed (or delivered) delivery again, now, with the same event id.

    Args:
        tenant_id (str): The tenant.
        endpoint_id (UUID):
        delivery_id (int): The delivery.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryDetail | Problem]
    """

    kwargs = _get_kwargs(
        tenant_id=tenant_id,
        endpoint_id=endpoint_id,
        delivery_id=delivery_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    tenant_id: str,
    endpoint_id: UUID,
    delivery_id: int,
    *,
    client: AuthenticatedClient,
) -> DeliveryDetail | Problem | None:
    """Send a delivery again

     Queues a failed (or delivered) delivery again, now, with the same event id.

    Args:
        tenant_id (str): The tenant.
        endpoint_id (UUID):
        delivery_id (int): The delivery.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryDetail | Problem
    """

    return (
        await asyncio_detailed(
            tenant_id=tenant_id,
            endpoint_id=endpoint_id,
            delivery_id=delivery_id,
            client=client,
        )
    ).parsed

from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.list_deliveries_status_type_0 import ListDeliveriesStatusType0
from ...models.page_delivery_out import PageDeliveryOut
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    tenant_id: str,
    endpoint_id: UUID,
    *,
    status: ListDeliveriesStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_status: None | str | Unset
    if isinstance(status, Unset):
        json_status = UNSET
    elif isinstance(status, str):
        json_status = status
    else:
        json_status = status
    params["status"] = json_status

    params["limit"] = limit

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/admin/tenants/{tenant_id}/webhooks/{endpoint_id}/deliveries".format(
            tenant_id=quote(str(tenant_id), safe=""),
            endpoint_id=quote(str(endpoint_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PageDeliveryOut | Problem | None:
    if response.status_code == 200:
        response_200 = PageDeliveryOut.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

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
) -> Response[PageDeliveryOut | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    tenant_id: str,
    endpoint_id: UUID,
    *,
    client: AuthenticatedClient,
    status: ListDeliveriesStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
) -> Response[PageDeliveryOut | Problem]:
    """List an endpoint's deliveries

     Newest first, with each one's status (`pending`, `delivered`, `failed` after
    ENGRAM_WEBHOOK_MAX_ATTEMPTS), attempts and last error. Kept ENGRAM_WEBHOOK_RETENTION_DAYS.

    Args:
        tenant_id (str): The tenant.
        endpoint_id (UUID):
        status (ListDeliveriesStatusType0 | None | Unset): Only deliveries in this state.
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): From `next_cursor`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageDeliveryOut | Problem]
    """

    kwargs = _get_kwargs(
        tenant_id=tenant_id,
        endpoint_id=endpoint_id,
        status=status,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    tenant_id: str,
    endpoint_id: UUID,
    *,
    client: AuthenticatedClient,
    status: ListDeliveriesStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
) -> PageDeliveryOut | Problem | None:
    """List an endpoint's deliveries

     Newest first, with each one's status (`pending`, `delivered`, `failed` after
    ENGRAM_WEBHOOK_MAX_ATTEMPTS), attempts and last error. Kept ENGRAM_WEBHOOK_RETENTION_DAYS.

    Args:
        tenant_id (str): The tenant.
        endpoint_id (UUID):
        status (ListDeliveriesStatusType0 | None | Unset): Only deliveries in this state.
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): From `next_cursor`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageDeliveryOut | Problem
    """

    return sync_detailed(
        tenant_id=tenant_id,
        endpoint_id=endpoint_id,
        client=client,
        status=status,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    tenant_id: str,
    endpoint_id: UUID,
    *,
    client: AuthenticatedClient,
    status: ListDeliveriesStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
) -> Response[PageDeliveryOut | Problem]:
    """List an endpoint's deliveries

     Newest first, with each one's status (`pending`, `delivered`, `failed` after
    ENGRAM_WEBHOOK_MAX_ATTEMPTS), attempts and last error. Kept ENGRAM_WEBHOOK_RETENTION_DAYS.

    Args:
        tenant_id (str): The tenant.
        endpoint_id (UUID):
        status (ListDeliveriesStatusType0 | None | Unset): Only deliveries in this state.
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): From `next_cursor`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageDeliveryOut | Problem]
    """

    kwargs = _get_kwargs(
        tenant_id=tenant_id,
        endpoint_id=endpoint_id,
        status=status,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    tenant_id: str,
    endpoint_id: UUID,
    *,
    client: AuthenticatedClient,
    status: ListDeliveriesStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
) -> PageDeliveryOut | Problem | None:
    """List an endpoint's deliveries

     Newest first, with each one's status (`pending`, `delivered`, `failed` after
    ENGRAM_WEBHOOK_MAX_ATTEMPTS), attempts and last error. Kept ENGRAM_WEBHOOK_RETENTION_DAYS.

    Args:
        tenant_id (str): The tenant.
        endpoint_id (UUID):
        status (ListDeliveriesStatusType0 | None | Unset): Only deliveries in this state.
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): From `next_cursor`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageDeliveryOut | Problem
    """

    return (
        await asyncio_detailed(
            tenant_id=tenant_id,
            endpoint_id=endpoint_id,
            client=client,
            status=status,
            limit=limit,
            cursor=cursor,
        )
    ).parsed

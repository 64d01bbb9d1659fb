from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.endpoint_create import EndpointCreate
from ...models.endpoint_created import EndpointCreated
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    tenant_id: str,
    *,
    body: EndpointCreate,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/admin/tenants/{tenant_id}/webhooks".format(
            tenant_id=quote(str(tenant_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EndpointCreated | Problem | None:
    if response.status_code == 201:
        response_201 = EndpointCreated.from_dict(response.json())

        return response_201

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

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[EndpointCreated | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    tenant_id: str,
    *,
    client: AuthenticatedClient,
    body: EndpointCreate,
) -> Response[EndpointCreated | Problem]:
    """Create a webhook endpoint

     Events of the tenant (all, or those in `events`) are POSTed to `url`, signed with the secret in this
    answer (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`). See
    docs/webhooks.md.

    Args:
        tenant_id (str): The tenant.
        body (EndpointCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EndpointCreated | Problem]
    """

    kwargs = _get_kwargs(
        tenant_id=tenant_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    tenant_id: str,
    *,
    client: AuthenticatedClient,
    body: EndpointCreate,
) -> EndpointCreated | Problem | None:
    """Create a webhook endpoint

     Events of the tenant (all, or those in `events`) are POSTed to `url`, signed with the secret in this
    answer (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`). See
    docs/webhooks.md.

    Args:
        tenant_id (str): The tenant.
        body (EndpointCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EndpointCreated | Problem
    """

    return sync_detailed(
        tenant_id=tenant_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    tenant_id: str,
    *,
    client: AuthenticatedClient,
    body: EndpointCreate,
) -> Response[EndpointCreated | Problem]:
    """Create a webhook endpoint

     Events of the tenant (all, or those in `events`) are POSTed to `url`, signed with the secret in this
    answer (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`). See
    docs/webhooks.md.

    Args:
        tenant_id (str): The tenant.
        body (EndpointCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EndpointCreated | Problem]
    """

    kwargs = _get_kwargs(
        tenant_id=tenant_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    tenant_id: str,
    *,
    client: AuthenticatedClient,
    body: EndpointCreate,
) -> EndpointCreated | Problem | None:
    """Create a webhook endpoint

     Events of the tenant (all, or those in `events`) are POSTed to `url`, signed with the secret in this
    answer (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`). See
    docs/webhooks.md.

    Args:
        tenant_id (str): The tenant.
        body (EndpointCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EndpointCreated | Problem
    """

    return (
        await asyncio_detailed(
            tenant_id=tenant_id,
            client=client,
            body=body,
        )
    ).parsed

from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.endpoint_created import EndpointCreated
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    tenant_id: str,
    endpoint_id: UUID,
    *,
    grace_seconds: int | Unset = 86400,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["grace_seconds"] = grace_seconds

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/admin/tenants/{tenant_id}/webhooks/{endpoint_id}/rotate-secret".format(
            tenant_id=quote(str(tenant_id), safe=""),
            endpoint_id=quote(str(endpoint_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EndpointCreated | Problem | None:
    if response.status_code == 200:
        response_200 = EndpointCreated.from_dict(response.json())

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
) -> Response[EndpointCreated | Problem]:
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
    grace_seconds: int | Unset = 86400,
) -> Response[EndpointCreated | Problem]:
    """Rotate a webhook endpoint's secret

     A new secret signs every delivery from now on. For `grace_seconds` the old one signs too (two
    signatures in `webhook-signature`), so the receiver can switch without refusing anything.

    Args:
        tenant_id (str): The tenant.
        endpoint_id (UUID):
        grace_seconds (int | Unset): How long the old secret also signs (0: not at all). Default:
            86400.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EndpointCreated | Problem]
    """

    kwargs = _get_kwargs(
        tenant_id=tenant_id,
        endpoint_id=endpoint_id,
        grace_seconds=grace_seconds,
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
    grace_seconds: int | Unset = 86400,
) -> EndpointCreated | Problem | None:
    """Rotate a webhook endpoint's secret

     A new secret signs every delivery from now on. For `grace_seconds` the old one signs too (two
    signatures in `webhook-signature`), so the receiver can switch without refusing anything.

    Args:
        tenant_id (str): The tenant.
        endpoint_id (UUID):
        grace_seconds (int | Unset): How long the old secret also signs (0: not at all). Default:
            86400.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EndpointCreated | Problem
    """

    return sync_detailed(
        tenant_id=tenant_id,
        endpoint_id=endpoint_id,
        client=client,
        grace_seconds=grace_seconds,
    ).parsed


async def asyncio_detailed(
    tenant_id: str,
    endpoint_id: UUID,
    *,
    client: AuthenticatedClient,
    grace_seconds: int | Unset = 86400,
) -> Response[EndpointCreated | Problem]:
    """Rotate a webhook endpoint's secret

     A new secret signs every delivery from now on. For `grace_seconds` the old one signs too (two
    signatures in `webhook-signature`), so the receiver can switch without refusing anything.

    Args:
        tenant_id (str): The tenant.
        endpoint_id (UUID):
        grace_seconds (int | Unset): How long the old secret also signs (0: not at all). Default:
            86400.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EndpointCreated | Problem]
    """

    kwargs = _get_kwargs(
        tenant_id=tenant_id,
        endpoint_id=endpoint_id,
        grace_seconds=grace_seconds,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    tenant_id: str,
    endpoint_id: UUID,
    *,
    client: AuthenticatedClient,
    grace_seconds: int | Unset = 86400,
) -> EndpointCreated | Problem | None:
    """Rotate a webhook endpoint's secret

     A new secret signs every delivery from now on. For `grace_seconds` the old one signs too (two
    signatures in `webhook-signature`), so the receiver can switch without refusing anything.

    Args:
        tenant_id (str): The tenant.
        endpoint_id (UUID):
        grace_seconds (int | Unset): How long the old secret also signs (0: not at all). Default:
            86400.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EndpointCreated | Problem
    """

    return (
        await asyncio_detailed(
            tenant_id=tenant_id,
            endpoint_id=endpoint_id,
            client=client,
            grace_seconds=grace_seconds,
        )
    ).parsed

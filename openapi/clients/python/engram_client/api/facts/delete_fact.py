from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    fact_id: UUID,
    *,
    redact: bool | Unset = False,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["redact"] = redact

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v1/facts/{fact_id}".format(
            fact_id=quote(str(fact_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | Problem | None:
    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    fact_id: UUID,
    *,
    client: AuthenticatedClient,
    redact: bool | Unset = False,
) -> Response[Any | Problem]:
    """Delete a fact

     Removes the fact; its history keeps a DELETE event. `redact=true` also removes its text from every
    event of its history.

    Args:
        fact_id (UUID): The fact's id.
        redact (bool | Unset): Also blank the text in the fact's history. Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem]
    """

    kwargs = _get_kwargs(
        fact_id=fact_id,
        redact=redact,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    fact_id: UUID,
    *,
    client: AuthenticatedClient,
    redact: bool | Unset = False,
) -> Any | Problem | None:
    """Delete a fact

     Removes the fact; its history keeps a DELETE event. `redact=true` also removes its text from every
    event of its history.

    Args:
        fact_id (UUID): The fact's id.
        redact (bool | Unset): Also blank the text in the fact's history. Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem
    """

    return sync_detailed(
        fact_id=fact_id,
        client=client,
        redact=redact,
    ).parsed


async def asyncio_detailed(
    fact_id: UUID,
    *,
    client: AuthenticatedClient,
    redact: bool | Unset = False,
) -> Response[Any | Problem]:
    """Delete a fact

     Removes the fact; its history keeps a DELETE event. `redact=true` also removes its text from every
    event of its history.

    Args:
        fact_id (UUID): The fact's id.
        redact (bool | Unset): Also blank the text in the fact's history. Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem]
    """

    kwargs = _get_kwargs(
        fact_id=fact_id,
        redact=redact,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    fact_id: UUID,
    *,
    client: AuthenticatedClient,
    redact: bool | Unset = False,
) -> Any | Problem | None:
    """Delete a fact

     Removes the fact; its history keeps a DELETE event. `redact=true` also removes its text from every
    event of its history.

    Args:
        fact_id (UUID): The fact's id.
        redact (bool | Unset): Also blank the text in the fact's history. Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem
    """

    return (
        await asyncio_detailed(
            fact_id=fact_id,
            client=client,
            redact=redact,
        )
    ).parsed

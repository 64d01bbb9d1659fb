from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.fact_in import FactIn
from ...models.fact_out import FactOut
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    user_id: str,
    *,
    body: FactIn,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/users/{user_id}/facts".format(
            user_id=quote(str(user_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> FactOut | Problem | None:
    if response.status_code == 200:
        response_200 = FactOut.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = FactOut.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[FactOut | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    user_id: str,
    *,
    client: AuthenticatedClient,
    body: FactIn,
) -> Response[FactOut | Problem]:
    """Add a fact by hand

     Stores a fact about the user (created if new). The same statement already valid is returned as it is
    (200). An `exclusive` fact with a `subject` ends the user's current fact with that subject. The
    worker embeds it shortly after, for search and memory.

    Args:
        user_id (str): Your id for the user.
        body (FactIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FactOut | Problem]
    """

    kwargs = _get_kwargs(
        user_id=user_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    user_id: str,
    *,
    client: AuthenticatedClient,
    body: FactIn,
) -> FactOut | Problem | None:
    """Add a fact by hand

     Stores a fact about the user (created if new). The same statement already valid is returned as it is
    (200). An `exclusive` fact with a `subject` ends the user's current fact with that subject. The
    worker embeds it shortly after, for search and memory.

    Args:
        user_id (str): Your id for the user.
        body (FactIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FactOut | Problem
    """

    return sync_detailed(
        user_id=user_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    user_id: str,
    *,
    client: AuthenticatedClient,
    body: FactIn,
) -> Response[FactOut | Problem]:
    """Add a fact by hand

     Stores a fact about the user (created if new). The same statement already valid is returned as it is
    (200). An `exclusive` fact with a `subject` ends the user's current fact with that subject. The
    worker embeds it shortly after, for search and memory.

    Args:
        user_id (str): Your id for the user.
        body (FactIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FactOut | Problem]
    """

    kwargs = _get_kwargs(
        user_id=user_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    user_id: str,
    *,
    client: AuthenticatedClient,
    body: FactIn,
) -> FactOut | Problem | None:
    """Add a fact by hand

     Stores a fact about the user (created if new). The same statement already valid is returned as it is
    (200). An `exclusive` fact with a `subject` ends the user's current fact with that subject. The
    worker embeds it shortly after, for search and memory.

    Args:
        user_id (str): Your id for the user.
        body (FactIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FactOut | Problem
    """

    return (
        await asyncio_detailed(
            user_id=user_id,
            client=client,
            body=body,
        )
    ).parsed

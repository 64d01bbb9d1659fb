from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.search_request import SearchRequest
from ...models.search_response import SearchResponse
from ...types import Response


def _get_kwargs(
    *,
    body: SearchRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/search",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | SearchResponse | None:
    if response.status_code == 200:
        response_200 = SearchResponse.from_dict(response.json())

        return response_200

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


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | SearchResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SearchRequest,
) -> Response[Problem | SearchResponse]:
    """Search memory

     Finds messages, session summaries and/or user facts (`kinds`) by meaning (`semantic`: pgvector
    cosine), by words (`keyword`: PostgreSQL full text) or both fused (`hybrid`, the default), within
    your tenant and optionally one user or session, with filters on roles, metadata, time and sessions
    pushed into SQL. All kinds are scored on one scale and ranked together. `mmr` removes near-
    duplicates, `recency` favours newer hits, `wait_for_indexing_ms` waits (bounded) until the messages
    you just wrote are searchable by meaning. Each hit carries its score parts.

    Args:
        body (SearchRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SearchResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: SearchRequest,
) -> Problem | SearchResponse | None:
    """Search memory

     Finds messages, session summaries and/or user facts (`kinds`) by meaning (`semantic`: pgvector
    cosine), by words (`keyword`: PostgreSQL full text) or both fused (`hybrid`, the default), within
    your tenant and optionally one user or session, with filters on roles, metadata, time and sessions
    pushed into SQL. All kinds are scored on one scale and ranked together. `mmr` removes near-
    duplicates, `recency` favours newer hits, `wait_for_indexing_ms` waits (bounded) until the messages
    you just wrote are searchable by meaning. Each hit carries its score parts.

    Args:
        body (SearchRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SearchResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SearchRequest,
) -> Response[Problem | SearchResponse]:
    """Search memory

     Finds messages, session summaries and/or user facts (`kinds`) by meaning (`semantic`: pgvector
    cosine), by words (`keyword`: PostgreSQL full text) or both fused (`hybrid`, the default), within
    your tenant and optionally one user or session, with filters on roles, metadata, time and sessions
    pushed into SQL. All kinds are scored on one scale and ranked together. `mmr` removes near-
    duplicates, `recency` favours newer hits, `wait_for_indexing_ms` waits (bounded) until the messages
    you just wrote are searchable by meaning. Each hit carries its score parts.

    Args:
        body (SearchRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SearchResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SearchRequest,
) -> Problem | SearchResponse | None:
    """Search memory

     Finds messages, session summaries and/or user facts (`kinds`) by meaning (`semantic`: pgvector
    cosine), by words (`keyword`: PostgreSQL full text) or both fused (`hybrid`, the default), within
    your tenant and optionally one user or session, with filters on roles, metadata, time and sessions
    pushed into SQL. All kinds are scored on one scale and ranked together. `mmr` removes near-
    duplicates, `recency` favours newer hits, `wait_for_indexing_ms` waits (bounded) until the messages
    you just wrote are searchable by meaning. Each hit carries its score parts.

    Args:
        body (SearchRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SearchResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed

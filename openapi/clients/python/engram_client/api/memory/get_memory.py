from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.memory_out import MemoryOut
from ...models.problem import Problem
from ...models.role import Role
from ...types import UNSET, Response, Unset


def _get_kwargs(
    session_id: str,
    *,
    max_tokens: int | Unset = 2000,
    query: None | str | Unset = UNSET,
    last_n: int | None | Unset = UNSET,
    role: list[Role] | None | Unset = UNSET,
    summary_share: float | Unset = 0.5,
    facts_share: float | Unset = 0.25,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["max_tokens"] = max_tokens

    json_query: None | str | Unset
    if isinstance(query, Unset):
        json_query = UNSET
    else:
        json_query = query
    params["query"] = json_query

    json_last_n: int | None | Unset
    if isinstance(last_n, Unset):
        json_last_n = UNSET
    else:
        json_last_n = last_n
    params["last_n"] = json_last_n

    json_role: list[str] | None | Unset
    if isinstance(role, Unset):
        json_role = UNSET
    elif isinstance(role, list):
        json_role = []
        for role_type_0_item_data in role:
            role_type_0_item: str = role_type_0_item_data
            json_role.append(role_type_0_item)

    else:
        json_role = role
    params["role"] = json_role

    params["summary_share"] = summary_share

    params["facts_share"] = facts_share

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/sessions/{session_id}/memory".format(
            session_id=quote(str(session_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> MemoryOut | Problem | None:
    if response.status_code == 200:
        response_200 = MemoryOut.from_dict(response.json())

        return response_200

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[MemoryOut | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    max_tokens: int | Unset = 2000,
    query: None | str | Unset = UNSET,
    last_n: int | None | Unset = UNSET,
    role: list[Role] | None | Unset = UNSET,
    summary_share: float | Unset = 0.5,
    facts_share: float | Unset = 0.25,
) -> Response[MemoryOut | Problem]:
    """Get a session's memory

     What to put in a prompt for this session, within `max_tokens`: the latest summary, the user's facts
    relevant to `query`, and the newest messages that fit (whole, in order), as JSON and as one
    `context` string whose exact token count is `token_count`. The budget goes first to the newest
    message (always included: a `max_tokens` too small for it alone is a 422 giving
    `minimum_max_tokens`), then to the summary (whole, within `summary_share` of `max_tokens`), then to
    the facts in the order of their `score` (within `facts_share`), then to older messages (all that is
    left). Always includes every acknowledged message that fits. `X-Engram-Cache` says whether the Redis
    window answered (`hit`) or PostgreSQL did (`miss`).

    Args:
        session_id (str): The session's id.
        max_tokens (int | Unset): Token budget of `context`. Default: 2000.
        query (None | str | Unset): What the next turn is about (ranks facts).
        last_n (int | None | Unset): At most this many messages.
        role (list[Role] | None | Unset): Only messages of these roles (repeatable).
        summary_share (float | Unset): Most of `max_tokens` the summary may take (it is whole or
            left out). Default: 0.5.
        facts_share (float | Unset): Most of `max_tokens` the facts may take. Default: 0.25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemoryOut | Problem]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        max_tokens=max_tokens,
        query=query,
        last_n=last_n,
        role=role,
        summary_share=summary_share,
        facts_share=facts_share,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
    max_tokens: int | Unset = 2000,
    query: None | str | Unset = UNSET,
    last_n: int | None | Unset = UNSET,
    role: list[Role] | None | Unset = UNSET,
    summary_share: float | Unset = 0.5,
    facts_share: float | Unset = 0.25,
) -> MemoryOut | Problem | None:
    """Get a session's memory

     What to put in a prompt for this session, within `max_tokens`: the latest summary, the user's facts
    relevant to `query`, and the newest messages that fit (whole, in order), as JSON and as one
    `context` string whose exact token count is `token_count`. The budget goes first to the newest
    message (always included: a `max_tokens` too small for it alone is a 422 giving
    `minimum_max_tokens`), then to the summary (whole, within `summary_share` of `max_tokens`), then to
    the facts in the order of their `score` (within `facts_share`), then to older messages (all that is
    left). Always includes every acknowledged message that fits. `X-Engram-Cache` says whether the Redis
    window answered (`hit`) or PostgreSQL did (`miss`).

    Args:
        session_id (str): The session's id.
        max_tokens (int | Unset): Token budget of `context`. Default: 2000.
        query (None | str | Unset): What the next turn is about (ranks facts).
        last_n (int | None | Unset): At most this many messages.
        role (list[Role] | None | Unset): Only messages of these roles (repeatable).
        summary_share (float | Unset): Most of `max_tokens` the summary may take (it is whole or
            left out). Default: 0.5.
        facts_share (float | Unset): Most of `max_tokens` the facts may take. Default: 0.25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemoryOut | Problem
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        max_tokens=max_tokens,
        query=query,
        last_n=last_n,
        role=role,
        summary_share=summary_share,
        facts_share=facts_share,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    max_tokens: int | Unset = 2000,
    query: None | str | Unset = UNSET,
    last_n: int | None | Unset = UNSET,
    role: list[Role] | None | Unset = UNSET,
    summary_share: float | Unset = 0.5,
    facts_share: float | Unset = 0.25,
) -> Response[MemoryOut | Problem]:
    """Get a session's memory

     What to put in a prompt for this session, within `max_tokens`: the latest summary, the user's facts
    relevant to `query`, and the newest messages that fit (whole, in order), as JSON and as one
    `context` string whose exact token count is `token_count`. The budget goes first to the newest
    message (always included: a `max_tokens` too small for it alone is a 422 giving
    `minimum_max_tokens`), then to the summary (whole, within `summary_share` of `max_tokens`), then to
    the facts in the order of their `score` (within `facts_share`), then to older messages (all that is
    left). Always includes every acknowledged message that fits. `X-Engram-Cache` says whether the Redis
    window answered (`hit`) or PostgreSQL did (`miss`).

    Args:
        session_id (str): The session's id.
        max_tokens (int | Unset): Token budget of `context`. Default: 2000.
        query (None | str | Unset): What the next turn is about (ranks facts).
        last_n (int | None | Unset): At most this many messages.
        role (list[Role] | None | Unset): Only messages of these roles (repeatable).
        summary_share (float | Unset): Most of `max_tokens` the summary may take (it is whole or
            left out). Default: 0.5.
        facts_share (float | Unset): Most of `max_tokens` the facts may take. Default: 0.25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MemoryOut | Problem]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        max_tokens=max_tokens,
        query=query,
        last_n=last_n,
        role=role,
        summary_share=summary_share,
        facts_share=facts_share,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
    max_tokens: int | Unset = 2000,
    query: None | str | Unset = UNSET,
    last_n: int | None | Unset = UNSET,
    role: list[Role] | None | Unset = UNSET,
    summary_share: float | Unset = 0.5,
    facts_share: float | Unset = 0.25,
) -> MemoryOut | Problem | None:
    """Get a session's memory

     What to put in a prompt for this session, within `max_tokens`: the latest summary, the user's facts
    relevant to `query`, and the newest messages that fit (whole, in order), as JSON and as one
    `context` string whose exact token count is `token_count`. The budget goes first to the newest
    message (always included: a `max_tokens` too small for it alone is a 422 giving
    `minimum_max_tokens`), then to the summary (whole, within `summary_share` of `max_tokens`), then to
    the facts in the order of their `score` (within `facts_share`), then to older messages (all that is
    left). Always includes every acknowledged message that fits. `X-Engram-Cache` says whether the Redis
    window answered (`hit`) or PostgreSQL did (`miss`).

    Args:
        session_id (str): The session's id.
        max_tokens (int | Unset): Token budget of `context`. Default: 2000.
        query (None | str | Unset): What the next turn is about (ranks facts).
        last_n (int | None | Unset): At most this many messages.
        role (list[Role] | None | Unset): Only messages of these roles (repeatable).
        summary_share (float | Unset): Most of `max_tokens` the summary may take (it is whole or
            left out). Default: 0.5.
        facts_share (float | Unset): Most of `max_tokens` the facts may take. Default: 0.25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MemoryOut | Problem
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
            max_tokens=max_tokens,
            query=query,
            last_n=last_n,
            role=role,
            summary_share=summary_share,
            facts_share=facts_share,
        )
    ).parsed

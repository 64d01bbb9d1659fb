from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.indexing_status import IndexingStatus
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    user_id: None | str | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_user_id: None | str | Unset
    if isinstance(user_id, Unset):
        json_user_id = UNSET
    else:
        json_user_id = user_id
    params["user_id"] = json_user_id

    json_session_id: None | str | Unset
    if isinstance(session_id, Unset):
        json_session_id = UNSET
    else:
        json_session_id = session_id
    params["session_id"] = json_session_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/indexing",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> IndexingStatus | Problem | None:
    if response.status_code == 200:
        response_200 = IndexingStatus.from_dict(response.json())

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


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[IndexingStatus | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    user_id: None | str | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
) -> Response[IndexingStatus | Problem]:
    """Indexing progress

     How much of your tenant (or of one user or session) is searchable by meaning: pending and failed
    embeddings, the worker's lag, and for a session `indexed_seq` against `last_seq`.

    Args:
        user_id (None | str | Unset): Only this user.
        session_id (None | str | Unset): Only this session.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[IndexingStatus | Problem]
    """

    kwargs = _get_kwargs(
        user_id=user_id,
        session_id=session_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    user_id: None | str | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
) -> IndexingStatus | Problem | None:
    """Indexing progress

     How much of your tenant (or of one user or session) is searchable by meaning: pending and failed
    embeddings, the worker's lag, and for a session `indexed_seq` against `last_seq`.

    Args:
        user_id (None | str | Unset): Only this user.
        session_id (None | str | Unset): Only this session.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        IndexingStatus | Problem
    """

    return sync_detailed(
        client=client,
        user_id=user_id,
        session_id=session_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    user_id: None | str | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
) -> Response[IndexingStatus | Problem]:
    """Indexing progress

     How much of your tenant (or of one user or session) is searchable by meaning: pending and failed
    embeddings, the worker's lag, and for a session `indexed_seq` against `last_seq`.

    Args:
        user_id (None | str | Unset): Only this user.
        session_id (None | str | Unset): Only this session.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[IndexingStatus | Problem]
    """

    kwargs = _get_kwargs(
        user_id=user_id,
        session_id=session_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    user_id: None | str | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
) -> IndexingStatus | Problem | None:
    """Indexing progress

     How much of your tenant (or of one user or session) is searchable by meaning: pending and failed
    embeddings, the worker's lag, and for a session `indexed_seq` against `last_seq`.

    Args:
        user_id (None | str | Unset): Only this user.
        session_id (None | str | Unset): Only this session.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        IndexingStatus | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            user_id=user_id,
            session_id=session_id,
        )
    ).parsed

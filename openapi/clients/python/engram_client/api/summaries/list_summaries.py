from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.page_summary_out import PageSummaryOut
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    session_id: str,
    *,
    limit: int | Unset = 20,
    cursor: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

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
        "url": "/v1/sessions/{session_id}/summaries".format(
            session_id=quote(str(session_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PageSummaryOut | Problem | None:
    if response.status_code == 200:
        response_200 = PageSummaryOut.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

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
) -> Response[PageSummaryOut | Problem]:
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
    limit: int | Unset = 20,
    cursor: None | str | Unset = UNSET,
) -> Response[PageSummaryOut | Problem]:
    """List the summary history

     Every step of the session's progressive summary, newest first. Each step's `from_seq`..`to_seq`
    follows the previous one's, so the steps cover every message once.

    Args:
        session_id (str): The session's id.
        limit (int | Unset): Page size. Default: 20.
        cursor (None | str | Unset): A `next_cursor`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageSummaryOut | Problem]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 20,
    cursor: None | str | Unset = UNSET,
) -> PageSummaryOut | Problem | None:
    """List the summary history

     Every step of the session's progressive summary, newest first. Each step's `from_seq`..`to_seq`
    follows the previous one's, so the steps cover every message once.

    Args:
        session_id (str): The session's id.
        limit (int | Unset): Page size. Default: 20.
        cursor (None | str | Unset): A `next_cursor`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageSummaryOut | Problem
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 20,
    cursor: None | str | Unset = UNSET,
) -> Response[PageSummaryOut | Problem]:
    """List the summary history

     Every step of the session's progressive summary, newest first. Each step's `from_seq`..`to_seq`
    follows the previous one's, so the steps cover every message once.

    Args:
        session_id (str): The session's id.
        limit (int | Unset): Page size. Default: 20.
        cursor (None | str | Unset): A `next_cursor`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageSummaryOut | Problem]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 20,
    cursor: None | str | Unset = UNSET,
) -> PageSummaryOut | Problem | None:
    """List the summary history

     Every step of the session's progressive summary, newest first. Each step's `from_seq`..`to_seq`
    follows the previous one's, so the steps cover every message once.

    Args:
        session_id (str): The session's id.
        limit (int | Unset): Page size. Default: 20.
        cursor (None | str | Unset): A `next_cursor`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageSummaryOut | Problem
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
            limit=limit,
            cursor=cursor,
        )
    ).parsed

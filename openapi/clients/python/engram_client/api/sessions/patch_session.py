from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.session_out import SessionOut
from ...models.session_patch import SessionPatch
from ...types import Response


def _get_kwargs(
    session_id: str,
    *,
    body: SessionPatch,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/sessions/{session_id}".format(
            session_id=quote(str(session_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SessionOut | None:
    if response.status_code == 200:
        response_200 = SessionOut.from_dict(response.json())

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
) -> Response[Problem | SessionOut]:
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
    body: SessionPatch,
) -> Response[Problem | SessionOut]:
    """Update a session

     Merges `metadata` (RFC 7396: null removes a key) and/or ends (`ended: true`) or reopens the session.
    An ended session refuses new messages; ending one queues a summary of its messages not yet
    summarised (ENGRAM_SUMMARY_ON_END).

    Args:
        session_id (str): The session's id.
        body (SessionPatch):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SessionOut]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: SessionPatch,
) -> Problem | SessionOut | None:
    """Update a session

     Merges `metadata` (RFC 7396: null removes a key) and/or ends (`ended: true`) or reopens the session.
    An ended session refuses new messages; ending one queues a summary of its messages not yet
    summarised (ENGRAM_SUMMARY_ON_END).

    Args:
        session_id (str): The session's id.
        body (SessionPatch):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SessionOut
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: SessionPatch,
) -> Response[Problem | SessionOut]:
    """Update a session

     Merges `metadata` (RFC 7396: null removes a key) and/or ends (`ended: true`) or reopens the session.
    An ended session refuses new messages; ending one queues a summary of its messages not yet
    summarised (ENGRAM_SUMMARY_ON_END).

    Args:
        session_id (str): The session's id.
        body (SessionPatch):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SessionOut]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: SessionPatch,
) -> Problem | SessionOut | None:
    """Update a session

     Merges `metadata` (RFC 7396: null removes a key) and/or ends (`ended: true`) or reopens the session.
    An ended session refuses new messages; ending one queues a summary of its messages not yet
    summarised (ENGRAM_SUMMARY_ON_END).

    Args:
        session_id (str): The session's id.
        body (SessionPatch):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SessionOut
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
            body=body,
        )
    ).parsed

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.extract_accepted import ExtractAccepted
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    session_id: str,
    *,
    wait_seconds: float | Unset = 0.0,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["wait_seconds"] = wait_seconds

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/sessions/{session_id}/extract".format(
            session_id=quote(str(session_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ExtractAccepted | Problem | None:
    if response.status_code == 202:
        response_202 = ExtractAccepted.from_dict(response.json())

        return response_202

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
) -> Response[ExtractAccepted | Problem]:
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
    wait_seconds: float | Unset = 0.0,
) -> Response[ExtractAccepted | Problem]:
    """Extract facts now

     Queues fact extraction up to the newest message (and retries a failed one). The worker does it; with
    `wait_seconds` the answer waits, bounded, until it is `done`.

    Args:
        session_id (str): The session's id.
        wait_seconds (float | Unset): Wait up to this long. Default: 0.0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ExtractAccepted | Problem]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        wait_seconds=wait_seconds,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
    wait_seconds: float | Unset = 0.0,
) -> ExtractAccepted | Problem | None:
    """Extract facts now

     Queues fact extraction up to the newest message (and retries a failed one). The worker does it; with
    `wait_seconds` the answer waits, bounded, until it is `done`.

    Args:
        session_id (str): The session's id.
        wait_seconds (float | Unset): Wait up to this long. Default: 0.0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ExtractAccepted | Problem
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        wait_seconds=wait_seconds,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    wait_seconds: float | Unset = 0.0,
) -> Response[ExtractAccepted | Problem]:
    """Extract facts now

     Queues fact extraction up to the newest message (and retries a failed one). The worker does it; with
    `wait_seconds` the answer waits, bounded, until it is `done`.

    Args:
        session_id (str): The session's id.
        wait_seconds (float | Unset): Wait up to this long. Default: 0.0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ExtractAccepted | Problem]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        wait_seconds=wait_seconds,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
    wait_seconds: float | Unset = 0.0,
) -> ExtractAccepted | Problem | None:
    """Extract facts now

     Queues fact extraction up to the newest message (and retries a failed one). The worker does it; with
    `wait_seconds` the answer waits, bounded, until it is `done`.

    Args:
        session_id (str): The session's id.
        wait_seconds (float | Unset): Wait up to this long. Default: 0.0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ExtractAccepted | Problem
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
            wait_seconds=wait_seconds,
        )
    ).parsed

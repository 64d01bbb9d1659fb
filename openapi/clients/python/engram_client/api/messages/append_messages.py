from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.append_request import AppendRequest
from ...models.append_response import AppendResponse
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    session_id: str,
    *,
    body: AppendRequest,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/sessions/{session_id}/messages".format(
            session_id=quote(str(session_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AppendResponse | Problem | None:
    if response.status_code == 201:
        response_201 = AppendResponse.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

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

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[AppendResponse | Problem]:
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
    body: AppendRequest,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[AppendResponse | Problem]:
    """Append messages

     Appends 1..N messages in order; each gets the next `seq` of the session. The answer comes once they
    are durably committed; embedding and other derived work happen later, in the background. Send
    `Idempotency-Key` to make retries safe.

    Args:
        session_id (str): The session's id.
        idempotency_key (None | str | Unset): Any unique string (e.g. a UUID). A retry with the
            same key and body returns the first answer and stores nothing; the same key with another
            body is a 409.
        body (AppendRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AppendResponse | Problem]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: AppendRequest,
    idempotency_key: None | str | Unset = UNSET,
) -> AppendResponse | Problem | None:
    """Append messages

     Appends 1..N messages in order; each gets the next `seq` of the session. The answer comes once they
    are durably committed; embedding and other derived work happen later, in the background. Send
    `Idempotency-Key` to make retries safe.

    Args:
        session_id (str): The session's id.
        idempotency_key (None | str | Unset): Any unique string (e.g. a UUID). A retry with the
            same key and body returns the first answer and stores nothing; the same key with another
            body is a 409.
        body (AppendRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AppendResponse | Problem
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: AppendRequest,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[AppendResponse | Problem]:
    """Append messages

     Appends 1..N messages in order; each gets the next `seq` of the session. The answer comes once they
    are durably committed; embedding and other derived work happen later, in the background. Send
    `Idempotency-Key` to make retries safe.

    Args:
        session_id (str): The session's id.
        idempotency_key (None | str | Unset): Any unique string (e.g. a UUID). A retry with the
            same key and body returns the first answer and stores nothing; the same key with another
            body is a 409.
        body (AppendRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AppendResponse | Problem]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: AppendRequest,
    idempotency_key: None | str | Unset = UNSET,
) -> AppendResponse | Problem | None:
    """Append messages

     Appends 1..N messages in order; each gets the next `seq` of the session. The answer comes once they
    are durably committed; embedding and other derived work happen later, in the background. Send
    `Idempotency-Key` to make retries safe.

    Args:
        session_id (str): The session's id.
        idempotency_key (None | str | Unset): Any unique string (e.g. a UUID). A retry with the
            same key and body returns the first answer and stores nothing; the same key with another
            body is a 409.
        body (AppendRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AppendResponse | Problem
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed

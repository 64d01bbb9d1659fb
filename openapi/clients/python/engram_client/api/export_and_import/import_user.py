from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.import_result import ImportResult
from ...models.problem import Problem
from ...types import File, Response


def _get_kwargs(
    user_id: str,
    *,
    body: File,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/users/{user_id}/import".format(
            user_id=quote(str(user_id), safe=""),
        ),
    }

    _kwargs["content"] = body.payload
    headers["Content-Type"] = "application/x-ndjson"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ImportResult | Problem | None:
    if response.status_code == 200:
        response_200 = ImportResult.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

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

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ImportResult | Problem]:
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
    body: File,
) -> Response[ImportResult | Problem]:
    """Import a user's memory

     Takes an export file (`Content-Type: application/x-ndjson`, at most ENGRAM_MAX_IMPORT_BYTES) and
    writes it into this user of your tenant (created if new), all or nothing: seqs and timestamps are
    kept; message, summary and fact ids only where they are already this user's, any other id (free or
    not) is replaced by one derived from it, the same on every import; what the user already has is left
    as it is, so importing a file twice changes nothing. A bad line is refused with its line number;
    embeddings follow in the background.

    Args:
        user_id (str): Your id for the user.
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ImportResult | Problem]
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
    body: File,
) -> ImportResult | Problem | None:
    """Import a user's memory

     Takes an export file (`Content-Type: application/x-ndjson`, at most ENGRAM_MAX_IMPORT_BYTES) and
    writes it into this user of your tenant (created if new), all or nothing: seqs and timestamps are
    kept; message, summary and fact ids only where they are already this user's, any other id (free or
    not) is replaced by one derived from it, the same on every import; what the user already has is left
    as it is, so importing a file twice changes nothing. A bad line is refused with its line number;
    embeddings follow in the background.

    Args:
        user_id (str): Your id for the user.
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ImportResult | Problem
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
    body: File,
) -> Response[ImportResult | Problem]:
    """Import a user's memory

     Takes an export file (`Content-Type: application/x-ndjson`, at most ENGRAM_MAX_IMPORT_BYTES) and
    writes it into this user of your tenant (created if new), all or nothing: seqs and timestamps are
    kept; message, summary and fact ids only where they are already this user's, any other id (free or
    not) is replaced by one derived from it, the same on every import; what the user already has is left
    as it is, so importing a file twice changes nothing. A bad line is refused with its line number;
    embeddings follow in the background.

    Args:
        user_id (str): Your id for the user.
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ImportResult | Problem]
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
    body: File,
) -> ImportResult | Problem | None:
    """Import a user's memory

     Takes an export file (`Content-Type: application/x-ndjson`, at most ENGRAM_MAX_IMPORT_BYTES) and
    writes it into this user of your tenant (created if new), all or nothing: seqs and timestamps are
    kept; message, summary and fact ids only where they are already this user's, any other id (free or
    not) is replaced by one derived from it, the same on every import; what the user already has is left
    as it is, so importing a file twice changes nothing. A bad line is refused with its line number;
    embeddings follow in the background.

    Args:
        user_id (str): Your id for the user.
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ImportResult | Problem
    """

    return (
        await asyncio_detailed(
            user_id=user_id,
            client=client,
            body=body,
        )
    ).parsed

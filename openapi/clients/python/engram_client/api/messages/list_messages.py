import datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.order import Order
from ...models.page_message_out import PageMessageOut
from ...models.problem import Problem
from ...models.role import Role
from ...types import UNSET, Response, Unset


def _get_kwargs(
    session_id: str,
    *,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
    order: Order | Unset = UNSET,
    role: list[Role] | None | Unset = UNSET,
    created_after: datetime.datetime | None | Unset = UNSET,
    created_before: datetime.datetime | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    json_order: str | Unset = UNSET
    if not isinstance(order, Unset):
        json_order = order

    params["order"] = json_order

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

    json_created_after: None | str | Unset
    if isinstance(created_after, Unset):
        json_created_after = UNSET
    elif isinstance(created_after, datetime.datetime):
        json_created_after = created_after.isoformat()
    else:
        json_created_after = created_after
    params["created_after"] = json_created_after

    json_created_before: None | str | Unset
    if isinstance(created_before, Unset):
        json_created_before = UNSET
    elif isinstance(created_before, datetime.datetime):
        json_created_before = created_before.isoformat()
    else:
        json_created_before = created_before
    params["created_before"] = json_created_before

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/sessions/{session_id}/messages".format(
            session_id=quote(str(session_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PageMessageOut | Problem | None:
    if response.status_code == 200:
        response_200 = PageMessageOut.from_dict(response.json())

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
) -> Response[PageMessageOut | Problem]:
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
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
    order: Order | Unset = UNSET,
    role: list[Role] | None | Unset = UNSET,
    created_after: datetime.datetime | None | Unset = UNSET,
    created_before: datetime.datetime | None | Unset = UNSET,
) -> Response[PageMessageOut | Problem]:
    """List messages

     Messages by `seq`, oldest first (`order=desc`: newest first), filtered by role and creation time, a
    page at a time: `next_cursor` continues, `prev_cursor` goes back.

    Args:
        session_id (str): The session's id.
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): A `next_cursor` or `prev_cursor`.
        order (Order | Unset):
        role (list[Role] | None | Unset): Only these roles (repeatable).
        created_after (datetime.datetime | None | Unset): created_at >= this.
        created_before (datetime.datetime | None | Unset): created_at < this.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageMessageOut | Problem]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        limit=limit,
        cursor=cursor,
        order=order,
        role=role,
        created_after=created_after,
        created_before=created_before,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
    order: Order | Unset = UNSET,
    role: list[Role] | None | Unset = UNSET,
    created_after: datetime.datetime | None | Unset = UNSET,
    created_before: datetime.datetime | None | Unset = UNSET,
) -> PageMessageOut | Problem | None:
    """List messages

     Messages by `seq`, oldest first (`order=desc`: newest first), filtered by role and creation time, a
    page at a time: `next_cursor` continues, `prev_cursor` goes back.

    Args:
        session_id (str): The session's id.
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): A `next_cursor` or `prev_cursor`.
        order (Order | Unset):
        role (list[Role] | None | Unset): Only these roles (repeatable).
        created_after (datetime.datetime | None | Unset): created_at >= this.
        created_before (datetime.datetime | None | Unset): created_at < this.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageMessageOut | Problem
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        limit=limit,
        cursor=cursor,
        order=order,
        role=role,
        created_after=created_after,
        created_before=created_before,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
    order: Order | Unset = UNSET,
    role: list[Role] | None | Unset = UNSET,
    created_after: datetime.datetime | None | Unset = UNSET,
    created_before: datetime.datetime | None | Unset = UNSET,
) -> Response[PageMessageOut | Problem]:
    """List messages

     Messages by `seq`, oldest first (`order=desc`: newest first), filtered by role and creation time, a
    page at a time: `next_cursor` continues, `prev_cursor` goes back.

    Args:
        session_id (str): The session's id.
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): A `next_cursor` or `prev_cursor`.
        order (Order | Unset):
        role (list[Role] | None | Unset): Only these roles (repeatable).
        created_after (datetime.datetime | None | Unset): created_at >= this.
        created_before (datetime.datetime | None | Unset): created_at < this.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageMessageOut | Problem]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        limit=limit,
        cursor=cursor,
        order=order,
        role=role,
        created_after=created_after,
        created_before=created_before,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
    order: Order | Unset = UNSET,
    role: list[Role] | None | Unset = UNSET,
    created_after: datetime.datetime | None | Unset = UNSET,
    created_before: datetime.datetime | None | Unset = UNSET,
) -> PageMessageOut | Problem | None:
    """List messages

     Messages by `seq`, oldest first (`order=desc`: newest first), filtered by role and creation time, a
    page at a time: `next_cursor` continues, `prev_cursor` goes back.

    Args:
        session_id (str): The session's id.
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): A `next_cursor` or `prev_cursor`.
        order (Order | Unset):
        role (list[Role] | None | Unset): Only these roles (repeatable).
        created_after (datetime.datetime | None | Unset): created_at >= this.
        created_before (datetime.datetime | None | Unset): created_at < this.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageMessageOut | Problem
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
            limit=limit,
            cursor=cursor,
            order=order,
            role=role,
            created_after=created_after,
            created_before=created_before,
        )
    ).parsed

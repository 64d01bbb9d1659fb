import datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.page_audit_event_out import PageAuditEventOut
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    tenant_id: str,
    *,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
    operation: None | str | Unset = UNSET,
    key_id: None | Unset | UUID = UNSET,
    user_id: None | str | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    json_operation: None | str | Unset
    if isinstance(operation, Unset):
        json_operation = UNSET
    else:
        json_operation = operation
    params["operation"] = json_operation

    json_key_id: None | str | Unset
    if isinstance(key_id, Unset):
        json_key_id = UNSET
    elif isinstance(key_id, UUID):
        json_key_id = str(key_id)
    else:
        json_key_id = key_id
    params["key_id"] = json_key_id

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

    json_since: None | str | Unset
    if isinstance(since, Unset):
        json_since = UNSET
    elif isinstance(since, datetime.datetime):
        json_since = since.isoformat()
    else:
        json_since = since
    params["since"] = json_since

    json_until: None | str | Unset
    if isinstance(until, Unset):
        json_until = UNSET
    elif isinstance(until, datetime.datetime):
        json_until = until.isoformat()
    else:
        json_until = until
    params["until"] = json_until

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/admin/tenants/{tenant_id}/audit/events".format(
            tenant_id=quote(str(tenant_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PageAuditEventOut | Problem | None:
    if response.status_code == 200:
        response_200 = PageAuditEventOut.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[PageAuditEventOut | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    tenant_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
    operation: None | str | Unset = UNSET,
    key_id: None | Unset | UUID = UNSET,
    user_id: None | str | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
) -> Response[PageAuditEventOut | Problem]:
    """List a tenant's audit events

     Newest first, filtered, a page at a time.

    Args:
        tenant_id (str):
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): From `next_cursor`.
        operation (None | str | Unset): Only this operation.
        key_id (None | Unset | UUID): Only requests made with this key.
        user_id (None | str | Unset): Only about this user.
        session_id (None | str | Unset): Only about this session.
        since (datetime.datetime | None | Unset): Only events at or after this time.
        until (datetime.datetime | None | Unset): Only events before this time.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageAuditEventOut | Problem]
    """

    kwargs = _get_kwargs(
        tenant_id=tenant_id,
        limit=limit,
        cursor=cursor,
        operation=operation,
        key_id=key_id,
        user_id=user_id,
        session_id=session_id,
        since=since,
        until=until,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    tenant_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
    operation: None | str | Unset = UNSET,
    key_id: None | Unset | UUID = UNSET,
    user_id: None | str | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
) -> PageAuditEventOut | Problem | None:
    """List a tenant's audit events

     Newest first, filtered, a page at a time.

    Args:
        tenant_id (str):
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): From `next_cursor`.
        operation (None | str | Unset): Only this operation.
        key_id (None | Unset | UUID): Only requests made with this key.
        user_id (None | str | Unset): Only about this user.
        session_id (None | str | Unset): Only about this session.
        since (datetime.datetime | None | Unset): Only events at or after this time.
        until (datetime.datetime | None | Unset): Only events before this time.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageAuditEventOut | Problem
    """

    return sync_detailed(
        tenant_id=tenant_id,
        client=client,
        limit=limit,
        cursor=cursor,
        operation=operation,
        key_id=key_id,
        user_id=user_id,
        session_id=session_id,
        since=since,
        until=until,
    ).parsed


async def asyncio_detailed(
    tenant_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
    operation: None | str | Unset = UNSET,
    key_id: None | Unset | UUID = UNSET,
    user_id: None | str | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
) -> Response[PageAuditEventOut | Problem]:
    """List a tenant's audit events

     Newest first, filtered, a page at a time.

    Args:
        tenant_id (str):
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): From `next_cursor`.
        operation (None | str | Unset): Only this operation.
        key_id (None | Unset | UUID): Only requests made with this key.
        user_id (None | str | Unset): Only about this user.
        session_id (None | str | Unset): Only about this session.
        since (datetime.datetime | None | Unset): Only events at or after this time.
        until (datetime.datetime | None | Unset): Only events before this time.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageAuditEventOut | Problem]
    """

    kwargs = _get_kwargs(
        tenant_id=tenant_id,
        limit=limit,
        cursor=cursor,
        operation=operation,
        key_id=key_id,
        user_id=user_id,
        session_id=session_id,
        since=since,
        until=until,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    tenant_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
    operation: None | str | Unset = UNSET,
    key_id: None | Unset | UUID = UNSET,
    user_id: None | str | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
) -> PageAuditEventOut | Problem | None:
    """List a tenant's audit events

     Newest first, filtered, a page at a time.

    Args:
        tenant_id (str):
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): From `next_cursor`.
        operation (None | str | Unset): Only this operation.
        key_id (None | Unset | UUID): Only requests made with this key.
        user_id (None | str | Unset): Only about this user.
        session_id (None | str | Unset): Only about this session.
        since (datetime.datetime | None | Unset): Only events at or after this time.
        until (datetime.datetime | None | Unset): Only events before this time.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageAuditEventOut | Problem
    """

    return (
        await asyncio_detailed(
            tenant_id=tenant_id,
            client=client,
            limit=limit,
            cursor=cursor,
            operation=operation,
            key_id=key_id,
            user_id=user_id,
            session_id=session_id,
            since=since,
            until=until,
        )
    ).parsed

import datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.fact_kind import FactKind
from ...models.page_fact_out import PageFactOut
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    user_id: str,
    *,
    as_of: datetime.datetime | None | Unset = UNSET,
    include_invalid: bool | Unset = False,
    kind: list[FactKind] | None | Unset = UNSET,
    speaker: None | str | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_as_of: None | str | Unset
    if isinstance(as_of, Unset):
        json_as_of = UNSET
    elif isinstance(as_of, datetime.datetime):
        json_as_of = as_of.isoformat()
    else:
        json_as_of = as_of
    params["as_of"] = json_as_of

    params["include_invalid"] = include_invalid

    json_kind: list[str] | None | Unset
    if isinstance(kind, Unset):
        json_kind = UNSET
    elif isinstance(kind, list):
        json_kind = []
        for kind_type_0_item_data in kind:
            kind_type_0_item: str = kind_type_0_item_data
            json_kind.append(kind_type_0_item)

    else:
        json_kind = kind
    params["kind"] = json_kind

    json_speaker: None | str | Unset
    if isinstance(speaker, Unset):
        json_speaker = UNSET
    else:
        json_speaker = speaker
    params["speaker"] = json_speaker

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
        "url": "/v1/users/{user_id}/facts".format(
            user_id=quote(str(user_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> PageFactOut | Problem | None:
    if response.status_code == 200:
        response_200 = PageFactOut.from_dict(response.json())

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
) -> Response[PageFactOut | Problem]:
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
    as_of: datetime.datetime | None | Unset = UNSET,
    include_invalid: bool | Unset = False,
    kind: list[FactKind] | None | Unset = UNSET,
    speaker: None | str | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
) -> Response[PageFactOut | Problem]:
    """List a user's facts

     The facts valid now, newest first. `as_of` shows those that held at a past time;
    `include_invalid=true` lists every fact with its validity dates (what was superseded, negated,
    expired or ended).

    Args:
        user_id (str): Your id for the user.
        as_of (datetime.datetime | None | Unset): Facts valid at this time (no zone: UTC).
        include_invalid (bool | Unset): Every fact, valid or not. Default: False.
        kind (list[FactKind] | None | Unset): Only these kinds (repeatable).
        speaker (None | str | Unset): Only the facts about this speaker (a name; empty: the user's
            own). All by default.
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): From `next_cursor`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageFactOut | Problem]
    """

    kwargs = _get_kwargs(
        user_id=user_id,
        as_of=as_of,
        include_invalid=include_invalid,
        kind=kind,
        speaker=speaker,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    user_id: str,
    *,
    client: AuthenticatedClient,
    as_of: datetime.datetime | None | Unset = UNSET,
    include_invalid: bool | Unset = False,
    kind: list[FactKind] | None | Unset = UNSET,
    speaker: None | str | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
) -> PageFactOut | Problem | None:
    """List a user's facts

     The facts valid now, newest first. `as_of` shows those that held at a past time;
    `include_invalid=true` lists every fact with its validity dates (what was superseded, negated,
    expired or ended).

    Args:
        user_id (str): Your id for the user.
        as_of (datetime.datetime | None | Unset): Facts valid at this time (no zone: UTC).
        include_invalid (bool | Unset): Every fact, valid or not. Default: False.
        kind (list[FactKind] | None | Unset): Only these kinds (repeatable).
        speaker (None | str | Unset): Only the facts about this speaker (a name; empty: the user's
            own). All by default.
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): From `next_cursor`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageFactOut | Problem
    """

    return sync_detailed(
        user_id=user_id,
        client=client,
        as_of=as_of,
        include_invalid=include_invalid,
        kind=kind,
        speaker=speaker,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    user_id: str,
    *,
    client: AuthenticatedClient,
    as_of: datetime.datetime | None | Unset = UNSET,
    include_invalid: bool | Unset = False,
    kind: list[FactKind] | None | Unset = UNSET,
    speaker: None | str | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
) -> Response[PageFactOut | Problem]:
    """List a user's facts

     The facts valid now, newest first. `as_of` shows those that held at a past time;
    `include_invalid=true` lists every fact with its validity dates (what was superseded, negated,
    expired or ended).

    Args:
        user_id (str): Your id for the user.
        as_of (datetime.datetime | None | Unset): Facts valid at this time (no zone: UTC).
        include_invalid (bool | Unset): Every fact, valid or not. Default: False.
        kind (list[FactKind] | None | Unset): Only these kinds (repeatable).
        speaker (None | str | Unset): Only the facts about this speaker (a name; empty: the user's
            own). All by default.
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): From `next_cursor`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PageFactOut | Problem]
    """

    kwargs = _get_kwargs(
        user_id=user_id,
        as_of=as_of,
        include_invalid=include_invalid,
        kind=kind,
        speaker=speaker,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    user_id: str,
    *,
    client: AuthenticatedClient,
    as_of: datetime.datetime | None | Unset = UNSET,
    include_invalid: bool | Unset = False,
    kind: list[FactKind] | None | Unset = UNSET,
    speaker: None | str | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: None | str | Unset = UNSET,
) -> PageFactOut | Problem | None:
    """List a user's facts

     The facts valid now, newest first. `as_of` shows those that held at a past time;
    `include_invalid=true` lists every fact with its validity dates (what was superseded, negated,
    expired or ended).

    Args:
        user_id (str): Your id for the user.
        as_of (datetime.datetime | None | Unset): Facts valid at this time (no zone: UTC).
        include_invalid (bool | Unset): Every fact, valid or not. Default: False.
        kind (list[FactKind] | None | Unset): Only these kinds (repeatable).
        speaker (None | str | Unset): Only the facts about this speaker (a name; empty: the user's
            own). All by default.
        limit (int | Unset): Page size. Default: 100.
        cursor (None | str | Unset): From `next_cursor`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PageFactOut | Problem
    """

    return (
        await asyncio_detailed(
            user_id=user_id,
            client=client,
            as_of=as_of,
            include_invalid=include_invalid,
            kind=kind,
            speaker=speaker,
            limit=limit,
            cursor=cursor,
        )
    ).parsed

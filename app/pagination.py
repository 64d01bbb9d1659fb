"""Keyset pages: the page a list returns, its opaque cursors, and the `limit`/`cursor` query
parameters every list route takes.

A list reads one row more than the page (`PageRequest.fetch`): that row only says whether a next
page exists. The cursor is the sort key of the page's last item, tagged with the list's kind so a
cursor of another list is a 400 (problem+json), never a wrong page.

No `from __future__ import annotations` here: the query parameters' bounds are read from the
signature FastAPI inspects at run time, and a closure's names cannot be resolved from a string.
"""

import base64
import binascii
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Generic, TypeVar

from fastapi import Depends, Query
from pydantic import BaseModel, Field

from app.errors import InvalidCursor
from app.jsonutil import dumps, loads

T = TypeVar("T")

_BAD = "The cursor is malformed or belongs to another list."


class Page(BaseModel, Generic[T]):
    items: list[T]
    next_cursor: str | None = Field(None, description="Pass as `cursor` for the next page; null at the end.")
    prev_cursor: str | None = Field(None, description="Pass as `cursor` for the page before this one.")


@dataclass(frozen=True, slots=True)
class PageRequest:
    """What a list route was asked for: the page size and the cursor it continues from."""

    limit: int
    cursor: str | None = None

    @property
    def fetch(self) -> int:
        """Rows to read: one more than the page, which only says a next page exists."""
        return self.limit + 1


def encode_cursor(kind: str, key: list[Any], *, backward: bool = False) -> str:
    raw = dumps({"k": kind, "v": key, "b": backward})
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def decode_cursor(cursor: str, kind: str, arity: int) -> tuple[list[Any], bool]:
    """Returns (key, backward). Any tampered, foreign or malformed cursor is a 400."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = loads(raw)
        key, backward = data["v"], data["b"]
        if data["k"] != kind or not isinstance(key, list) or len(key) != arity:
            raise ValueError("cursor of another list")
        if not isinstance(backward, bool):
            raise ValueError("bad direction")
        if any(isinstance(v, str) and "\x00" in v for v in key):
            raise ValueError("NUL byte")  # PostgreSQL cannot take it as a parameter
    except (ValueError, KeyError, TypeError, binascii.Error) as exc:
        raise InvalidCursor(_BAD) from exc
    return key, backward


def cursor_datetime(value: Any) -> datetime:
    try:
        moment = datetime.fromisoformat(value)
        if moment.tzinfo is None:
            raise ValueError("cursors carry aware timestamps")
        return moment.astimezone(UTC)
    except (TypeError, ValueError, OverflowError) as exc:
        raise InvalidCursor(_BAD) from exc


def cursor_uuid(value: Any) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except (TypeError, ValueError, AttributeError) as exc:
        raise InvalidCursor(_BAD) from exc


def cursor_int(value: Any) -> int:
    """A bigint position (seq, id): anything else would be a 500 from PostgreSQL, not a 400."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
        raise InvalidCursor(_BAD)
    return value


@dataclass(frozen=True, slots=True)
class KeyPart:
    """One column of a sort key: how it is written into a cursor and read back (checked)."""

    dump: Callable[[Any], Any]
    parse: Callable[[Any], Any]


TEXT = KeyPart(dump=str, parse=str)
INT = KeyPart(dump=int, parse=cursor_int)
UUID = KeyPart(dump=str, parse=cursor_uuid)
TIMESTAMP = KeyPart(dump=lambda moment: moment.isoformat(), parse=cursor_datetime)


@dataclass(frozen=True, slots=True)
class Keyset:
    """One list's cursors: its kind and the columns of its sort key."""

    kind: str
    parts: tuple[KeyPart, ...]

    def cursor(self, key: Sequence[Any], *, backward: bool = False) -> str:
        return encode_cursor(
            self.kind, [part.dump(v) for part, v in zip(self.parts, key, strict=True)], backward=backward
        )

    def position(self, cursor: str) -> tuple[tuple[Any, ...], bool]:
        """The sort key a cursor continues from (checked, typed) and whether it walks back."""
        raw, backward = decode_cursor(cursor, self.kind, len(self.parts))
        return tuple(part.parse(v) for part, v in zip(self.parts, raw, strict=True)), backward

    def after(self, cursor: str) -> tuple[Any, ...]:
        """The sort key a forward-only list continues from."""
        return self.position(cursor)[0]

    def page(self, rows: Sequence[T], page: PageRequest, key: Callable[[T], Sequence[Any]]) -> Page[T]:
        """The page of `rows` (read with `page.fetch`), with a next cursor if a row was left over."""
        items = list(rows[: page.limit])
        nxt = self.cursor(key(items[-1])) if len(rows) > page.limit else None
        return Page(items=items, next_cursor=nxt)


def page_query(
    *, default: int = 100, maximum: int = 1000, cursor_help: str = "From `next_cursor`."
) -> Callable[..., PageRequest]:
    """A FastAPI dependency reading a list's `limit` and `cursor` (a 422 out of bounds)."""

    def dependency(
        limit: Annotated[int, Query(ge=1, le=maximum, description="Page size.")] = default,
        cursor: Annotated[str | None, Query(max_length=2048, description=cursor_help)] = None,
    ) -> PageRequest:
        return PageRequest(limit, cursor)

    return dependency


# The list routes' page parameters. Declared before a route's other dependencies with query
# parameters, they keep their place in the OpenAPI document (a dependency's parameters follow the
# route's own, in the order the dependencies are declared).
PageParams = Annotated[PageRequest, Depends(page_query())]

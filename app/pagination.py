"""Keyset pages: the page a list returns and its opaque cursors (the `limit`/`cursor` query
parameters every list route takes are app/page_params.py's, so the worker's services load no
FastAPI).

A list reads one row more than the page (`PageRequest.fetch`): that row only says whether a next
page exists. The cursor is the sort key of the page's last item, tagged with the list's kind so a
cursor of another list is a 400 (problem+json), never a wrong page.
"""

import base64
import binascii
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

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
    """One column of a sort key: how it is written into a cursor and read back (checked), and the
    SQL type its bind parameter is cast to (asyncpg cannot always infer it inside a row comparison)."""

    dump: Callable[[Any], Any]
    parse: Callable[[Any], Any]
    sql_type: str | None = None


TEXT = KeyPart(dump=str, parse=str)
INT = KeyPart(dump=int, parse=cursor_int)
UUID = KeyPart(dump=str, parse=cursor_uuid, sql_type="uuid")
TIMESTAMP = KeyPart(dump=lambda moment: moment.isoformat(), parse=cursor_datetime, sql_type="timestamptz")


@dataclass(frozen=True, slots=True)
class Keyset:
    """One list's keyset pages: its cursors' kind, the columns of its sort key (typed parts and the
    SQL that reads them) and its order. `two_way` lists also hand out `prev_cursor`s."""

    kind: str
    parts: tuple[KeyPart, ...]
    columns: tuple[str, ...] = ()
    descending: bool = False
    two_way: bool = False

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

    def seek(self, page: PageRequest) -> "Seek":
        """The SQL of one page: the condition that continues after the cursor's row, the ORDER BY
        and the LIMIT (one row more than the page), with their bind parameters (`page_*`)."""
        assert self.columns, f"the {self.kind} keyset names no columns"
        params: dict[str, Any] = {"page_limit": page.fetch}
        condition = None
        backward = False
        if page.cursor:
            key, backward = self.position(page.cursor)
            backward = backward and self.two_way  # a one-way list reads any cursor forward
        scan_desc = self.descending != backward
        if page.cursor:
            binds = []
            for i, (part, value) in enumerate(zip(self.parts, key, strict=True)):
                params[f"page_k{i}"] = value
                binds.append(f"CAST(:page_k{i} AS {part.sql_type})" if part.sql_type else f":page_k{i}")
            op = "<" if scan_desc else ">"
            if len(binds) == 1:
                condition = f"{self.columns[0]} {op} {binds[0]}"
            else:
                condition = f"({', '.join(self.columns)}) {op} ({', '.join(binds)})"
        direction = " DESC" if scan_desc else ""
        order = ", ".join(f"{column}{direction}" for column in self.columns)
        return Seek(self, page, backward, condition, f"ORDER BY {order} LIMIT :page_limit", params)


@dataclass(frozen=True, slots=True)
class Seek:
    """One page's keyset SQL (from `Keyset.seek`) and the page built from the rows it read.

    Used as `f"... WHERE {seek.where('tenant_id = :t')} {seek.tail}"` with `{**params, **seek.params}`."""

    keyset: Keyset
    request: PageRequest
    backward: bool
    condition: str | None
    tail: str
    params: dict[str, Any]

    def where(self, *conditions: str) -> str:
        """`conditions` and the seek condition joined with AND (`TRUE` when there is none)."""
        found = [*conditions, *([self.condition] if self.condition else [])]
        return " AND ".join(found) or "TRUE"

    def page(self, rows: Sequence[T], key: Callable[[T], Sequence[Any]]) -> Page[T]:
        """The page of `rows`; a two-way list also gets its `prev_cursor`, and a page read backward
        (the page before the cursor's row) is put back in the list's order."""
        if not self.keyset.two_way:
            return self.keyset.page(rows, self.request, key)
        more = len(rows) > self.request.limit
        items = list(rows[: self.request.limit])
        if self.backward:
            items.reverse()
        nxt = prev = None
        if items:
            first, last = key(items[0]), key(items[-1])
            if self.backward:  # the cursor's own item follows this page; more rows precede it
                nxt = self.keyset.cursor(last)
                prev = self.keyset.cursor(first, backward=True) if more else None
            else:
                nxt = self.keyset.cursor(last) if more else None
                prev = self.keyset.cursor(first, backward=True) if self.request.cursor else None
        return Page(items=items, next_cursor=nxt, prev_cursor=prev)

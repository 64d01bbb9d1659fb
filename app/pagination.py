"""Opaque keyset cursors and the page shape every list returns."""

from __future__ import annotations

import base64
import binascii
import uuid
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, Field

from app.errors import InvalidCursor
from app.jsonutil import dumps, loads

T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    items: list[T]
    next_cursor: str | None = Field(None, description="Pass as `cursor` for the next page; null at the end.")
    prev_cursor: str | None = Field(None, description="Pass as `cursor` for the page before this one.")


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
        raise InvalidCursor("The cursor is malformed or belongs to another list.") from exc
    return key, backward


def cursor_datetime(value: Any) -> datetime:
    try:
        moment = datetime.fromisoformat(value)
        if moment.tzinfo is None:
            raise ValueError("cursors carry aware timestamps")
        return moment.astimezone(UTC)
    except (TypeError, ValueError, OverflowError) as exc:
        raise InvalidCursor("The cursor is malformed or belongs to another list.") from exc


def cursor_uuid(value: Any) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except (TypeError, ValueError, AttributeError) as exc:
        raise InvalidCursor("The cursor is malformed or belongs to another list.") from exc

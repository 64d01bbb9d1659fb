"""Keyset cursors: what a list writes into a cursor comes back typed, and anything else is a 400."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta, timezone

import pytest

from app.errors import InvalidCursor
from app.pagination import INT, TEXT, TIMESTAMP, UUID, Keyset, PageRequest, encode_cursor

KEYS = Keyset("test", (TIMESTAMP, UUID))


def test_a_cursor_comes_back_as_the_key_it_was_made_from() -> None:
    moment = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=timezone(timedelta(hours=2)))
    ident = uuid.uuid4()
    (at, back), backward = KEYS.position(KEYS.cursor((moment, ident), backward=True))
    assert (at, back, backward) == (moment.astimezone(UTC), ident, True)
    assert at.tzinfo is UTC


def test_a_page_reads_one_row_more_and_continues_from_its_last_item() -> None:
    request = PageRequest(limit=2, cursor=None)
    assert request.fetch == 3
    rows = [("a",), ("b",), ("c",)]
    texts = Keyset("t", (TEXT,))
    page = texts.page(rows, request, lambda row: row)
    assert page.items == rows[:2]
    assert page.next_cursor is not None and texts.after(page.next_cursor) == ("b",)
    last = texts.page(rows[:2], request, lambda row: row)
    assert last.items == rows[:2] and last.next_cursor is None
    assert texts.page([], request, lambda row: row).items == []


@pytest.mark.parametrize(
    "cursor",
    [
        "not base64 at all!",
        encode_cursor("other", ["2026-01-01T00:00:00+00:00", str(uuid.uuid4())]),  # another list's
        encode_cursor("test", ["2026-01-01T00:00:00+00:00"]),  # too short
        encode_cursor("test", ["2026-01-01T00:00:00", str(uuid.uuid4())]),  # naive time
        encode_cursor("test", ["2026-01-01T00:00:00+00:00", "not a uuid"]),
        encode_cursor("test", ["2026-01-01T00:00:00+00:00\x00", str(uuid.uuid4())]),  # NUL
    ],
)
def test_a_foreign_or_broken_cursor_is_refused(cursor: str) -> None:
    with pytest.raises(InvalidCursor):
        KEYS.after(cursor)


@pytest.mark.parametrize("value", [True, -1, 2**63, "5", 1.5, None])
def test_an_integer_position_is_a_bigint(value: object) -> None:
    # PostgreSQL would answer anything else with a 500, not the list's 400.
    with pytest.raises(InvalidCursor):
        Keyset("seq", (INT,)).after(encode_cursor("seq", [value]))

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


def test_a_first_page_has_no_seek_condition_and_reads_one_row_more() -> None:
    seek = Keyset("s", (TIMESTAMP, TEXT), ("created_at", "session_id"), descending=True).seek(PageRequest(5))
    assert seek.where("tenant_id = :t") == "tenant_id = :t" and seek.where() == "TRUE"
    assert seek.tail == "ORDER BY created_at DESC, session_id DESC LIMIT :page_limit"
    assert seek.params == {"page_limit": 6}


@pytest.mark.parametrize(("descending", "op"), [(False, ">"), (True, "<")])
def test_a_cursor_seeks_past_its_row_in_the_lists_order(descending: bool, op: str) -> None:
    keys = Keyset("k", (TIMESTAMP, UUID), ("created_at", "key_id"), descending=descending)
    moment, ident = datetime(2026, 1, 2, tzinfo=UTC), uuid.uuid4()
    seek = keys.seek(PageRequest(2, keys.cursor((moment, ident))))
    assert seek.where("a = :a") == (
        f"a = :a AND (created_at, key_id) {op} (CAST(:page_k0 AS timestamptz), CAST(:page_k1 AS uuid))"
    )
    assert seek.params == {"page_limit": 3, "page_k0": moment, "page_k1": ident}
    single = Keyset("u", (TEXT,), ("user_id",), descending=descending)
    assert single.seek(PageRequest(2, single.cursor(("bo",)))).condition == f"user_id {op} :page_k0"


def test_a_one_way_list_reads_a_backward_cursor_forward() -> None:
    ids = Keyset("ids", (INT,), ("id",))
    seek = ids.seek(PageRequest(2, ids.cursor((7,), backward=True)))
    assert (seek.condition, seek.tail) == ("id > :page_k0", "ORDER BY id LIMIT :page_limit")
    assert seek.page([(8,), (9,)], lambda row: row).prev_cursor is None


def test_a_two_way_list_walks_back_and_hands_out_both_cursors() -> None:
    seqs = Keyset("seqs", (INT,), ("seq",), two_way=True)
    # Forward from seq 3: rows 4, 5 and one more, so a next page, and a page before.
    ahead = seqs.seek(PageRequest(2, seqs.cursor((3,))))
    assert (ahead.condition, ahead.tail) == ("seq > :page_k0", "ORDER BY seq LIMIT :page_limit")
    page = ahead.page([(4,), (5,), (6,)], lambda row: row)
    assert page.items == [(4,), (5,)]
    assert page.next_cursor and seqs.position(page.next_cursor) == ((5,), False)
    assert page.prev_cursor and seqs.position(page.prev_cursor) == ((4,), True)
    # Back from seq 4: read 3, 2, 1 descending, handed out in the list's order, with more before.
    back = seqs.seek(PageRequest(2, page.prev_cursor))
    assert (back.condition, back.tail) == ("seq < :page_k0", "ORDER BY seq DESC LIMIT :page_limit")
    before = back.page([(3,), (2,), (1,)], lambda row: row)
    assert before.items == [(2,), (3,)]
    assert before.next_cursor and seqs.position(before.next_cursor) == ((3,), False)
    assert before.prev_cursor and seqs.position(before.prev_cursor) == ((2,), True)
    # The first page: no page before it; the last page back: no page before it either.
    assert seqs.seek(PageRequest(2)).page([(1,)], lambda row: row).prev_cursor is None
    assert back.page([(3,)], lambda row: row).prev_cursor is None

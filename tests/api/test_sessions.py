"""Sessions: create (client or server id), get, list by user newest first, merge-patch, end/reopen, delete."""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime
from typing import Any

import httpx

from tests.support.problems import assert_problem


async def create(api: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    r = await api.post("/v1/sessions", json=body)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


async def append(api: httpx.AsyncClient, session_id: str, *contents: str) -> httpx.Response:
    msgs = [{"role": "user", "content": c} for c in contents]
    return await api.post(f"/v1/sessions/{session_id}/messages", json={"messages": msgs})


async def test_create_with_client_id(api: httpx.AsyncClient) -> None:
    meta = {"channel": "web", "tags": ["a", "b"], "n": 1.5, "nested": {"k": None}}
    s = await create(api, session_id="sess-1", user_id="ada", metadata=meta)
    assert s["session_id"] == "sess-1"
    assert s["user_id"] == "ada"
    assert s["metadata"] == meta
    assert s["last_seq"] == 0
    assert s["ended_at"] is None
    assert s["created_at"] == s["updated_at"]

    r = await api.get("/v1/sessions/sess-1")
    assert r.status_code == 200
    assert r.json() == s
    # The user is created with the session.
    r = await api.get("/v1/users/ada")
    assert r.status_code == 200
    assert r.json()["metadata"] == {}


async def test_create_with_server_id(api: httpx.AsyncClient) -> None:
    a = await create(api, user_id="ada")
    b = await create(api, user_id="ada", metadata={"x": 1})
    assert a["session_id"] != b["session_id"]
    for s in (a, b):
        assert str(uuid.UUID(s["session_id"])) == s["session_id"]
        assert (await api.get(f"/v1/sessions/{s['session_id']}")).json() == s


async def test_create_for_an_existing_user_keeps_the_user(api: httpx.AsyncClient) -> None:
    assert (await api.put("/v1/users/ada", json={"metadata": {"plan": "pro"}})).status_code == 201
    await create(api, session_id="s", user_id="ada")
    assert (await api.get("/v1/users/ada")).json()["metadata"] == {"plan": "pro"}


async def test_duplicate_id_is_409_and_leaves_the_first_unchanged(api: httpx.AsyncClient) -> None:
    first = await create(api, session_id="dup", user_id="ada", metadata={"v": 1})
    assert_problem(
        await api.post("/v1/sessions", json={"session_id": "dup", "user_id": "ada"}), 409, "conflict"
    )
    r = await api.post("/v1/sessions", json={"session_id": "dup", "user_id": "bob", "metadata": {"v": 2}})
    assert_problem(r, 409, "conflict")
    assert (await api.get("/v1/sessions/dup")).json() == first
    # The refused request created nothing, not even its user.
    assert_problem(await api.get("/v1/users/bob"), 404, "not-found")


async def test_concurrent_creates_of_one_id_succeed_once(api: httpx.AsyncClient) -> None:
    rs = await asyncio.gather(
        *(api.post("/v1/sessions", json={"session_id": "race", "user_id": f"u{i}"}) for i in range(10))
    )
    assert sorted(r.status_code for r in rs) == [201] + [409] * 9
    (winner,) = [r.json() for r in rs if r.status_code == 201]
    assert (await api.get("/v1/sessions/race")).json() == winner


async def test_get_unknown_session_is_404(api: httpx.AsyncClient) -> None:
    assert_problem(await api.get("/v1/sessions/nope"), 404, "not-found")


async def test_list_by_user_newest_first_with_cursor(api: httpx.AsyncClient) -> None:
    mine = [
        (await create(api, session_id=f"s{i}", user_id="ada", metadata={"i": i}))["session_id"]
        for i in range(7)
    ]
    await create(api, session_id="other", user_id="bob")

    pages: list[list[str]] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"user_id": "ada", "limit": 3} | ({"cursor": cursor} if cursor else {})
        r = await api.get("/v1/sessions", params=params)
        assert r.status_code == 200, r.text
        page = r.json()
        pages.append([s["session_id"] for s in page["items"]])
        for s in page["items"]:
            assert s["user_id"] == "ada"
            assert s["metadata"] == {"i": int(s["session_id"][1:])}
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert pages == [["s6", "s5", "s4"], ["s3", "s2", "s1"], ["s0"]]
    assert [s for p in pages for s in p] == list(reversed(mine))

    # Without a user: every session of the tenant, still newest first.
    r = await api.get("/v1/sessions")
    assert [s["session_id"] for s in r.json()["items"]] == ["other", *reversed(mine)]


async def test_list_sessions_of_a_user_created_in_the_same_instant_is_stable(api: httpx.AsyncClient) -> None:
    # Concurrent creates may share a timestamp; the cursor breaks ties by id, so none is lost.
    ids = [f"c{i:02d}" for i in range(20)]
    await asyncio.gather(*(create(api, session_id=s, user_id="ada") for s in ids))
    seen: list[str] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"user_id": "ada", "limit": 4} | ({"cursor": cursor} if cursor else {})
        page = (await api.get("/v1/sessions", params=params)).json()
        seen += [s["session_id"] for s in page["items"]]
        created = [datetime.fromisoformat(s["created_at"]) for s in page["items"]]
        assert created == sorted(created, reverse=True)
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert sorted(seen) == ids
    assert len(seen) == len(set(seen))


async def test_list_for_unknown_user_is_404(api: httpx.AsyncClient) -> None:
    assert_problem(await api.get("/v1/sessions", params={"user_id": "ghost"}), 404, "not-found")


async def test_list_for_user_without_sessions_is_empty(api: httpx.AsyncClient) -> None:
    assert (await api.put("/v1/users/lonely", json={})).status_code == 201
    r = await api.get("/v1/sessions", params={"user_id": "lonely"})
    assert r.status_code == 200
    assert r.json()["items"] == []
    assert r.json()["next_cursor"] is None


async def test_patch_metadata_is_a_json_merge_patch(api: httpx.AsyncClient) -> None:
    stored = {
        "keep": 1,
        "drop": "me",
        "nested": {"x": 1, "y": 2, "deeper": {"a": 1, "b": 2}},
        "list": [1, 2, 3],
        "replaced": {"obj": True},
    }
    before = await create(api, session_id="p", user_id="ada", metadata=stored)
    patch = {
        "drop": None,  # null removes the key
        "nested": {"y": None, "z": 3, "deeper": {"b": None, "c": 3}},  # objects merge recursively
        "list": [9],  # arrays are replaced, not merged
        "replaced": "scalar",
        "new": {"k": "v", "gone": None},  # null inside a new object is dropped too
        "absent": None,  # removing a missing key is a no-op
    }
    expected = {
        "keep": 1,
        "nested": {"x": 1, "z": 3, "deeper": {"a": 1, "c": 3}},
        "list": [9],
        "replaced": "scalar",
        "new": {"k": "v"},
    }
    r = await api.patch("/v1/sessions/p", json={"metadata": patch})
    assert r.status_code == 200, r.text
    after = r.json()
    assert after["metadata"] == expected
    assert after["ended_at"] is None
    assert after["created_at"] == before["created_at"]
    assert datetime.fromisoformat(after["updated_at"]) > datetime.fromisoformat(before["updated_at"])
    assert (await api.get("/v1/sessions/p")).json() == after

    # An empty patch, or none at all, changes nothing.
    bodies: list[dict[str, Any]] = [{"metadata": {}}, {}]
    for body in bodies:
        r = await api.patch("/v1/sessions/p", json=body)
        assert r.status_code == 200
        assert r.json()["metadata"] == expected
        assert r.json()["ended_at"] is None


async def test_patch_unknown_session_is_404(api: httpx.AsyncClient) -> None:
    assert_problem(await api.patch("/v1/sessions/nope", json={"ended": True}), 404, "not-found")


async def test_end_and_reopen(api: httpx.AsyncClient) -> None:
    await create(api, session_id="e", user_id="ada", metadata={"m": 1})
    assert (await append(api, "e", "one", "two")).status_code == 201

    r = await api.patch("/v1/sessions/e", json={"ended": True})
    assert r.status_code == 200, r.text
    ended_at = r.json()["ended_at"]
    assert ended_at is not None
    assert r.json()["metadata"] == {"m": 1}
    # Ending again keeps the first end time.
    assert (await api.patch("/v1/sessions/e", json={"ended": True})).json()["ended_at"] == ended_at
    # Patching metadata alone does not reopen it.
    r = await api.patch("/v1/sessions/e", json={"metadata": {"m": 2}})
    assert r.json()["ended_at"] == ended_at

    body = assert_problem(await append(api, "e", "three"), 409, "session-ended")
    assert "e" in body["detail"]
    r = await api.post(
        "/v1/sessions/e/messages",
        json={"messages": [{"role": "user", "content": "three"}]},
        headers={"Idempotency-Key": "k-ended"},
    )
    assert_problem(r, 409, "session-ended")
    # An ended session is still readable.
    listed = (await api.get("/v1/sessions/e/messages")).json()["items"]
    assert [m["content"] for m in listed] == ["one", "two"]
    assert (await api.get("/v1/sessions/e")).json()["last_seq"] == 2

    r = await api.patch("/v1/sessions/e", json={"ended": False})
    assert r.status_code == 200
    assert r.json()["ended_at"] is None
    r = await append(api, "e", "three")
    assert r.status_code == 201, r.text
    assert [m["seq"] for m in r.json()["messages"]] == [3]  # no seq was burnt by the refused appends


async def test_end_and_merge_in_one_patch(api: httpx.AsyncClient) -> None:
    await create(api, session_id="both", user_id="ada", metadata={"a": 1})
    r = await api.patch("/v1/sessions/both", json={"metadata": {"b": 2}, "ended": True})
    assert r.status_code == 200
    assert r.json()["metadata"] == {"a": 1, "b": 2}
    assert r.json()["ended_at"] is not None


async def test_delete_session_and_its_messages(api: httpx.AsyncClient) -> None:
    await create(api, session_id="d", user_id="ada")
    await create(api, session_id="kept", user_id="ada")
    r = await append(api, "d", "hello", "world")
    message_id = r.json()["messages"][0]["message_id"]
    assert (await append(api, "kept", "stay")).status_code == 201

    r = await api.delete("/v1/sessions/d")
    assert r.status_code == 204
    assert r.content == b""
    assert_problem(await api.get("/v1/sessions/d"), 404, "not-found")
    assert_problem(await api.get("/v1/sessions/d/messages"), 404, "not-found")
    assert_problem(await api.get(f"/v1/sessions/d/messages/{message_id}"), 404, "not-found")
    assert_problem(await append(api, "d", "late"), 404, "not-found")
    assert_problem(await api.delete("/v1/sessions/d"), 404, "not-found")

    # The user and the other session are untouched.
    assert (await api.get("/v1/users/ada")).status_code == 200
    kept = (await api.get("/v1/sessions/kept/messages")).json()["items"]
    assert [m["content"] for m in kept] == ["stay"]
    listed = (await api.get("/v1/sessions", params={"user_id": "ada"})).json()["items"]
    assert [s["session_id"] for s in listed] == ["kept"]

    # The id can be used again, for a fresh session that starts at seq 1.
    s = await create(api, session_id="d", user_id="ada")
    assert s["last_seq"] == 0
    assert [m["seq"] for m in (await append(api, "d", "again")).json()["messages"]] == [1]
    assert [m["content"] for m in (await api.get("/v1/sessions/d/messages")).json()["items"]] == ["again"]


async def test_last_seq_follows_appends(api: httpx.AsyncClient) -> None:
    await create(api, session_id="n", user_id="ada")
    await append(api, "n", "a", "b", "c")
    await append(api, "n", "d")
    s = (await api.get("/v1/sessions/n")).json()
    assert s["last_seq"] == 4
    listed = (await api.get("/v1/sessions", params={"user_id": "ada"})).json()["items"]
    assert listed[0]["last_seq"] == 4

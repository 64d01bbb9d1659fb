"""Idempotency-Key on appends: a retry replays the first answer and stores nothing; a reused key with
another body is a 409; concurrent duplicates store one batch; keys are scoped to their session."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from tests.support.problems import assert_problem

BATCH: dict[str, Any] = {
    "messages": [
        {"role": "user", "content": "I moved to Lisbon.", "metadata": {"a": 1, "b": [1, 2]}},
        {"role": "assistant", "content": "Nice!", "name": "bot"},
    ]
}


async def new_session(api: httpx.AsyncClient, session_id: str) -> str:
    r = await api.post("/v1/sessions", json={"session_id": session_id, "user_id": "ada"})
    assert r.status_code == 201, r.text
    return session_id


def post(api: httpx.AsyncClient, sid: str, body: Any, key: str | None) -> Any:
    headers = {"Idempotency-Key": key} if key else {}
    return api.post(f"/v1/sessions/{sid}/messages", json=body, headers=headers)


async def stored(api: httpx.AsyncClient, sid: str) -> list[dict[str, Any]]:
    r = await api.get(f"/v1/sessions/{sid}/messages", params={"limit": 1000})
    assert r.status_code == 200
    items: list[dict[str, Any]] = r.json()["items"]
    return items


async def test_retry_replays_the_first_answer_and_stores_nothing(api: httpx.AsyncClient) -> None:
    sid = await new_session(api, "s")
    first = await post(api, sid, BATCH, "key-1")
    assert first.status_code == 201, first.text
    assert "Idempotent-Replayed" not in first.headers

    for _ in range(3):
        again = await post(api, sid, BATCH, "key-1")
        assert again.status_code == 201, again.text
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.json() == first.json()

    assert await stored(api, sid) == first.json()["messages"]
    assert (await api.get(f"/v1/sessions/{sid}")).json()["last_seq"] == 2


async def test_without_a_key_a_retry_stores_twice(api: httpx.AsyncClient) -> None:
    # The control for the test above: the count check does see duplicates.
    sid = await new_session(api, "s")
    assert (await post(api, sid, BATCH, None)).status_code == 201
    assert (await post(api, sid, BATCH, None)).status_code == 201
    assert len(await stored(api, sid)) == 4


async def test_same_body_in_another_key_order_is_the_same_request(api: httpx.AsyncClient) -> None:
    sid = await new_session(api, "s")
    first = await post(api, sid, BATCH, "key-1")
    reordered = {
        "messages": [
            {"metadata": {"b": [1, 2], "a": 1}, "content": "I moved to Lisbon.", "role": "user"},
            {"name": "bot", "content": "Nice!", "role": "assistant", "metadata": {}},
        ]
    }
    r = await api.post(
        f"/v1/sessions/{sid}/messages",
        content=json.dumps(reordered, indent=3).encode(),
        headers={"Idempotency-Key": "key-1", "Content-Type": "application/json"},
    )
    assert r.status_code == 201, r.text
    assert r.headers["Idempotent-Replayed"] == "true"
    assert r.json() == first.json()
    assert len(await stored(api, sid)) == 2


async def test_same_key_with_another_body_is_409(api: httpx.AsyncClient) -> None:
    sid = await new_session(api, "s")
    first = await post(api, sid, BATCH, "key-1")
    assert first.status_code == 201

    changed = {"messages": [{**BATCH["messages"][0], "content": "I moved to Porto."}, BATCH["messages"][1]]}
    fewer = {"messages": BATCH["messages"][:1]}
    new_meta = {"messages": [{**BATCH["messages"][0], "metadata": {"a": 2}}, BATCH["messages"][1]]}
    for body in (changed, fewer, new_meta):
        r = await post(api, sid, body, "key-1")
        problem = assert_problem(r, 409, "idempotency-key-reused")
        assert "Idempotent-Replayed" not in r.headers
        assert problem["status"] == 409
    # Nothing more was stored, and the key still replays its own answer.
    assert await stored(api, sid) == first.json()["messages"]
    again = await post(api, sid, BATCH, "key-1")
    assert again.json() == first.json()


async def test_concurrent_duplicates_store_exactly_one_batch(api: httpx.AsyncClient) -> None:
    sid = await new_session(api, "s")
    rs = await asyncio.gather(*(post(api, sid, BATCH, "same-key") for _ in range(20)))
    assert [r.status_code for r in rs] == [201] * 20
    originals = [r for r in rs if "Idempotent-Replayed" not in r.headers]
    assert len(originals) == 1
    assert all(r.headers.get("Idempotent-Replayed") == "true" for r in rs if r is not originals[0])
    assert all(r.json() == originals[0].json() for r in rs)
    assert await stored(api, sid) == originals[0].json()["messages"]


async def test_concurrent_different_bodies_on_one_key_store_one_batch(api: httpx.AsyncClient) -> None:
    sid = await new_session(api, "s")
    bodies = [{"messages": [{"role": "user", "content": f"variant {i % 2}"}]} for i in range(16)]
    rs = await asyncio.gather(*(post(api, sid, b, "contested") for b in bodies))
    (winner,) = [r for r in rs if r.status_code == 201 and "Idempotent-Replayed" not in r.headers]
    won = winner.json()["messages"][0]["content"]
    for r, body in zip(rs, bodies, strict=True):
        if body["messages"][0]["content"] == won:
            assert r.status_code == 201
            assert r.json() == winner.json()
        else:
            assert_problem(r, 409, "idempotency-key-reused")
    assert [m["content"] for m in await stored(api, sid)] == [won]


async def test_key_is_scoped_to_its_session(api: httpx.AsyncClient) -> None:
    one, two = await new_session(api, "one"), await new_session(api, "two")
    a = await post(api, one, BATCH, "shared-key")
    b = await post(api, two, BATCH, "shared-key")
    assert a.status_code == b.status_code == 201
    assert "Idempotent-Replayed" not in b.headers
    assert {m["session_id"] for m in b.json()["messages"]} == {"two"}
    assert len(await stored(api, one)) == len(await stored(api, two)) == 2

    # Another body on the same key is fine in another session, and each replays its own answer.
    three = await new_session(api, "three")
    other = {"messages": [{"role": "user", "content": "different"}]}
    assert (await post(api, three, other, "shared-key")).status_code == 201
    assert (await post(api, one, BATCH, "shared-key")).json() == a.json()
    assert (await post(api, two, BATCH, "shared-key")).json() == b.json()


async def test_key_is_scoped_to_its_tenant(api: httpx.AsyncClient, other_api: httpx.AsyncClient) -> None:
    sid = await new_session(api, "s")
    mine = await post(api, sid, BATCH, "k")
    await new_session(other_api, "s")
    theirs = await post(other_api, sid, BATCH, "k")
    assert theirs.status_code == 201
    assert "Idempotent-Replayed" not in theirs.headers
    assert theirs.json() != mine.json()
    assert len(await stored(api, sid)) == 2


async def test_a_refused_request_does_not_use_up_the_key(api: httpx.AsyncClient) -> None:
    sid = await new_session(api, "s")
    assert (await api.patch(f"/v1/sessions/{sid}", json={"ended": True})).status_code == 200
    assert_problem(await post(api, sid, BATCH, "k"), 409, "session-ended")
    assert (await api.patch(f"/v1/sessions/{sid}", json={"ended": False})).status_code == 200
    r = await post(api, sid, BATCH, "k")
    assert r.status_code == 201
    assert "Idempotent-Replayed" not in r.headers
    assert len(await stored(api, sid)) == 2


async def test_key_on_unknown_session_is_404(api: httpx.AsyncClient) -> None:
    assert_problem(await post(api, "nope", BATCH, "k"), 404, "not-found")


async def test_replay_survives_later_appends_and_edits(api: httpx.AsyncClient) -> None:
    sid = await new_session(api, "s")
    first = await post(api, sid, BATCH, "k")
    assert (
        await post(api, sid, {"messages": [{"role": "user", "content": "later"}]}, None)
    ).status_code == 201
    mid = first.json()["messages"][0]["message_id"]
    assert (
        await api.patch(f"/v1/sessions/{sid}/messages/{mid}", json={"content": "edited"})
    ).status_code == 200
    # The replay is the first answer as it was, not a fresh read of the rows.
    again = await post(api, sid, BATCH, "k")
    assert again.json() == first.json()
    assert len(await stored(api, sid)) == 3


async def test_invalid_keys_are_422(api: httpx.AsyncClient) -> None:
    sid = await new_session(api, "s")
    for key in ("k" * 256, "has space", "tab\there"):
        r = await post(api, sid, BATCH, key)
        body = assert_problem(r, 422, "validation-error")
        assert body["errors"][0]["loc"] == ["header", "Idempotency-Key"]
    assert (await post(api, sid, BATCH, "k" * 255)).status_code == 201
    assert len(await stored(api, sid)) == 2

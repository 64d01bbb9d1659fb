"""Derived memory follows its sources (issue 12): editing or deleting a message re-derives what came
from it. Facts losing every source end (with a history event saying why) and what they replaced
holds again; an edited message is read again; summaries covering it are rewritten by the worker."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.db import until


async def _facts(api: httpx.AsyncClient, user: str, **params: str) -> list[dict[str, Any]]:
    r = await api.get(f"/v1/users/{user}/facts", params=params)
    assert r.status_code == 200, r.text
    items: list[dict[str, Any]] = r.json()["items"]
    return items


async def _extracted(api: httpx.AsyncClient, session: str) -> None:
    r = await api.post(f"/v1/sessions/{session}/extract", params={"wait_seconds": 30})
    assert r.status_code == 202 and r.json()["done"], r.text


async def _append(
    api: httpx.AsyncClient, session: str, *lines: tuple[str, str], at: str | None = None
) -> list[dict[str, Any]]:
    msgs = [{"role": role, "content": c} | ({"created_at": at} if at else {}) for role, c in lines]
    r = await api.post(f"/v1/sessions/{session}/messages", json={"messages": msgs})
    assert r.status_code == 201, r.text
    out: list[dict[str, Any]] = r.json()["messages"]
    return out


async def test_the_readme_edit_then_delete_leaves_no_stale_home(api: httpx.AsyncClient) -> None:
    s = (await api.post("/v1/sessions", json={"user_id": "ada"})).json()["session_id"]
    await _append(api, s, ("user", "I live in Berlin."), at="2026-01-05T10:00:00Z")
    await _extracted(api, s)
    msg, _ = await _append(
        api, s, ("user", "I moved to Lisbon last week."), ("assistant", "Congratulations!")
    )
    await _extracted(api, s)
    assert [f["content"] for f in await _facts(api, "ada")] == ["Lives in Lisbon."]

    r = await api.patch(
        f"/v1/sessions/{s}/messages/{msg['message_id']}", json={"content": "I moved to Porto last week."}
    )
    assert r.status_code == 200, r.text
    # Not done while the re-derivation is due (it answered done: true before).
    state = (await api.get(f"/v1/sessions/{s}/extraction")).json()
    assert state["pending_changes"] == 1 or state["job"] is None
    await _extracted(api, s)
    assert [f["content"] for f in await _facts(api, "ada")] == ["Lives in Porto."]
    everything = {f["content"]: f for f in await _facts(api, "ada", include_invalid="true")}
    lisbon = everything["Lives in Lisbon."]
    assert lisbon["invalid_at"] == lisbon["valid_from"] and lisbon["source_message_ids"] == []
    history = (await api.get(f"/v1/facts/{lisbon['fact_id']}/history")).json()["items"]
    assert [e["reason"] for e in history][-1] == "source edited"

    r = await api.delete(f"/v1/sessions/{s}/messages/{msg['message_id']}")
    assert r.status_code == 204
    await _extracted(api, s)
    # Porto lost its only source; Berlin, which the move had ended, holds again.
    assert [f["content"] for f in await _facts(api, "ada")] == ["Lives in Berlin."]
    porto = next(
        f for f in await _facts(api, "ada", include_invalid="true") if f["content"] == "Lives in Porto."
    )
    history = (await api.get(f"/v1/facts/{porto['fact_id']}/history")).json()["items"]
    assert [e["reason"] for e in history] == ["extracted", "source deleted"]


async def test_a_fact_said_twice_keeps_the_other_source(api: httpx.AsyncClient) -> None:
    s = (await api.post("/v1/sessions", json={"user_id": "bo"})).json()["session_id"]
    first, second = await _append(api, s, ("user", "I love jazz."), ("user", "I love jazz."))
    await _extracted(api, s)
    (jazz,) = await _facts(api, "bo")
    assert set(jazz["source_message_ids"]) == {first["message_id"], second["message_id"]}
    assert (await api.delete(f"/v1/sessions/{s}/messages/{first['message_id']}")).status_code == 204
    await _extracted(api, s)
    (jazz,) = await _facts(api, "bo")
    assert jazz["source_message_ids"] == [second["message_id"]] and jazz["invalid_at"] is None


async def test_extract_is_not_done_while_a_change_is_due(api: httpx.AsyncClient) -> None:
    s = (await api.post("/v1/sessions", json={"user_id": "cy"})).json()["session_id"]
    (msg,) = await _append(api, s, ("user", "I live in Oslo."))
    await _extracted(api, s)
    r = await api.delete(f"/v1/sessions/{s}/messages/{msg['message_id']}")
    assert r.status_code == 204
    body = (await api.post(f"/v1/sessions/{s}/extract")).json()
    state = (await api.get(f"/v1/sessions/{s}/extraction")).json()
    # Either the worker was quicker (nothing left) or the answer says not done.
    assert not body["done"] or (state["pending_changes"] == 0 and not await _facts(api, "cy"))
    await _extracted(api, s)
    assert await _facts(api, "cy") == []


async def test_a_summary_covering_an_edited_message_is_rewritten(api: httpx.AsyncClient) -> None:
    s = (await api.post("/v1/sessions", json={"user_id": "di"})).json()["session_id"]
    msgs = await _append(
        api,
        s,
        ("user", "We are planning a trip to Lisbon in May with my sister."),
        ("assistant", "A lovely time of year."),
        ("user", "We want to see the old town and eat pastries."),
        ("assistant", "Great plan."),
    )
    r = await api.post(f"/v1/sessions/{s}/summarize", params={"wait_seconds": 30})
    assert r.json()["done"], r.text
    before = (await api.get(f"/v1/sessions/{s}/summaries")).json()["items"]
    assert any("Lisbon" in x["content"] for x in before), before
    r = await api.patch(
        f"/v1/sessions/{s}/messages/{msgs[0]['message_id']}",
        json={"content": "We are planning a trip to Kyoto in May with my sister."},
    )
    assert r.status_code == 200

    async def rewritten() -> bool:
        items = (await api.get(f"/v1/sessions/{s}/summaries")).json()["items"]
        return bool(items) and not any("Lisbon" in x["content"] for x in items)

    await until(rewritten, within=30)
    (after,) = (await api.get(f"/v1/sessions/{s}/summaries")).json()["items"]
    assert after["summary_id"] != before[0]["summary_id"] and after["to_seq"] == before[0]["to_seq"]


async def _history(api: httpx.AsyncClient, fact_id: str) -> list[dict[str, Any]]:
    r = await api.get(f"/v1/facts/{fact_id}/history")
    assert r.status_code == 200, r.text
    items: list[dict[str, Any]] = r.json()["items"]
    return items


async def _one(api: httpx.AsyncClient, user: str, content: str) -> dict[str, Any]:
    (fact,) = [f for f in await _facts(api, user, include_invalid="true") if f["content"] == content]
    return fact


async def test_a_deleted_negation_no_longer_ends_what_it_negated(api: httpx.AsyncClient) -> None:
    """A negation is stored only as the INVALIDATE it made: deleting its message undoes that."""
    s = (await api.post("/v1/sessions", json={"user_id": "eve"})).json()["session_id"]
    await _append(api, s, ("user", "I love fish."), ("user", "I love jazz."), at="2026-01-05T10:00:00Z")
    await _extracted(api, s)
    (no,) = await _append(api, s, ("user", "I no longer eat fish."), at="2026-02-01T10:00:00Z")
    await _extracted(api, s)
    assert [f["content"] for f in await _facts(api, "eve")] == ["Likes jazz."]

    assert (await api.delete(f"/v1/sessions/{s}/messages/{no['message_id']}")).status_code == 204
    await _extracted(api, s)
    assert sorted(f["content"] for f in await _facts(api, "eve")) == ["Likes fish.", "Likes jazz."]
    fish = await _one(api, "eve", "Likes fish.")
    assert fish["invalid_at"] is None and fish["superseded_by"] is None
    history = await _history(api, fish["fact_id"])
    assert [e["reason"] for e in history] == [
        "extracted",
        "negated",
        "restored: the negation that ended it lost its source (source deleted)",
    ]
    assert history[-1]["event"] == "UPDATE" and history[-1]["source_message_ids"] == [no["message_id"]]
    # As of any time, fish was liked: the negation never happened.
    at_feb = await _facts(api, "eve", as_of="2026-03-01T00:00:00Z")
    assert "Likes fish." in {f["content"] for f in at_feb}


async def test_an_edited_negation_is_read_again_and_only_the_last_ending_counts(
    api: httpx.AsyncClient,
) -> None:
    s = (await api.post("/v1/sessions", json={"user_id": "fay"})).json()["session_id"]
    await _append(api, s, ("user", "I like hiking."), at="2026-01-05T10:00:00Z")
    await _extracted(api, s)
    (first,) = await _append(api, s, ("user", "I don't like hiking anymore."), at="2026-02-01T10:00:00Z")
    await _extracted(api, s)
    assert await _facts(api, "fay") == []

    # Edited into something else: hiking holds again, the new text is read.
    r = await api.patch(f"/v1/sessions/{s}/messages/{first['message_id']}", json={"content": "I love jazz."})
    assert r.status_code == 200, r.text
    await _extracted(api, s)
    assert sorted(f["content"] for f in await _facts(api, "fay")) == ["Likes hiking.", "Likes jazz."]
    hiking = await _one(api, "fay", "Likes hiking.")
    assert [e["reason"] for e in await _history(api, hiking["fact_id"])][-1] == (
        "restored: the negation that ended it lost its source (source edited)"
    )

    # A later negation ends it again; deleting the first message (no longer a negation) keeps that.
    (second,) = await _append(api, s, ("user", "I don't like hiking anymore."), at="2026-03-01T10:00:00Z")
    await _extracted(api, s)
    assert (await api.delete(f"/v1/sessions/{s}/messages/{first['message_id']}")).status_code == 204
    await _extracted(api, s)
    assert await _facts(api, "fay") == []
    assert (await _one(api, "fay", "Likes hiking."))["invalid_at"] == "2026-03-01T10:00:00Z"

    # An edit that still negates: restored, then ended again by the text read anew.
    r = await api.patch(
        f"/v1/sessions/{s}/messages/{second['message_id']}",
        json={"content": "Sadly I don't like hiking anymore."},
    )
    assert r.status_code == 200, r.text
    await _extracted(api, s)
    hiking = await _one(api, "fay", "Likes hiking.")
    assert hiking["invalid_at"] == "2026-03-01T10:00:00Z"
    reasons = [e["reason"] for e in await _history(api, hiking["fact_id"])]
    assert reasons[-2:] == ["restored: the negation that ended it lost its source (source edited)", "negated"]


async def test_a_restored_fact_said_again_since_holds_until_the_new_one(api: httpx.AsyncClient) -> None:
    """Never two current "Likes fish.": the one said after the deleted negation takes over."""
    s = (await api.post("/v1/sessions", json={"user_id": "gus"})).json()["session_id"]
    await _append(api, s, ("user", "I love fish."), at="2026-01-05T10:00:00Z")
    await _extracted(api, s)
    (no,) = await _append(api, s, ("user", "I no longer eat fish."), at="2026-02-01T10:00:00Z")
    await _extracted(api, s)
    await _append(api, s, ("user", "I love fish again."), at="2026-03-01T10:00:00Z")
    await _extracted(api, s)

    assert (await api.delete(f"/v1/sessions/{s}/messages/{no['message_id']}")).status_code == 204
    await _extracted(api, s)
    (now,) = await _facts(api, "gus")
    assert now["content"] == "Likes fish." and now["valid_from"] == "2026-03-01T10:00:00Z"
    old = next(f for f in await _facts(api, "gus", include_invalid="true") if f["fact_id"] != now["fact_id"])
    assert old["invalid_at"] == now["valid_from"] and old["superseded_by"] == now["fact_id"]
    reasons = [e["reason"] for e in await _history(api, old["fact_id"])]
    assert reasons[-1].endswith("; held until a newer fact began"), reasons
    # Fish was liked all along, one fact at a time.
    for at in ("2026-02-15T00:00:00Z", "2026-04-01T00:00:00Z"):
        assert [f["content"] for f in await _facts(api, "gus", as_of=at)] == ["Likes fish."]

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

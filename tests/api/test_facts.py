"""The facts API and fact extraction end to end, with the shared app (local extractor, worker on):
add by hand, duplicates, exclusive slots superseding, as_of, patch, delete (and redact), history,
purge, memory showing relevant facts, and extraction from messages (updates, negations, reruns)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from app.db.engine import async_url
from app.facts.forgetting import expire_facts
from tests.support.db import until

PROBLEM = "application/problem+json"


async def _facts(api: httpx.AsyncClient, user: str, **params: str) -> list[dict[str, Any]]:
    r = await api.get(f"/v1/users/{user}/facts", params=params)
    assert r.status_code == 200, r.text
    items: list[dict[str, Any]] = r.json()["items"]
    return items


async def _history(api: httpx.AsyncClient, fact_id: str) -> list[dict[str, Any]]:
    r = await api.get(f"/v1/facts/{fact_id}/history")
    assert r.status_code == 200, r.text
    items: list[dict[str, Any]] = r.json()["items"]
    return items


# --- by hand ---------------------------------------------------------------------------------------


async def test_add_list_get_and_the_same_statement_again(api: httpx.AsyncClient) -> None:
    r = await api.post(
        "/v1/users/ada/facts", json={"content": "Is allergic to peanuts.", "kind": "preference"}
    )
    assert r.status_code == 201, r.text
    fact = r.json()
    assert fact["actor"] == "api" and fact["invalid_at"] is None and fact["kind"] == "preference"
    assert 0 < fact["current_importance"] <= fact["importance"] == 0.5
    again = await api.post("/v1/users/ada/facts", json={"content": "  is allergic to PEANUTS "})
    assert again.status_code == 200 and again.json()["fact_id"] == fact["fact_id"]
    assert [f["fact_id"] for f in await _facts(api, "ada")] == [fact["fact_id"]]
    assert (await api.get(f"/v1/facts/{fact['fact_id']}")).json()["content"] == "Is allergic to peanuts."
    history = await _history(api, fact["fact_id"])
    assert [(e["event"], e["actor"], e["new_content"]) for e in history] == [
        ("ADD", "api", "Is allergic to peanuts.")
    ]


async def test_an_exclusive_fact_supersedes_and_as_of_sees_the_past(api: httpx.AsyncClient) -> None:
    lisbon = (
        await api.post(
            "/v1/users/ada/facts",
            json={
                "content": "Lives in Lisbon.",
                "kind": "location",
                "subject": "home",
                "exclusive": True,
                "valid_from": "2026-01-01T00:00:00Z",
            },
        )
    ).json()
    porto = (
        await api.post(
            "/v1/users/ada/facts",
            json={
                "content": "Lives in Porto.",
                "kind": "location",
                "subject": "Home",
                "exclusive": True,
                "valid_from": "2026-06-01T00:00:00Z",
            },
        )
    ).json()
    assert porto["subject"] == "home"
    assert [f["content"] for f in await _facts(api, "ada")] == ["Lives in Porto."]
    everything = {f["fact_id"]: f for f in await _facts(api, "ada", include_invalid="true")}
    old = everything[lisbon["fact_id"]]
    assert old["invalid_at"] == "2026-06-01T00:00:00Z" and old["superseded_by"] == porto["fact_id"]
    assert [f["content"] for f in await _facts(api, "ada", as_of="2026-03-01T00:00:00Z")] == [
        "Lives in Lisbon."
    ]
    assert [f["content"] for f in await _facts(api, "ada", as_of="2026-07-01T00:00:00Z")] == [
        "Lives in Porto."
    ]
    assert await _facts(api, "ada", as_of="2025-01-01T00:00:00Z") == []
    events = [(e["event"], e["reason"], e["related_fact_id"]) for e in await _history(api, lisbon["fact_id"])]
    assert events == [("ADD", None, None), ("INVALIDATE", "superseded", porto["fact_id"])]
    # A kind filter.
    assert await _facts(api, "ada", kind="preference") == []


async def test_patch_edits_with_history_and_invalid_at_ends_a_fact(api: httpx.AsyncClient) -> None:
    fact = (
        await api.post("/v1/users/ada/facts", json={"content": "Likes jazz.", "metadata": {"a": 1}})
    ).json()
    r = await api.patch(
        f"/v1/facts/{fact['fact_id']}",
        json={"content": "Loves jazz.", "importance": 0.9, "metadata": {"b": 2}, "topics": ["Music"]},
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["content"] == "Loves jazz." and body["importance"] == 0.9
    assert body["metadata"] == {"a": 1, "b": 2} and body["topics"] == ["music"]
    r = await api.patch(f"/v1/facts/{fact['fact_id']}", json={"invalid_at": "2000-01-01T00:00:00Z"})
    assert r.status_code == 422 and r.headers["content-type"] == PROBLEM
    r = await api.patch(f"/v1/facts/{fact['fact_id']}", json={"invalid_at": "2100-01-01T00:00:00Z"})
    assert r.status_code == 200 and r.json()["invalid_at"] == "2100-01-01T00:00:00Z"
    history = await _history(api, fact["fact_id"])
    assert [e["event"] for e in history] == ["ADD", "UPDATE", "INVALIDATE"]
    assert (history[1]["old_content"], history[1]["new_content"]) == ("Likes jazz.", "Loves jazz.")


async def test_delete_keeps_the_history_and_redact_blanks_its_text(api: httpx.AsyncClient) -> None:
    kept = (await api.post("/v1/users/ada/facts", json={"content": "Has a cat named Tom."})).json()
    gone = (await api.post("/v1/users/ada/facts", json={"content": "Secret diagnosis."})).json()
    assert (await api.delete(f"/v1/facts/{kept['fact_id']}")).status_code == 204
    assert (await api.get(f"/v1/facts/{kept['fact_id']}")).status_code == 404
    assert [(e["event"], e["old_content"]) for e in await _history(api, kept["fact_id"])] == [
        ("ADD", None),
        ("DELETE", "Has a cat named Tom."),
    ]
    assert (await api.delete(f"/v1/facts/{gone['fact_id']}", params={"redact": "true"})).status_code == 204
    history = await _history(api, gone["fact_id"])
    assert [e["event"] for e in history] == ["ADD", "DELETE"]
    assert all(e["old_content"] is None and e["new_content"] is None for e in history)
    assert "Secret" not in (await api.get(f"/v1/facts/{gone['fact_id']}/history")).text
    assert (await api.delete(f"/v1/facts/{gone['fact_id']}")).status_code == 404


async def test_bad_input_is_problem_json(api: httpx.AsyncClient) -> None:
    await api.put("/v1/users/ada", json={})
    fact_id = (await api.post("/v1/users/ada/facts", json={"content": "Likes tea."})).json()["fact_id"]
    cases: list[tuple[str, str, dict[str, Any] | None, dict[str, str] | None, int]] = [
        ("POST", "/v1/users/ada/facts", {"content": "   "}, None, 422),
        ("POST", "/v1/users/ada/facts", {"content": "x" * 5000}, None, 413),
        ("POST", "/v1/users/ada/facts", {"content": "a\x00b"}, None, 422),
        ("POST", "/v1/users/ada/facts", {"content": "ok", "importance": 2}, None, 422),
        ("POST", "/v1/users/ada/facts", {"content": "ok", "kind": "gossip"}, None, 422),
        ("POST", "/v1/users/ada/facts", {"content": "ok", "surprise": 1}, None, 422),
        ("POST", "/v1/users/ada/facts", {"content": "ok", "topics": ["x" * 101]}, None, 422),
        ("POST", "/v1/users/ada/facts", {"content": "ok", "valid_from": "yesterday"}, None, 422),
        ("POST", "/v1/users/bad%20id/facts", {"content": "ok"}, None, 422),
        (
            "GET",
            "/v1/users/ada/facts",
            None,
            {"as_of": "2026-01-01T00:00:00Z", "include_invalid": "true"},
            422,
        ),
        ("GET", "/v1/users/ada/facts", None, {"as_of": "soon"}, 422),
        # Found by tests/api/test_fuzz.py: an as_of out of range was an uncaught ValueError (a 500).
        ("GET", "/v1/users/ada/facts", None, {"as_of": "0001-01-01T00:00:00+10:00"}, 422),
        ("GET", "/v1/users/ada/facts", None, {"as_of": "0001-01-01T00:00:00Z"}, 422),
        ("GET", "/v1/users/ada/facts", None, {"limit": "0"}, 422),
        ("GET", "/v1/users/ada/facts", None, {"cursor": "garbage"}, 400),
        ("GET", "/v1/users/nobody-here/facts", None, None, 404),
        ("GET", "/v1/facts/not-a-uuid", None, None, 422),
        ("GET", f"/v1/facts/{uuid.uuid4()}", None, None, 404),
        ("GET", f"/v1/facts/{uuid.uuid4()}/history", None, None, 404),
        ("PATCH", f"/v1/facts/{uuid.uuid4()}", {"content": "x"}, None, 404),
        # Found by tests/api/test_fuzz.py: a patched topic with a NUL byte reached PostgreSQL (a 500).
        ("PATCH", f"/v1/facts/{fact_id}", {"topics": ["a\x00b"]}, None, 422),
        ("DELETE", f"/v1/facts/{uuid.uuid4()}", None, None, 404),
        ("POST", "/v1/sessions/nope/extract", None, {"wait_seconds": "61"}, 422),
        ("POST", "/v1/sessions/nope/extract", None, None, 404),
    ]
    for method, path, body, params, status in cases:
        r = await api.request(method, path, json=body, params=params)
        assert r.status_code == status, (method, path, body, params, r.text)
        assert r.headers["content-type"] == PROBLEM, r.text


async def test_a_users_purge_removes_facts_and_their_history(
    api: httpx.AsyncClient, database_url: str
) -> None:
    fact = (await api.post("/v1/users/gone/facts", json={"content": "Likes tea."})).json()
    assert (await api.delete("/v1/users/gone")).status_code == 204
    assert (await api.get(f"/v1/facts/{fact['fact_id']}")).status_code == 404
    assert (await api.get(f"/v1/facts/{fact['fact_id']}/history")).status_code == 404
    engine = create_async_engine(async_url(database_url))
    try:
        async with engine.connect() as conn:
            left = (
                await conn.execute(
                    text(
                        "SELECT (SELECT count(*) FROM facts WHERE fact_id = :f) + "
                        "(SELECT count(*) FROM fact_events WHERE fact_id = :f)"
                    ),
                    {"f": fact["fact_id"]},
                )
            ).scalar_one()
        assert left == 0
    finally:
        await engine.dispose()


# --- memory ----------------------------------------------------------------------------------------


async def test_memory_shows_the_relevant_facts_within_the_budget(api: httpx.AsyncClient) -> None:
    await api.post("/v1/sessions", json={"session_id": "m", "user_id": "mem"})
    for content in (
        "Is allergic to peanuts.",
        "Lives in Lisbon.",
        "Plays the violin.",
        "Has a dog named Rex.",
    ):
        assert (await api.post("/v1/users/mem/facts", json={"content": content})).status_code == 201
    await api.post(
        "/v1/sessions/m/messages", json={"messages": [{"role": "user", "content": "What should I cook?"}]}
    )

    async def embedded() -> dict[str, Any] | None:
        body: dict[str, Any] = (
            await api.get("/v1/sessions/m/memory", params={"query": "snacks with nuts"})
        ).json()
        return body if all(f["score"] is not None for f in body["facts"]) and body["facts"] else None

    body = await until(embedded)
    assert body["facts"][0]["content"] == "Is allergic to peanuts."
    assert "## Facts about the user\n- Is allergic to peanuts.\n" in body["context"]
    assert body["token_count"] <= body["max_tokens"]

    # Without a query, the newest user message ranks them (its stored vector, once indexed:
    # before, every fact passes, after, only those near the message, so wait for it).
    async def indexed() -> bool:
        status = (await api.get("/v1/indexing", params={"session_id": "m"})).json()
        return bool(status["indexed_seq"] == status["last_seq"])

    await until(indexed)
    r = await api.get("/v1/sessions/m/memory")
    assert r.json()["facts"], r.json()
    # A tiny budget leaves facts out, and says so.
    # (The newest message always comes first: the least budget that holds it leaves no room.)
    least = (await api.get("/v1/sessions/m/memory", params={"max_tokens": 1})).json()["minimum_max_tokens"]
    tiny = (await api.get("/v1/sessions/m/memory", params={"max_tokens": least})).json()
    assert tiny["token_count"] <= least and tiny["omitted"]["facts"] == len(r.json()["facts"]) - len(
        tiny["facts"]
    )
    # Facts put in a context record it.
    fid = body["facts"][0]["fact_id"]

    async def used() -> bool:
        return (await api.get(f"/v1/facts/{fid}")).json()["last_used_at"] is not None

    await until(used)


# --- extraction from messages ----------------------------------------------------------------------


async def _say(api: httpx.AsyncClient, session: str, *lines: tuple[str, str]) -> None:
    msgs = [{"role": "user", "content": c, "created_at": at} for c, at in lines]
    r = await api.post(f"/v1/sessions/{session}/messages", json={"messages": msgs})
    assert r.status_code == 201, r.text
    r = await api.post(f"/v1/sessions/{session}/extract", params={"wait_seconds": 30})
    assert r.status_code == 202 and r.json()["done"], r.text


async def test_extraction_learns_updates_and_negations_and_reruns_change_nothing(
    api: httpx.AsyncClient, database_url: str
) -> None:
    await api.post("/v1/sessions", json={"session_id": "x", "user_id": "lea"})
    await _say(
        api,
        "x",
        ("I live in Lisbon.", "2026-01-10T10:00:00Z"),
        ("I work at Acme Corp.", "2026-01-10T10:01:00Z"),
        ("I love jazz.", "2026-01-10T10:02:00Z"),
    )
    now = {f["content"] for f in await _facts(api, "lea")}
    assert any("Lisbon" in c for c in now) and any("Acme" in c for c in now), now

    await _say(api, "x", ("I moved to Porto last month.", "2026-03-05T10:00:00Z"))
    await _say(api, "x", ("I no longer work at Acme Corp.", "2026-04-01T10:00:00Z"))
    valid = {f["content"] for f in await _facts(api, "lea")}
    assert any("Porto" in c for c in valid) and not any("Lisbon" in c for c in valid), valid
    assert not any("Acme" in c for c in valid), valid
    everything = await _facts(api, "lea", include_invalid="true")
    lisbon = next(f for f in everything if "Lisbon" in f["content"])
    porto = next(f for f in everything if "Porto" in f["content"])
    assert lisbon["superseded_by"] == porto["fact_id"] and lisbon["invalid_at"] is not None
    assert lisbon["actor"] == "system" and lisbon["session_id"] == "x" and lisbon["source_message_ids"]
    acme = next(f for f in everything if "Acme" in f["content"])
    assert acme["invalid_at"] == "2026-04-01T10:00:00Z"
    assert [e["reason"] for e in await _history(api, acme["fact_id"])] == ["extracted", "negated"]
    # Back in time: in January Lea lived in Lisbon and worked at Acme.
    jan = {f["content"] for f in await _facts(api, "lea", as_of="2026-01-20T00:00:00Z")}
    assert any("Lisbon" in c for c in jan) and any("Acme" in c for c in jan), jan
    assert not any("Porto" in c for c in jan), jan

    # Reading the whole session again changes nothing: no new fact, no new event.
    engine = create_async_engine(async_url(database_url))
    try:
        count = text(
            "SELECT (SELECT count(*) FROM facts WHERE user_id = 'lea' AND tenant_id = s.tenant_id), "
            "(SELECT count(*) FROM fact_events WHERE user_id = 'lea' AND tenant_id = s.tenant_id) "
            "FROM sessions s WHERE s.session_id = 'x' AND s.user_id = 'lea'"
        )
        async with engine.begin() as conn:
            before = (await conn.execute(count)).one()
            await conn.execute(
                text("UPDATE sessions SET extracted_seq = 0 WHERE session_id = 'x' AND user_id = 'lea'")
            )
        r = await api.post("/v1/sessions/x/extract", params={"wait_seconds": 30})
        assert r.json()["done"], r.text
        async with engine.connect() as conn:
            assert (await conn.execute(count)).one() == before
    finally:
        await engine.dispose()
    state = (await api.get("/v1/sessions/x/extraction")).json()
    assert state["extracted_seq"] == state["last_seq"] == 5 and state["job"] is None


# --- forgetting ------------------------------------------------------------------------------------


async def test_importance_fades_and_faded_extracted_facts_expire(
    api: httpx.AsyncClient, database_url: str
) -> None:
    old = (
        await api.post("/v1/users/fay/facts", json={"content": "Liked disco once.", "importance": 0.4})
    ).json()
    kept = (await api.post("/v1/users/fay/facts", json={"content": "Is a nurse.", "importance": 0.9})).json()
    by_hand = (
        await api.post("/v1/users/fay/facts", json={"content": "Hums a lot.", "importance": 0.1})
    ).json()
    engine = create_async_engine(async_url(database_url))
    try:
        async with engine.begin() as conn:
            # Extracted facts last mentioned a year ago; the hand-made one too, but it is the caller's.
            await conn.execute(
                text(
                    "UPDATE facts SET actor = CASE WHEN fact_id = :h THEN 'api' ELSE 'system' END, "
                    "valid_from = now() - interval '400 days', "
                    "last_mentioned_at = now() - interval '365 days' "
                    "WHERE fact_id = ANY(CAST(:ids AS uuid[]))"
                ),
                {"ids": [old["fact_id"], kept["fact_id"], by_hand["fact_id"]], "h": by_hand["fact_id"]},
            )
        faded = (await api.get(f"/v1/facts/{old['fact_id']}")).json()
        # Half-life 180 days: a year without a mention leaves about a quarter.
        assert 0.08 < faded["current_importance"] < 0.11 and faded["importance"] == 0.4
        # (Other tests' old extracted facts in the shared database may expire too.)
        assert await expire_facts(engine, half_life_days=180, below=0.15, after_days=30) >= 1
    finally:
        await engine.dispose()
    valid = {f["fact_id"] for f in await _facts(api, "fay")}
    assert valid == {kept["fact_id"], by_hand["fact_id"]}
    history = await _history(api, old["fact_id"])
    assert (history[-1]["event"], history[-1]["reason"], history[-1]["actor"]) == (
        "INVALIDATE",
        "expired",
        "system",
    )


async def test_deleting_sessions_and_users_while_the_worker_extracts_never_deadlocks(
    api: httpx.AsyncClient,
) -> None:
    # Each delete lands while the worker may be running that session's extraction step: the claim's
    # key-share locks make the delete wait for the step instead of deadlocking with it.
    for i in range(40):
        user, sid = f"churn-{i}", f"churn-s-{i}"
        await api.post("/v1/sessions", json={"session_id": sid, "user_id": user})
        msgs = [{"role": "user", "content": f"I live in Lisbon and I love jazz, take {i}."}] * 3
        assert (await api.post(f"/v1/sessions/{sid}/messages", json={"messages": msgs})).status_code == 201
        await asyncio.sleep(0.01 * (i % 5))
        r = await (api.delete(f"/v1/sessions/{sid}") if i % 2 else api.delete(f"/v1/users/{user}"))
        assert r.status_code == 204, r.text

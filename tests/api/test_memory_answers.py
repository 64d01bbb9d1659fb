"""The API process's kept memory answers (app/cache/answers.py): a read asked again at the same
session version is answered from them, and a kept answer never outlives a change to what it
shows, nor crosses tenants or parameters. Each test first makes sure an answer is kept and
served (the `answer` lookups counted), then changes the session and reads again."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy.ext.asyncio import AsyncEngine

from app.retention.tasks import Rule, apply_retention

MEMORY = {"max_tokens": 2000}


async def new_session(api: httpx.AsyncClient, user: str = "plain", **body: Any) -> str:
    r = await api.post("/v1/sessions", json={"user_id": user, **body})
    assert r.status_code == 201, r.text
    return str(r.json()["session_id"])


async def append(api: httpx.AsyncClient, sid: str, *contents: str) -> list[dict[str, Any]]:
    # Contents without anything a fact could be made of: a user with a fact is never kept.
    msgs = [{"role": "user" if i % 2 == 0 else "assistant", "content": c} for i, c in enumerate(contents)]
    r = await api.post(f"/v1/sessions/{sid}/messages", json={"messages": msgs})
    assert r.status_code == 201, r.text
    return list(r.json()["messages"])


async def answered(api: httpx.AsyncClient) -> float:
    """How many reads this app answered from a kept answer."""
    for line in (await api.get("/metrics")).text.splitlines():
        if line.startswith('engram_cache_lookups_total{result="answer"}'):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


async def read(api: httpx.AsyncClient, sid: str, **params: Any) -> dict[str, Any]:
    r = await api.get(f"/v1/sessions/{sid}/memory", params={**MEMORY, **params})
    assert r.status_code == 200, r.text
    return dict(r.json())


async def kept(api: httpx.AsyncClient, sid: str, **params: Any) -> dict[str, Any]:
    """Read twice: the second read is the kept answer, the same as the first."""
    first = await read(api, sid, **params)
    before = await answered(api)
    r = await api.get(f"/v1/sessions/{sid}/memory", params={**MEMORY, **params})
    assert r.status_code == 200 and r.headers["X-Engram-Cache"] == "hit", r.text
    assert await answered(api) == before + 1, "the second read was answered from the kept answer"
    assert r.json() == first
    return first


async def fresh(api: httpx.AsyncClient, sid: str, **params: Any) -> dict[str, Any]:
    """A read that must not be the kept answer (the session changed)."""
    before = await answered(api)
    body = await read(api, sid, **params)
    assert await answered(api) == before, "a kept answer was served after a change"
    return body


def contents(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"]]


async def test_an_append_an_edit_and_a_delete_each_void_the_kept_answer(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    msgs = await append(api, sid, "line one", "line two")
    assert contents(await kept(api, sid)) == ["line one", "line two"]

    await append(api, sid, "line three")
    assert contents(await fresh(api, sid)) == ["line one", "line two", "line three"]
    await kept(api, sid)

    r = await api.patch(f"/v1/sessions/{sid}/messages/{msgs[0]['message_id']}", json={"content": "LINE ONE"})
    assert r.status_code == 200, r.text
    assert contents(await fresh(api, sid)) == ["LINE ONE", "line two", "line three"]
    await kept(api, sid)

    r = await api.delete(f"/v1/sessions/{sid}/messages/{msgs[1]['message_id']}")
    assert r.status_code == 204, r.text
    body = await fresh(api, sid)
    assert contents(body) == ["LINE ONE", "line three"]
    assert (await kept(api, sid)) == body


async def test_each_parameter_has_its_own_answer(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    # One fewer than ENGRAM_SUMMARY_TRIGGER_MESSAGES (20): a summary the worker wrote between
    # two reads would change the answer under the test (it did once in CI, with 40 lines).
    await append(api, sid, *[f"line {i}" for i in range(19)])
    wide = await kept(api, sid)
    narrow = await fresh(api, sid, max_tokens=40)
    assert len(narrow["messages"]) < len(wide["messages"]) == 19
    assert (await kept(api, sid, max_tokens=40)) == narrow
    assert contents(await fresh(api, sid, last_n=2)) == ["line 17", "line 18"]
    assert contents(await fresh(api, sid, role="assistant", last_n=2)) == ["line 15", "line 17"]
    assert contents(await fresh(api, sid, role="user", last_n=2)) == ["line 16", "line 18"]
    assert (await fresh(api, sid, summary_share=0.1))["messages"] == wide["messages"]
    assert (await kept(api, sid)) == wide


async def test_a_summary_and_retention_void_the_kept_answer(api: httpx.AsyncClient, db: AsyncEngine) -> None:
    sid = await new_session(api, metadata={"retention": {"max_messages": 3}})
    await append(api, sid, *[f"line {i}" for i in range(1, 9)])
    assert (await kept(api, sid))["summary"] is None

    r = await api.post(f"/v1/sessions/{sid}/summarize", params={"wait_seconds": 30})
    assert r.json()["done"], r.text
    summarised = await fresh(api, sid)
    assert summarised["summary"] is not None and summarised["summary"]["to_seq"] == 8
    assert len(summarised["messages"]) == 8
    await kept(api, sid)

    await apply_retention(db, default=Rule())
    trimmed = await fresh(api, sid)
    assert [m["seq"] for m in trimmed["messages"]] == [6, 7, 8]
    assert (await kept(api, sid)) == trimmed


async def test_facts_show_at_once_and_a_user_with_facts_is_never_kept(api: httpx.AsyncClient) -> None:
    sid = await new_session(api, user="has-facts")
    await append(api, sid, "line one")
    before = await kept(api, sid)
    assert before["facts"] == []

    r = await api.post("/v1/users/has-facts/facts", json={"content": "Plays the cello."})
    assert r.status_code == 201, r.text
    fact_id = r.json()["fact_id"]
    for _ in range(2):  # with a fact, every read is made afresh
        assert [f["content"] for f in (await fresh(api, sid))["facts"]] == ["Plays the cello."]

    assert (await api.delete(f"/v1/facts/{fact_id}")).status_code == 204
    # No fact again: the answer kept before the fact is the answer now.
    assert (await read(api, sid))["facts"] == []
    assert (await kept(api, sid)) == before


async def test_a_session_deleted_and_created_again_is_not_served_its_predecessor(
    api: httpx.AsyncClient,
) -> None:
    sid = await new_session(api)
    await append(api, sid, "old words")
    await kept(api, sid)
    assert (await api.delete(f"/v1/sessions/{sid}")).status_code == 204
    assert (await api.get(f"/v1/sessions/{sid}/memory", params=MEMORY)).status_code == 404

    await new_session(api, session_id=sid)
    await append(api, sid, "new words")  # the same version numbers (last_seq 1) as before
    assert contents(await fresh(api, sid)) == ["new words"]


async def test_a_deleted_user_s_answer_is_gone(api: httpx.AsyncClient) -> None:
    sid = await new_session(api, user="leaving")
    await append(api, sid, "private words")
    await kept(api, sid)
    assert (await api.delete("/v1/users/leaving")).status_code == 204
    r = await api.get(f"/v1/sessions/{sid}/memory", params=MEMORY)
    assert r.status_code == 404, r.text
    assert "private words" not in r.text


async def test_a_kept_answer_never_crosses_tenants(
    api: httpx.AsyncClient, other_api: httpx.AsyncClient
) -> None:
    for client, words in ((api, "tenant one's words"), (other_api, "tenant two's words")):
        await new_session(client, session_id="same-id")
        await append(client, "same-id", words)
    assert contents(await kept(api, "same-id")) == ["tenant one's words"]
    # The other tenant's read of the same session id, at the same version numbers, is its own.
    assert contents(await fresh(other_api, "same-id")) == ["tenant two's words"]
    assert contents(await kept(other_api, "same-id")) == ["tenant two's words"]
    assert contents(await kept(api, "same-id")) == ["tenant one's words"]


async def test_a_window_too_small_for_the_budget_is_not_kept(api: httpx.AsyncClient) -> None:
    """Older messages than the window are read after the version: an answer that needed them is
    made afresh every time (an edit between the two reads could be in it)."""
    sid = await new_session(api)  # the window holds 200 messages (cache_window_messages)
    for start in range(0, 250, 125):
        await append(api, sid, *[f"m{i}" for i in range(start, start + 125)])
    await read(api, sid, max_tokens=100_000)
    for _ in range(2):
        assert len((await fresh(api, sid, max_tokens=100_000))["messages"]) == 250

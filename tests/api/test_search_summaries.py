"""POST /v1/search over summaries (kind `summaries`): found by meaning and by words, ranked together
with messages on one scale, scope and every filter, isolation, min_score, MMR / recency, bad input."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager

from tests.support.app import STARTUP, client_for, make_app, make_settings

WAIT = 10_000
BOTH = ["messages", "summaries"]
MODES = ["semantic", "keyword", "hybrid"]

TRIP = [
    ("user", "I'm planning a two-week trip to Kyoto and Osaka in April."),
    ("assistant", "Cherry blossom season! Book the ryokan early."),
    ("user", "My budget is 3000 euros and I want to visit the Fushimi Inari shrine."),
    ("assistant", "Fushimi Inari is free and open all night."),
]
PETS = [
    ("user", "I adopted a kitten named Miso last month."),
    ("assistant", "Miso is a lovely name for a cat!"),
    ("user", "She sleeps on my keyboard every afternoon."),
]
BOB = [("user", "I'm flying to Kyoto for a robotics conference in May.")]


async def _session(
    api: httpx.AsyncClient, user: str, session: str, turns: list[tuple[str, str]], **extra: Any
) -> dict[str, Any]:
    """A session with these turns and a summary of all of them; returns the summary."""
    r = await api.post("/v1/sessions", json={"user_id": user, "session_id": session})
    assert r.status_code == 201, r.text
    msgs = [{"role": role, "content": content, **extra} for role, content in turns]
    r = await api.post(f"/v1/sessions/{session}/messages", json={"messages": msgs})
    assert r.status_code == 201, r.text
    r = await api.post(f"/v1/sessions/{session}/summarize", params={"wait_seconds": 30})
    assert r.status_code == 202 and r.json()["done"], r.text
    summary: dict[str, Any] = r.json()["summary"]
    return summary


async def _search(api: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    body.setdefault("wait_for_indexing_ms", WAIT)
    r = await api.post("/v1/search", json=body)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    assert out["indexing"]["complete"], out["indexing"]
    return out


def _kinds(out: dict[str, Any]) -> set[str]:
    return {h["kind"] for h in out["results"]}


def _summaries(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [h for h in out["results"] if h["kind"] == "summaries"]


@pytest.fixture
async def corpus(api: httpx.AsyncClient) -> dict[str, dict[str, Any]]:
    return {
        "trip": await _session(api, "ada", "ada-trip", TRIP),
        "pets": await _session(api, "ada", "ada-pets", PETS, metadata={"topic": "pets"}),
        "bob": await _session(api, "bob", "bob-1", BOB),
    }


async def test_a_summary_is_found_by_meaning(api: httpx.AsyncClient, corpus: dict[str, Any]) -> None:
    trip = corpus["trip"]
    out = await _search(
        api, query="a holiday in Japan to see temples", kinds=["summaries"], mode="semantic", user_id="ada"
    )
    assert [h["session_id"] for h in out["results"]] == ["ada-trip", "ada-pets"]
    top = out["results"][0]
    assert top["kind"] == "summaries" and top["id"] == trip["summary_id"]
    assert top["user_id"] == "ada" and top["content"] == trip["content"]
    assert top["seq"] == trip["to_seq"] == 4 and top["role"] is None and top["name"] is None
    assert top["metadata"] == {"from_seq": 1, "to_seq": 4}
    assert datetime.fromisoformat(top["created_at"]) == datetime.fromisoformat(trip["created_at"])
    assert top["scores"]["semantic"] > 0.3 and top["scores"]["keyword"] is None
    assert top["score"] == pytest.approx(top["scores"]["fused"]) == pytest.approx(top["scores"]["semantic"])


async def test_a_summary_is_found_by_words(api: httpx.AsyncClient, corpus: dict[str, Any]) -> None:
    assert "Fushimi Inari" in corpus["trip"]["content"]
    out = await _search(api, query="Fushimi Inari", kinds=["summaries"], mode="keyword", user_id="ada")
    assert [h["id"] for h in out["results"]] == [corpus["trip"]["summary_id"]]
    # Every lexeme of the query is in it: the whole IDF weight, as for a message holding them all.
    assert out["results"][0]["scores"]["keyword"] == pytest.approx(1.0)
    out = await _search(api, query="Miso keyboard", kinds=["summaries"], user_id="ada")
    assert out["results"][0]["id"] == corpus["pets"]["summary_id"]
    assert out["results"][0]["scores"]["keyword"] > 0 and out["results"][0]["scores"]["semantic"] > 0


@pytest.mark.parametrize("mode", MODES)
async def test_kinds_rank_together_on_one_scale(
    api: httpx.AsyncClient, corpus: dict[str, Any], mode: str
) -> None:
    body = {"query": "Kyoto trip in April, temples and budget", "user_id": "ada", "mode": mode, "limit": 100}
    mixed = await _search(api, kinds=BOTH, **body)
    assert _kinds(mixed) == set(BOTH)
    scores = [h["score"] for h in mixed["results"]]
    assert scores == sorted(scores, reverse=True)
    # Searching both kinds changes no hit's score: each kind is scored as when searched alone,
    # so messages keep their tuned ranking and the merged order is by comparable scores.
    alone = {h["id"]: h for kind in BOTH for h in (await _search(api, kinds=[kind], **body))["results"]}
    assert {h["id"] for h in mixed["results"]} == set(alone)
    for h in mixed["results"]:
        assert h["score"] == pytest.approx(alone[h["id"]]["score"])
        assert h["scores"] == pytest.approx(alone[h["id"]]["scores"])
    assert all(0 <= s <= 1 for s in scores)


@pytest.fixture
async def rrf_api(api: httpx.AsyncClient, database_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """The tenant of `api`, served by an app fusing hybrid results with reciprocal rank fusion."""
    settings = make_settings(database_url, run_worker=False, redis_url=None, search_fusion="rrf")
    async with (
        LifespanManager(make_app(settings), startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app, {"Authorization": api.headers["Authorization"]}) as c,  # type: ignore[arg-type]
    ):
        yield c


async def test_rrf_ranks_both_kinds_in_one_ranking_per_method(
    rrf_api: httpx.AsyncClient, corpus: dict[str, Any]
) -> None:
    body = {"query": "Kyoto trip in April", "user_id": "ada", "limit": 100}
    mixed = (await _search(rrf_api, kinds=BOTH, **body))["results"]
    assert {h["kind"] for h in mixed} == set(BOTH)
    scores = [h["score"] for h in mixed]
    assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)
    # Ranks are over both kinds: the best by cosine and by keyword together scores 1, and every
    # other hit less, whatever its kind.
    best = max(mixed, key=lambda h: h["score"])
    by_semantic = max(mixed, key=lambda h: h["scores"]["semantic"] or -1)
    by_keyword = max(mixed, key=lambda h: h["scores"]["keyword"] or -1)
    if by_semantic["id"] == by_keyword["id"]:
        assert best["id"] == by_semantic["id"] and best["score"] == pytest.approx(1.0)
    assert sum(h["score"] == pytest.approx(1.0) for h in mixed) <= 1


async def test_scope_by_user_and_session(api: httpx.AsyncClient, corpus: dict[str, Any]) -> None:
    for mode in MODES:
        q = "trip to Kyoto"
        out = await _search(api, query=q, kinds=["summaries"], mode=mode, user_id="bob")
        assert [h["id"] for h in out["results"]] == [corpus["bob"]["summary_id"]]
        out = await _search(api, query=q, kinds=BOTH, mode=mode, session_id="ada-trip", limit=100)
        assert {h["session_id"] for h in out["results"]} == {"ada-trip"}
        assert [h["id"] for h in _summaries(out)] == [corpus["trip"]["summary_id"]]
        out = await _search(api, query=q, kinds=BOTH, mode=mode, filters={"session_ids": ["bob-1"]})
        assert {h["session_id"] for h in out["results"]} == {"bob-1"} and _kinds(out) == set(BOTH)
        out = await _search(api, query=q, kinds=["summaries"], mode=mode, limit=100)
        assert {h["user_id"] for h in out["results"]} == {"ada", "bob"}


@pytest.mark.parametrize("mode", MODES)
async def test_filters_on_summaries(api: httpx.AsyncClient, corpus: dict[str, Any], mode: str) -> None:
    q = "Kyoto trip, kitten Miso, robotics conference"

    async def hits(kinds: list[str] = BOTH, **filters: Any) -> list[dict[str, Any]]:
        out = await _search(api, query=q, kinds=kinds, mode=mode, limit=100, filters=filters)
        return list(out["results"])

    everything = await hits()
    assert {h["kind"] for h in everything} == set(BOTH)
    assert len([h for h in everything if h["kind"] == "summaries"]) == 3
    # created_at: a summary's is when it was written (just now).
    hour_ago = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    assert len([h for h in await hits(created_after=hour_ago) if h["kind"] == "summaries"]) == 3
    assert await hits(created_before="2020-01-01T00:00:00Z") == []
    assert await hits(["summaries"], created_before=hour_ago) == []
    # roles: a summary mixes every role, so a role filter leaves messages of that role only.
    only_users = await hits(roles=["user"])
    assert only_users and all(h["kind"] == "messages" and h["role"] == "user" for h in only_users)
    assert await hits(["summaries"], roles=["user", "assistant"]) == []
    # metadata: containment in the summary's own metadata, {"from_seq", "to_seq"}.
    pets = await hits(metadata={"topic": "pets"})
    assert pets and all(h["kind"] == "messages" and h["session_id"] == "ada-pets" for h in pets)
    by_range = await hits(metadata={"from_seq": 1, "to_seq": 4})
    assert [h["id"] for h in by_range] == [corpus["trip"]["summary_id"]]
    assert {h["id"] for h in await hits(["summaries"], metadata={"from_seq": 1})} == {
        corpus[k]["summary_id"] for k in ("trip", "pets", "bob")
    }
    assert await hits(["summaries"], metadata={"to_seq": 99}) == []


async def test_tenants_and_users_never_see_each_others_summaries(
    api: httpx.AsyncClient, other_api: httpx.AsyncClient, corpus: dict[str, Any]
) -> None:
    q = "Kyoto Osaka trip kitten Miso robotics conference"
    for mode in MODES:
        for kinds in (["summaries"], BOTH):
            out = await _search(other_api, query=q, kinds=kinds, mode=mode, limit=100)
            assert out["results"] == []
            out = await _search(other_api, query=q, kinds=kinds, mode=mode, user_id="ada")
            assert out["results"] == []
            out = await _search(other_api, query=q, kinds=kinds, mode=mode, session_id="ada-trip")
            assert out["results"] == []
        out = await _search(api, query=q, kinds=BOTH, mode=mode, user_id="bob", limit=100)
        assert {h["user_id"] for h in out["results"]} == {"bob"}
        out = await _search(api, query="Fushimi Inari kitten", kinds=BOTH, mode=mode, user_id="bob")
        assert all(h["session_id"] == "bob-1" for h in out["results"])


async def test_min_score_is_honoured_across_kinds(api: httpx.AsyncClient, corpus: dict[str, Any]) -> None:
    body = {"query": "Kyoto and Osaka in April", "kinds": BOTH, "user_id": "ada", "limit": 100}
    out = await _search(api, mode="semantic", **body)
    assert len(out["results"]) > 3
    cut = _summaries(out)[0]["score"]
    kept = (await _search(api, mode="semantic", min_score=cut, **body))["results"]
    assert kept and all(h["score"] >= cut for h in kept) and len(kept) < len(out["results"])
    assert corpus["trip"]["summary_id"] in {h["id"] for h in kept}
    above = (await _search(api, mode="semantic", min_score=min(cut + 1e-4, 1), **body))["results"]
    assert corpus["trip"]["summary_id"] not in {h["id"] for h in above}


async def test_mmr_and_recency_work_across_kinds(api: httpx.AsyncClient) -> None:
    # A one-message session: its summary is that message again, a near-duplicate of another kind.
    summary = await _session(api, "cy", "cy-1", [("user", "The wifi password is hunter2.")])
    r = await api.post("/v1/sessions", json={"user_id": "cy", "session_id": "cy-2"})
    assert r.status_code == 201, r.text
    others = ["The router is in the hallway closet.", "Guests can use the wifi network named Home."]
    msgs = [{"role": "user", "content": c} for c in others]
    r = await api.post("/v1/sessions/cy-2/messages", json={"messages": msgs})
    assert r.status_code == 201, r.text
    body = {"query": "wifi password", "kinds": BOTH, "user_id": "cy", "mode": "semantic", "limit": 2}
    plain = (await _search(api, **body))["results"]
    assert {h["kind"] for h in plain} == set(BOTH), "the message and its summary are the two best"
    assert {h["id"] for h in plain} >= {summary["summary_id"]}
    diverse = (await _search(api, mmr=0.6, **body))["results"]
    assert diverse[0]["id"] == plain[0]["id"] and len(diverse) == 2
    assert diverse[1]["content"] in others, "the duplicate of the other kind gives way"
    recent = (await _search(api, recency={"weight": 0.5, "half_life_hours": 24}, **body))["results"]
    assert {h["kind"] for h in recent} == set(BOTH)
    for h in recent:
        assert 0.99 < h["scores"]["recency"] <= 1, "everything was written just now"
        assert h["score"] == pytest.approx(
            0.5 * h["scores"]["fused"] + 0.5 * h["scores"]["recency"], abs=1e-5
        )


async def test_a_summaries_only_search_waits_for_no_indexing(
    api: httpx.AsyncClient, corpus: dict[str, Any]
) -> None:
    r = await api.post(
        "/v1/sessions/ada-trip/messages", json={"messages": [{"role": "user", "content": "Also Nara."}]}
    )
    assert r.status_code == 201, r.text
    r = await api.post(
        "/v1/search", json={"query": "Kyoto", "kinds": ["summaries"], "wait_for_indexing_ms": 0}
    )
    assert r.status_code == 200, r.text
    assert r.json()["indexing"] == {"pending": 0, "refining": 0, "complete": True}
    hits = r.json()["results"]
    assert {h["kind"] for h in hits} == {"summaries"}
    assert {h["id"] for h in hits} >= {corpus["trip"]["summary_id"], corpus["bob"]["summary_id"]}


@pytest.mark.parametrize(
    "kinds",
    [["emails"], ["summary"], ["facts", "fact"], [], "summaries"],
)
async def test_unknown_kinds_are_a_problem(api: httpx.AsyncClient, kinds: Any) -> None:
    r = await api.post("/v1/search", json={"query": "ok", "kinds": kinds})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["type"].startswith("urn:engram:problem:")

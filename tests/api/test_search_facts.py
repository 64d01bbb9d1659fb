"""POST /v1/search over facts (kind `facts`): found by meaning and by words, only facts valid now,
a fact not yet embedded found by its words, scope and every filter, isolation, kinds ranked
together, the importance bonus, recency on valid_from, waiting for the worker, bad input.

Facts are written straight into the table, with vectors from the real local model, as extraction
would write them."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import orjson
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.ai.local_embedder import LocalEmbedder
from app.config import Settings
from app.db.embedded import EmbeddedPostgres
from app.db.vectors import as_db_vector
from app.search import service
from app.search.facts import IMPORTANCE_WEIGHT
from app.search.ranking import Candidate, Weights, relevance
from tests.support.app import STARTUP, client_for, make_app, make_settings
from tests.support.db import create_database, engine_for

WAIT = 10_000
MODES = ["semantic", "keyword", "hybrid"]
NOW = datetime.now(UTC)
# Has a word of every current fact of ada's, so that keyword search finds them all.
EVERYTHING = "Lisbon peanuts nurse cello"


@dataclass
class Facts:
    """Writes one tenant's facts as the extraction step does."""

    db: AsyncEngine
    tenant: str
    embedder: LocalEmbedder

    async def add(
        self,
        user: str,
        content: str,
        *,
        embed: bool = True,
        kind: str = "other",
        subject: str | None = None,
        importance: float = 0.5,
        metadata: dict[str, Any] | None = None,
        session_id: str | None = None,
        valid_from: datetime | None = None,
        invalid_at: datetime | None = None,
    ) -> str:
        fact_id = uuid.uuid4()
        vec = as_db_vector((await self.embedder.embed([content]))[0]) if embed else None
        async with self.db.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO facts (fact_id, tenant_id, user_id, content, kind, subject, importance, "
                    "metadata, actor, session_id, valid_from, invalid_at, embedding) "
                    "VALUES (:id, :t, :u, :content, :kind, :subject, :importance, CAST(:meta AS jsonb), "
                    "'system', :s, :vf, :ia, CAST(:v AS vector))"
                ),
                {
                    "id": fact_id,
                    "t": self.tenant,
                    "u": user,
                    "content": content,
                    "kind": kind,
                    "subject": subject,
                    "importance": importance,
                    "meta": orjson.dumps(metadata or {}).decode(),
                    "s": session_id,
                    "vf": valid_from or datetime.now(UTC),
                    "ia": invalid_at,
                    "v": vec,
                },
            )
        return str(fact_id)


async def _facts_for(api: httpx.AsyncClient, db: AsyncEngine, embedder: LocalEmbedder) -> Facts:
    """The writer for the tenant of `api`, found through a user only that tenant holds."""
    probe = f"probe-{uuid.uuid4().hex}"
    assert (await api.put(f"/v1/users/{probe}", json={"metadata": {}})).status_code == 201
    async with db.connect() as conn:
        tenant = (
            await conn.execute(text("SELECT tenant_id FROM users WHERE user_id = :u"), {"u": probe})
        ).scalar_one()
    return Facts(db, tenant, embedder)


async def _session(api: httpx.AsyncClient, user: str, session: str) -> None:
    r = await api.post("/v1/sessions", json={"user_id": user, "session_id": session})
    assert r.status_code == 201, r.text


async def _search(api: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    body.setdefault("wait_for_indexing_ms", WAIT)
    body.setdefault("kinds", ["facts"])
    r = await api.post("/v1/search", json=body)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    assert out["indexing"]["complete"], out["indexing"]
    return out


def _weights() -> Weights:
    """The hybrid weights the app runs with (app.search.service)."""
    return service.weights(Settings())


def _ids(out: dict[str, Any]) -> list[str]:
    return [h["id"] for h in out["results"]]


@dataclass
class Corpus:
    facts: Facts
    ids: dict[str, str]


@pytest.fixture
async def corpus(api: httpx.AsyncClient, db: AsyncEngine, embedder: LocalEmbedder) -> Corpus:
    """ada: four current facts and one she moved on from; bob: two of his own. No messages, so
    extraction adds nothing."""
    facts = await _facts_for(api, db, embedder)
    for user, session in (("ada", "ada-1"), ("ada", "ada-2"), ("bob", "bob-1")):
        await _session(api, user, session)
    ids: dict[str, str] = {}
    ids["lisbon"] = await facts.add(
        "ada",
        "Lives in Lisbon.",
        kind="location",
        subject="home",
        importance=0.8,
        metadata={"source": "chat"},
        session_id="ada-1",
        valid_from=NOW - timedelta(days=7),
    )
    ids["porto"] = await facts.add(
        "ada",
        "Lives in Porto.",
        kind="location",
        subject="home",
        importance=0.8,
        metadata={"source": "chat"},
        session_id="ada-1",
        valid_from=datetime(2020, 1, 1, tzinfo=UTC),
        invalid_at=NOW - timedelta(days=7),
    )
    ids["peanuts"] = await facts.add(
        "ada",
        "Is allergic to peanuts.",
        kind="preference",
        subject="allergy:peanuts",
        importance=1.0,
        metadata={"source": "onboarding"},
        session_id="ada-2",
        valid_from=datetime(2024, 5, 1, tzinfo=UTC),
    )
    ids["nurse"] = await facts.add(  # added over the API: no session
        "ada",
        "Works as a nurse at the city hospital.",
        kind="occupation",
        subject="job",
        importance=0.6,
        valid_from=datetime(2021, 3, 1, tzinfo=UTC),
    )
    ids["cello"] = await facts.add(
        "ada",
        "Plays the cello in an amateur orchestra.",
        kind="preference",
        importance=0.3,
        session_id="ada-1",
        valid_from=NOW - timedelta(days=1),
    )
    ids["bob-lisbon"] = await facts.add("bob", "Lives in Lisbon.", kind="location", session_id="bob-1")
    ids["bob-shellfish"] = await facts.add("bob", "Is allergic to shellfish.", kind="preference")
    return Corpus(facts, ids)


ADA_NOW = {"lisbon", "peanuts", "nurse", "cello"}


def _names(corpus: Corpus, out: dict[str, Any]) -> set[str]:
    by_id = {v: k for k, v in corpus.ids.items()}
    return {by_id[i] for i in _ids(out)}


async def test_a_fact_is_found_by_meaning(api: httpx.AsyncClient, corpus: Corpus) -> None:
    out = await _search(
        api, query="what does she do for a living?", mode="semantic", user_id="ada", limit=100
    )
    assert _names(corpus, out) == ADA_NOW, "every current fact is scored; the one she moved on from is not"
    top = out["results"][0]
    assert top["id"] == corpus.ids["nurse"] and top["kind"] == "facts"
    assert top["content"] == "Works as a nurse at the city hospital."
    assert top["user_id"] == "ada" and top["session_id"] is None
    assert top["seq"] is None and top["role"] is None and top["name"] is None
    assert top["fact_kind"] == "occupation" and top["subject"] == "job" and top["importance"] == 0.6
    assert top["metadata"] == {}
    assert datetime.fromisoformat(top["created_at"]) == datetime(2021, 3, 1, tzinfo=UTC), "its valid_from"
    assert top["scores"]["semantic"] > 0.3 and top["scores"]["keyword"] is None
    assert top["score"] == pytest.approx(top["scores"]["fused"]) == pytest.approx(top["scores"]["semantic"])
    scores = [h["score"] for h in out["results"]]
    assert scores == sorted(scores, reverse=True)


async def test_a_fact_is_found_by_words_and_by_both(api: httpx.AsyncClient, corpus: Corpus) -> None:
    out = await _search(api, query="peanuts", mode="keyword", user_id="ada")
    assert _ids(out) == [corpus.ids["peanuts"]]
    hit = out["results"][0]
    # Every lexeme of the query is in it: the whole IDF weight, as for a message holding them all.
    assert hit["scores"]["keyword"] == pytest.approx(1.0) and hit["scores"]["semantic"] is None
    assert hit["session_id"] == "ada-2" and hit["metadata"] == {"source": "onboarding"}

    out = await _search(api, query="which instrument does she play in the orchestra?", user_id="ada")
    hit = out["results"][0]
    assert hit["id"] == corpus.ids["cello"]
    assert hit["scores"]["semantic"] > 0.3 and hit["scores"]["keyword"] > 0
    # Weighted fusion, on the scale of messages: cosine + keyword weight x keyword + the importance
    # bonus, over the ceiling every kind shares.
    w = _weights()
    own = Candidate(row={}, semantic=hit["scores"]["semantic"], keyword=hit["scores"]["keyword"])
    raw = relevance(own, w) + IMPORTANCE_WEIGHT * 0.3
    assert hit["scores"]["fused"] == pytest.approx(raw / w.ceiling, abs=1e-5)


@pytest.mark.parametrize("mode", MODES)
async def test_only_facts_valid_now_are_searched(api: httpx.AsyncClient, corpus: Corpus, mode: str) -> None:
    out = await _search(api, query="Lives in Porto", mode=mode, user_id="ada", limit=100)
    assert corpus.ids["porto"] not in _ids(out)
    if mode == "semantic":
        assert out["results"][0]["id"] == corpus.ids["lisbon"], "her home now"
    if mode == "keyword":
        assert _ids(out) == [corpus.ids["lisbon"]], "'lives' is all that matches now"


async def test_scope_by_user_and_session(api: httpx.AsyncClient, corpus: Corpus) -> None:
    for mode in MODES:
        body = {"query": EVERYTHING + " shellfish", "mode": mode, "limit": 100}
        out = await _search(api, user_id="bob", **body)
        assert _names(corpus, out) == {"bob-lisbon", "bob-shellfish"}
        # Facts belong to the user: a session scope reads every current fact of the session's user,
        # whichever session (or none) it came from.
        out = await _search(api, session_id="ada-2", **body)
        assert _names(corpus, out) == ADA_NOW
        out = await _search(api, session_id="bob-1", **body)
        assert _names(corpus, out) == {"bob-lisbon", "bob-shellfish"}
        assert (await _search(api, session_id="ada-1", user_id="bob", **body))["results"] == []
        assert (await _search(api, session_id="nobody", **body))["results"] == []
        out = await _search(api, **body)
        assert _names(corpus, out) == ADA_NOW | {"bob-lisbon", "bob-shellfish"}


@pytest.mark.parametrize("mode", MODES)
async def test_filters_on_facts(api: httpx.AsyncClient, corpus: Corpus, mode: str) -> None:
    async def names(user_id: str | None = "ada", **filters: Any) -> set[str]:
        body = {"query": EVERYTHING, "mode": mode, "limit": 100, "filters": filters}
        return _names(corpus, await _search(api, user_id=user_id, **body))

    assert await names() == ADA_NOW
    # metadata: containment in the fact's own metadata.
    assert await names(metadata={"source": "onboarding"}) == {"peanuts"}
    assert await names(metadata={"source": "chat"}) == {"lisbon"}
    assert await names(metadata={"source": "elsewhere"}) == set()
    # created_at: a fact's is its valid_from.
    assert await names(created_after="2024-01-01T00:00:00Z") == {"lisbon", "peanuts", "cello"}
    assert await names(created_before="2024-01-01T00:00:00") == {"nurse"}
    day_ago = (NOW - timedelta(days=2)).isoformat()
    assert await names(created_after=day_ago) == {"cello"}
    assert await names(created_after="2024-05-01T00:00:00Z", created_before="2024-05-02T00:00:00Z") == {
        "peanuts"
    }
    # session_ids: the sessions facts were first read from; a fact added over the API has none.
    assert await names(session_ids=["ada-1"]) == {"lisbon", "cello"}
    assert await names(None, session_ids=["ada-2", "bob-1"]) == {"peanuts", "bob-lisbon"}
    assert await names(session_ids=["bob-1"]) == set()
    # roles: a fact has no speaker, so a role filter excludes every fact.
    assert await names(roles=["user"]) == set()


async def test_tenants_and_users_never_see_each_others_facts(
    api: httpx.AsyncClient,
    other_api: httpx.AsyncClient,
    corpus: Corpus,
    db: AsyncEngine,
    embedder: LocalEmbedder,
) -> None:
    # The other tenant has an ada of its own, with a session named as ours.
    other = await _facts_for(other_api, db, embedder)
    await _session(other_api, "ada", "ada-1")
    theirs = await other.add("ada", "Lives in Lisbon.", kind="location", session_id="ada-1")
    for mode in MODES:
        body = {"query": EVERYTHING, "mode": mode, "limit": 100}
        for scope in ({}, {"user_id": "ada"}, {"session_id": "ada-1"}, {"user_id": "bob"}):
            expected = [] if scope.get("user_id") == "bob" else [theirs]
            assert _ids(await _search(other_api, **body, **scope)) == expected
            assert theirs not in _ids(await _search(api, **body, **scope))
        out = await _search(api, user_id="ada", **body)
        assert {h["user_id"] for h in out["results"]} == {"ada"}
        assert corpus.ids["bob-lisbon"] not in _ids(out)


@pytest.mark.parametrize("mode", MODES)
async def test_messages_and_facts_rank_together(api: httpx.AsyncClient, corpus: Corpus, mode: str) -> None:
    # Another user's conversation: extraction may add (and revise) eve's facts while this runs, so
    # only the hits written here are compared, and ada's facts stay as written.
    await _session(api, "eve", "eve-1")
    msgs = [
        {"role": "user", "content": "Rehearsal ran late, the cello section kept missing the entry."},
        {"role": "assistant", "content": "Orchestra rehearsals can be exhausting!"},
        {"role": "user", "content": "And tomorrow I have an early shift at the hospital."},
    ]
    r = await api.post("/v1/sessions/eve-1/messages", json={"messages": msgs})
    assert r.status_code == 201, r.text
    known = {m["message_id"] for m in r.json()["messages"]} | set(corpus.ids.values())
    body = {"query": "cello orchestra rehearsal", "mode": mode, "limit": 100}
    mixed = (await _search(api, kinds=["messages", "facts"], **body))["results"]
    assert {h["kind"] for h in mixed} == {"messages", "facts"}
    assert corpus.ids["cello"] in {h["id"] for h in mixed}
    scores = [h["score"] for h in mixed]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
    # Each kind is scored as when searched alone, so the merged order is by comparable scores.
    alone = {
        h["id"]: h
        for kind in ("messages", "facts")
        for h in (await _search(api, kinds=[kind], **body))["results"]
        if h["id"] in known
    }
    mine = [h for h in mixed if h["id"] in known]
    assert {h["id"] for h in mine} == set(alone)
    for h in mine:
        assert h["score"] == pytest.approx(alone[h["id"]]["score"])
        assert h["scores"] == pytest.approx(alone[h["id"]]["scores"])


async def test_hybrid_favours_important_facts(
    api: httpx.AsyncClient, db: AsyncEngine, embedder: LocalEmbedder
) -> None:
    facts = await _facts_for(api, db, embedder)
    assert (await api.put("/v1/users/cy", json={"metadata": {}})).status_code == 201
    minor = await facts.add("cy", "Likes jazz.", importance=0.1)
    major = await facts.add("cy", "Likes jazz.", importance=1.0)
    body = {"query": "what music does cy like? jazz", "user_id": "cy"}
    hits = (await _search(api, **body))["results"]
    assert [h["id"] for h in hits] == [major, minor]
    gap = IMPORTANCE_WEIGHT * (1.0 - 0.1) / _weights().ceiling
    assert hits[0]["scores"]["fused"] - hits[1]["scores"]["fused"] == pytest.approx(gap, abs=1e-5)
    # Semantic and keyword modes report their own part, with no bonus.
    for mode in ("semantic", "keyword"):
        hits = (await _search(api, mode=mode, **body))["results"]
        assert hits[0]["score"] == pytest.approx(hits[1]["score"])


async def test_recency_min_score_and_mmr_on_facts(api: httpx.AsyncClient, corpus: Corpus) -> None:
    body = {"query": EVERYTHING, "user_id": "ada", "mode": "semantic", "limit": 100}
    recent = (await _search(api, recency={"weight": 0.5, "half_life_hours": 24}, **body))["results"]
    by_id = {h["id"]: h for h in recent}
    # Recency reads valid_from: a day old counts half, years old nothing.
    assert by_id[corpus.ids["cello"]]["scores"]["recency"] == pytest.approx(0.5, abs=0.01)
    assert by_id[corpus.ids["nurse"]]["scores"]["recency"] == pytest.approx(0.0, abs=1e-6)
    for h in recent:
        assert h["score"] == pytest.approx(
            0.5 * h["scores"]["fused"] + 0.5 * h["scores"]["recency"], abs=1e-5
        )

    plain = (await _search(api, **body))["results"]
    cut = plain[1]["score"]
    kept = (await _search(api, min_score=cut, **body))["results"]
    assert [h["id"] for h in kept] == [h["id"] for h in plain[:2]]

    diverse = (await _search(api, mmr=0.5, **body))["results"]
    assert {h["id"] for h in diverse} == {h["id"] for h in plain} and diverse[0]["id"] == plain[0]["id"]


async def test_search_waits_for_the_worker_to_embed_a_fact(
    api: httpx.AsyncClient, db: AsyncEngine, embedder: LocalEmbedder
) -> None:
    facts = await _facts_for(api, db, embedder)
    assert (await api.put("/v1/users/dan", json={"metadata": {}})).status_code == 201
    fact = await facts.add("dan", "Speaks fluent Japanese.", embed=False)  # as added over the API
    out = await _search(api, query="which languages does he know?", user_id="dan", mode="semantic")
    assert out["indexing"] == {"pending": 0, "refining": 0, "complete": True}
    assert _ids(out) == [fact] and out["results"][0]["scores"]["semantic"] > 0.2


# --- a fact not yet embedded, on a database no worker serves ----------------------------------------


@pytest.fixture(scope="module")
async def quiet_db(pg: EmbeddedPostgres) -> str:
    return await create_database(pg)


@pytest.fixture(params=["exact", "hnsw"])
async def quiet(
    request: pytest.FixtureRequest, quiet_db: str, embedder: LocalEmbedder
) -> AsyncIterator[tuple[httpx.AsyncClient, Facts]]:
    """A tenant of its own, served by an app without a worker: what is not embedded stays so.
    "hnsw": no scope counts as small, so a search over the whole tenant takes the vector index."""
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    extra = {"search_exact_max_rows": 0} if request.param == "hnsw" else {}
    settings = make_settings(
        quiet_db, auth="off", default_tenant=tenant, run_worker=False, redis_url=None, **extra
    )
    engine = engine_for(quiet_db)
    async with (
        LifespanManager(make_app(settings), startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app) as c,  # type: ignore[arg-type]
    ):
        yield c, Facts(engine, tenant, embedder)
    await engine.dispose()


async def test_a_fact_not_yet_embedded_is_found_by_its_words(
    quiet: tuple[httpx.AsyncClient, Facts],
) -> None:
    api, facts = quiet
    assert (await api.put("/v1/users/ada", json={"metadata": {}})).status_code == 201
    lisbon = await facts.add("ada", "Lives in Lisbon.", importance=0.8)
    peanuts = await facts.add("ada", "Is allergic to peanuts.", embed=False, importance=1.0)
    for scope in ({"user_id": "ada"}, {}):
        body = {"query": "allergic to peanuts", "kinds": ["facts"], "limit": 100, **scope}
        r = await api.post("/v1/search", json={**body, "mode": "keyword"})
        assert r.status_code == 200, r.text
        assert [h["id"] for h in r.json()["results"]] == [peanuts]
        assert r.json()["results"][0]["scores"]["semantic"] is None
        # Waiting is bounded and says what is still missing.
        assert r.json()["indexing"] == {"pending": 1, "refining": 0, "complete": False}

        r = await api.post("/v1/search", json={**body, "mode": "hybrid", "wait_for_indexing_ms": 100})
        assert r.status_code == 200, r.text
        hits = {h["id"]: h for h in r.json()["results"]}
        assert set(hits) == {peanuts, lisbon}, "the one by its words, the other by its meaning"
        top = hits[peanuts]["scores"]
        assert top["semantic"] is None and top["keyword"] == pytest.approx(1.0)
        w = _weights()
        assert top["fused"] == pytest.approx((w.keyword + IMPORTANCE_WEIGHT) / w.ceiling, abs=1e-5)

        semantic = {**body, "mode": "semantic", "query": "where is home?", "mmr": 0.3}
        r = await api.post("/v1/search", json=semantic)
        assert r.status_code == 200, r.text
        assert [h["id"] for h in r.json()["results"]] == [lisbon], "only embedded facts have a meaning"

    # Messages only: facts are not waited for.
    r = await api.post("/v1/search", json={"query": "peanuts", "user_id": "ada"})
    assert r.status_code == 200 and r.json()["indexing"] == {"pending": 0, "refining": 0, "complete": True}


# --- bad input ------------------------------------------------------------------------------------


async def test_facts_can_be_searched(api: httpx.AsyncClient) -> None:
    for kinds in (["facts"], ["summaries", "facts"], ["messages", "facts"], ["facts", "messages", "facts"]):
        r = await api.post("/v1/search", json={"query": "ok", "kinds": kinds})
        assert r.status_code == 200, r.text
        assert r.json()["results"] == []


@pytest.mark.parametrize(
    "body",
    [
        {"kinds": ["fact"]},
        {"kinds": "facts"},
        {"kinds": ["facts", "emails"]},
        {"kinds": ["facts"], "query": "   "},
        {"kinds": ["facts"], "session_id": "bad id!"},
        {"kinds": ["facts"], "filters": {"session_ids": []}},
        {"kinds": ["facts"], "filters": {"metadata": ["x"]}},
        {"kinds": ["facts"], "filters": {"roles": ["owner"]}},
        {"kinds": ["facts"], "filters": {"valid_at": "2024-01-01"}},
        {"kinds": ["facts"], "filters": {"created_after": "last week"}},
        {"kinds": ["facts"], "limit": 0},
    ],
)
async def test_bad_facts_searches_are_a_problem(api: httpx.AsyncClient, body: dict[str, Any]) -> None:
    r = await api.post("/v1/search", json={"query": "ok", **body})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["type"].startswith("urn:engram:problem:")

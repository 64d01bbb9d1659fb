"""POST /v1/search: modes, scope, every filter, MMR, min_score, a full limit at scale, bad input."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import numpy as np
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.ai.local_embedder import LocalEmbedder
from app.db.embedded import EmbeddedPostgres
from app.db.sql import driver
from app.search import ranking, service
from app.search.schemas import SearchRequest
from tests.support.app import STARTUP, client_for, make_app, make_settings
from tests.support.db import create_database, engine_for, fetch

WAIT = 10_000


async def _session(api: httpx.AsyncClient, user: str, session: str, msgs: list[dict[str, Any]]) -> None:
    r = await api.post("/v1/sessions", json={"user_id": user, "session_id": session})
    assert r.status_code == 201, r.text
    r = await api.post(f"/v1/sessions/{session}/messages", json={"messages": msgs})
    assert r.status_code == 201, r.text


async def _search(api: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    body.setdefault("wait_for_indexing_ms", WAIT)
    r = await api.post("/v1/search", json=body)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    assert out["indexing"]["complete"], out["indexing"]
    return out


def _contents(out: dict[str, Any]) -> list[str]:
    return [h["content"] for h in out["results"]]


@pytest.fixture
async def corpus(api: httpx.AsyncClient) -> httpx.AsyncClient:
    await _session(
        api,
        "ada",
        "ada-1",
        [
            {
                "role": "user",
                "content": "I adopted a kitten named Miso last month.",
                "metadata": {"topic": "pets"},
            },
            {
                "role": "assistant",
                "content": "Miso is a lovely name for a cat!",
                "metadata": {"topic": "pets"},
            },
            {
                "role": "user",
                "content": "My dentist appointment is on Friday at 9am.",
                "metadata": {"topic": "health", "urgent": True},
                "created_at": "2026-01-10T09:00:00Z",
            },
        ],
    )
    await _session(
        api,
        "ada",
        "ada-2",
        [
            {"role": "user", "content": "I'm training for the Lisbon marathon in October."},
            {"role": "assistant", "content": "Great, let's plan your long runs."},
        ],
    )
    await _session(
        api,
        "bob",
        "bob-1",
        [{"role": "user", "content": "My cat knocked my coffee over this morning."}],
    )
    return api


async def test_semantic_finds_a_paraphrase_and_reports_score_parts(corpus: httpx.AsyncClient) -> None:
    out = await _search(
        corpus, query="what pet did she get recently", mode="semantic", user_id="ada", limit=3
    )
    top = out["results"][0]
    assert top["content"] == "I adopted a kitten named Miso last month."
    assert top["kind"] == "messages" and top["user_id"] == "ada" and top["session_id"] == "ada-1"
    assert top["seq"] == 1 and top["role"] == "user" and top["metadata"] == {"topic": "pets"}
    assert top["scores"]["semantic"] > 0.3 and top["scores"]["keyword"] is None
    assert top["score"] == pytest.approx(top["scores"]["fused"])
    assert out["mode"] == "semantic"


async def test_keyword_matches_words_and_hybrid_fuses_both(corpus: httpx.AsyncClient) -> None:
    out = await _search(corpus, query="Lisbon", mode="keyword", user_id="ada")
    assert _contents(out) == ["I'm training for the Lisbon marathon in October."]
    assert out["results"][0]["scores"]["keyword"] > 0
    out = await _search(corpus, query="Lisbon marathon running", user_id="ada")
    top = out["results"][0]
    assert top["content"] == "I'm training for the Lisbon marathon in October."
    assert top["scores"]["semantic"] is not None and top["scores"]["keyword"] is not None
    assert 0 < top["score"] <= 1
    scores = [h["score"] for h in out["results"]]
    assert scores == sorted(scores, reverse=True)


async def test_a_year_no_message_holds_does_not_dilute_the_keyword_score(corpus: httpx.AsyncClient) -> None:
    """People rarely write the year; a query's period is served by `created_at`. A year no message
    holds is left out of the keyword weights, instead of taking the largest share from the words
    that match (as the rarest lexeme)."""
    alone = await _search(corpus, query="Lisbon", mode="keyword", user_id="ada")
    dated = await _search(corpus, query="Lisbon in 2025", mode="keyword", user_id="ada")
    assert _contents(dated) == _contents(alone) == ["I'm training for the Lisbon marathon in October."]
    assert dated["results"][0]["scores"]["keyword"] == pytest.approx(alone["results"][0]["scores"]["keyword"])


async def test_scope_by_user_and_session(corpus: httpx.AsyncClient) -> None:
    out = await _search(corpus, query="cat", user_id="bob", mode="semantic")
    assert {h["user_id"] for h in out["results"]} == {"bob"}
    out = await _search(corpus, query="cat", session_id="ada-2", mode="semantic")
    assert {h["session_id"] for h in out["results"]} == {"ada-2"}
    out = await _search(corpus, query="cat", mode="semantic", limit=100)
    assert {h["user_id"] for h in out["results"]} == {"ada", "bob"}


@pytest.mark.parametrize("mode", ["semantic", "keyword", "hybrid"])
async def test_each_filter(corpus: httpx.AsyncClient, mode: str) -> None:
    q = "cat kitten dentist marathon coffee Miso"

    async def hits(**filters: Any) -> list[str]:
        return _contents(await _search(corpus, query=q, mode=mode, limit=100, filters=filters))

    assert set(await hits(metadata={"topic": "pets"})) == {
        "I adopted a kitten named Miso last month.",
        "Miso is a lovely name for a cat!",
    }
    assert await hits(metadata={"topic": "health", "urgent": True}) == [
        "My dentist appointment is on Friday at 9am."
    ]
    assert "Miso is a lovely name for a cat!" in await hits(roles=["assistant"])
    assert all(
        c in ("Miso is a lovely name for a cat!", "Great, let's plan your long runs.")
        for c in await hits(roles=["assistant"])
    )
    assert await hits(created_before="2026-02-01T00:00:00Z") == [
        "My dentist appointment is on Friday at 9am."
    ]
    assert "My dentist appointment is on Friday at 9am." not in await hits(
        created_after="2026-02-01T00:00:00Z"
    )
    assert await hits(session_ids=["bob-1"]) == ["My cat knocked my coffee over this morning."]


async def test_tenants_and_users_never_see_each_other(
    corpus: httpx.AsyncClient, other_api: httpx.AsyncClient
) -> None:
    for mode in ("semantic", "keyword", "hybrid"):
        out = await _search(other_api, query="kitten Miso Lisbon marathon cat coffee", mode=mode, limit=100)
        assert out["results"] == []
        out = await _search(other_api, query="kitten", user_id="ada", mode=mode)
        assert out["results"] == []
        # Words of both users' messages: ada's would match, so only the scope keeps them out.
        out = await _search(corpus, query="kitten Miso cat coffee", user_id="bob", mode=mode, limit=100)
        assert [(h["user_id"], h["content"]) for h in out["results"]] == [
            ("bob", "My cat knocked my coffee over this morning.")
        ]


async def _tenant_of(engine: AsyncEngine, message_id: str) -> str:
    """The tenant the corpus fixture's fresh API key stored a message under."""
    sql = "SELECT tenant_id FROM messages WHERE message_id = CAST(:i AS uuid)"
    rows = await fetch(engine, sql, i=message_id)
    return str(rows[0][0])


async def test_the_page_reads_its_hits_own_fields_and_drops_a_deleted_one(
    corpus: httpx.AsyncClient, db: AsyncEngine
) -> None:
    # Ranking reads no metadata or user id (sql.RANK_COLS): the returned page reads them by id.
    out = await _search(corpus, query="pets and health", mode="semantic", limit=3)
    assert len(out["results"]) == 3
    ids = [h["id"] for h in out["results"]]
    tenant = await _tenant_of(db, ids[0])
    async with db.begin() as conn:
        await conn.execute(text("SELECT 1"))  # begins the transaction, as a search's opening statement does
        gone = ranking.Candidate(row={"message_id": uuid.uuid4()})  # deleted since it was ranked
        hits = [ranking.Candidate(row={"message_id": uuid.UUID(i)}) for i in ids]
        kept = await service._page_fields(conn, tenant, [hits[0], gone, *hits[1:]])
    assert [str(c.row["message_id"]) for c in kept] == ids
    assert [(c.row["user_id"], c.row["metadata"]) for c in kept] == [
        (h["user_id"], h["metadata"]) for h in out["results"]
    ]


async def test_a_hybrid_search_takes_five_statements(
    corpus: httpx.AsyncClient, db: AsyncEngine, database_url: str, embedder: LocalEmbedder
) -> None:
    # Issue 16: each round trip costs both processes CPU. A user-scoped hybrid search sends its
    # opening (custom plans, pending count, scope size), both candidate lists with their sessions'
    # role bias, the best candidates' sentence vectors, their neighbours and the page's own fields;
    # nine statements before they were merged.
    class Embed:
        async def embed(self, texts: Any) -> Any:
            return embedder.encode(list(texts))

    out = await _search(corpus, query="kitten named Miso", user_id="ada", limit=3)
    tenant = await _tenant_of(db, out["results"][0]["id"])
    sent: list[str] = []

    def through_sqlalchemy(_c: Any, _cur: Any, statement: str, *_: Any) -> None:
        sent.append(statement)

    req = SearchRequest(query="kitten named Miso", user_id="ada", limit=3)
    settings = make_settings(database_url)
    async with db.begin() as conn:
        # Once before counting: asyncpg reads the types of a connection's first statements.
        await service.search(conn, tenant_id=tenant, req=req, embedder=Embed(), settings=settings)
        raw = await driver(conn)
        on_driver = lambda record: sent.append(record.query)  # noqa: E731
        raw.add_query_logger(on_driver)
        event.listen(db.sync_engine, "before_cursor_execute", through_sqlalchemy)
        try:
            found = await service.search(conn, tenant_id=tenant, req=req, embedder=Embed(), settings=settings)
        finally:
            event.remove(db.sync_engine, "before_cursor_execute", through_sqlalchemy)
            raw.remove_query_logger(on_driver)
    assert [h.id for h in found.results] == [uuid.UUID(h["id"]) for h in out["results"]]
    assert len(sent) == 5, sent


async def test_min_score_is_honoured(corpus: httpx.AsyncClient) -> None:
    out = await _search(corpus, query="kitten named Miso", mode="semantic", limit=100)
    assert len(out["results"]) > 2
    cut = out["results"][1]["score"]
    kept = await _search(corpus, query="kitten named Miso", mode="semantic", limit=100, min_score=cut)
    assert kept["results"] and all(h["score"] >= cut for h in kept["results"])
    assert len(kept["results"]) < len(out["results"])


async def test_mmr_removes_near_duplicates(api: httpx.AsyncClient) -> None:
    dupes = [
        "The wifi password is hunter2.",
        "The wifi password is hunter2!",
        "the WiFi password is hunter2",
    ]
    others = ["The router is in the hallway closet.", "Guests can use the wifi network named Home."]
    await _session(api, "u", "s", [{"role": "user", "content": c} for c in dupes + others])
    plain = _contents(await _search(api, query="wifi password", mode="semantic", limit=3))
    assert sum(c in dupes for c in plain) == 3
    diverse = _contents(await _search(api, query="wifi password", mode="semantic", limit=3, mmr=0.6))
    assert sum(c in dupes for c in diverse) == 1
    assert len(diverse) == 3


async def test_recency_weight_favours_newer(api: httpx.AsyncClient) -> None:
    await _session(
        api,
        "u",
        "s",
        [
            {"role": "user", "content": "I live in Berlin.", "created_at": "2020-01-01T00:00:00Z"},
            {"role": "user", "content": "I live in Lisbon.", "created_at": "2026-11-20T00:00:00Z"},
        ],
    )
    out = await _search(
        api, query="where do I live", mode="semantic", recency={"weight": 0.9, "half_life_hours": 720}
    )
    assert out["results"][0]["content"] == "I live in Lisbon."
    assert out["results"][0]["scores"]["recency"] > out["results"][1]["scores"]["recency"]


async def test_hybrid_reads_the_conversation_around_a_turn(api: httpx.AsyncClient) -> None:
    # A terse answer is found through the assistant's question before it, a reply through the user
    # turn it answers (for a question about what "you" said), a named speaker's turn by the name.
    await _session(
        api,
        "u",
        "s1",
        [
            {"role": "user", "content": "We adopted a beagle from the rescue today."},
            {"role": "assistant", "content": "Congratulations! What did you name her?"},
            {"role": "user", "content": "Biscuit. The kids voted."},
            {"role": "assistant", "content": "Lovely. Enjoy the first weeks together."},
            {"role": "user", "content": "Our flat barely gets any sunlight. Which houseplant would survive?"},
            {"role": "assistant", "content": "Go with a snake plant: it copes with almost no light."},
            {"role": "user", "content": "My neighbour's dog barks all night, any advice?"},
            {"role": "assistant", "content": "Earplugs, and a friendly chat with the neighbour."},
        ],
    )
    await _session(
        api,
        "u",
        "s2",
        [
            {"role": "user", "name": "Ada", "content": "We're planning the dinner menu for Saturday."},
            {"role": "assistant", "content": "Happy to help. Any dietary needs?"},
            {"role": "user", "name": "Marco", "content": "Jumping in: I can't eat sesame, I react badly."},
            {"role": "user", "name": "Ada", "content": "And I'm not a fan of mushrooms."},
        ],
    )

    async def top(query: str, mode: str = "hybrid") -> list[str]:
        return _contents(await _search(api, query=query, user_id="u", mode=mode, limit=3))

    assert "Biscuit. The kids voted." in await top("What is my dog called?")
    assert (await top("Which plant did you recommend for our dark flat?"))[0] == (
        "Go with a snake plant: it copes with almost no light."
    )
    assert (await top("What food can't Marco have?"))[0] == "Jumping in: I can't eat sesame, I react badly."
    out = await _search(api, query="What is my dog called?", user_id="u", mode="hybrid")
    assert all(0 <= h["score"] <= 1 and h["scores"]["semantic"] is not None for h in out["results"])


def test_queries_about_what_the_assistant_said() -> None:
    from app.search.ranking import about_assistant, mentions

    assert about_assistant("Which book did you recommend?") and about_assistant("What was your advice?")
    assert about_assistant("You told me to read what?")
    assert not about_assistant("What did I tell you about my allergy?")
    assert not about_assistant("Where do I live?")
    assert mentions({"what", "can", "t", "marco", "eat"}, "Marco") and not mentions({"marco"}, "Mary Ann")
    assert not mentions({"marco"}, None)


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"query": ""}, 422),
        ({"query": "   "}, 422),
        ({"query": "x" * 5000}, 422),
        ({"query": "ok", "limit": 0}, 422),
        ({"query": "ok", "limit": 10**6}, 422),
        ({"query": "ok", "mode": "fuzzy"}, 422),
        ({"query": "ok", "kinds": ["emails"]}, 422),
        ({"query": "ok", "kinds": ["facts", "fact"]}, 422),
        ({"query": "ok", "filters": {"roles": "user"}}, 422),
        ({"query": "ok", "filters": {"roles": ["owner"]}}, 422),
        ({"query": "ok", "filters": {"metadata": []}}, 422),
        ({"query": "ok", "filters": {"created_after": "yesterday"}}, 422),
        ({"query": "ok", "filters": {"unknown": 1}}, 422),
        ({"query": "ok", "min_score": 2}, 422),
        ({"query": "ok", "mmr": -1}, 422),
        ({"query": "ok", "wait_for_indexing_ms": 60_000}, 422),
        ({"query": "ok", "user_id": "bad id!"}, 422),
        ({"query": "a\u0000b"}, 422),
        ({"query": 42}, 422),
        ({}, 422),
    ],
)
async def test_bad_input_is_a_problem(api: httpx.AsyncClient, body: dict[str, Any], status: int) -> None:
    r = await api.post("/v1/search", json=body)
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["type"].startswith("urn:engram:problem:")


# --- the full limit at scale: the user filter never starves an HNSW scan -----------------------

USERS, PER_USER = 500, 40  # 20,000 messages


@pytest.fixture(scope="module")
async def big_db(pg: EmbeddedPostgres) -> str:
    url = await create_database(pg)
    engine = engine_for(url)
    rng = np.random.default_rng(7)
    vecs = rng.normal(size=(USERS * PER_USER, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    async with engine.begin() as conn:
        await conn.execute(text("INSERT INTO tenants (tenant_id) VALUES ('default')"))
        await conn.execute(
            text(
                "INSERT INTO users (tenant_id, user_id) "
                "SELECT 'default', 'user-' || g FROM generate_series(0, :n - 1) g"
            ),
            {"n": USERS},
        )
        await conn.execute(
            text(
                "INSERT INTO sessions (tenant_id, session_id, user_id, last_seq) "
                "SELECT 'default', 'sess-' || g, 'user-' || g, :per FROM generate_series(0, :n - 1) g"
            ),
            {"n": USERS, "per": PER_USER},
        )
        lits = ["[" + ",".join(f"{x:.6f}" for x in v) + "]" for v in vecs]
        await conn.execute(
            text(
                "INSERT INTO messages (message_id, tenant_id, session_id, user_id, seq, role, content, "
                "token_count, embedding, embed_status) "
                "SELECT gen_random_uuid(), 'default', 'sess-' || (i / :per), 'user-' || (i / :per), "
                "  i % :per + 1, CASE WHEN i % 2 = 0 THEN 'user' ELSE 'assistant' END, "
                "  'note number ' || i, 3, CAST(v AS vector), 'done' "
                "FROM unnest(CAST(:vecs AS text[])) WITH ORDINALITY AS t(v, o), "
                "LATERAL (SELECT CAST(o - 1 AS int) AS i) x"
            ),
            {"vecs": lits, "per": PER_USER},
        )
    await engine.dispose()
    return url


@pytest.fixture(params=["exact", "hnsw"])
async def big_api(request: pytest.FixtureRequest, big_db: str) -> AsyncIterator[httpx.AsyncClient]:
    # "hnsw": no scope counts as small, so every search takes the approximate index path.
    extra = {"search_exact_max_rows": 0} if request.param == "hnsw" else {}
    app = make_app(make_settings(big_db, auth="off", run_worker=False, redis_url=None, **extra))
    async with (
        LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app) as c,
    ):  # type: ignore[arg-type]
        yield c


async def _analyze(url: str, on: bool) -> None:
    engine = engine_for(url)
    async with engine.begin() as conn:
        if on:
            await conn.execute(text("ANALYZE messages"))
        else:  # forget statistics again: a fresh table, as before any autovacuum
            await conn.execute(text("DELETE FROM pg_statistic WHERE starelid = CAST('messages' AS regclass)"))
    await engine.dispose()


@pytest.mark.slow
@pytest.mark.parametrize("analyzed", [False, True])
async def test_filtered_user_search_returns_the_full_limit(
    big_api: httpx.AsyncClient, big_db: str, analyzed: bool
) -> None:
    await _analyze(big_db, analyzed)
    for user in ("user-3", "user-250", "user-499"):
        for body in (
            {"mode": "semantic", "limit": 10},
            {"mode": "semantic", "limit": 10, "filters": {"roles": ["user"]}},
            {"mode": "hybrid", "limit": 20, "filters": {"roles": ["assistant"]}},
        ):
            r = await big_api.post(
                "/v1/search", json={"query": "note about anything", "user_id": user, **body}
            )
            assert r.status_code == 200, r.text
            hits = r.json()["results"]
            assert len(hits) == body["limit"], (user, body, len(hits))
            assert {h["user_id"] for h in hits} == {user}


async def test_a_search_holds_no_pool_connection_while_its_query_is_embedded(
    corpus: httpx.AsyncClient, database_url: str, embedder: LocalEmbedder
) -> None:
    # A slow model (or shared embedding endpoint) must not hold PostgreSQL connections: each held
    # one is a backend kept open, and a pool held by waiting searches starves the rest.
    out = await _search(corpus, query="kitten named Miso", user_id="ada", limit=3)
    engine = engine_for(database_url)
    held: list[int] = []

    class Embed:
        async def embed(self, texts: Any) -> Any:
            held.append(engine.pool.checkedout())  # type: ignore[attr-defined]
            return embedder.encode(list(texts))

    try:
        tenant = await _tenant_of(engine, out["results"][0]["id"])
        req = SearchRequest(query="kitten named Miso", user_id="ada", limit=3)
        found = await service.search_when_indexed(
            engine, tenant_id=tenant, req=req, embedder=Embed(), settings=make_settings(database_url)
        )
    finally:
        await engine.dispose()
    assert [str(h.id) for h in found.results] == [h["id"] for h in out["results"]]
    assert held == [0]

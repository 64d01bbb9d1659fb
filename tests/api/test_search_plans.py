"""The plans of hybrid search's statement (app/search/sql.py): no per-row work done twice. Each
was measurable CPU at LoCoMo size (docs/benchmarks.md, search CPU session 13)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from sqlalchemy import TextClause, event, text

from app.db.embedded import EmbeddedPostgres
from app.db.sql import driver
from app.db.vectors import as_db_vector
from app.search import facts, service
from app.search import sql as q
from app.search.schemas import SearchRequest
from app.search.service import IDF_SCOPE_CAP
from tests.support.app import make_settings
from tests.support.db import create_database, engine_for


@pytest.fixture(scope="module")
async def url(pg: EmbeddedPostgres) -> str:
    return await create_database(pg)


def _nodes(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, list):
        return [n for x in node for n in _nodes(x)]
    if isinstance(node, dict):
        own = [node] if "Node Type" in node else []
        return own + [n for v in node.values() for n in _nodes(v)]
    return []


async def _plan(url: str, scope: q.Scope, stmt: TextClause) -> list[dict[str, Any]]:
    vec = np.ones(384, dtype=np.float32) / np.sqrt(384)
    params = {**scope.params, "q": as_db_vector(vec), "qt": "where did Ada go sailing", "n": 100}
    engine = engine_for(url)
    try:
        async with engine.connect() as conn:
            explain = text("EXPLAIN (VERBOSE, FORMAT JSON) " + stmt.text)
            plan = (await conn.execute(explain, params | {"cap": IDF_SCOPE_CAP})).scalar_one()
    finally:
        await engine.dispose()
    return _nodes(plan if isinstance(plan, list) else json.loads(plan))


@pytest.mark.parametrize("with_vectors", [False, True])
async def test_an_exact_hybrid_search_computes_each_distance_once(url: str, with_vectors: bool) -> None:
    scope = q.build_scope("t", SearchRequest(query="sailing", user_id="ada"))
    stmt = q.hybrid_query(scope, exact=True, with_vectors=with_vectors, weighted=True)
    nodes = await _plan(url, scope, stmt)
    # Each computation of `<=>` reads the embedding again (from TOAST, for most rows): a node
    # selecting the cosine and sorting by the distance did it twice a row.
    twice = [n["Node Type"] for n in nodes if sum(o.count("<=>") for o in n.get("Output", [])) > 1]
    assert twice == []
    scans = [n for n in nodes if n.get("Relation Name") == "messages"]
    assert any("<=>" in " ".join(n.get("Output", [])) for n in scans)  # the scope's scan computes it


async def test_an_exact_fact_search_computes_each_distance_once(url: str) -> None:
    scope = facts.build_scope("t", SearchRequest(query="sailing", user_id="ada", kinds=["facts"]))
    nodes = await _plan(url, scope, facts.exact_semantic_query(scope, with_vectors=False))
    assert [n["Node Type"] for n in nodes if sum(o.count("<=>") for o in n.get("Output", [])) > 1] == []
    assert any("<=>" in " ".join(n.get("Output", [])) for n in nodes if n.get("Relation Name") == "facts")


async def test_the_query_lexemes_tsqueries_are_made_once_not_per_row(url: str) -> None:
    scope = q.build_scope("t", SearchRequest(query="sailing", user_id="ada"))
    nodes = await _plan(url, scope, q.hybrid_query(scope, exact=True, with_vectors=False, weighted=True))
    # The document-frequency pass tests every row of the sample against each lexeme: its filter
    # reads a tsquery made once per lexeme, not one built again from the lexeme for every row.
    filters = [n["Filter"] for n in nodes if "@@" in n.get("Filter", "")]
    assert filters
    assert not [f for f in filters if "array_to_tsvector" in f]


@pytest.mark.parametrize("scan", [False, True])
async def test_a_small_scopes_keyword_hits_are_tested_row_by_row(url: str, scan: bool) -> None:
    """`scan` (a scope of at most q.SCAN_MAX_ROWS messages): the scope's rows are tested one by one
    by a predicate no index serves. With `@@` the planner may AND the table's GIN index with the
    user's b-tree, as it did between runs at 1M messages (a 30-message user's statement 0.3 ->
    13 ms, docs/benchmarks.md, session 15), since the query's tsquery is unknown when it plans."""
    scope = q.build_scope("t", SearchRequest(query="sailing", user_id="ada"))
    nodes = await _plan(
        url, scope, q.hybrid_query(scope, exact=True, with_vectors=False, weighted=True, scan=scan)
    )
    hits = [n for n in nodes if n.get("Relation Name") == "messages" and "InitPlan" in n.get("Filter", "")]
    indexable = [n for n in hits if "content_tsv @@ (InitPlan" in n["Filter"]]
    row_by_row = [n for n in hits if "ts_match_vq(" in n["Filter"]]
    assert (bool(row_by_row), bool(indexable)) == (scan, not scan)


# A tenant whose users hold ~1,000 facts and summaries each, and Ada, new, holding 5 of each.
CROWD_USERS = 120
CROWD_ROWS = 1_000
_WORDS = "sail boat lisbon jazz guitar coffee tea dog cat hike run swim paint read cook bake garden chess"


_FACTS = (
    "INSERT INTO facts (fact_id, tenant_id, user_id, content, kind, importance, actor) "
    "SELECT gen_random_uuid(), 't', {user}, {content}, 'other', 0.5, 'system' "
    "FROM generate_series(0, {last}) i"
)
_SUMMARIES = (
    "INSERT INTO summaries (summary_id, tenant_id, session_id, user_id, from_seq, to_seq, message_count, "
    "content, token_count, provider) SELECT gen_random_uuid(), 't', {user} || '-s', {user}, i, i, 1, "
    "{content}, 9, 'local' FROM generate_series(0, {last}) i"
)


@pytest.fixture(scope="module")
async def crowded(pg: EmbeddedPostgres) -> str:
    """ANALYZE keeps no count of Ada's own (5 rows among 120,000), so PostgreSQL estimates her rows
    as the average user's (~1,000), and the query's tsquery (from a CTE, unknown when it plans) as
    matching 0.5% of the table: the GIN index ANDed with her b-tree then looks cheaper than the
    b-tree alone (with 300 rows a user it did not, here)."""
    url = await create_database(pg)
    words = "ARRAY['" + "','".join(_WORDS.split()) + "']"
    text_of = f"'likes ' || ({words})[1 + i % 18] || ' and ' || ({words})[1 + (i / 18) % 18] || ' ' || i"
    total = CROWD_USERS * CROWD_ROWS
    engine = engine_for(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(text("SET LOCAL session_replication_role = replica"))  # no users, sessions
            for user, rows, content in [
                (f"'u' || (i % {CROWD_USERS})", total, text_of),
                ("'ada'", 5, "'Ada went sailing in Lisbon ' || i"),
            ]:
                for insert in (_FACTS, _SUMMARIES):
                    await conn.execute(text(insert.format(user=user, content=content, last=rows - 1)))
        async with engine.connect() as conn:
            await conn.execute(text("ANALYZE facts, summaries"))
            await conn.commit()
    finally:
        await engine.dispose()
    return url


async def _indexes(raw: Any, statement: str, params: Any) -> set[str]:
    plan = await raw.fetchval("EXPLAIN (FORMAT JSON) " + statement, *params)
    return {
        n["Index Name"]
        for n in _nodes(plan if isinstance(plan, list) else json.loads(plan))
        if "Index Name" in n
    }


class _Embed:
    async def embed(self, texts: Any) -> Any:
        return [np.ones(384, dtype=np.float32) / np.sqrt(384) for _ in texts]


@pytest.mark.parametrize("mode", ["hybrid", "keyword"])
@pytest.mark.parametrize("kind", ["facts", "summaries"])
async def test_a_users_few_facts_and_summaries_are_tested_row_by_row(
    crowded: str, kind: str, mode: str
) -> None:
    """The keyword statement the service sends for a user's facts or summaries (few: app/search/
    facts.py, summaries.py) reads the user's rows through the b-tree and tests each, never the
    whole table's full-text index, which the planner picks for `@@` over this table (the control)."""
    engine = engine_for(crowded)
    sent: list[tuple[str, Any]] = []

    def keep(_c: Any, _cur: Any, statement: str, params: Any, *_: Any) -> None:
        if f"FROM {kind}, q" in statement:
            sent.append((statement, params))

    req = SearchRequest(query="where did Ada go sailing", user_id="ada", kinds=[kind], mode=mode)
    settings = make_settings(crowded, search_candidates=50)
    gin = f"ix_{kind}_content_tsv"
    try:
        async with engine.connect() as conn:
            event.listen(engine.sync_engine, "before_cursor_execute", keep)
            try:
                found = await service.search(
                    conn, tenant_id="t", req=req, embedder=_Embed(), settings=settings
                )
            finally:
                event.remove(engine.sync_engine, "before_cursor_execute", keep)
            assert len(found.results) == 5  # Ada's own rows, all holding "sailing"
            [(statement, params)] = sent
            raw = await driver(conn)
            used = await _indexes(raw, statement, params)
            assert gin not in used, used
            # The control: the same statement matching with `@@`, as before, takes the GIN index here.
            indexable = statement.replace("ts_match_vq(content_tsv, q.query)", "content_tsv @@ q.query")
            assert indexable != statement
            assert gin in await _indexes(raw, indexable, params)
    finally:
        await engine.dispose()


async def test_only_a_scope_read_row_by_row_lets_postgres_keep_generic_plans(
    api: Any, db: Any, database_url: str
) -> None:
    """A search plans its statements on every execution (its first statement sets
    `plan_cache_mode`), because a generic plan cannot tell a 30-message user from a 100k-message
    one; a scope whose rows are read and tested one by one (a session, or a user of at most
    q.SCAN_MAX_ROWS messages) takes no index whose worth depends on that, so PostgreSQL's own rule
    may keep a generic plan there (planning was ~0.6 ms of a regular user's ~2 ms of PostgreSQL)."""
    r = await api.post("/v1/sessions", json={"user_id": "planner"})
    sid = r.json()["session_id"]
    msgs = [
        {"role": "user", "content": "I went sailing off Lisbon"},
        {"role": "assistant", "content": "Nice"},
    ]
    assert (await api.post(f"/v1/sessions/{sid}/messages", json={"messages": msgs})).status_code == 201
    async with db.connect() as conn:
        sql = "SELECT tenant_id FROM sessions WHERE session_id = :s AND user_id = 'planner'"
        tenant = (await conn.execute(text(sql), {"s": sid})).scalar_one()

    async def planned(req: SearchRequest, **settings: Any) -> str:
        async with db.begin() as conn:
            await service.search(
                conn,
                tenant_id=tenant,
                req=req,
                embedder=_Embed(),
                settings=make_settings(database_url, **settings),
            )
            return str((await conn.execute(text("SELECT current_setting('plan_cache_mode')"))).scalar_one())

    assert await planned(SearchRequest(query="sailing", user_id="planner")) == "auto"
    assert await planned(SearchRequest(query="sailing", session_id=sid)) == "auto"
    # Keyword mode does not count a user's messages: only a session is known small.
    assert (
        await planned(SearchRequest(query="sailing", user_id="planner", mode="keyword"))
        == "force_custom_plan"
    )
    # Past the exact limit the user is searched through the indexes.
    assert await planned(SearchRequest(query="sailing", user_id="planner"), search_exact_max_rows=1) == (
        "force_custom_plan"
    )

"""The plans of hybrid search's statement (app/search/sql.py): no per-row work done twice. Each
was measurable CPU at LoCoMo size (docs/benchmarks.md, search CPU session 13)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from sqlalchemy import TextClause, text

from app.db.embedded import EmbeddedPostgres
from app.db.vectors import as_db_vector
from app.search import facts
from app.search import sql as q
from app.search.schemas import SearchRequest
from app.search.service import IDF_SCOPE_CAP
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

"""Facts as search hits: their scope, their SQL and their candidates.

Facts belong to a user, not to a session: a search scoped to a session reads the facts of that
session's user. Only facts valid now (`invalid_at IS NULL`) are searched; a fact the worker has not
embedded yet is found by its words only. Scores are on the scale of messages, as for summaries
(app/search/summaries.py): the cosine between vectors of the same model, and keyword relevance
weighted by each query lexeme's IDF over the scope's messages, so the kinds rank together.

A user holds few facts, so a user's (or a session's) facts are searched exactly, and their words
tested row by row (app/search/sql.keyword_ctes); a search over a whole tenant with more than
ENGRAM_SEARCH_EXACT_MAX_ROWS current facts takes the HNSW index (and past SCAN_MAX_ROWS, or
uncounted in keyword mode, the full-text index).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import TextClause, text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.config import Settings
from app.db.vectors import Vec
from app.search import ranking
from app.search import sql as q
from app.search.schemas import Kind, Mode, SearchRequest

# Hybrid (weighted fusion): a fact earns this x its importance (0..1) on top of its own relevance,
# before the common ceiling. As large as the role bonus a message of the asked-about speaker earns,
# so an important fact stands level with the user's own words and an unimportant one a little below.
IMPORTANCE_WEIGHT = 0.05

# valid_from is shown as created_at: when the fact became true is the time recency and the
# time filters read.
COLS = (
    "fact_id, user_id, session_id, content, metadata, valid_from AS created_at, kind AS fact_kind, "
    "subject, importance, source_message_ids"
)
NAMES = (
    "fact_id, user_id, session_id, content, metadata, created_at, fact_kind, subject, importance, "
    "source_message_ids"
)
SESSION_USER = "(SELECT s.user_id FROM sessions s WHERE s.tenant_id = :t AND s.session_id = :s)"


@dataclass
class Scope(q.Scope):
    """A facts scope; `weights` is the messages' owner clause that keyword weights are counted over,
    the one a messages search of the same request uses."""

    weights: str = "tenant_id = :t"


def build_scope(tenant_id: str, req: SearchRequest) -> Scope | None:
    """The scope of a search over facts, or None when its filters exclude every fact."""
    f = req.filters
    if f.roles:
        # A fact is distilled from what the user and the assistant said; it has no speaker.
        return None
    messages = q.owner_scope(tenant_id, req)
    s = Scope(
        owner=["tenant_id = :t", "invalid_at IS NULL"],
        params=dict(messages.params),
        weights=messages.owner_where,
        narrow=req.user_id is not None or req.session_id is not None or bool(f.session_ids),
    )
    if req.user_id is not None:
        s.owner.append("user_id = :u")
    if req.session_id is not None:
        s.owner.append(f"user_id = {SESSION_USER}")
    if f.session_ids:
        s.owner.append("session_id = ANY(CAST(:sids AS text[]))")
    if f.metadata:
        s.filters.append(q.metadata_filter(tenant_id, f.metadata, s.params))
    if f.created_after is not None:
        s.filters.append("valid_from >= :after")
        s.params["after"] = f.created_after
    if f.created_before is not None:
        s.filters.append("valid_from < :before")
        s.params["before"] = f.created_before
    return s


def exact_semantic_query(scope: Scope, with_vectors: bool) -> TextClause:
    # MATERIALIZED fences the planner off the HNSW index, as for messages: every fact in scope is
    # scored, so filters never starve the result.
    # The distance is computed once a row (as sql._exact_ctes does for messages).
    vec = ", embedding AS vec" if with_vectors else ""
    return q.bind(
        f"WITH scoped AS MATERIALIZED ("
        f"  SELECT {COLS}, embedding <=> CAST(:q AS vector) AS dist{vec} FROM facts "
        f"  WHERE {scope.where} AND embedding IS NOT NULL) "
        f"SELECT {NAMES}, 1 - dist AS semantic{', vec' if with_vectors else ''} FROM scoped "
        f"ORDER BY dist, created_at, fact_id LIMIT :n",
        scope,
    )


def ann_semantic_query(scope: Scope, with_vectors: bool) -> TextClause:
    vec = ", embedding AS vec" if with_vectors else ""
    return q.bind(
        f"WITH near AS MATERIALIZED ("
        f"  SELECT {COLS}, embedding <=> CAST(:q AS vector) AS dist{vec} FROM facts "
        f"  WHERE {scope.where} AND embedding IS NOT NULL "
        f"  ORDER BY embedding <=> CAST(:q AS vector) LIMIT :n) "
        f"SELECT {NAMES}, 1 - dist AS semantic{', vec' if with_vectors else ''} FROM near ORDER BY dist",
        scope,
    )


def scope_size_query(scope: Scope) -> TextClause:
    return text(f"SELECT count(*) FROM (SELECT 1 FROM facts WHERE {scope.owner_where} LIMIT :cap) x")


# The hits' order among equal scores, in the table and as the hits are named.
_KEYWORD_TAIL = """
SELECT {names}, keyword{extra} FROM hits ORDER BY keyword DESC, created_at, fact_id
"""


def keyword_query(scope: Scope, with_vectors: bool, with_semantic: bool, *, scan: bool = False) -> TextClause:
    """Like messages' keyword query, the weights counted over the scope's messages; a fact not yet
    embedded has no cosine (NULL), so hybrid scores it by its words alone. `scan`: the scope is
    known small, its facts are tested one by one (q.keyword_ctes)."""
    extra = ", 1 - (embedding <=> CAST(:q AS vector)) AS semantic" if with_semantic else ""
    if with_vectors:
        extra += ", embedding AS vec"
    words = q.keyword_ctes(scope.weights, "facts", COLS, scope.where, "valid_from, fact_id", scan=scan)
    sql = f"\nWITH {words}" + _KEYWORD_TAIL.format(names=NAMES, extra=extra)
    return q.bind(sql, scope)


def pending_query(scope: Scope) -> TextClause:
    """Current facts of the scope the worker has not embedded yet (written over the API)."""
    return text(f"SELECT count(*) FROM facts WHERE {scope.owner_where} AND embedding IS NULL")


def _key(row: dict[str, Any]) -> Any:
    return (Kind.facts.value, row["fact_id"])


async def candidates(
    conn: AsyncConnection,
    scope: Scope,
    req: SearchRequest,
    *,
    query_vec: Vec | None,
    n: int,
    with_vectors: bool,
    weighted: bool,
    idf_cap: int,
    settings: Settings,
) -> tuple[dict[Any, ranking.Candidate], list[Any], list[Any]]:
    """The facts matching the query by meaning and by words, merged, as summaries.candidates."""
    semantic: list[dict[str, Any]] = []
    keyword: list[dict[str, Any]] = []
    # A user's (or a session's) facts are few: read whole, by meaning and by words (their rows
    # tested one by one, never the table's full-text index: q.keyword_ctes). A tenant's are
    # counted for the search by meaning, as far as the exact limit; keyword mode does not count.
    size: int | None = None
    if not scope.narrow and req.mode is not Mode.keyword:
        cap = settings.search_exact_max_rows
        size = (await conn.execute(scope_size_query(scope), {**scope.params, "cap": cap + 1})).scalar_one()
    exact = scope.narrow or (size is not None and size <= settings.search_exact_max_rows)
    scan = scope.narrow or (exact and size is not None and size <= q.SCAN_MAX_ROWS)
    if req.mode is not Mode.keyword:
        params = {**scope.params, "q": query_vec, "n": n}
        semantic = await _semantic(conn, scope, params, with_vectors, settings, exact=exact)
    if req.mode is not Mode.semantic:
        params = {**scope.params, "qt": req.query, "n": n, "cap": idf_cap}
        if weighted:
            params["q"] = query_vec
        keyword = await q.rows(conn, keyword_query(scope, with_vectors, weighted, scan=scan), params)
    return ranking.merge(semantic, keyword, key=_key, kind=Kind.facts.value)


async def _semantic(
    conn: AsyncConnection,
    scope: Scope,
    params: dict[str, Any],
    with_vectors: bool,
    settings: Settings,
    *,
    exact: bool,
) -> list[dict[str, Any]]:
    if exact:
        return await q.rows(conn, exact_semantic_query(scope, with_vectors), params)
    ef = str(max(params["n"], 40))
    await conn.execute(q.ANN_SETTINGS, {"ef": ef, "mst": str(settings.search_max_scan_tuples)})
    return await q.rows(conn, ann_semantic_query(scope, with_vectors), params)


def fuse(cands: Iterable[ranking.Candidate], w: ranking.Weights) -> None:
    """Hybrid's weighted `fused`: a fact's own relevance plus its importance bonus, on the scale of
    messages' (`ranking.in_context`); like a summary, it earns none of the conversation bonuses."""
    for c in cands:
        raw = ranking.relevance(c, w) + IMPORTANCE_WEIGHT * float(c.row["importance"])
        c.fused = min(raw / w.ceiling, 1.0)


def hit_fields(row: dict[str, Any]) -> dict[str, Any]:
    """What a fact hit shows where a message hit shows the message's own fields."""
    return {
        "id": row["fact_id"],
        "seq": None,
        "role": None,
        "name": None,
        "fact_kind": row["fact_kind"],
        "subject": row["subject"],
        "importance": float(row["importance"]),
        "source_message_ids": list(row["source_message_ids"] or []),
    }

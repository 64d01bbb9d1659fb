"""Summaries as search hits: their scope, their SQL and their candidates.

A session holds one summary per summary step, so a user has few: they are searched exactly (every
summary in the scope is scored; there is no vector index on them). Their scores are on the scale
of messages: the cosine between vectors of the same model, and keyword relevance with the weights
messages use (each query lexeme's IDF over the scope's messages), so a word counts alike in a
summary and in a turn and the two kinds rank together.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import TextClause, text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.db.vectors import Vec
from app.search import ranking
from app.search import sql as q
from app.search.schemas import Kind, Mode, SearchRequest

# A summary's metadata, both shown on its hit and matched by a metadata filter, so that what a
# client sees is what it can filter on.
METADATA = "jsonb_build_object('from_seq', from_seq, 'to_seq', to_seq)"
NAMES = "summary_id, session_id, user_id, from_seq, to_seq, content, created_at, metadata"
COLS = f"summary_id, session_id, user_id, from_seq, to_seq, content, created_at, {METADATA} AS metadata"


def build_scope(tenant_id: str, req: SearchRequest) -> q.Scope | None:
    """The scope of a search over summaries, or None when its filters exclude every summary."""
    f = req.filters
    if f.roles:
        # A role filter asks for what certain speakers said; a summary mixes every speaker's words.
        return None
    s = q.owner_scope(tenant_id, req)
    # A user's summaries are few (one per summary step of a session, a step standing for up to
    # ~16 messages by default: some 6k for a 100k-message user), and the search by meaning reads
    # every one already (no vector index on summaries): their words are tested row by row too
    # (q.keyword_ctes), as a session's. A tenant's are not counted and keep the full-text index.
    s.narrow = s.narrow or req.user_id is not None
    if f.metadata:
        s.filters.append(f"{METADATA} @> :meta")
        s.params["meta"] = f.metadata
    q.add_time_filters(s, req)
    return s


def pending_query(scope: q.Scope) -> TextClause:
    """Summaries of the scope the worker has not embedded yet (imported ones: app.transfer.tasks)."""
    return text(f"SELECT count(*) FROM summaries WHERE {scope.owner_where} AND embedding IS NULL")


def semantic_query(scope: q.Scope, with_vectors: bool) -> TextClause:
    vec = ", embedding AS vec" if with_vectors else ""
    return q.bind(
        f"SELECT {COLS}, 1 - (embedding <=> CAST(:q AS vector)) AS semantic{vec} FROM summaries "
        f"WHERE {scope.where} AND embedding IS NOT NULL "
        f"ORDER BY embedding <=> CAST(:q AS vector), to_seq, session_id LIMIT :n",
        scope,
    )


_KEYWORD_TAIL = """
SELECT {names}, keyword{extra} FROM hits ORDER BY keyword DESC, to_seq, session_id
"""


def keyword_query(
    scope: q.Scope, with_vectors: bool, with_semantic: bool, *, scan: bool = False
) -> TextClause:
    """Like messages' keyword query: the weights come from the scope's messages (`owner`). `scan`:
    the scope is known small, its summaries are tested one by one (q.keyword_ctes)."""
    extra = ", 1 - (embedding <=> CAST(:q AS vector)) AS semantic" if with_semantic else ""
    if with_vectors:
        extra += ", embedding AS vec"
    words = q.keyword_ctes(scope.owner_where, "summaries", COLS, scope.where, "to_seq, session_id", scan=scan)
    sql = f"\nWITH {words}" + _KEYWORD_TAIL.format(names=NAMES, extra=extra)
    return q.bind(sql, scope)


def _key(row: dict[str, Any]) -> Any:
    # Keyed by kind too: the two tables draw their ids independently, so they share no key space.
    return (Kind.summaries.value, row["summary_id"])


async def candidates(
    conn: AsyncConnection,
    scope: q.Scope,
    req: SearchRequest,
    *,
    query_vec: Vec | None,
    n: int,
    with_vectors: bool,
    weighted: bool,
    idf_cap: int,
) -> tuple[dict[Any, ranking.Candidate], list[Any], list[Any]]:
    """The summaries matching the query by meaning and by words, merged, as the service reads
    messages: `query_vec` (app.db.vectors.as_db_vector) for the semantic and hybrid modes, and with `weighted`
    (hybrid's weighted fusion) each keyword hit's cosine too."""
    semantic: list[dict[str, Any]] = []
    keyword: list[dict[str, Any]] = []
    if req.mode is not Mode.keyword:
        params = {**scope.params, "q": query_vec, "n": n}
        semantic = await q.rows(conn, semantic_query(scope, with_vectors), params)
    if req.mode is not Mode.semantic:
        params = {**scope.params, "qt": req.query, "n": n, "cap": idf_cap}
        if weighted:
            params["q"] = query_vec
        keyword = await q.rows(conn, keyword_query(scope, with_vectors, weighted, scan=scope.narrow), params)
    return ranking.merge(semantic, keyword, key=_key, kind=Kind.summaries.value)


def hit_fields(row: dict[str, Any]) -> dict[str, Any]:
    """What a summary hit shows where a message hit shows the message's own fields."""
    return {
        "id": row["summary_id"],
        "seq": row["to_seq"],
        "role": None,
        "name": None,
        "from_seq": row["from_seq"],
        "to_seq": row["to_seq"],
    }

"""SQL of the two retrieval methods. Every filter is pushed into the query; the tenant always is."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import TextClause, text

from app.db.sql import jsonb
from app.search.schemas import SearchRequest

HIT_COLS = "message_id, session_id, user_id, seq, role, name, content, metadata, created_at"


@dataclass
class Scope:
    """The WHERE clause of a search and its parameters."""

    owner: list[str] = field(default_factory=list)  # tenant, user, sessions: what an index serves
    filters: list[str] = field(default_factory=list)  # roles, metadata, time
    params: dict[str, Any] = field(default_factory=dict)
    narrow: bool = False  # a session scope: always small enough to search exactly

    @property
    def where(self) -> str:
        return " AND ".join(self.owner + self.filters)

    @property
    def owner_where(self) -> str:
        return " AND ".join(self.owner)


def build_scope(tenant_id: str, req: SearchRequest) -> Scope:
    s = Scope(owner=["tenant_id = :t"], params={"t": tenant_id})
    f = req.filters
    if req.user_id is not None:
        s.owner.append("user_id = :u")
        s.params["u"] = req.user_id
    if req.session_id is not None:
        s.owner.append("session_id = :s")
        s.params["s"] = req.session_id
        s.narrow = True
    if f.session_ids:
        s.owner.append("session_id = ANY(CAST(:sids AS text[]))")
        s.params["sids"] = f.session_ids
        s.narrow = True
    if f.roles:
        s.filters.append("role = ANY(CAST(:roles AS text[]))")
        s.params["roles"] = [r.value for r in f.roles]
    if f.metadata:
        s.filters.append("metadata @> :meta")
        s.params["meta"] = f.metadata
    if f.created_after is not None:
        s.filters.append("created_at >= :after")
        s.params["after"] = f.created_after
    if f.created_before is not None:
        s.filters.append("created_at < :before")
        s.params["before"] = f.created_before
    return s


def _bind(sql: str, scope: Scope) -> TextClause:
    clause = text(sql)
    return clause.bindparams(jsonb("meta")) if "meta" in scope.params else clause


def scope_size_query(scope: Scope) -> TextClause:
    """How many rows the tenant/user part of the scope holds, counting no further than :cap."""
    return text(f"SELECT count(*) FROM (SELECT 1 FROM messages WHERE {scope.owner_where} LIMIT :cap) x")


def exact_semantic_query(scope: Scope, with_vectors: bool) -> TextClause:
    # MATERIALIZED fences the planner off the HNSW index: the scope's rows are read through the
    # b-tree and every one is scored, so a filtered search always fills its limit.
    vec = ", CAST(embedding AS text) AS vec" if with_vectors else ""
    return _bind(
        f"WITH scoped AS MATERIALIZED ("
        f"  SELECT {HIT_COLS}, embedding FROM messages "
        f"  WHERE {scope.where} AND embedding IS NOT NULL) "
        f"SELECT {HIT_COLS}, 1 - (embedding <=> CAST(:q AS vector)) AS semantic{vec} "
        f"FROM scoped ORDER BY embedding <=> CAST(:q AS vector) LIMIT :n",
        scope,
    )


ANN_SETTINGS = text(
    "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
    "set_config('hnsw.ef_search', :ef, true), "
    "set_config('hnsw.max_scan_tuples', :mst, true)"
)


def ann_semantic_query(scope: Scope, with_vectors: bool) -> TextClause:
    # pgvector >= 0.8 iterative index scan: keeps walking the graph until :n rows pass the filters
    # (relaxed order, so the CTE re-sorts by exact distance).
    vec = ", CAST(embedding AS text) AS vec" if with_vectors else ""
    return _bind(
        f"WITH near AS MATERIALIZED ("
        f"  SELECT {HIT_COLS}, embedding <=> CAST(:q AS vector) AS dist{vec} FROM messages "
        f"  WHERE {scope.where} AND embedding IS NOT NULL "
        f"  ORDER BY embedding <=> CAST(:q AS vector) LIMIT :n) "
        f"SELECT {HIT_COLS}, 1 - dist AS semantic{', vec' if with_vectors else ''} "
        f"FROM near ORDER BY dist",
        scope,
    )


def keyword_query(scope: Scope, with_vectors: bool) -> TextClause:
    # OR of the query's lexemes (plainto_tsquery ANDs them, which misses most natural questions);
    # ts_rank_cd with normalisation 32 gives rank / (rank + 1), in 0..1.
    vec = ", CAST(embedding AS text) AS vec" if with_vectors else ""
    return _bind(
        f"SELECT {HIT_COLS}, ts_rank_cd(content_tsv, q, 32) AS keyword{vec} "
        f"FROM messages, CAST(replace(CAST(plainto_tsquery('english', :qt) AS text), '&', '|') "
        f"  AS tsquery) AS q "
        f"WHERE {scope.where} AND content_tsv @@ q "
        f"ORDER BY keyword DESC, seq LIMIT :n",
        scope,
    )


def pending_query(scope: Scope) -> TextClause:
    """Messages of the scope still waiting for their embedding (failed ones never will)."""
    return text(f"SELECT count(*) FROM messages WHERE {scope.owner_where} AND embed_status = 'pending'")

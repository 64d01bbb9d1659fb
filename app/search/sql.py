"""SQL of the two retrieval methods over messages. Every filter is pushed into the query; the tenant
always is."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from sqlalchemy import TextClause, text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.crypto import fields
from app.db.sql import Direct, driver, jsonb
from app.indexing.sentence_tasks import REFINING
from app.jsonutil import dumps
from app.search import user_indexes
from app.search.schemas import SearchRequest

# What ranking reads of a message candidate (and of a neighbour turn): ids, position, speaker,
# text (questions, answers, duplicates) and time. `user_id` and `metadata` are read only for the
# page the search returns (PAGE_FIELDS): decoding ~100-250 rows' JSONB metadata per search, most of
# them never returned, was the largest part of a search's CPU (docs/benchmarks.md, issue 13).
RANK_COLS = "message_id, session_id, seq, role, name, content, created_at"


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


def owner_scope(tenant_id: str, req: SearchRequest) -> Scope:
    """The tenant, user and session part of a search's scope: the same for every kind."""
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
    return s


def add_time_filters(s: Scope, req: SearchRequest) -> None:
    f = req.filters
    if f.created_after is not None:
        s.filters.append("created_at >= :after")
        s.params["after"] = f.created_after
    if f.created_before is not None:
        s.filters.append("created_at < :before")
        s.params["before"] = f.created_before


def build_scope(tenant_id: str, req: SearchRequest) -> Scope:
    """The scope of a search over messages."""
    s = owner_scope(tenant_id, req)
    f = req.filters
    if f.roles:
        s.filters.append("role = ANY(CAST(:roles AS text[]))")
        s.params["roles"] = [r.value for r in f.roles]
    if f.metadata:
        s.filters.append(metadata_filter(tenant_id, f.metadata, s.params))
    add_time_filters(s, req)
    return s


def metadata_filter(tenant_id: str, metadata: dict[str, Any], params: dict[str, Any]) -> str:
    """`metadata @> :meta0`, or with encryption on, a match of the values' blind indexes."""
    return fields.any_of("metadata", "meta", fields.filters(metadata, tenant_id), params)


async def rows(conn: AsyncConnection, stmt: TextClause, params: dict[str, Any]) -> list[dict[str, Any]]:
    """A search statement's rows as dicts, their content and metadata opened (encryption on)."""
    tenant = params["t"]
    return [fields.open_row(dict(r), tenant) for r in (await conn.execute(stmt, params)).mappings().all()]


async def fetch(conn: AsyncConnection, stmt: TextClause, params: dict[str, Any]) -> list[dict[str, Any]]:
    """`rows`, sent on the driver's connection inside `conn`'s transaction (begun by the search's
    first statement): asyncpg's records straight to dicts, without SQLAlchemy's result layer (a
    third of reading a search's candidates). A metadata filter (a dict parameter) goes as JSON
    text, as the jsonb codec SQLAlchemy registers on the connection takes it (PostgreSQL infers
    its type from `@>`); that codec also decodes a selected JSONB column, as through SQLAlchemy.
    Rows with an id column have their content and metadata opened (encryption on)."""
    direct = _direct(stmt.text)
    args = [dumps(v).decode() if isinstance(v, dict) else v for v in direct.args(params)]
    tenant = params["t"]
    return [fields.open_row(dict(r), tenant) for r in await (await driver(conn)).fetch(direct.sql, *args)]


@lru_cache(maxsize=1024)
def _direct(sql: str) -> Direct:
    """A statement's asyncpg form, compiled once per distinct SQL text (one per shape of scope)."""
    return Direct.of(text(sql))


# The fields of the returned message hits that ranking does not read (RANK_COLS).
PAGE_FIELDS = text(
    "SELECT message_id, user_id, metadata FROM messages "
    "WHERE tenant_id = :t AND message_id = ANY(CAST(:ids AS uuid[]))"
)


def bind(sql: str, scope: Scope) -> TextClause:
    clause = text(sql)
    metas = [jsonb(name) for name in scope.params if name.startswith("meta")]
    return clause.bindparams(*metas) if metas else clause


def _exact_ctes(scope: Scope, with_vectors: bool) -> str:
    """The CTEs whose `sem` is the scope's :n nearest messages by an exact scan, nearest first."""
    # MATERIALIZED fences the planner off the HNSW index: the scope's rows are read through the
    # b-tree and every one is scored, so a filtered search always fills its limit.
    # The distance is computed once a row, in `scoped`: selected as `1 - (embedding <=> :q)` and
    # sorted by `embedding <=> :q`, it was computed twice, and each time the embedding (stored out
    # of line for most rows, beside their sentence vectors) was read from TOAST again: a quarter
    # of a LoCoMo-size hybrid statement (docs/benchmarks.md, search CPU session 13).
    vec = ", embedding AS vec" if with_vectors else ""
    keep = ", vec" if with_vectors else ""
    return (
        f"scoped AS MATERIALIZED ("
        f"  SELECT {RANK_COLS}, embedding <=> CAST(:q AS vector) AS dist{vec} FROM messages "
        f"  WHERE {scope.where} AND embedding IS NOT NULL), "
        f"sem AS MATERIALIZED ("
        f"  SELECT {RANK_COLS}, 1 - dist AS semantic{keep} FROM scoped ORDER BY dist LIMIT :n)"
    )


def exact_semantic_query(scope: Scope, with_vectors: bool) -> TextClause:
    # A scan of the CTE keeps its order.
    return bind(f"WITH {_exact_ctes(scope, with_vectors)} SELECT * FROM sem", scope)


def opening_query(
    scope: Scope, *, pending: bool, size: bool, own: bool = False, terms: bool = False
) -> TextClause:
    """A search's first statement, in one round trip: how every statement after it is planned
    (below), with `pending` the scope's messages still waiting for their embedding
    (`pending_query`) and those whose sentences' vectors are still to come (`refining`), with
    `size` how many messages its tenant/user part holds, counting no
    further than :cap (exact or approximate search), with `own` whether its user's bucket has its
    HNSW index (app/search/user_indexes.py), and then the size only up to :own_cap, with `terms`
    how many messages the worker counted the user's kept document frequencies over (`docs`;
    app/search/user_terms.py), NULL if it keeps none or the bucket has no index (`own` is then
    filled in too). Each is NULL when not asked. `plans` says which planning it chose. The statement
    itself may get a generic plan; its counts read one b-tree whatever the parameters (the partial
    index of rows not yet embedded, the tenant/user index, the kept counts' key)."""
    mine = user_indexes.OWN_INDEX if own or terms else "CAST(NULL AS boolean)"
    # A user with indexes of their own is counted only as far as :own_cap (whether they are still
    # large enough to use them): counting a 48k-message user to :cap took ~15 ms. The catalog is
    # looked up once, in `o`, for both the cap and the `own` column.
    cap = "CASE WHEN o.own THEN CAST(:own_cap AS bigint) ELSE CAST(:cap AS bigint) END" if own else ":cap"
    counts = [
        f"(SELECT count(*) FROM messages WHERE {scope.owner_where} AND embed_status = 'pending')"
        if pending
        else "CAST(NULL AS bigint)",
        f"({REFINING.format(owner=scope.owner_where)})" if pending else "CAST(NULL AS bigint)",
        f"(SELECT count(*) FROM (SELECT 1 FROM messages WHERE {scope.owner_where} LIMIT {cap}) x)"
        if size
        else "CAST(NULL AS bigint)",
    ]
    # Counts are kept only for users whose bucket has its indexes: nobody else's are looked up.
    docs = (
        "CASE WHEN o.own THEN (SELECT docs FROM user_term_counts WHERE tenant_id = :t AND user_id = :u) END"
        if terms
        else "CAST(NULL AS bigint)"
    )
    # A plan per execution, not the generic plan PostgreSQL switches a prepared statement to after
    # five runs: the generic plan cannot know how many rows the user holds, and at 1M messages it took
    # the full-text GIN index for a 30-message user (BitmapAnd, 23 ms) where the user's b-tree takes 0.2 ms.
    # Except for a scope whose rows are read and tested one by one (a session, or a user of at most
    # SCAN_MAX_ROWS messages searched exactly): no index its statements could take depends on the
    # user's size, and planning them anew was ~0.6 ms of PostgreSQL's ~2 ms per search of a regular
    # user (docs/benchmarks.md, session 17); PostgreSQL's own rule picks a generic plan only where it
    # costs no more. A counted scope may be such a one, so it starts with that rule, and
    # app/search/service asks for a plan per execution again (CUSTOM_PLANS) once the count says no.
    planning = "auto" if scope.narrow or size else "force_custom_plan"
    return text(
        f"SELECT set_config('plan_cache_mode', '{planning}', true) AS plans, "
        f"{counts[0]} AS pending, {counts[1]} AS refining, {counts[2]} AS size, o.own, {docs} AS docs "
        f"FROM (SELECT {mine} AS own) o"
    )


CUSTOM_PLANS = text("SELECT set_config('plan_cache_mode', 'force_custom_plan', true)")

ANN_SETTINGS = text(
    "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
    "set_config('hnsw.ef_search', :ef, true), "
    "set_config('hnsw.max_scan_tuples', :mst, true)"
)


def _ann_ctes(scope: Scope, with_vectors: bool) -> str:
    """The CTEs whose `sem` is the scope's :n nearest messages through the HNSW index, nearest first."""
    # pgvector >= 0.8 iterative index scan: keeps walking the graph until :n rows pass the filters
    # (relaxed order, so the CTE re-sorts by exact distance).
    vec = ", embedding AS vec" if with_vectors else ""
    return (
        f"near AS MATERIALIZED ("
        f"  SELECT {RANK_COLS}, embedding <=> CAST(:q AS vector) AS dist{vec} FROM messages "
        f"  WHERE {scope.where} AND embedding IS NOT NULL "
        f"  ORDER BY embedding <=> CAST(:q AS vector) LIMIT :n), "
        f"sem AS MATERIALIZED ("
        f"  SELECT {RANK_COLS}, 1 - dist AS semantic{', vec' if with_vectors else ''} "
        f"  FROM near ORDER BY dist)"
    )


def ann_semantic_query(scope: Scope, with_vectors: bool) -> TextClause:
    return bind(f"WITH {_ann_ctes(scope, with_vectors)} SELECT * FROM sem", scope)


# Keyword relevance: the IDF-weighted share of the query's lexemes a message contains, 0..1. Each
# lexeme weighs ln(1 + (N - df + 0.5) / (df + 0.5)) with N the messages of the tenant/user scope and
# df those containing it, both counted over the scope's first :cap messages (all of them in a scope
# that small; a sample of a larger one, read once instead of once per lexeme through the full-text
# index, which took ~30 ms a lexeme for a 60k-message user at 1M messages), so a rare word
# ("Lisbon") counts far more than a common one ("get"). Candidates are the messages holding any
# lexeme (an OR query; plainto_tsquery ANDs them, which misses most natural questions); in a scope
# larger than the sample, only lexemes in at most 1 in 20 messages draw candidates (or else the
# rarest one): a common word alone cannot make a top keyword hit, and it drew thousands. Lexemes
# become tsqueries through the tsvector text form, which quotes them exactly as tsquery input expects.
# A year no message of the sample holds ("What did Ada do in 2023?") is left out: people rarely
# write the year, the query's period is served by `created_at` (app/search/when.py), and as the
# rarest lexeme it only took the largest share of the weights from the words that match (LoCoMo
# R@1 +0.5 tune, +1.2 held-out; docs/benchmarks.md, search round 5).
_WEIGHTS = """
{{sample}}terms AS MATERIALIZED (
  SELECT lexeme, CAST(CAST(array_to_tsvector(ARRAY[lexeme]) AS text) AS tsquery) AS tq
  FROM unnest(tsvector_to_array(to_tsvector('english', :qt))) AS lexeme
), scope_size AS (
  {{size}}
), weighted AS MATERIALIZED (
  SELECT t.tq, d.df, ln(1 + (s.total - d.df + 0.5) / (d.df + 0.5)) AS idf,
    (s.whole OR d.df * 20 <= s.total) AS draws
  FROM terms t CROSS JOIN scope_size s
  CROSS JOIN LATERAL ({{df}}) d
  WHERE d.df > 0 OR t.lexeme !~ '^(19|20)[0-9]{{2}}$'
), drawing AS (
  SELECT tq FROM weighted WHERE draws
  UNION ALL
  SELECT tq FROM (SELECT tq FROM weighted ORDER BY df, CAST(tq AS text) LIMIT 1) r
  WHERE NOT EXISTS (SELECT 1 FROM weighted WHERE draws)
), q AS (
  SELECT (SELECT CAST(string_agg(CAST(tq AS text), ' | ') AS tsquery) FROM drawing) AS query,
         (SELECT sum(idf) FROM weighted) AS idf
)"""
WEIGHTS_CTES = (
    _WEIGHTS.replace(
        "{{sample}}",
        "sample AS MATERIALIZED (\n  SELECT content_tsv FROM messages WHERE {owner} LIMIT :cap\n), ",
    )
    .replace("{{size}}", "SELECT count(*) AS total, count(*) < :cap AS whole FROM sample")
    .replace("{{df}}", "SELECT count(*) AS df FROM sample WHERE content_tsv @@ t.tq")
)
# The same weights for a user whose document frequencies the worker keeps (app/search/user_terms.py):
# :docs messages counted, each query lexeme's frequency looked up; a lexeme not counted then is in none.
KEPT_WEIGHTS_CTES = (
    _WEIGHTS.replace("{{sample}}", "")
    .replace("{{size}}", "SELECT CAST(:docs AS bigint) AS total, CAST(:docs AS bigint) < :cap AS whole")
    .replace(
        "{{df}}",
        "SELECT coalesce(max(k.df), 0) AS df FROM user_terms k "
        "WHERE k.tenant_id = :t AND k.user_id = :u AND k.lexeme = t.lexeme",
    )
)

# The same weights score summaries and facts too (app/search/summaries.py, facts.py), so a word
# counts alike in every kind; `keyword_ctes` builds the one `hits` CTE of the three.
_KEYWORD_HITS = """hits AS MATERIALIZED (
  SELECT {cols}, embedding,
    (SELECT sum(w.idf) FROM weighted w WHERE content_tsv @@ w.tq) / NULLIF(q.idf, 0) AS keyword
  FROM {table}, q
  WHERE {where} AND {match}
  ORDER BY keyword DESC, {order} LIMIT :n
)"""
# Scopes of at most this many messages find their keyword hits by reading the scope's rows and
# testing each, never through the table's full-text index. The query's tsquery comes from a CTE,
# so the planner cannot tell how many rows it matches, and at 1M messages it flipped between runs
# of the same search to the GIN index ANDed with the user's b-tree: a 30-message user's statement
# 0.3 -> 13 ms, a 5,000-message user's 4 -> 30 ms (bench/search_scale.py, session 15). Reading the
# rows costs ~0.85 us a row (ts_match_vq over a 48k-message user: ~40 ms; through the GIN index
# 12 ms for a rare word, 50 ms for common ones), so past ~10k rows the index may win.
SCAN_MAX_ROWS = 10_000


def _match(scan: bool) -> str:
    # `ts_match_vq` is the function behind `@@`: the same test, which no index can serve.
    return "ts_match_vq(content_tsv, q.query)" if scan else "content_tsv @@ q.query"


def keyword_ctes(
    owner: str, table: str, cols: str, where: str, order: str, *, scan: bool, kept: bool = False
) -> str:
    """The query's word weights over the scope's messages (`owner`; with `kept`, from the user's
    kept document frequencies) and the `hits` CTE: the top :n rows of `table` in scope (`where`)
    holding any drawing lexeme, with their `keyword` relevance, ties broken by `order`. `scan`: the
    scope is known small (at most SCAN_MAX_ROWS rows), its rows are tested one by one. Every kind's
    keyword statement starts with these (messages, facts, summaries)."""
    weights = (KEPT_WEIGHTS_CTES if kept else WEIGHTS_CTES).format(owner=owner)
    hits = _KEYWORD_HITS.format(table=table, cols=cols, where=where, order=order, match=_match(scan))
    return f"{weights}, {hits}"


_ORDER = "seq, session_id"  # a message hit's order among equal scores
_KEYWORD_TAIL = """
SELECT {cols}, keyword{extra} FROM hits ORDER BY keyword DESC, seq, session_id
"""


def keyword_query(
    scope: Scope, with_vectors: bool, with_semantic: bool = False, *, kept: bool = False, scan: bool = False
) -> TextClause:
    """Keyword hits with their relevance; `with_semantic` adds each hit's cosine to :q (hybrid);
    `kept`: the weights from the user's kept document frequencies (:docs), not a sample; `scan`:
    the scope is small (at most SCAN_MAX_ROWS), its rows are tested one by one."""
    extra = ", 1 - (embedding <=> CAST(:q AS vector)) AS semantic" if with_semantic else ""
    if with_vectors:
        extra += ", embedding AS vec"
    words = keyword_ctes(scope.owner_where, "messages", RANK_COLS, scope.where, _ORDER, scan=scan, kept=kept)
    sql = f"\nWITH {words}" + _KEYWORD_TAIL.format(cols=RANK_COLS, extra=extra)
    return bind(sql, scope)


def hybrid_query(
    scope: Scope, *, exact: bool, with_vectors: bool, weighted: bool, kept: bool = False, scan: bool = False
) -> TextClause:
    """Hybrid's two candidate lists in one round trip: the semantic top :n (`src` 's', as
    `exact_semantic_query` or `ann_semantic_query`), the keyword top :n (`src` 'k', as
    `keyword_query`) and, `weighted`, the role-bias choice of the sessions they are in (`src` 'b':
    `session_id` and `bias`: its metadata's `role_bias`, only where that is a boolean; the neighbours
    ranking reads later are in these sessions too). Each list in its own order (a CTE scan keeps it).
    `kept`: the keyword weights from the user's kept document frequencies (:docs), and `scan`: the
    small scope's rows tested one by one, as `keyword_query`."""
    vec = ", embedding AS vec" if with_vectors else ""
    keep = ", vec" if with_vectors else ""
    near = _exact_ctes(scope, with_vectors) if exact else _ann_ctes(scope, with_vectors)
    cosine = "1 - (embedding <=> CAST(:q AS vector))" if weighted else "CAST(NULL AS double precision)"
    words = (
        keyword_ctes(scope.owner_where, "messages", RANK_COLS, scope.where, _ORDER, scan=scan, kept=kept)
        + f""", kw AS MATERIALIZED (
  SELECT {RANK_COLS}, {cosine} AS semantic, keyword{vec} FROM hits ORDER BY keyword DESC, seq, session_id
)"""
    )
    no_vec = ", NULL" if with_vectors else ""
    nulls = ", ".join(["NULL"] * len(RANK_COLS.split(",")[2:]))
    sql = (
        f"WITH {near}, {words} "
        f"SELECT 's' AS src, {RANK_COLS}, semantic, CAST(NULL AS double precision) AS keyword{keep}, "
        f"CAST(NULL AS boolean) AS bias FROM sem "
        f"UNION ALL SELECT 'k', {RANK_COLS}, semantic, keyword{keep}, NULL FROM kw"
    )
    if weighted:
        # The sessions by their key, whatever their number: as `IN (subquery)`, PostgreSQL guessed
        # 200 of them and read the whole sessions table instead (7 ms at 1M messages, for the
        # largest users' searches, whose lists are estimated at their limit).
        sql += (
            f" UNION ALL SELECT 'b', NULL, session_id, {nulls}, NULL, NULL{no_vec}, "
            f"CAST(metadata ->> 'role_bias' AS boolean) FROM sessions "
            f"WHERE tenant_id = :t AND jsonb_typeof(metadata -> 'role_bias') = 'boolean' "
            f"AND session_id = ANY(ARRAY(SELECT session_id FROM sem UNION SELECT session_id FROM kw))"
        )
    return bind(sql, scope)


def neighbours_query(scope: Scope, with_vectors: bool) -> TextClause:
    """The turns at (:nsids[i], :nseqs[i]) in the tenant/user scope, with their cosine to :q and
    whether they pass the filters too (`eligible`: they may be returned, not only lend context)."""
    vec = ", embedding AS vec" if with_vectors else ""
    eligible = " AND ".join(scope.filters) or "TRUE"
    return bind(
        f"SELECT {RANK_COLS}, 1 - (embedding <=> CAST(:q AS vector)) AS semantic, ({eligible}) AS eligible"
        f"{vec} FROM messages "
        f"WHERE {scope.owner_where} AND (session_id, seq) IN ("
        f"  SELECT s, n FROM unnest(CAST(:nsids AS text[]), CAST(:nseqs AS bigint[])) AS w(s, n))",
        scope,
    )


# The messages each summary hit stands for: its session's seqs from_seq..to_seq, in order.
SUMMARY_SOURCES = text(
    "SELECT w.id, array_agg(m.message_id ORDER BY m.seq) AS mids "
    "FROM unnest(CAST(:ids AS uuid[]), CAST(:sids AS text[]), CAST(:los AS bigint[]), "
    "  CAST(:his AS bigint[])) AS w(id, sid, lo, hi) "
    "JOIN messages m ON m.tenant_id = :t AND m.session_id = w.sid AND m.seq BETWEEN w.lo AND w.hi "
    "GROUP BY w.id"
)

# The seq span of each fact hit's source messages within the session it was read from. Message ids
# arrive as one text array per fact, joined with '|' (unnest cannot take a ragged array).
FACT_SPANS = text(
    "SELECT w.id, min(m.seq) AS lo, max(m.seq) AS hi "
    "FROM unnest(CAST(:ids AS uuid[]), CAST(:sids AS text[]), CAST(:mids AS text[])) AS w(id, sid, ms) "
    "JOIN messages m ON m.tenant_id = :t AND m.session_id = w.sid "
    "  AND m.message_id = ANY(CAST(string_to_array(w.ms, '|') AS uuid[])) "
    "GROUP BY w.id"
)


def pending_query(scope: Scope) -> TextClause:
    """Messages of the scope still waiting for their embedding (failed ones never will), or for
    their sentences' vectors (app/indexing/sentence_tasks.py)."""
    return text(
        f"SELECT (SELECT count(*) FROM messages WHERE {scope.owner_where} AND embed_status = 'pending') "
        f"+ ({REFINING.format(owner=scope.owner_where)})"
    )

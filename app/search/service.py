"""Search over a tenant's messages, summaries and facts: semantic (pgvector), keyword (full text) or
both, fused, the kinds ranked together."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import TextClause
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.ai.embedder import Embedder
from app.config import Settings
from app.db.vectors import as_db_vector, from_db_vector
from app.search import facts, ranking, sentences, summaries, user_indexes, when
from app.search import sql as q
from app.search.schemas import (
    IndexingState,
    Kind,
    Mode,
    ScoreParts,
    SearchHit,
    SearchRequest,
    SearchResponse,
)

# Waiting for indexing polls at WAIT_STEP, then ever less often up to WAIT_STEP_MAX, with jitter:
# forty searches waiting at a fixed 50 ms sent some 800 count queries a second, on the event loop
# every other tenant shares (bench/hostile `waiting_searches`).
WAIT_STEP = 0.05
WAIT_STEP_MAX = 0.4
WAIT_BACKOFF = 1.5
# MMR: the cosine from which two hits start to count as duplicates of each other; and above this
# many candidate x step evaluations, it runs in a worker thread (a few ms of numpy).
MMR_DUPLICATE = 0.6
MMR_INLINE_WORK = 2_000
IDF_SCOPE_CAP = 10_000  # scope size and document frequencies are counted no further (IDF saturates)


async def search(
    conn: AsyncConnection,
    *,
    tenant_id: str,
    req: SearchRequest,
    embedder: Embedder,
    settings: Settings,
    query_vector: Any = None,
) -> SearchResponse:
    """`query_vector`: the query's embedding when the caller made it already (search_when_indexed
    does, before it checks out a connection); else it is embedded here."""
    kinds = set(req.kinds)
    scope = q.build_scope(tenant_id, req)
    fact_scope = facts.build_scope(tenant_id, req) if Kind.facts in kinds else None
    summary_scope = summaries.build_scope(tenant_id, req) if Kind.summaries in kinds else None
    messages = Kind.messages in kinds
    sized = messages and req.mode in (Mode.semantic, Mode.hybrid) and not scope.narrow
    mine = req.user_id is not None and settings.search_user_indexes > 0  # may have its own indexes
    # A large user's keyword weights may be kept by the worker (app/search/user_terms.py).
    terms = mine and messages and req.mode in (Mode.keyword, Mode.hybrid) and not scope.narrow
    opening = (
        await conn.execute(
            q.opening_query(scope, pending=messages, size=sized, own=sized and mine, terms=terms),
            {
                **scope.params,
                "cap": settings.search_exact_max_rows + 1,
                "own_cap": settings.search_user_index_min_rows + 1,
            },
        )
    ).one()
    pending = (opening.pending or 0) + await _pending(conn, _pending_counts(tenant_id, req, messages=False))
    refining = opening.refining or 0
    # Exact up to the limit, unless the user is large enough to have indexes of their own, built.
    exact = scope.narrow or (
        sized
        and opening.size <= settings.search_exact_max_rows
        and not (opening.own and opening.size > settings.search_user_index_min_rows)
    )
    if not exact and mine:
        scope.filters.append(user_indexes.BUCKET_FILTER)  # its bucket's indexes apply
    # A small scope's keyword hits come from its own rows, never the table's full-text index
    # (q.SCAN_MAX_ROWS). Keyword mode does not count the scope: only a session is known small.
    scan = scope.narrow or (exact and opening.size is not None and opening.size <= q.SCAN_MAX_ROWS)
    if sized and not scan:  # counted (so opened with generic plans allowed), and too large for them
        await conn.execute(q.CUSTOM_PLANS)
    n = max(settings.search_candidates, req.limit * 4)
    with_vectors = req.mmr is not None and req.mmr > 0
    weighted = req.mode is Mode.hybrid and settings.search_fusion == "weighted"
    query_vec = query_vector if query_vector is not None else await _query_vector(req, embedder)
    cands: dict[Any, ranking.Candidate] = {}
    sem_ids: list[Any] = []
    kw_ids: list[Any] = []
    if Kind.messages in kinds:
        cands, sem_ids, kw_ids = await _messages(
            conn,
            scope,
            req,
            query_vec,
            n,
            exact=exact,
            scan=scan,
            with_vectors=with_vectors,
            weighted=weighted,
            settings=settings,
            docs=opening.docs,
        )
    query_lit = None if query_vec is None else as_db_vector(query_vec)
    others: list[tuple[dict[Any, ranking.Candidate], list[Any], list[Any]]] = []
    if summary_scope is not None:
        more = await summaries.candidates(
            conn,
            summary_scope,
            req,
            query_vec=query_lit,
            n=n,
            with_vectors=with_vectors,
            weighted=weighted,
            idf_cap=IDF_SCOPE_CAP,
        )
        if weighted:
            ranking.on_its_own(more[0].values(), weights(settings))
        others.append(more)
    if fact_scope is not None:
        more = await facts.candidates(
            conn,
            fact_scope,
            req,
            query_vec=query_lit,
            n=n,
            with_vectors=with_vectors,
            weighted=weighted,
            idf_cap=IDF_SCOPE_CAP,
            settings=settings,
        )
        if weighted:
            facts.fuse(more[0].values(), weights(settings))
        others.append(more)
    if others:
        for more_cands, more_sem, more_kw in others:
            cands.update(more_cands)
            sem_ids += more_sem
            kw_ids += more_kw
        # RRF reads ranks, so each method gets one ranking over all kinds; their scores share a scale.
        sem_ids = ranking.by_score(sem_ids, lambda k: cands[k].semantic or 0.0)
        kw_ids = ranking.by_score(kw_ids, lambda k: cands[k].keyword or 0.0)
    _score(cands, req, sem_ids, kw_ids, settings.search_rrf_k, fused=weighted)
    ordered = sorted(cands.values(), key=lambda c: c.score, reverse=True)
    if req.min_score is not None:
        # Against the score as reported (rounded), so a hit's own score passed back keeps it.
        ordered = [c for c in ordered if _rounded(c.score) >= req.min_score]
    if with_vectors:
        for c in ordered:
            if c.row.get("vec") is not None:
                c.vector = from_db_vector(c.row["vec"])
        ordered = await _diversify(ordered, req.mmr or 0.0, req.limit)
    top = await _page_fields(conn, tenant_id, ordered[: req.limit])
    await _cite(conn, tenant_id, top)
    return SearchResponse(
        results=[_hit(c) for c in top],
        indexing=IndexingState(pending=pending, refining=refining, complete=pending == 0 and refining == 0),
        mode=req.mode.value,
    )


async def _messages(
    conn: AsyncConnection,
    scope: q.Scope,
    req: SearchRequest,
    query_vec: Any,
    n: int,
    *,
    exact: bool,
    scan: bool,
    with_vectors: bool,
    weighted: bool,
    settings: Settings,
    docs: int | None = None,
) -> tuple[dict[Any, ranking.Candidate], list[Any], list[Any]]:
    """Message candidates and the two rankings; with `weighted`, their `fused` parts are set.
    `docs`: the messages the user's kept document frequencies were counted over, if they are kept
    (the keyword weights read them instead of counting over a sample of the user's messages)."""
    kept = docs is not None
    # The keyword weights' parameters, hybrid's and keyword's alike (:docs only with kept counts).
    words: dict[str, Any] = {"qt": req.query, "cap": IDF_SCOPE_CAP} | ({"docs": docs} if kept else {})
    semantic_rows: list[dict[str, Any]] = []
    keyword_rows: list[dict[str, Any]] = []
    chosen: dict[str, bool] = {}
    if not exact and req.mode in (Mode.semantic, Mode.hybrid):
        await conn.execute(
            q.ANN_SETTINGS, {"ef": str(max(n, 40)), "mst": str(settings.search_max_scan_tuples)}
        )
    if req.mode is Mode.hybrid:
        params = {**scope.params, **words, "q": as_db_vector(query_vec), "n": n}
        stmt = q.hybrid_query(
            scope, exact=exact, with_vectors=with_vectors, weighted=weighted, kept=kept, scan=scan
        )
        for row in await q.fetch(conn, stmt, params):
            src, bias = row.pop("src"), row.pop("bias")
            if src == "s":
                del row["keyword"]
                semantic_rows.append(row)
            elif src == "k":
                keyword_rows.append(row)
            else:
                chosen[row["session_id"]] = bias
    elif req.mode is Mode.semantic:
        params = {**scope.params, "q": as_db_vector(query_vec), "n": n}
        stmt = (
            q.exact_semantic_query(scope, with_vectors)
            if exact
            else q.ann_semantic_query(scope, with_vectors)
        )
        semantic_rows = await q.fetch(conn, stmt, params)
    else:
        params = {**scope.params, **words, "n": n}
        keyword_rows = await q.fetch(conn, q.keyword_query(scope, with_vectors, kept=kept, scan=scan), params)
    cands, sem_ids, kw_ids = ranking.merge(semantic_rows, keyword_rows)
    if weighted:
        w = weights(settings)
        await sentences.rescore(
            conn,
            scope.params["t"],
            cands,
            query_vec,
            w,
            weight=settings.search_sentence_weight,
            best=settings.search_sentence_candidates,
        )
        neighbours = await _neighbours(conn, scope, cands, query_vec, w, with_vectors, settings)
        bias = _role_bias(chosen, [c.row for c in cands.values()] + neighbours)
        asked = when.period(req.query, datetime.now(UTC)) if w.time else None
        ranking.in_context(cands, neighbours, req.query, w, bias, asked)
    return cands, sem_ids, kw_ids


def _role_bias(chosen: dict[str, bool], rows: list[dict[str, Any]]) -> dict[str, bool]:
    """Whether the role bias applies in each session of `rows`: the session's own choice (`chosen`,
    from its metadata `role_bias` when a boolean: sql.hybrid_query), else on unless two named people
    speak in it (`ranking.people_sessions`)."""
    people = ranking.people_sessions(rows)
    return {sid: chosen.get(sid, sid not in people) for sid in {r["session_id"] for r in rows}}


async def _diversify(
    ordered: list[ranking.Candidate], diversity: float, limit: int
) -> list[ranking.Candidate]:
    """MMR in which only near-duplicates (cosine above MMR_DUPLICATE) count as redundant, so
    diversity drops copies and rephrasings without lifting unrelated turns above relevant ones on
    the same topic. Large inputs run in a thread, off the event loop."""
    if len(ordered) * min(limit, len(ordered)) > MMR_INLINE_WORK:
        return await asyncio.to_thread(ranking.mmr, ordered, diversity, limit, MMR_DUPLICATE)
    return ranking.mmr(ordered, diversity, limit, MMR_DUPLICATE)


def weights(settings: Settings) -> ranking.Weights:
    """Hybrid's weights from the settings."""
    return ranking.Weights(
        keyword=settings.search_keyword_weight,
        role=settings.search_role_weight,
        speaker=settings.search_speaker_weight,
        reply=settings.search_reply_context,
        answer=settings.search_answer_context,
        neighbour=settings.search_neighbour_context,
        time=settings.search_time_weight,
        time_stated=settings.search_when_weight,
        gate=settings.search_keyword_gate,
        question=settings.search_question_penalty,
        session=settings.search_session_context,
        session_from=settings.search_session_from,
    )


async def _neighbours(
    conn: AsyncConnection,
    scope: q.Scope,
    cands: dict[Any, ranking.Candidate],
    query_vec: Any,
    weights: ranking.Weights,
    with_vectors: bool,
    settings: Settings,
) -> list[dict[str, Any]]:
    """The turns around the best candidates: those passing the filters join the candidates (an
    answer may only be found through its question), the others only lend context."""
    best = ranking.by_relevance(list(cands.values()), weights)
    sids, seqs = ranking.context_window(best[: settings.search_context_candidates])
    if not sids:
        return []
    params = {**scope.params, "q": as_db_vector(query_vec), "nsids": sids, "nseqs": seqs}
    rows = await q.fetch(conn, q.neighbours_query(scope, with_vectors), params)
    for row in rows:
        if row["eligible"] and row["semantic"] is not None and row["message_id"] not in cands:
            cands[row["message_id"]] = ranking.Candidate(row=row, semantic=float(row["semantic"]))
    return rows


def _score(
    cands: dict[Any, ranking.Candidate],
    req: SearchRequest,
    sem_ids: list[Any],
    kw_ids: list[Any],
    k: int,
    *,
    fused: bool,
) -> None:
    """Each candidate's `score`; with `fused`, hybrid's `fused` parts are already set."""
    if req.mode is Mode.hybrid and not fused:
        rrf = ranking.rrf([(sem_ids, 1.0), (kw_ids, 1.0)], k)
    now = datetime.now(UTC)
    for key, c in cands.items():
        if req.mode is Mode.hybrid:
            if not fused:
                c.fused = rrf.get(key, 0.0)
        elif req.mode is Mode.semantic:
            c.fused = max(c.semantic or 0.0, 0.0)
        else:
            c.fused = c.keyword or 0.0
        c.score = c.fused
        if req.recency is not None and req.recency.weight > 0:
            c.recency = ranking.recency(c.row["created_at"], now, req.recency.half_life_hours)
            c.score = (1 - req.recency.weight) * c.fused + req.recency.weight * c.recency


async def _page_fields(
    conn: AsyncConnection, tenant_id: str, hits: list[ranking.Candidate]
) -> list[ranking.Candidate]:
    """The returned message hits' `user_id` and `metadata` (ranking reads neither: sql.RANK_COLS),
    in one query. A message deleted since its candidate was read is no longer returned."""
    ids = [c.row["message_id"] for c in hits if c.kind == Kind.messages]
    if not ids:
        return hits
    found = {r["message_id"]: r for r in await q.fetch(conn, q.PAGE_FIELDS, {"t": tenant_id, "ids": ids})}
    kept = []
    for c in hits:
        if c.kind == Kind.messages:
            more = found.get(c.row["message_id"])
            if more is None:
                continue
            c.row["user_id"], c.row["metadata"] = more["user_id"], more["metadata"]
        kept.append(c)
    return kept


async def _cite(conn: AsyncConnection, tenant_id: str, hits: list[ranking.Candidate]) -> None:
    """Fill in the sources of the summary and fact hits (`source_message_ids`, `from_seq`/`to_seq`),
    for the returned hits only: one query each kind."""
    summ = [c for c in hits if c.kind == Kind.summaries]
    if summ:
        params = {
            "t": tenant_id,
            "ids": [c.row["summary_id"] for c in summ],
            "sids": [c.row["session_id"] for c in summ],
            "los": [c.row["from_seq"] for c in summ],
            "his": [c.row["to_seq"] for c in summ],
        }
        found = {r.id: list(r.mids) for r in (await conn.execute(q.SUMMARY_SOURCES, params)).all()}
        for c in summ:
            c.row["source_message_ids"] = found.get(c.row["summary_id"], [])
    fact_hits = [c for c in hits if c.kind == Kind.facts and c.row["source_message_ids"]]
    if fact_hits:
        params = {
            "t": tenant_id,
            "ids": [c.row["fact_id"] for c in fact_hits],
            "sids": [c.row["session_id"] or "" for c in fact_hits],
            "mids": ["|".join(str(m) for m in c.row["source_message_ids"]) for c in fact_hits],
        }
        spans = {r.id: (r.lo, r.hi) for r in (await conn.execute(q.FACT_SPANS, params)).all()}
        for c in fact_hits:
            c.row["from_seq"], c.row["to_seq"] = spans.get(c.row["fact_id"], (None, None))


async def search_when_indexed(
    engine: AsyncEngine,
    *,
    tenant_id: str,
    req: SearchRequest,
    embedder: Embedder,
    settings: Settings,
    running: AbstractAsyncContextManager[None] | None = None,
) -> SearchResponse:
    """`search` in a transaction of its own, after waiting for indexing (`wait_for_indexing_ms`)
    without holding a connection: each poll borrows one for its counts, so waiting searches take
    no shared capacity while they wait. `running` is held for the search itself, not the wait: the
    tenant's cap on searches running (app.gate.Admission.searching)."""
    if req.wait_for_indexing_ms > 0:
        counts = _pending_counts(tenant_id, req)
        deadline = time.monotonic() + req.wait_for_indexing_ms / 1000
        steps = _wait_steps()
        while True:
            async with engine.connect() as conn:
                pending = await _pending(conn, counts)
            if pending == 0 or time.monotonic() >= deadline:
                break
            await asyncio.sleep(min(next(steps), max(0.0, deadline - time.monotonic())))
    async with running or contextlib.nullcontext():
        # Embedded before a connection is checked out: a pool connection is not held through the
        # model call (or the shared embedding endpoint's round trip), so a search holds one for
        # its statements alone and fewer are open under load (each a PostgreSQL backend).
        vector = await _query_vector(req, embedder)
        async with engine.begin() as conn:
            return await search(
                conn, tenant_id=tenant_id, req=req, embedder=embedder, settings=settings, query_vector=vector
            )


async def _query_vector(req: SearchRequest, embedder: Embedder) -> Any:
    """The query's embedding, for the modes that rank by meaning; None for keyword search."""
    if req.mode in (Mode.semantic, Mode.hybrid):
        return (await embedder.embed([req.query]))[0]
    return None


def _pending_counts(
    tenant_id: str, req: SearchRequest, *, messages: bool = True
) -> list[tuple[TextClause, dict[str, Any]]]:
    """Written summaries and extracted facts are embedded in the transaction that writes them;
    messages, facts written over the API and imported summaries are embedded by the worker
    afterwards: those may be waited for (messages not with `messages` off: the search's opening
    statement counts them)."""
    kinds = set(req.kinds)
    waits: list[tuple[TextClause, dict[str, Any]]] = []
    if messages and Kind.messages in kinds:
        scope = q.build_scope(tenant_id, req)
        waits.append((q.pending_query(scope), scope.params))
    fact_scope = facts.build_scope(tenant_id, req) if Kind.facts in kinds else None
    if fact_scope is not None:
        waits.append((facts.pending_query(fact_scope), fact_scope.params))
    summary_scope = summaries.build_scope(tenant_id, req) if Kind.summaries in kinds else None
    if summary_scope is not None:
        waits.append((summaries.pending_query(summary_scope), summary_scope.params))
    return waits


async def _pending(conn: AsyncConnection, counts: list[tuple[TextClause, dict[str, Any]]]) -> int:
    """How many rows in scope still wait for their embedding."""
    return sum([int((await conn.execute(stmt, params)).scalar_one()) for stmt, params in counts])


def _wait_steps() -> Iterator[float]:
    """The pauses between polls: growing from WAIT_STEP to WAIT_STEP_MAX, each within ±20 % so
    that searches which began together do not poll together."""
    step = WAIT_STEP
    while True:
        yield step * random.uniform(0.8, 1.2)
        step = min(step * WAIT_BACKOFF, WAIT_STEP_MAX)


def _hit(c: ranking.Candidate) -> SearchHit:
    r = c.row
    if c.kind == Kind.summaries:
        own = summaries.hit_fields(r) | {"source_message_ids": r.get("source_message_ids")}
    elif c.kind == Kind.facts:
        own = facts.hit_fields(r) | {"from_seq": r.get("from_seq"), "to_seq": r.get("to_seq")}
    else:
        own = {"id": r["message_id"], "seq": r["seq"], "role": r["role"], "name": r["name"]}
    return SearchHit(
        kind=Kind(c.kind),
        session_id=r["session_id"],
        user_id=r["user_id"],
        content=r["content"],
        metadata=r["metadata"],
        created_at=r["created_at"],
        score=_rounded(c.score),
        scores=ScoreParts(
            semantic=None if c.semantic is None else _rounded(c.semantic),
            keyword=None if c.keyword is None else _rounded(c.keyword),
            fused=_rounded(c.fused),
            recency=None if c.recency is None else _rounded(c.recency),
        ),
        **own,
    )


def _rounded(score: float) -> float:
    return round(score, 6)

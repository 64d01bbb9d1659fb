"""Hybrid's second look at its best candidates: the cosine of their best sentence.

A long turn ("Hey Sam! Nice to see you. Last weekend I started a night class ...") is one
mean-pooled vector in which its one relevant sentence is diluted by the others. The worker also
embeds the longest sentences of a message of several (app/db/index_text.message_sentences, stored
in `message_sentences` by a step after the message's own vector: app/indexing/sentence_tasks.py);
search reads them for its best `search_sentence_candidates` candidates
only (one indexed read by primary key, a few hundred small vectors) and moves each one's cosine
`search_sentence_weight` of the way to its best sentence's, where that is higher:

    cosine = (1 - w) x whole + w x max(whole, best sentence)

so a message is never worse for having sentences, and one without (a single sentence, or not
embedded yet) keeps its cosine. Measured in docs/benchmarks.md (issue 11, round 4).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.db.vectors import unpack_many
from app.search import ranking
from app.search import sql as q

SENTENCE_VECS = text(
    "SELECT message_id, vecs FROM message_sentences "
    "WHERE tenant_id = :t AND message_id = ANY(CAST(:ids AS uuid[])) AND vecs IS NOT NULL"
)


def lift(whole: float, sentence: float, weight: float) -> float:
    """The cosine a candidate ranks by, given its whole message's and its best sentence's."""
    return (1 - weight) * whole + weight * max(whole, sentence)


def chosen(cands: dict[Any, ranking.Candidate], w: ranking.Weights, best: int) -> list[ranking.Candidate]:
    """The `best` candidates by their own relevance that have a cosine (those whose sentences count)."""
    top = ranking.by_relevance(list(cands.values()), w)[:best] if best > 0 else []
    return [c for c in top if c.semantic is not None]


def apply(
    top: list[ranking.Candidate],
    packed: dict[Any, bytes],
    query_vec: npt.NDArray[np.float32],
    weight: float,
) -> None:
    """Lift each of `top`'s cosine by its best sentence (`packed`: message id -> its packed sentence vectors).

    All their sentences in one matrix product, each message's best taken by `maximum.reduceat`
    over its run of rows: one numpy call per step instead of three per message."""
    query = np.asarray(query_vec, dtype=np.float32)
    dim = query.shape[0]
    found = [(c, packed.get(c.row["message_id"])) for c in top if c.semantic is not None]
    lifted = [(c, vecs) for c, vecs in found if vecs]
    if not lifted:
        return
    matrix, rows = unpack_many([vecs for _, vecs in lifted], dim)
    best = np.maximum.reduceat(matrix @ query, np.cumsum(rows) - rows)
    for (c, _), sentence in zip(lifted, best.tolist(), strict=True):
        c.semantic = lift(c.semantic or 0.0, sentence, weight)


async def rescore(
    conn: AsyncConnection,
    tenant_id: str,
    cands: dict[Any, ranking.Candidate],
    query_vec: npt.NDArray[np.float32],
    w: ranking.Weights,
    *,
    weight: float,
    best: int,
) -> None:
    """Lift the cosine of the `best` candidates (by their own relevance) by their best sentence:
    one read of their sentence vectors."""
    if weight <= 0:
        return
    top = chosen(cands, w, best)
    if not top:
        return
    ids = [c.row["message_id"] for c in top]
    found = await q.fetch(conn, SENTENCE_VECS, {"t": tenant_id, "ids": ids})
    if found:
        apply(top, {r["message_id"]: r["vecs"] for r in found}, query_vec, weight)

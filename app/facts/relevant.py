"""The user's facts worth putting in a session's memory: valid now, ranked by relevance.

Relevance is the cosine to the request's `query` when one is given, else to the session's newest
user message, using the vector the worker already stored for it (no model call on that path);
a little of the fact's faded importance breaks ties. Without any vector (the message is not
embedded yet) the most important facts come first.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import TextClause, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.crypto import fields
from app.db.vectors import as_db_vector
from app.facts.forgetting import decayed_importance

IMPORTANCE_WEIGHT = 0.1  # how much faded importance adds to a cosine when ranking

_US = "(extract(epoch FROM valid_from) * 1000000)::bigint"


@functools.cache  # a few (half-life, anchor) pairs per process: built once, not per memory read
def _query(half_life_days: float, anchor: str) -> TextClause:
    importance = decayed_importance(half_life_days)
    score = "1 - (embedding <=> q.v)"
    return text(
        f"WITH q AS (SELECT {anchor} AS v) "
        f"SELECT fact_id, content, speaker, kind, metadata, {_US} AS valid_us, "
        f"CASE WHEN q.v IS NULL OR embedding IS NULL THEN NULL ELSE {score} END AS score, "
        f"{importance} AS importance "
        "FROM facts, q WHERE tenant_id = :t AND user_id = :u AND invalid_at IS NULL "
        f"AND (q.v IS NULL OR embedding IS NULL OR {score} >= :min_score) "
        f"ORDER BY coalesce({score}, 0) + {IMPORTANCE_WEIGHT} * {importance} DESC, valid_from DESC "
        "LIMIT :n"
    )


async def relevant_facts(
    conn: AsyncConnection,
    *,
    tenant_id: str,
    user_id: str,
    session_id: str,
    query_vector: Sequence[float] | None,
    anchor_seq: int | None,
    limit: int,
    min_score: float,
    half_life_days: float,
) -> list[dict[str, Any]]:
    """Up to `limit` facts as the memory answer shows them, best first. A fact about another
    speaker than the user reads with their name ("Sam: Lives in Lisbon.")."""
    params: dict[str, Any] = {"t": tenant_id, "u": user_id, "n": limit, "min_score": min_score}
    if query_vector is not None:
        anchor = "CAST(:qv AS vector)"
        params["qv"] = as_db_vector(query_vector)
    elif anchor_seq is not None:
        anchor = "(SELECT embedding FROM messages WHERE tenant_id = :t AND session_id = :s AND seq = :seq)"
        params["s"], params["seq"] = session_id, anchor_seq
    else:
        anchor = "CAST(NULL AS vector)"
    rows = [
        fields.open_row(dict(r), tenant_id)
        for r in (await conn.execute(_query(half_life_days, anchor), params)).mappings().all()
    ]
    return [
        {
            "fact_id": str(r["fact_id"]),
            "content": r["content"] if r["speaker"] is None else f"{r['speaker']}: {r['content']}",
            "kind": r["kind"],
            "metadata": r["metadata"],
            "valid_us": r["valid_us"],
            "score": None if r["score"] is None else round(float(r["score"]), 6),
        }
        for r in rows
    ]


async def mark_used(engine: AsyncEngine, *, tenant_id: str, fact_ids: Sequence[uuid.UUID | str]) -> None:
    """Record that these facts went into a context. At most once a minute per fact: a memory
    read must not turn into a write per request."""
    if not fact_ids:
        return
    async with engine.begin() as conn:
        await conn.execute(
            text(
                "UPDATE facts SET last_used_at = now() "
                "WHERE tenant_id = :t AND fact_id = ANY(CAST(:ids AS uuid[])) "
                "AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')"
            ),
            {"t": tenant_id, "ids": [str(f) for f in fact_ids]},
        )

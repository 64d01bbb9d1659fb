"""Turning candidate lists into one ranking: fusion, recency, MMR. Pure functions, no I/O."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt


@dataclass
class Candidate:
    row: dict[str, Any]
    semantic: float | None = None
    keyword: float | None = None
    fused: float = 0.0
    recency: float | None = None
    score: float = 0.0
    vector: npt.NDArray[np.float32] | None = field(default=None, repr=False)


def merge(
    semantic: list[dict[str, Any]], keyword: list[dict[str, Any]]
) -> tuple[dict[Any, Candidate], list[Any], list[Any]]:
    """One Candidate per message; returns them with the two rankings as lists of ids."""
    cands: dict[Any, Candidate] = {}
    for row in semantic:
        c = cands.setdefault(row["message_id"], Candidate(row=row))
        c.semantic = float(row["semantic"])
    for row in keyword:
        c = cands.setdefault(row["message_id"], Candidate(row=row))
        c.keyword = float(row["keyword"])
    return cands, [r["message_id"] for r in semantic], [r["message_id"] for r in keyword]


def rrf(rankings: list[tuple[list[Any], float]], k: int) -> dict[Any, float]:
    """Reciprocal rank fusion, normalised so a hit ranked first everywhere scores 1."""
    total = sum(w for _, w in rankings) / (k + 1)
    scores: dict[Any, float] = {}
    for ids, weight in rankings:
        for rank, key in enumerate(ids, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return {key: value / total for key, value in scores.items()} if total else scores


def recency(created_at: datetime, now: datetime, half_life_hours: float) -> float:
    age = max((now - created_at).total_seconds() / 3600, 0.0)
    return math.pow(0.5, age / half_life_hours)


def mmr(cands: list[Candidate], diversity: float, limit: int) -> list[Candidate]:
    """Maximal marginal relevance: trade relevance for distance from what is already chosen."""
    if diversity <= 0 or len(cands) <= 1:
        return cands[:limit]
    chosen: list[Candidate] = []
    pool = list(cands)
    while pool and len(chosen) < limit:
        best, best_value = 0, -math.inf
        for i, c in enumerate(pool):
            redundancy = max((_sim(c, s) for s in chosen), default=0.0)
            value = (1 - diversity) * c.score - diversity * redundancy
            if value > best_value:
                best, best_value = i, value
        chosen.append(pool.pop(best))
    return chosen


def _sim(a: Candidate, b: Candidate) -> float:
    if a.vector is None or b.vector is None:
        return 1.0 if a.row["content"] == b.row["content"] else 0.0
    return float(np.dot(a.vector, b.vector))

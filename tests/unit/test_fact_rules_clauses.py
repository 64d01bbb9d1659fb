"""Told experiences in more clause shapes, and slot facts that name their speaker (issue 12,
session 10): a lead phrase before the speaker's clause ("Since we last talked, I took my nephews
to the aquarium"), a hedge in a later clause that leaves the first standing ("I'm reading X and
hoping it'll help"), "we're" doing something or "we" and a habit, and "their" for a named speaker's own
things. Each shape has near-misses that give nothing: the cases below are the rules' contract."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from app.ai.fact_extractor import TurnRef
from app.ai.local_fact_extractor import extract_facts

SAID_AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def facts(text: str, *, name: str | None = "Priya") -> list[tuple[str | None, str]]:
    t = TurnRef(1, "user", name, text, SAID_AT, uuid.uuid5(uuid.NAMESPACE_URL, text))
    return [(c.subject, c.content) for c in extract_facts([t])]


def told(text: str, *, name: str | None = "Priya") -> list[str]:
    return [content for subject, content in facts(text, name=name) if subject is None]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a lead phrase before the speaker's clause drops out
        (
            "Since we last talked, I took my nephews to the aquarium yesterday.",
            "Took Priya's nephews to the aquarium yesterday (2023-05-07).",
        ),
        (
            "Apart from work, I'm coaching a junior chess club at the library.",
            "Is coaching a junior chess club at the library.",
        ),
        (
            "Ten years on, and I've finally found my true calling: teaching music.",
            "Has finally found Priya's true calling: teaching music.",
        ),
        # ... and its time word dates what follows
        (
            "Last week was hectic, I got interviewed by a local radio station.",
            "Got interviewed by a local radio station last week (week of 2023-05-01).",
        ),
        # ... but never a plan: "yesterday" is when the job was lost, not when the business starts
        (
            "The bakery closed yesterday, so I'm gonna open my own food truck.",
            "Is gonna open Priya's own food truck.",
        ),
        # "we're" doing something, or "we" and a habit, with a date or an own thing: the speaker's
        (
            "We're organising a bake sale for the school next month.",
            "Is organising a bake sale for the school next month (June 2023).",
        ),
        (
            "We always go fishing at the lake with my parents.",
            "Always goes fishing at the lake with Priya's parents.",
        ),
        # a hedge in a later clause leaves the first clause standing
        (
            "I'm currently reading \"Atomic Habits\" and hoping it'll help me sleep better.",
            'Is currently reading "Atomic Habits".',
        ),
        (
            "I used to race in cycling events and time trials - my best memory was when my club won.",
            "Used to race in cycling events and time trials.",
        ),
        (
            "Gardening at the community plot made me feel calm and useful, even if just for an hour.",
            "Gardening at the community plot made Priya feel calm and useful.",
        ),
    ],
)
def test_told_after_a_lead_phrase_or_before_a_hedged_clause(text: str, expected: str) -> None:
    assert told(text) == [expected]
    assert told(text, name=None) == []  # no name, no one to name


@pytest.mark.parametrize(
    "text",
    [
        # after a concession, what follows is a mood or an effort
        "It's still hard, but I'm finding some peace in old photos.",
        "Work can be draining, but I'm giving it my best effort.",
        # the lead phrase does not excuse the rest: the listener, a pronoun, a mood
        "By the way, I loved your painting of the lake.",
        "On another note, I took them to the beach last week.",
        "Since we last talked, I'm so happy.",
        # "we're" with a mood, or with nothing that ties it to the speaker's life
        "We're so happy for you guys.",
        "We're doing great these days.",
        "We're organising a bake sale for the school.",
        "We always grill burgers by the pool.",
        # a hedge that opens its clause is the whole sentence's
        "I'm moving to Paris next month, I think.",
        "I'm moving to Paris next month, if all goes well.",
        "I started a pottery class last week and maybe I'll sell some bowls.",
        "I adopted a rescue greyhound last week, hopefully she settles in.",
        # a hedge with no clause before it
        "I would go hiking in the Alps every summer with my family.",
        # "and" inside a list is no clause break
        "I still keep the letters and poems I wrote for the school play.",
    ],
)
def test_near_misses_give_nothing(text: str) -> None:
    assert told(text) == []


def test_a_named_speakers_slot_fact_names_whose() -> None:
    text = "Yeah, my goal is to improve my running pace."
    assert ("plan:improve running pace", "Plans to improve Theo's running pace.") in facts(text, name="Theo")
    # with no name, the user's own stay "their"
    assert ("plan:improve running pace", "Plans to improve their running pace.") in facts(text, name=None)
    # a told experience already names the speaker; nothing else of the sentence changes
    assert not any("their" in content for _, content in facts(text, name="Theo"))

"""Told experiences in more clause shapes, and slot facts that name their speaker (issue 12,
session 10): a lead phrase before the speaker's clause ("Since we last spoke, I took my kids to a
park"), a hedge in a later clause that leaves the first standing ("I'm reading X and hoping it'll
help"), "we're" doing something or "we" and a habit, and "their" for a named speaker's own
things. Each shape has near-misses that give nothing: the cases below are the rules' contract."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from app.ai.fact_extractor import TurnRef
from app.ai.local_fact_extractor import extract_facts

SAID_AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def facts(text: str, *, name: str | None = "Caroline") -> list[tuple[str | None, str]]:
    t = TurnRef(1, "user", name, text, SAID_AT, uuid.uuid5(uuid.NAMESPACE_URL, text))
    return [(c.subject, c.content) for c in extract_facts([t])]


def told(text: str, *, name: str | None = "Caroline") -> list[str]:
    return [content for subject, content in facts(text, name=name) if subject is None]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a lead phrase before the speaker's clause drops out
        (
            "Since we last spoke, I took my kids to a park yesterday.",
            "Took Caroline's kids to a park yesterday (2023-05-07).",
        ),
        (
            "Apart from meetings, I'm volunteering as a mentor for a local school.",
            "Is volunteering as a mentor for a local school.",
        ),
        (
            "Seven years now, and I've finally found my real muses: painting and pottery.",
            "Has finally found Caroline's real muses: painting and pottery.",
        ),
        # ... and its time word dates what follows
        (
            "Last week was wild, I got noticed by fashion editors at the show.",
            "Got noticed by fashion editors at the show last week (week of 2023-05-01).",
        ),
        # ... but never a plan: "yesterday" is when the job was lost, not when the business starts
        (
            "Lost my job as a banker yesterday, so I'm gonna take a shot at starting my own business.",
            "Is gonna take a shot at starting Caroline's own business.",
        ),
        # "we're" doing something, or "we" and a habit, with a date or an own thing: the speaker's
        (
            "We're putting together a talent show for the kids next month.",
            "Is putting together a talent show for the kids next month (June 2023).",
        ),
        (
            "We always go camping in the mountains with my parents.",
            "Always goes camping in the mountains with Caroline's parents.",
        ),
        # a hedge in a later clause leaves the first clause standing
        (
            "I'm currently reading \"The Lean Startup\" and hoping it'll give me tips for my biz.",
            'Is currently reading "The Lean Startup".',
        ),
        (
            "I used to compete in dance competitions and shows - my fav memory was when my team won.",
            "Used to compete in dance competitions and shows.",
        ),
        (
            "Volunteering at the shelter made me feel great to help, even if just for a bit.",
            "Volunteering at the shelter made Caroline feel great to help.",
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
        "It's still tough, but I'm finding some comfort in the good memories.",
        "Exams can be challenging, but I'm putting in my best effort.",
        # the lead phrase does not excuse the rest: the listener, a pronoun, a mood
        "By the way, I loved your painting of the lake.",
        "On another note, I took them to the beach last week.",
        "Since we last talked, I'm so happy.",
        # "we're" with a mood, or with nothing that ties it to the speaker's life
        "We're so happy for you guys.",
        "We're doing great these days.",
        "We're putting together a talent show for the kids.",
        "We always roast marshmallows around the campfire.",
        # a hedge that opens its clause is the whole sentence's
        "I'm moving to Paris next month, I think.",
        "I'm moving to Paris next month, if all goes well.",
        "I started a pottery class last week and maybe I'll sell some bowls.",
        "I adopted a rescue greyhound last week, hopefully she settles in.",
        # a hedge with no clause before it
        "I would go hiking in the Alps every summer with my family.",
        # "and" inside a list is no clause break
        "I'll never forget the characters and dialogue I wrote being acted out on stage.",
    ],
)
def test_near_misses_give_nothing(text: str) -> None:
    assert told(text) == []


def test_a_named_speakers_slot_fact_names_whose() -> None:
    text = "Yeah, my goal is to improve my shooting percentage."
    assert (("plan:improve shooting percentage"), "Plans to improve John's shooting percentage.") in facts(
        text, name="John"
    )
    # with no name, the user's own stay "their"
    assert ("plan:improve shooting percentage", "Plans to improve their shooting percentage.") in facts(
        text, name=None
    )
    # a told experience already names the speaker; nothing else of the sentence changes
    assert not any("their" in content for _, content in facts(text, name="John"))

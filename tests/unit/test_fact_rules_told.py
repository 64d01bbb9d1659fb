"""What a named speaker tells, read in more of the shapes people say it in (issue 12, the LoCoMo
recall round): "we" did something, chat without its "I", what affects the speaker, a belief about
things in general, a photo of one's own things, a mood with what the speaker does after it. Each
shape has its near-miss, which gives nothing: the cases below are the rules' contract."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from app.ai.fact_extractor import FactKind, TurnRef
from app.ai.local_fact_extractor import extract_facts

SAID_AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def told(text: str, *, name: str | None = "Caroline") -> list[str]:
    t = TurnRef(1, "user", name, text, SAID_AT, uuid.uuid5(uuid.NAMESPACE_URL, text))
    return [c.content for c in extract_facts([t]) if c.subject is None]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "we" and a past verb: what the speaker did, with others
        (
            "We went camping with the kids a few weeks ago and hiked to the lake.",
            "Went camping with the kids a few weeks ago and hiked to the lake.",
        ),
        (
            "We celebrated our daughter's birthday with a concert in the park.",
            "Celebrated Caroline's daughter's birthday with a concert in the park.",
        ),
        # chat without its "I" before a past verb, or "been ...ing"
        (
            "Took a short trip last week to Rome to clear my mind.",
            "Took a short trip last week (week of 2023-05-01) to Rome to clear Caroline's mind.",
        ),
        (
            "Been doing some promotion for my business.",
            "Has been doing some promotion for Caroline's business.",
        ),
        # a lead clause before a dash
        (
            "So much has happened - I joined a new LGBTQ activist group last Tuesday.",
            "Joined a new LGBTQ activist group last Tuesday (2023-05-02).",
        ),
        # what affects the speaker, the speaker as object
        (
            "Painting helps me explore my identity and be true to myself.",
            "Painting helps Caroline explore Caroline's identity and be true to themself.",
        ),
        (
            "The rainbow flag mural is important to me as it reflects the courage of the community.",
            "The rainbow flag mural is important to Caroline as it reflects the courage of the community.",
        ),
        (
            "Dance is my stress relief and fashion fuels my creativity.",
            "Dance is Caroline's stress relief and fashion fuels Caroline's creativity.",
        ),
        # a gerund's clause with "my", judged
        (
            "Starting my own store and taking risks is both scary and rewarding.",
            "Starting Caroline's own store and taking risks is both scary and rewarding.",
        ),
        # a belief about things in general, up to its first clause break
        (
            "Flowers bring joy and remind us to appreciate small moments.",
            "Thinks flowers bring joy and remind us to appreciate small moments.",
        ),
        ("Family moments make life awesome, though.", "Thinks family moments make life awesome."),
        ("Life's too short, let's have some fun together.", "Thinks life's too short."),
        (
            "Yep Jon, staying resilient and focused is key for any entrepreneur.",
            "Thinks staying resilient and focused is key for any entrepreneur.",
        ),
        # a photo of one's own things
        (
            "Here's a pic of my family camping at the beach.",
            "Shared a photo of Caroline's family camping at the beach.",
        ),
        # a mood with what the speaker does after it; a liking the sentence names itself
        (
            "I'm thrilled to make a family for kids who need one.",
            "Is thrilled to make a family for kids who need one.",
        ),
        (
            "I love camping trips with my family in the mountains.",
            "Loves camping trips with Caroline's family in the mountains.",
        ),
        # a verb of substance counts as a word of substance
        ("I cherish time with family.", "Cherishes time with family."),
        # a past "when" dates; "my dream" is had; a quoted title is no quote; "this month" is a date
        (
            "I used to go horseback riding with my dad when I was a kid.",
            "Used to go horseback riding with Caroline's dad when Caroline was a kid.",
        ),
        (
            "I'm living my dream by having my own dance studio.",
            "Is living Caroline's dream by having Caroline's own dance studio.",
        ),
        ('I loved reading "Charlotte\'s Web" as a kid.', 'Loved reading "Charlotte\'s Web" as a kid.'),
        (
            "I'm going to a transgender conference this month.",
            "Is going to a transgender conference this month (May 2023).",
        ),
        (
            "I'm starting to realize that self-care is really important.",
            "Is starting to realize that self-care is important.",
        ),
    ],
)
def test_told_in_more_shapes(text: str, expected: str) -> None:
    assert told(text) == [expected]
    assert told(text, name=None) == []  # no name, no one to name


@pytest.mark.parametrize(
    "text",
    [
        "We need a good dance floor with enough bounce for my students.",  # "need": not a past verb
        "We should go camping with the kids sometime.",  # a suggestion
        "We all made our own pots at the workshop.",  # who "we all" were is not said
        "We hiked, swam, and made great memories.",  # no date, no own thing, no name: the talk's
        "Met lots of awesome people who were into the same stuff as me.",  # likewise
        "I typically hold it for 30-60 seconds to build strength.",  # "it": what the talk named
        "I haven't had one in ages, the one at the fair was the last.",  # "one": likewise
        "I'm tempted to try dairy-free flavors now.",  # a passing mood
        "I've been doing great lately, thanks for asking.",  # likewise
        "Exciting to see what's in store for the team!",  # "exciting" judges, it is no subject
        "Got it, thanks so much.",  # no substance
        "I wanted to say thanks.",  # a weak verb: no substance
        "It helps me explore my identity and be true to myself.",  # "it": what the talk named
        "Playing it helps me get my emotions out.",  # likewise, inside the subject
        "Your painting reminds me of my grandma's garden.",  # about the listener
        "That is my favorite painting of all.",  # what is shown
        "Something in my life is missing lately.",  # "something" is no activity
        "The flowers bring joy to the whole room.",  # "the flowers": the ones shown
        "James is amazing at painting and pottery.",  # a name, not things in general
        "Caroline is amazing at painting and pottery.",  # likewise
        "Art is so cool like that.",  # "like that": what the talk said
        "I'm so happy to hear that your kids loved the museum trip.",  # about the listener
        "I'm so thrilled to hear about the new puppy and the trip.",  # "to hear": about the talk
        "I love all the yellow leaves in this photo.",  # a reaction to what is shown
        "Here's a pic of the beach at sunset.",  # not the speaker's own
        "When I get home I go horseback riding with my dad.",  # a present "when" supposes
        "I dream of having my own dance studio someday.",  # a dream, not had
        'She said "I\'m going to the store" to my mom.',  # someone else's words
    ],
)
def test_near_misses_give_nothing(text: str) -> None:
    assert told(text) == []


def test_a_liking_and_what_else_the_sentence_tells_are_both_kept() -> None:
    t = TurnRef(
        1, "user", "Jon", "I'm passionate about dancing and it brings me so much joy.", SAID_AT, uuid.uuid4()
    )
    got = [(c.content, c.kind) for c in extract_facts([t])]
    assert got == [
        ("Likes dancing.", FactKind.preference),
        ("Is passionate about dancing and it brings Jon so much joy.", FactKind.other),
    ]

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


def told(text: str, *, name: str | None = "Priya") -> list[str]:
    t = TurnRef(1, "user", name, text, SAID_AT, uuid.uuid5(uuid.NAMESPACE_URL, text))
    return [c.content for c in extract_facts([t]) if c.subject is None]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "we" and a past verb: what the speaker did, with others
        (
            "We went fishing with the twins a few weeks ago and rowed to the island.",
            "Went fishing with the twins a few weeks ago and rowed to the island.",
        ),
        (
            "We celebrated our son's graduation with a picnic by the river.",
            "Celebrated Priya's son's graduation with a picnic by the river.",
        ),
        # chat without its "I" before a past verb, or "been ...ing"
        (
            "Took a quick drive last week to Lisbon to rest my head.",
            "Took a quick drive last week (week of 2023-05-01) to Lisbon to rest Priya's head.",
        ),
        (
            "Been doing some repairs for my bakery.",
            "Has been doing some repairs for Priya's bakery.",
        ),
        # a lead clause before a dash
        (
            "So much is new - I joined a local chess club last Tuesday.",
            "Joined a local chess club last Tuesday (2023-05-02).",
        ),
        # what affects the speaker, the speaker as object
        (
            "Knitting helps me calm my thoughts and be kind to myself.",
            "Knitting helps Priya calm Priya's thoughts and be kind to themself.",
        ),
        (
            "The old oak bench is important to me as it recalls the kindness of the village.",
            "The old oak bench is important to Priya as it recalls the kindness of the village.",
        ),
        (
            "Gardening is my escape and cooking feeds my curiosity.",
            "Gardening is Priya's escape and cooking feeds Priya's curiosity.",
        ),
        # a gerund's clause with "my", judged
        (
            "Opening my own bakery and working nights is both tiring and fulfilling.",
            "Opening Priya's own bakery and working nights is both tiring and fulfilling.",
        ),
        # a belief about things in general, up to its first clause break
        (
            "Gardens bring calm and teach us to notice quiet seasons.",
            "Thinks gardens bring calm and teach us to notice quiet seasons.",
        ),
        ("Music lessons make life brighter, though.", "Thinks music lessons make life brighter."),
        ("Life's too busy, let's plan a trip together.", "Thinks life's too busy."),
        (
            "Sure Theo, staying patient and curious is vital for any gardener.",
            "Thinks staying patient and curious is vital for any gardener.",
        ),
        # a photo of one's own things
        (
            "Here's a photo of my brother fishing at the pier.",
            "Shared a photo of Priya's brother fishing at the pier.",
        ),
        # a mood with what the speaker does after it; a liking the sentence names itself
        (
            "I'm thrilled to build a shelter for dogs who need one.",
            "Is thrilled to build a shelter for dogs who need one.",
        ),
        (
            "I love fishing trips with my brother on the coast.",
            "Loves fishing trips with Priya's brother on the coast.",
        ),
        # a verb of substance counts as a word of substance
        ("I cherish mornings with friends.", "Cherishes mornings with friends."),
        # a past "when" dates; "my dream" is had; a quoted title is no quote; "this month" is a date
        (
            "I used to go sailing with my uncle when I was a teen.",
            "Used to go sailing with Priya's uncle when Priya was a teen.",
        ),
        (
            "I'm living my dream by owning my own bookshop.",
            "Is living Priya's dream by owning Priya's own bookshop.",
        ),
        ('I loved reading "Treasure Island" as a teen.', 'Loved reading "Treasure Island" as a teen.'),
        (
            "I'm going to a robotics conference this month.",
            "Is going to a robotics conference this month (May 2023).",
        ),
        (
            "I'm starting to realize that good sleep is really important.",
            "Is starting to realize that good sleep is important.",
        ),
    ],
)
def test_told_in_more_shapes(text: str, expected: str) -> None:
    assert told(text) == [expected]
    assert told(text, name=None) == []  # no name, no one to name


@pytest.mark.parametrize(
    "text",
    [
        "We need a bigger oven with enough racks for my orders.",  # "need": not a past verb
        "We should go fishing with the twins sometime.",  # a suggestion
        "We all built our own kites at the festival.",  # who "we all" were is not said
        "We sang, cooked, and told old stories.",  # no date, no own thing, no name: the talk's
        "Met plenty of friendly folks who cared about the same things as me.",  # likewise
        "I usually stir it for 10-15 minutes to thicken the sauce.",  # "it": what the talk named
        "I haven't had one in years, the one at the market was the last.",  # "one": likewise
        "I'm tempted to try gluten-free recipes now.",  # a passing mood
        "I've been doing great lately, thanks for asking.",  # likewise
        "Exciting to see what comes next for the club!",  # "exciting" judges, it is no subject
        "Got it, thanks so much.",  # no substance
        "I wanted to say thanks.",  # a weak verb: no substance
        "It helps me calm my thoughts and be kind to myself.",  # "it": what the talk named
        "Humming it helps me let my worries go.",  # likewise, inside the subject
        "Your quilt reminds me of my aunt's kitchen.",  # about the listener
        "That is my favorite quilt of all.",  # what is shown
        "Something in my life is missing lately.",  # "something" is no activity
        "The lanterns bring warmth to the whole yard.",  # "the lanterns": the ones shown
        "Omar is amazing at knitting and baking.",  # a name, not things in general
        "Priya is amazing at knitting and baking.",  # likewise
        "Music is so neat like that.",  # "like that": what the talk said
        "I'm so happy to hear that your nephews loved the aquarium visit.",  # about the listener
        "I'm so thrilled to hear about the new kitten and the move.",  # "to hear": about the talk
        "I love all the red roofs in this photo.",  # a reaction to what is shown
        "Here's a photo of the pier at dawn.",  # not the speaker's own
        "When I get home I go sailing with my uncle.",  # a present "when" supposes
        "I dream of owning my own bookshop someday.",  # a dream, not had
        'She said "I\'m going to the bank" to my dad.',  # someone else's words
    ],
)
def test_near_misses_give_nothing(text: str) -> None:
    assert told(text) == []


def test_a_liking_and_what_else_the_sentence_tells_are_both_kept() -> None:
    t = TurnRef(
        1,
        "user",
        "Theo",
        "I'm passionate about sailing and it gives me so much peace.",
        SAID_AT,
        uuid.uuid4(),
    )
    got = [(c.content, c.kind) for c in extract_facts([t])]
    assert got == [
        ("Likes sailing.", FactKind.preference),
        ("Is passionate about sailing and it gives Theo so much peace.", FactKind.other),
    ]

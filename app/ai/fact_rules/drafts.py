"""Slots, drafts and rules: what every fact of a slot shares (kind, exclusivity, importance, topics),
the draft a builder returns before the driver adds its sources and time, and the rule that pairs a
trigger pattern with its builder.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from app.ai.fact_extractor import FactKind
from app.ai.fact_rules.phrases import sentence, topics_for
from app.ai.fact_rules.sentences import Sentence
from app.ai.fact_rules.words import word_set


@dataclass(frozen=True)
class Slot:
    """What every fact filling one kind of slot shares."""

    kind: FactKind
    exclusive: bool
    importance: float
    topics: tuple[str, ...]


_K = FactKind


# By subject, or by the subject's prefix before ":" ("likes:jazz" -> "likes").
SLOTS = {
    "name": Slot(_K.identity, True, 0.9, ("identity", "name")),
    "age": Slot(_K.identity, True, 0.7, ("identity", "age")),
    "birthday": Slot(_K.identity, True, 0.8, ("identity", "birthday")),
    "birth_year": Slot(_K.identity, True, 0.7, ("identity", "age")),
    "nationality": Slot(_K.identity, False, 0.8, ("identity", "nationality")),
    "language": Slot(_K.identity, False, 0.7, ("identity", "language")),
    "home": Slot(_K.location, True, 0.85, ("location", "home")),
    "origin": Slot(_K.location, True, 0.75, ("location", "origin")),
    "grew_up": Slot(_K.location, True, 0.7, ("location", "origin")),
    "birthplace": Slot(_K.location, True, 0.7, ("location", "origin")),
    "job_title": Slot(_K.occupation, True, 0.8, ("work",)),
    "employer": Slot(_K.occupation, True, 0.8, ("work",)),
    "industry": Slot(_K.occupation, True, 0.7, ("work",)),
    "studies": Slot(_K.occupation, True, 0.75, ("education",)),
    "school": Slot(_K.occupation, True, 0.75, ("education",)),
    "alma_mater": Slot(_K.occupation, False, 0.7, ("education",)),
    "partner": Slot(_K.relationship, True, 0.9, ("relationship",)),
    "relationship_status": Slot(_K.relationship, True, 0.85, ("relationship",)),
    **{
        k: Slot(_K.relationship, False, 0.85, ("family",))
        for k in word_set("sibling parent child grandparent")
    },
    **{k: Slot(_K.relationship, False, 0.8, ("family",)) for k in ("grandchild", "family")},
    "friend": Slot(_K.relationship, False, 0.7, ("friends",)),
    "pet": Slot(_K.relationship, False, 0.75, ("pets",)),
    "has": Slot(_K.relationship, True, 0.8, ("family",)),
    "diet": Slot(_K.preference, True, 0.85, ("food", "diet")),
    **{
        k: Slot(_K.preference, False, 0.7, ("food", "diet")) for k in ("observes", "avoids", "eats", "drinks")
    },
    "allergy": Slot(_K.other, False, 0.9, ("health", "allergy")),
    "intolerance": Slot(_K.other, False, 0.85, ("health", "food")),
    "condition": Slot(_K.other, False, 0.85, ("health",)),
    "likes": Slot(_K.preference, False, 0.5, ("preferences",)),
    "dislikes": Slot(_K.preference, False, 0.5, ("preferences",)),
    "favorite": Slot(_K.preference, True, 0.55, ("preferences",)),
    "habit": Slot(_K.preference, False, 0.5, ("habits",)),
    # An activity liked or done ("Likes hiking.", "Plays tennis every Sunday."): one subject, so that
    # "I gave up tennis" ends both.
    "activity": Slot(_K.preference, False, 0.5, ("habits",)),
    "plan": Slot(_K.plan, False, 0.6, ("plans",)),
    "event": Slot(_K.event, False, 0.6, ("events",)),
}


@dataclass(frozen=True)
class Draft:
    """A candidate fact before the driver adds its sources and time."""

    content: str
    kind: FactKind
    subject: str | None  # None: no slot (a told experience), merged with whatever it repeats
    exclusive: bool
    importance: float
    topics: tuple[str, ...]
    negated: bool = False
    when: date | None = None  # the stated day it became true, when one was given
    # An ending inferred rather than said ("I'm vegetarian now" ends "Likes steak."): kept only when
    # the user has a fact with this subject, so the guesses that end nothing cost nothing.
    if_known: bool = False
    # The speaker says the slot's earlier value was a mistake ("..., not Berlin", "I meant Paris"):
    # replaced retroactively. `corrects`: the wrong value, when named.
    correction: bool = False
    corrects: str | None = None


def fact(
    subject: str,
    content: str,
    *,
    negated: bool = False,
    when: date | None = None,
    about: str = "",
    topics: tuple[str, ...] | None = None,
) -> Draft:
    """A draft for `subject` with its slot's kind, exclusivity, importance and topics (plus the
    topic of `about`, "jazz" -> music)."""
    slot = SLOTS.get(subject) or SLOTS[subject.split(":")[0]]
    tags = topics or slot.topics
    return Draft(
        sentence(content),
        slot.kind,
        subject,
        slot.exclusive,
        slot.importance,
        topics_for(about, tags),
        negated,
        when,
    )


Builder = Callable[[re.Match[str], Sentence], list[Draft]]


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    build: Builder
    keywords: frozenset[str]  # the rule only runs on a sentence with one of these words
    anchored: bool = True  # the trigger must open its clause (after greetings and fillers at most)
    anywhere: bool = False  # true whatever the clause around it says ("my sister Maria")


def rule(name: str, keywords: str, build: Builder, pattern: str, where: str = "") -> Rule:
    return Rule(
        name,
        re.compile(pattern, re.IGNORECASE),
        build,
        word_set(keywords),
        where != "unanchored",
        where == "anywhere",
    )

"""What a fact extractor is: turns of a conversation in, candidate facts about the user out.

Extractors only propose. Whether a candidate is new, a duplicate, an update of something the user
said before or the end of it is decided afterwards by `app.facts.reconcile`, the same way for every
provider, against the user's current facts.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from app.ai.summarizer import Turn


class FactKind(StrEnum):
    identity = "identity"  # name, age, birthday, nationality, languages, pronouns
    preference = "preference"  # likes, dislikes, favourites, habits, diet
    relationship = "relationship"  # family, partner, friends, pets
    occupation = "occupation"  # job title, employer, studies
    location = "location"  # where they live, are from, moved to
    plan = "plan"  # something they intend to do (with its date when given)
    event = "event"  # something that happened to them (with its date)
    other = "other"


@dataclass(frozen=True)
class TurnRef(Turn):
    """A turn with the id of its stored message, so a fact can cite its sources. A `context` turn
    was read by an earlier step: it is there to be understood ("I meant Paris" needs the turn it
    corrects, a bare "Porto!" the question it answers), never a source."""

    message_id: uuid.UUID
    context: bool = False


def speaker_of(turn: Turn) -> str | None:
    """Whom a turn's first person is: None for the user the session belongs to; the `name` of an
    `assistant` turn that carries one (the other person of a conversation between two people, sent
    as `assistant` with their name); "" for an unnamed assistant, which is a model and no source."""
    if turn.role == "user":
        return None
    if turn.role == "assistant" and turn.name and turn.name.strip():
        return " ".join(turn.name.split())
    return ""


@dataclass(frozen=True)
class FactCandidate:
    """One statement about the user, as the extractor read it.

    `content` is a short third-person sentence without the subject ("Lives in Lisbon.", "Has a
    sister named Maria.", "Plans to visit Tokyo on 2026-12-03."), with relative time words already
    turned into absolute dates. `subject` names the slot the fact fills ("home", "employer",
    "diet", "sibling:maria", "likes:jazz"), lower-case, stable across phrasings; when `exclusive`
    the slot holds one value at a time, so a new value supersedes the old one. A `negated`
    candidate says that what `content` states (in its positive form: "Eats meat.") is no longer
    true; it ends the matching fact and is not stored itself. A `correction` ("Actually I moved to
    Paris, not Berlin", "I meant Paris") says the slot's earlier value was never true: it is replaced
    retroactively (its validity never began) rather than ended now; `corrects` is the wrong value
    when the statement names it. `speaker` is whom the fact is about: None for the user, else the
    name of another person who spoke in the session (`speaker_of`).
    """

    content: str
    kind: FactKind
    subject: str | None
    exclusive: bool
    negated: bool
    importance: float  # 0..1
    topics: tuple[str, ...]
    valid_from: datetime  # when it became true: the source message's created_at, or a stated date
    source_message_ids: tuple[uuid.UUID, ...]
    correction: bool = False
    corrects: str | None = None
    speaker: str | None = None


class FactExtractor(Protocol):
    """Candidate facts about the user (and, for an extractor that reads them, the other named
    speakers) from `turns` (in seq order; `context` turns are never sources). `known_subjects` are
    the subjects of the user's current facts, so a model can reuse them for the same slot."""

    name: str

    async def extract(
        self, *, turns: Sequence[TurnRef], known_subjects: Sequence[str]
    ) -> list[FactCandidate]: ...

    async def aclose(self) -> None: ...


class ExtractorUnavailable(RuntimeError):
    """The model endpoint is down, refusing or too slow (after retries): try the job again later."""


class ExtractorOutputInvalid(RuntimeError):
    """The model kept answering with output that fails validation (after retries)."""

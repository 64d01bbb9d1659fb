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

from app.ai.embedder import Embedder
from app.ai.offload import Offload, in_thread
from app.ai.summarizer import Turn
from app.ai.tokenizer import Tokenizer
from app.config import Provider, Settings


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
    """A turn with the id of its stored message, so a fact can cite its sources."""

    message_id: uuid.UUID


@dataclass(frozen=True)
class FactCandidate:
    """One statement about the user, as the extractor read it.

    `content` is a short third-person sentence without the subject ("Lives in Lisbon.", "Has a
    sister named Maria.", "Plans to visit Tokyo on 2026-12-03."), with relative time words already
    turned into absolute dates. `subject` names the slot the fact fills ("home", "employer",
    "diet", "sibling:maria", "likes:jazz"), lower-case, stable across phrasings; when `exclusive`
    the slot holds one value at a time, so a new value supersedes the old one. A `negated`
    candidate says that what `content` states (in its positive form: "Eats meat.") is no longer
    true; it ends the matching fact and is not stored itself.
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


class FactExtractor(Protocol):
    """Candidate facts about the user from `turns` (in seq order). `known_subjects` are the
    subjects of the user's current facts, so a model can reuse them for the same slot."""

    name: str

    async def extract(
        self, *, turns: Sequence[TurnRef], known_subjects: Sequence[str]
    ) -> list[FactCandidate]: ...

    async def aclose(self) -> None: ...


class ExtractorUnavailable(RuntimeError):
    """The model endpoint is down, refusing or too slow (after retries): try the job again later."""


class ExtractorOutputInvalid(RuntimeError):
    """The model kept answering with output that fails validation (after retries)."""


def make_fact_extractor(
    settings: Settings, *, embedder: Embedder, tokenizer: Tokenizer, offload: Offload = in_thread
) -> FactExtractor:
    """`offload` runs the local extractor's rules (app.ai.offload)."""
    if settings.llm is Provider.openai:
        from app.ai.openai_fact_extractor import OpenAIFactExtractor

        return OpenAIFactExtractor(settings, tokenizer=tokenizer)
    from app.ai.local_fact_extractor import LocalFactExtractor

    return LocalFactExtractor(offload=offload)

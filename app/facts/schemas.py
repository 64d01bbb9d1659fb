"""Shapes of facts, their history and the extraction job."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.ai.fact_extractor import FactKind
from app.jobs.schemas import JobState
from app.limits import Limits
from app.timestamps import as_utc

_SPEAKER = (
    "Whom the fact is about: null for the user; the `name` of another person who speaks in the "
    "user's sessions (sent as `assistant` with a `name`). Each person's slots are their own."
)
_SUBJECT = "The slot the fact fills, e.g. `home`, `employer`, `likes:jazz` (lower-case)."


def _clean_subject(v: str | None) -> str | None:
    return (v.strip().lower() or None) if v is not None else None


def _clean_topics(v: list[str] | None) -> list[str] | None:
    if v is None:
        return None
    if any(len(t) > 100 for t in v):
        raise ValueError("a topic is at most 100 characters")
    return list(dict.fromkeys(t.strip().lower() for t in v if t.strip()))


class FactIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"content": "Is allergic to peanuts.", "kind": "preference", "subject": "allergy:peanuts"},
                {"content": "Lives in Porto.", "kind": "location", "subject": "home", "exclusive": True},
            ]
        },
    )
    content: str = Field(description="A short statement about the user, e.g. `Lives in Lisbon.`")
    speaker: str | None = Field(None, min_length=1, max_length=200, description=_SPEAKER)
    kind: FactKind = FactKind.other
    subject: str | None = Field(None, max_length=200, description=_SUBJECT)
    exclusive: bool = Field(
        False,
        description="The subject holds one value at a time: adding this fact ends the user's current "
        "fact with the same subject (it is kept, with `invalid_at` and `superseded_by`).",
    )
    topics: list[str] = Field(default_factory=list, max_length=20)
    importance: float = Field(0.5, ge=0, le=1)
    metadata: dict[str, Any] = Field(default_factory=dict)
    valid_from: datetime | None = Field(
        None, description="When it became true; default now. No zone means UTC."
    )

    _zone = field_validator("valid_from")(as_utc)
    _subject = field_validator("subject")(_clean_subject)
    _topics = field_validator("topics")(_clean_topics)

    def check_limits(self, limits: Limits) -> None:
        limits.check_fact(self.content, ["content"])
        if self.subject is not None:
            limits.check_text(self.subject, ["subject"])
        for i, t in enumerate(self.topics):
            limits.check_text(t, ["topics", i])
        limits.check_metadata(self.metadata, ["metadata"])


class FactPatch(BaseModel):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"content": "Lives in Porto.", "importance": 0.9}]}
    )
    content: str | None = None
    kind: FactKind | None = None
    subject: str | None = Field(None, max_length=200, description=_SUBJECT)
    topics: list[str] | None = Field(None, max_length=20)
    importance: float | None = Field(None, ge=0, le=1)
    metadata: dict[str, Any] | None = Field(None, description="JSON merge patch (RFC 7396).")
    invalid_at: datetime | None = Field(
        None, description="End the fact at this time (it stays readable with `as_of`)."
    )

    _zone = field_validator("invalid_at")(as_utc)
    _subject = field_validator("subject")(_clean_subject)
    _topics = field_validator("topics")(_clean_topics)

    def check_limits(self, limits: Limits) -> None:
        if self.content is not None:
            limits.check_fact(self.content, ["content"])
        if self.subject is not None:
            limits.check_text(self.subject, ["subject"])
        for i, t in enumerate(self.topics or ()):
            limits.check_text(t, ["topics", i])
        limits.check_metadata(self.metadata, ["metadata"])


class FactOut(BaseModel):
    fact_id: uuid.UUID
    user_id: str
    speaker: str | None = Field(description=_SPEAKER)
    content: str
    kind: FactKind
    subject: str | None
    exclusive: bool
    topics: list[str]
    importance: float = Field(description="As stored (set at extraction, raised by new mentions).")
    current_importance: float = Field(
        description="`importance` faded by the time since the last mention (ENGRAM_FACT_HALF_LIFE_DAYS)."
    )
    metadata: dict[str, Any]
    actor: str = Field(description="`system` (extracted) or `api` (added by hand).")
    source_message_ids: list[uuid.UUID]
    session_id: str | None = Field(description="The session it was first read from.")
    valid_from: datetime
    invalid_at: datetime | None = Field(description="When it stopped being true; null while it holds.")
    superseded_by: uuid.UUID | None = Field(description="The fact that replaced it.")
    mention_count: int
    last_mentioned_at: datetime
    last_used_at: datetime | None = Field(description="When it was last put in a memory context.")
    created_at: datetime
    updated_at: datetime


class FactEventOut(BaseModel):
    id: int
    fact_id: uuid.UUID
    event: str = Field(description="ADD, UPDATE, INVALIDATE or DELETE.")
    old_content: str | None
    new_content: str | None
    actor: str = Field(description="`system` or `api`.")
    reason: str | None = Field(description="extracted, merged, superseded, negated, expired, edited, ...")
    related_fact_id: uuid.UUID | None = Field(description="The fact that replaced this one, if any.")
    source_message_ids: list[uuid.UUID]
    created_at: datetime


class ExtractionState(BaseModel):
    session_id: str
    last_seq: int
    extracted_seq: int = Field(description="Messages up to here have been read for facts.")
    pending_changes: int = Field(
        0, description="Edited or deleted messages whose derived facts and summaries are still to be redone."
    )
    job: JobState | None


class ExtractAccepted(BaseModel):
    session_id: str
    up_to_seq: int
    done: bool = Field(
        description="True once every message up to `up_to_seq` has been read for facts and no extraction "
        "or re-derivation job is still due for the session."
    )
    job: JobState | None

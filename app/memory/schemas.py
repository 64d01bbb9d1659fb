"""Shapes of the memory answer."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from app.messages.schemas import MessageOut


class SummaryRef(BaseModel):
    summary_id: uuid.UUID
    from_seq: int = Field(description="First message this step of the summary read.")
    to_seq: int = Field(description="The summary stands for every message up to this seq.")
    content: str
    token_count: int
    created_at: datetime


class FactRef(BaseModel):
    """A fact about the user, valid now, relevant to the request."""

    fact_id: uuid.UUID
    content: str
    kind: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    valid_from: datetime
    score: float | None = Field(
        description="Cosine to `query` (or to the newest user message); null when neither has a "
        "vector yet, and the facts are ranked by importance."
    )


class Omitted(BaseModel):
    summary: bool = Field(description="The summary exists but did not fit the budget.")
    facts: int = Field(description="Relevant facts that did not fit.")
    unsummarized_messages: int = Field(
        description="Messages neither in `messages` nor covered by the included summary. With a "
        "role filter, counted among the newest ENGRAM_CACHE_WINDOW_MESSAGES messages only."
    )


class MemoryOut(BaseModel):
    session_id: str
    user_id: str
    last_seq: int = Field(description="The session's newest seq when this was read.")
    summary: SummaryRef | None
    facts: list[FactRef]
    messages: list[MessageOut] = Field(description="The newest messages that fit, oldest first.")
    context: str = Field(description="Summary, facts and messages, rendered for a prompt (docs/api.md).")
    token_count: int = Field(description="Exact tokens of `context` (configured tokenizer) <= max_tokens.")
    max_tokens: int
    omitted: Omitted

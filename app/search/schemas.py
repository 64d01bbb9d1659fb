from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.errors import ValidationFailed
from app.limits import Limits
from app.messages.schemas import Role, as_utc


class Kind(StrEnum):
    messages = "messages"
    facts = "facts"
    summaries = "summaries"


AVAILABLE_KINDS = {Kind.messages, Kind.summaries}


class Mode(StrEnum):
    hybrid = "hybrid"
    semantic = "semantic"
    keyword = "keyword"


class Filters(BaseModel):
    model_config = ConfigDict(extra="forbid")
    roles: list[Role] | None = Field(
        None,
        min_length=1,
        description="Only messages of these roles. A summary mixes every role, so a role filter "
        "excludes all summaries.",
    )
    metadata: dict[str, Any] | None = Field(
        None,
        description="JSON containment: hits whose metadata contains this object. A summary's metadata "
        'is `{"from_seq", "to_seq"}`, so only a filter on those keys can match a summary.',
    )
    created_after: datetime | None = Field(
        None, description="created_at >= this (no zone: UTC). A summary's created_at is when it was written."
    )
    created_before: datetime | None = Field(None, description="created_at < this (no zone: UTC).")
    session_ids: list[str] | None = Field(None, min_length=1, max_length=1000, description="Only these.")

    _zone = field_validator("created_after", "created_before")(as_utc)


class Recency(BaseModel):
    model_config = ConfigDict(extra="forbid")
    weight: float = Field(ge=0, le=1, description="Share of the score given to recency (0: none).")
    half_life_hours: float = Field(24 * 7, gt=0, description="Age at which recency counts half.")


class SearchRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "query": "where does Ada live now?",
                    "user_id": "user-42",
                    "kinds": ["messages", "summaries"],
                    "mode": "hybrid",
                    "limit": 5,
                    "filters": {"roles": ["user"]},
                    "wait_for_indexing_ms": 2000,
                }
            ]
        },
    )
    query: str = Field(min_length=1, description="What to look for, in natural language.")
    user_id: str | None = Field(None, description="Only this user's data.")
    session_id: str | None = Field(None, description="Only this session.")
    kinds: list[Kind] = Field(
        default_factory=lambda: [Kind.messages],
        min_length=1,
        description="What to search: `messages`, `summaries` (each step of a session's progressive "
        "summary) or both, ranked together by score. `facts` is refused with a 422 until facts exist.",
    )
    mode: Mode = Mode.hybrid
    limit: int = Field(10, ge=1, le=100)
    min_score: float | None = Field(None, ge=0, le=1, description="Drop hits scoring below this.")
    filters: Filters = Field(default_factory=Filters)
    mmr: float | None = Field(
        None, ge=0, le=1, description="MMR diversity: 0 = off, 1 = most diverse. Removes near-duplicates."
    )
    recency: Recency | None = Field(None, description="Favour newer hits.")
    wait_for_indexing_ms: int = Field(
        0,
        ge=0,
        le=10_000,
        description="Wait up to this long until the scope's messages are all embedded. Summaries are "
        "embedded as they are written, so a summaries-only search never waits.",
    )

    @field_validator("kinds")
    @classmethod
    def _unique(cls, kinds: list[Kind]) -> list[Kind]:
        return list(dict.fromkeys(kinds))

    def check_limits(self, limits: Limits, max_query_chars: int) -> None:
        if not self.query.strip():
            raise ValidationFailed(
                "query: must contain something besides whitespace",
                errors=[{"loc": ["query"], "msg": "blank", "type": "blank"}],
            )
        if len(self.query) > max_query_chars:
            raise ValidationFailed(
                f"query: is {len(self.query)} characters; the limit is {max_query_chars}",
                errors=[{"loc": ["query"], "msg": "too long", "type": "too_long"}],
            )
        limits.check_text(self.query, ["query"])
        for field, value in (("user_id", self.user_id), ("session_id", self.session_id)):
            if value is not None:
                limits.check_id(value, [field])
        for i, sid in enumerate(self.filters.session_ids or []):
            limits.check_id(sid, ["filters", "session_ids", i])
        limits.check_metadata(self.filters.metadata, ["filters", "metadata"])
        missing = [k.value for k in self.kinds if k not in AVAILABLE_KINDS]
        if missing:
            raise ValidationFailed(
                f"kinds: {', '.join(missing)} cannot be searched yet; use messages or summaries",
                errors=[{"loc": ["kinds"], "msg": "not available yet", "type": "unavailable_kind"}],
            )


class ScoreParts(BaseModel):
    semantic: float | None = Field(None, description="Cosine similarity to the query (-1..1).")
    keyword: float | None = Field(None, description="Full-text rank, normalised to 0..1.")
    fused: float = Field(
        description="The mode's relevance, 0..1 (hybrid: cosine + weighted keyword and conversation "
        "context, or normalised RRF with ENGRAM_SEARCH_FUSION=rrf). One scale for every kind: a summary "
        "has no conversation around it, so it earns its cosine and keyword parts only."
    )
    recency: float | None = Field(None, description="0..1, halves every half_life_hours.")


class SearchHit(BaseModel):
    kind: Kind
    id: uuid.UUID = Field(description="The message_id, or for a summary its summary_id.")
    session_id: str
    user_id: str
    seq: int | None = Field(
        None,
        description="The message's seq; for a summary its `to_seq`: it stands for every message of "
        "the session up to there.",
    )
    role: Role | None = Field(None, description="The message's role (none for a summary).")
    name: str | None = Field(None, description="The message's speaker name (none for a summary).")
    content: str
    metadata: dict[str, Any] = Field(
        description='The message\'s metadata, unchanged; for a summary `{"from_seq", "to_seq"}`: the '
        "seqs its step read."
    )
    created_at: datetime = Field(description="When the message was sent, or the summary written.")
    score: float
    scores: ScoreParts


class IndexingState(BaseModel):
    pending: int = Field(
        description="Messages in the scope not yet embedded (0 when only summaries were searched)."
    )
    complete: bool = Field(description="True when every message in the scope is searchable by meaning.")


class SearchResponse(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "results": [
                        {
                            "kind": "messages",
                            "id": "0b7f5c1e-8d7e-4c55-9a55-1f2b3c4d5e6f",
                            "session_id": "sess-1",
                            "user_id": "user-42",
                            "seq": 1,
                            "role": "user",
                            "name": "Ada",
                            "content": "I moved to Lisbon last week.",
                            "metadata": {},
                            "created_at": "2026-11-25T10:00:00Z",
                            "score": 0.91,
                            "scores": {"semantic": 0.62, "keyword": 0.09, "fused": 0.91},
                        },
                        {
                            "kind": "summaries",
                            "id": "5c2d7a90-3e41-4f0b-8b7e-2a9c6d1e4f30",
                            "session_id": "sess-1",
                            "user_id": "user-42",
                            "seq": 20,
                            "role": None,
                            "name": None,
                            "content": "[2026-11-25] Ada: I moved to Lisbon last week.\nI work remotely.",
                            "metadata": {"from_seq": 1, "to_seq": 20},
                            "created_at": "2026-11-25T11:00:00Z",
                            "score": 0.31,
                            "scores": {"semantic": 0.55, "keyword": 0.09, "fused": 0.31},
                        },
                    ],
                    "indexing": {"pending": 0, "complete": True},
                }
            ]
        }
    )
    results: list[SearchHit]
    indexing: IndexingState
    mode: Literal["hybrid", "semantic", "keyword"]

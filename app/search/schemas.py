from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.ai.fact_extractor import FactKind
from app.errors import ValidationFailed
from app.limits import Limits
from app.messages.schemas import Role
from app.timestamps import as_utc


class Kind(StrEnum):
    messages = "messages"
    facts = "facts"
    summaries = "summaries"


class Mode(StrEnum):
    hybrid = "hybrid"
    semantic = "semantic"
    keyword = "keyword"


class Filters(BaseModel):
    model_config = ConfigDict(extra="forbid")
    roles: list[Role] | None = Field(
        None,
        min_length=1,
        description="Only messages of these roles. A summary mixes every role and a fact has no "
        "speaker, so a role filter excludes all summaries and facts.",
    )
    metadata: dict[str, Any] | None = Field(
        None,
        description="JSON containment: hits whose metadata contains this object. A summary's metadata "
        'is `{"from_seq", "to_seq"}`, so only a filter on those keys can match a summary; a fact\'s is '
        "its own.",
    )
    created_after: datetime | None = Field(
        None,
        description="created_at >= this (no zone: UTC). A summary's created_at is when it was written, "
        "a fact's is its valid_from (when it became true).",
    )
    created_before: datetime | None = Field(None, description="created_at < this (no zone: UTC).")
    session_ids: list[str] | None = Field(
        None,
        min_length=1,
        max_length=1000,
        description="Only these sessions; for facts, those first read from one of them (a fact added "
        "over the API has no session and is excluded).",
    )

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
    session_id: str | None = Field(
        None,
        description="Only this session. Facts belong to users, not sessions: for facts, the facts of "
        "this session's user.",
    )
    kinds: list[Kind] = Field(
        default_factory=lambda: [Kind.messages],
        min_length=1,
        description="What to search: `messages`, `summaries` (each step of a session's progressive "
        "summary), `facts` (the user's facts valid now), or several, ranked together by score.",
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
        description="Wait up to this long until everything of the kinds searched in the scope is "
        "embedded: messages (their longest sentences included), current facts, and summaries "
        "(written summaries are embedded at once; imported ones by the worker afterwards).",
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


class ScoreParts(BaseModel):
    semantic: float | None = Field(None, description="Cosine similarity to the query (-1..1).")
    keyword: float | None = Field(None, description="Full-text rank, normalised to 0..1.")
    fused: float = Field(
        description="The mode's relevance, 0..1 (hybrid: cosine + weighted keyword and conversation "
        "context, or normalised RRF with ENGRAM_SEARCH_FUSION=rrf). One scale for every kind: a summary "
        "or a fact has no conversation around it, so it earns its cosine and keyword parts only (a "
        "fact in weighted hybrid also 0.05 x its importance)."
    )
    recency: float | None = Field(None, description="0..1, halves every half_life_hours.")


class SearchHit(BaseModel):
    kind: Kind
    id: uuid.UUID = Field(description="The message_id; for a summary its summary_id, for a fact its fact_id.")
    session_id: str | None = Field(
        description="The session; for a fact the one it was first read from (none for a fact added "
        "over the API)."
    )
    user_id: str
    seq: int | None = Field(
        None,
        description="The message's seq; for a summary its `to_seq`: it stands for every message of "
        "the session up to there (none for a fact).",
    )
    role: Role | None = Field(None, description="The message's role (none for a summary or a fact).")
    name: str | None = Field(None, description="The message's speaker name (none for a summary or a fact).")
    content: str
    metadata: dict[str, Any] = Field(
        description='The message\'s metadata, unchanged; for a summary `{"from_seq", "to_seq"}`: the '
        "seqs its step read; for a fact its own metadata."
    )
    created_at: datetime = Field(
        description="When the message was sent, the summary written, or the fact became true (its "
        "`valid_from`)."
    )
    score: float
    scores: ScoreParts
    source_message_ids: list[uuid.UUID] | None = Field(
        None,
        description="The messages a summary or fact was made from, so a client can cite them: for a "
        "summary those of its session from `from_seq` to `to_seq`, for a fact the ones it was read "
        "from (empty for a fact added over the API). None for a message: it is its own source.",
    )
    from_seq: int | None = Field(
        None,
        description="First seq of the session a summary step read; for a fact, the first of its source "
        "messages in its session (none for a message or a fact with no source).",
    )
    to_seq: int | None = Field(
        None, description="Last seq of the session a summary step read, or of a fact's source messages."
    )
    fact_kind: FactKind | None = Field(None, description="A fact's kind (none for other kinds).")
    subject: str | None = Field(None, description="The slot a fact fills, e.g. `home` (if it has one).")
    importance: float | None = Field(None, description="A fact's importance, 0..1 (none for other kinds).")


class IndexingState(BaseModel):
    pending: int = Field(
        description="Messages in the scope not yet embedded, plus its current facts not yet embedded "
        "when facts were searched (0 when only summaries were searched)."
    )
    refining: int = Field(
        0,
        description="Messages in the scope searchable already whose longest sentences' vectors are still "
        "to come (a long turn is then found by its whole text and its words only).",
    )
    complete: bool = Field(
        description="True when every message (and searched fact) in the scope is searchable by meaning, "
        "its sentences included (nothing pending or refining). `wait_for_indexing_ms` waits for this."
    )


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
                        {
                            "kind": "facts",
                            "id": "9e1f2a3b-4c5d-4e6f-8a7b-1c2d3e4f5a6b",
                            "session_id": "sess-1",
                            "user_id": "user-42",
                            "seq": None,
                            "role": None,
                            "name": None,
                            "content": "Lives in Lisbon.",
                            "metadata": {},
                            "created_at": "2026-11-18T00:00:00Z",
                            "score": 0.3,
                            "scores": {"semantic": 0.49, "keyword": 0.09, "fused": 0.3},
                            "fact_kind": "location",
                            "subject": "home",
                            "importance": 0.8,
                        },
                    ],
                    "indexing": {"pending": 0, "refining": 0, "complete": True},
                }
            ]
        }
    )
    results: list[SearchHit]
    indexing: IndexingState
    mode: Literal["hybrid", "semantic", "keyword"]

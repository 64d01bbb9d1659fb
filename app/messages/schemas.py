from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.limits import Limits
from app.timestamps import as_utc


class Role(StrEnum):
    system = "system"
    user = "user"
    assistant = "assistant"
    tool = "tool"


@dataclass(frozen=True, slots=True)
class MessageFilter:
    """Which messages a list shows, and in which order."""

    descending: bool = False
    roles: list[Role] | None = None
    created_after: datetime | None = None  # created_at >= this
    created_before: datetime | None = None  # created_at < this


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: Role
    content: str
    name: str | None = Field(None, description="Speaker name (e.g. the tool or the person).")
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime | None = Field(
        None, description="When it was said (imports); default: now. No zone means UTC."
    )

    _zone = field_validator("created_at")(as_utc)


class AppendRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "messages": [
                        {"role": "user", "content": "I moved to Lisbon last week.", "name": "Ada"},
                        {"role": "assistant", "content": "Congratulations on the move!"},
                    ]
                }
            ]
        },
    )
    messages: list[MessageIn] = Field(min_length=1, description="1 to ENGRAM_MAX_BATCH_MESSAGES messages.")

    def check_limits(self, limits: Limits) -> None:
        limits.check_batch(len(self.messages), ["messages"])
        for i, m in enumerate(self.messages):
            limits.check_content(m.content, ["messages", i, "content"])
            limits.check_name(m.name, ["messages", i, "name"])
            limits.check_metadata(m.metadata, ["messages", i, "metadata"])


class MessagePatch(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"content": "I moved to Porto, not Lisbon.", "metadata": {"edited": True}}]
        },
    )
    content: str | None = Field(None, description="New content (token count is recomputed).")
    name: str | None = Field(None, description="New speaker name.")
    metadata: dict[str, Any] | None = Field(
        None, description="JSON merge patch (RFC 7396) onto the stored metadata."
    )

    def check_limits(self, limits: Limits) -> None:
        if self.content is not None:
            limits.check_content(self.content, ["content"])
        limits.check_name(self.name, ["name"])
        limits.check_metadata(self.metadata, ["metadata"])


_EXAMPLE_OUT: dict[str, Any] = {
    "message_id": "0b7f5c1e-8d7e-4c55-9a55-1f2b3c4d5e6f",
    "session_id": "sess-2026-11-25",
    "seq": 1,
    "role": "user",
    "name": "Ada",
    "content": "I moved to Lisbon last week.",
    "metadata": {},
    "token_count": 7,
    "created_at": "2026-11-25T10:00:00Z",
    "updated_at": "2026-11-25T10:00:00Z",
}


class MessageOut(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_OUT]})
    message_id: uuid.UUID
    session_id: str
    seq: int = Field(description="Position in the session: 1, 2, 3... assigned without gaps.")
    role: Role
    name: str | None
    content: str
    metadata: dict[str, Any]
    token_count: int = Field(description="Tokens of `content` with the configured tokenizer.")
    created_at: datetime
    updated_at: datetime


class AppendResponse(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"messages": [_EXAMPLE_OUT]}]})
    messages: list[MessageOut]

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.limits import Limits


class SessionCreate(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "session_id": "sess-2026-11-25",
                    "user_id": "user-42",
                    "metadata": {"channel": "web"},
                }
            ]
        },
    )
    session_id: str | None = Field(None, description="Your id for the session; generated if absent.")
    user_id: str = Field(description="The session's user; created if new.")
    metadata: dict[str, Any] = Field(default_factory=dict)

    def check_limits(self, limits: Limits) -> None:
        if self.session_id is not None:
            limits.check_id(self.session_id, ["session_id"])
        limits.check_id(self.user_id, ["user_id"])
        limits.check_metadata(self.metadata, ["metadata"])


class SessionPatch(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"metadata": {"topic": "travel", "draft": None}, "ended": True}]},
    )
    metadata: dict[str, Any] | None = Field(
        None,
        description="JSON merge patch (RFC 7396) onto the stored metadata: null removes a key.",
    )
    ended: bool | None = Field(None, description="true ends the session (no more appends); false reopens it.")

    def check_limits(self, limits: Limits) -> None:
        limits.check_metadata(self.metadata, ["metadata"])


class SessionOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "session_id": "sess-2026-11-25",
                    "user_id": "user-42",
                    "metadata": {"channel": "web"},
                    "last_seq": 12,
                    "created_at": "2026-11-25T10:00:00Z",
                    "updated_at": "2026-11-25T10:05:00Z",
                    "ended_at": None,
                }
            ]
        }
    )
    session_id: str
    user_id: str
    metadata: dict[str, Any]
    last_seq: int = Field(description="seq of the newest message appended (0: none yet).")
    created_at: datetime
    updated_at: datetime
    ended_at: datetime | None


class SessionStats(BaseModel):
    """What a session holds and how far the derived work has got."""

    session_id: str
    user_id: str
    message_count: int = Field(description="Messages stored now (after deletes and retention).")
    token_count: int = Field(description="Sum of their token counts.")
    messages_by_role: dict[str, int]
    first_message_at: datetime | None
    last_message_at: datetime | None
    last_seq: int
    summarized_seq: int = Field(description="Messages up to this seq are covered by the latest summary.")
    summarized_messages: int = Field(description="Stored messages a summary covers.")
    unsummarized_messages: int
    unsummarized_tokens: int
    summaries: int = Field(description="Steps in the summary history.")
    indexed_messages: int = Field(description="Messages embedded and searchable by meaning.")
    pending_messages: int = Field(description="Messages waiting for their embedding.")
    failed_messages: int = Field(description="Messages whose embedding failed (see /v1/indexing/failed).")
    removed_by_retention: int = Field(description="Messages the retention rules have removed.")
    last_retention_at: datetime | None

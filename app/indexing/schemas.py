from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from app.limits import Limits


class IndexingStatus(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "user_id": "user-42",
                    "session_id": "sess-1",
                    "last_seq": 12,
                    "indexed_seq": 10,
                    "pending": 2,
                    "failed": 0,
                    "refining": 1,
                    "lag_seconds": 0.21,
                }
            ]
        }
    )
    user_id: str | None = None
    session_id: str | None = None
    last_seq: int | None = Field(None, description="Newest seq of the session (session scope only).")
    indexed_seq: int | None = Field(
        None, description="Every message up to this seq is searchable by meaning (session scope only)."
    )
    pending: int = Field(description="Messages waiting for their embedding.")
    failed: int = Field(description="Messages whose embedding failed for good (see /failed).")
    refining: int = Field(
        0,
        description="Messages searchable already whose longest sentences' vectors are still to come: "
        "a refinement made after the message's own vector, when no message waits for its own.",
    )
    lag_seconds: float = Field(
        description="How long the oldest due pending message has waited: since it was written "
        "(appended, edited, imported) or its retry came due; 0 if none."
    )


class FailedItem(BaseModel):
    message_id: uuid.UUID
    session_id: str
    user_id: str
    seq: int
    attempts: int
    error: str | None
    failed_at: datetime


class RetryRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"session_id": "sess-1"}, {"message_ids": []}]}
    )
    message_ids: list[uuid.UUID] | None = Field(None, max_length=10_000, description="These only.")
    user_id: str | None = Field(None, description="Only this user's failed items.")
    session_id: str | None = Field(None, description="Only this session's failed items.")

    def check_limits(self, limits: Limits) -> None:
        for field, value in (("user_id", self.user_id), ("session_id", self.session_id)):
            if value is not None:
                limits.check_id(value, [field])


class RetryResult(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"retried": 3}]})
    retried: int = Field(description="Failed items put back in the queue.")

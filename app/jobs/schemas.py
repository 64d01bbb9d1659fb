"""How a session's pending job looks over the API."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class JobState(BaseModel):
    status: str = Field(description="`pending` (queued or running) or `failed` (see `error`).")
    attempts: int
    error: str | None
    run_after: datetime
    force_to_seq: int | None = Field(description="A forced run will cover up to here.")

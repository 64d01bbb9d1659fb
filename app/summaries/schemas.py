"""Shapes of summaries and of the summary job."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, Field

from app.jobs.schemas import JobState


class SummaryOut(BaseModel):
    summary_id: uuid.UUID
    session_id: str
    from_seq: int = Field(description="First seq this step read (the previous step ended just before).")
    to_seq: int = Field(description="This summary stands for every message up to this seq.")
    message_count: int = Field(description="Messages this step read.")
    content: str
    token_count: int
    provider: str = Field(description="Which summariser wrote it, e.g. `local/condensed`.")
    created_at: datetime


class SummaryState(BaseModel):
    """Where the session's summary stands."""

    session_id: str
    last_seq: int
    summarized_seq: int = Field(description="Messages up to here are covered by the latest summary.")
    summary: SummaryOut | None
    job: JobState | None = Field(description="Summary work still to do for this session, if any.")


class SummarizeAccepted(BaseModel):
    session_id: str
    up_to_seq: int = Field(description="The forced summary will cover every message up to this seq.")
    done: bool = Field(description="True when a summary covering `up_to_seq` exists (see `wait_seconds`).")
    summary: SummaryOut | None = Field(None, description="The latest summary, once `done`.")
    job: JobState | None = Field(description="The queued job (None once done).")

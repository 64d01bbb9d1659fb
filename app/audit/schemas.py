"""Shapes of the audit admin API."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class AuditSettings(BaseModel):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"enabled": True, "retention_days": 365}]}
    )
    enabled: bool = Field(description="Record every read and write of the tenant's memory.")
    retention_days: int | None = Field(
        None, ge=1, le=36500, description="Days an event is kept (null: ENGRAM_AUDIT_RETENTION_DAYS)."
    )


class AuditSettingsOut(AuditSettings):
    tenant_id: str


class AuditEventOut(BaseModel):
    id: int = Field(description="Increasing: later events have larger ids.")
    at: datetime = Field(description="When the request arrived.")
    key_id: uuid.UUID | None = Field(description="The API key that made the request.")
    client: str | None = Field(description="The client's address.")
    request_id: str | None = Field(description="The request's X-Request-ID.")
    method: str
    operation: str = Field(description="The API operation (its operation id, e.g. `get_memory`).")
    status: int = Field(description="The HTTP status of the answer.")
    user_id: str | None = Field(description="The user concerned (while the user exists).")
    session_id: str | None = Field(description="The session concerned (while the session exists).")
    ids: dict[str, Any] = Field(description="Other ids the request named (message_id, fact_id, ...).")


@dataclass(frozen=True)
class AuditFilter:
    operation: str | None = None
    key_id: uuid.UUID | None = None
    user_id: str | None = None
    session_id: str | None = None
    since: datetime | None = None  # at >= since
    until: datetime | None = None  # at < until

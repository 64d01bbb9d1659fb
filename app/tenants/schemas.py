from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class KeyCreate(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"tenant_id": "acme", "name": "prod agent"}]},
    )
    tenant_id: str = Field(description="Tenant the key belongs to; created if new.")
    name: str = Field("", max_length=200, description="A label for operators.")


class KeyOut(BaseModel):
    key_id: uuid.UUID
    tenant_id: str
    name: str
    prefix: str = Field(description="First characters of the key, to recognise it in lists.")
    created_at: datetime
    revoked_at: datetime | None = None


class KeyCreated(KeyOut):
    key: str = Field(description="The API key. Shown once: only its hash is stored.")


class TenantLimits(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"rate_limit_rps": 50, "messages_per_day": 100000}]},
    )
    rate_limit_rps: float | None = Field(
        None,
        ge=0,
        le=1_000_000,
        description="Requests per second (0: unlimited; null: ENGRAM_RATE_LIMIT_RPS).",
    )
    messages_per_day: int | None = Field(
        None,
        ge=0,
        le=2**53 - 1,
        description="Messages appended per day (0: unlimited; null: ENGRAM_QUOTA_MESSAGES_PER_DAY).",
    )


class TenantLimitsOut(TenantLimits):
    tenant_id: str


class TenantOut(BaseModel):
    tenant_id: str
    created_at: datetime
    keys: int = Field(description="API keys not revoked.")
    users: int
    webhooks: int = Field(description="Webhook endpoints.")
    rate_limit_rps: float | None = None
    messages_per_day: int | None = None

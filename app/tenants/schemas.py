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

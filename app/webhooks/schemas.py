from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.webhooks.outbox import EventType

DeliveryStatus = Literal["pending", "delivered", "failed"]


class EndpointCreate(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    # Loopback: the spec's examples are sent by the API fuzz tests, whose worker
                    # then delivers to them; a public host would be a DNS lookup and a connection.
                    "url": "http://127.0.0.1:8787/engram-events",
                    "events": ["facts.changed", "summary.created"],
                    "description": "prod agent",
                }
            ]
        },
    )
    url: str = Field(max_length=2048, description="Where events are POSTed: an http or https URL.")
    events: list[EventType] = Field(
        default_factory=list, max_length=20, description="The event types to send; empty: all of them."
    )
    description: str = Field("", max_length=500, description="A label for operators.")

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        try:
            url = httpx.URL(value)
        except (httpx.InvalidURL, TypeError) as exc:
            raise ValueError(f"not a URL: {exc}") from None
        if url.scheme not in ("http", "https") or not url.host:
            raise ValueError("must be an http:// or https:// URL with a host")
        if url.fragment:
            raise ValueError("must not have a #fragment")
        return str(url)

    @field_validator("events")
    @classmethod
    def _unique(cls, value: list[EventType]) -> list[EventType]:
        return sorted(set(value))


class EndpointOut(BaseModel):
    endpoint_id: uuid.UUID
    tenant_id: str
    url: str
    events: list[str] = Field(description="The event types sent there; empty: all of them.")
    description: str
    created_at: datetime
    updated_at: datetime
    previous_secret_expires_at: datetime | None = Field(
        None, description="Until then deliveries are also signed with the secret before the last rotation."
    )


class EndpointCreated(EndpointOut):
    secret: str = Field(
        description="The signing secret (`whsec_...`), for the receiver's verification. Shown here "
        "and on rotation only."
    )


class AttemptOut(BaseModel):
    attempted_at: datetime
    status_code: int | None = Field(description="The receiver's answer; null when there was none.")
    error: str | None = Field(description="Why the try failed; null when it succeeded.")
    seconds: float


class DeliveryOut(BaseModel):
    delivery_id: int
    event_id: uuid.UUID = Field(description="The `webhook-id` header: the same on every retry.")
    type: str
    user_id: str | None
    status: DeliveryStatus
    attempts: int
    next_try_at: datetime | None = Field(description="When a pending delivery is tried next.")
    last_status: int | None
    last_error: str | None
    created_at: datetime
    delivered_at: datetime | None
    payload: dict[str, Any] = Field(description="The body sent (ids only, never memory content).")


class DeliveryDetail(DeliveryOut):
    attempt_log: list[AttemptOut] = Field(description="Every try, oldest first.")

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.limits import Limits


class UserUpsert(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"metadata": {"name": "Ada", "plan": "pro"}}]},
    )
    metadata: dict[str, Any] = Field(default_factory=dict, description="Replaces the stored metadata.")

    def check_limits(self, limits: Limits) -> None:
        limits.check_metadata(self.metadata, ["metadata"])


class UserOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "user_id": "user-42",
                    "metadata": {"name": "Ada"},
                    "created_at": "2026-11-25T10:00:00Z",
                    "updated_at": "2026-11-25T10:00:00Z",
                }
            ]
        }
    )
    user_id: str
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime

"""Shapes of the import's answer."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Counts(BaseModel):
    users: int = 0
    sessions: int = 0
    messages: int = 0
    summaries: int = 0
    facts: int = 0
    fact_events: int = 0


class ImportResult(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "user_id": "user-42",
                    "created": {
                        "users": 1,
                        "sessions": 2,
                        "messages": 120,
                        "summaries": 5,
                        "facts": 7,
                        "fact_events": 11,
                    },
                    "already_present": {
                        "users": 0,
                        "sessions": 0,
                        "messages": 0,
                        "summaries": 0,
                        "facts": 0,
                        "fact_events": 0,
                    },
                }
            ]
        }
    )
    user_id: str = Field(description="The user the file was imported into (the path's).")
    created: Counts = Field(description="Records of the file written by this import.")
    already_present: Counts = Field(
        description="Records of the file the user already had (an earlier import of it): left as they are."
    )

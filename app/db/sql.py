"""Small helpers for hand-written SQL: typed bind parameters."""

from __future__ import annotations

from sqlalchemy import BindParameter, bindparam
from sqlalchemy.dialects.postgresql import JSONB


def jsonb(name: str) -> BindParameter[object]:
    """A JSONB parameter: the driver gets JSON, PostgreSQL gets jsonb (not text)."""
    return bindparam(name, type_=JSONB)

"""Timestamps as the API takes them: every schema and query parameter with a date reads it here."""

from __future__ import annotations

from datetime import UTC, datetime

# The first and last instants Python can hold are the ones asyncpg writes as -infinity and
# infinity (and reads back without a zone): both are outside the supported range.
_FIRST, _LAST = datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC)


def as_utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    # A timestamp without a zone is taken as UTC rather than refused: imports often lack one.
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        # The database stores UTC: out of range there is a 422 here.
        in_range = _FIRST < value.astimezone(UTC) < _LAST
    except OverflowError:
        in_range = False
    if not in_range:
        raise ValueError("is outside the supported date range")
    return value

"""Dates as people state them in a sentence, resolved to absolute dates against the message's time.

A fact outlives its conversation, so "next Friday" must become the day it meant. Relative phrases
("tomorrow", "next Friday", "last month", "in 3 days") come from `app.ai.relative_time`; this adds
the explicit forms ("on December 3", "3rd of March 2027", "2026-12-03", "in March", "in 2027") and
bare weekdays ("on Friday"). English only.

A date stated without a year, and a bare weekday, depend on the tense of what is said: the next such
day for something planned ("future"), the latest one for something that happened ("past").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Literal

from app.ai.relative_time import MONTHS, WEEKDAYS, Granularity, find_relative_dates

Tense = Literal["future", "past"]

_MONTH_ALT = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_MON = rf"(?P<mon>{_MONTH_ALT})\.?"
_DAY = r"(?P<d>[0-9]{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<y>(?:19|20)[0-9]{2})"
_PREP = r"(?:(?:on|in|for|during|by)\s+)?"
_FLAGS = re.IGNORECASE

# Longest forms first: where two overlap at one start, the first listed wins.
_ISO = re.compile(rf"\b{_PREP}(?P<y>[0-9]{{4}})-(?P<m>[0-9]{{1,2}})-(?P<d>[0-9]{{1,2}})\b", _FLAGS)
_MONTH_DAY = re.compile(rf"\b{_PREP}{_MON}\s+{_DAY}\b(?:,?\s+{_YEAR}\b)?(?!\s*(?:[0-9]|%|:))", _FLAGS)
_DAY_MONTH = re.compile(rf"\b{_PREP}(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MON}(?![a-z])(?:,?\s+{_YEAR}\b)?", _FLAGS)
_MONTH_YEAR = re.compile(rf"\b{_PREP}{_MON}\s+{_YEAR}\b", _FLAGS)
_IN_MONTH = re.compile(rf"\b(?:in|during|(?P<dir>next|this|last|coming))\s+{_MON}(?![a-z])", _FLAGS)
_IN_YEAR = re.compile(rf"\b(?:in|during)\s+{_YEAR}\b", _FLAGS)
_WEEKDAY = re.compile(rf"\b(?:on\s+)?(?P<wd>{'|'.join(WEEKDAYS)})\b(?!['\u2019]?s\b)", _FLAGS)
# A relative phrase's own preposition ("on next Friday") belongs to it, so both go together.
_LEAD = re.compile(r"\b(?:on|during|over|for)\s+$", _FLAGS)
_DIRECTED = re.compile(r"\b(?:next|this|last|coming)\s+$", _FLAGS)


@dataclass(frozen=True)
class StatedDate:
    """One date found in a text: where (`start`, `end`, preposition included) and which day."""

    start: int
    end: int
    day: date  # for a week, month or year: its first day; a weekend: its Saturday
    granularity: Granularity
    year_stated: bool = True  # False where the year was inferred ("on March 3", "on Friday")

    def render(self) -> str:
        """The date as a fact states it: "on 2026-12-03", "in December 2026", "in 2027"."""
        if self.granularity == "week":
            return f"in the week of {self.day.isoformat()}"
        if self.granularity == "weekend":
            return f"on the weekend of {self.day.isoformat()}"
        if self.granularity == "month":
            return f"in {MONTHS[self.day.month - 1]} {self.day.year}"
        if self.granularity == "year":
            return f"in {self.day.year}"
        return f"on {self.day.isoformat()}"


def month_number(token: str) -> int:
    return [m[:3] for m in MONTHS].index(token[:3].lower().capitalize()) + 1


def _is_month(m: re.Match[str]) -> bool:
    # "may" is a verb far more often than a month: only "May" (or "may" after a day number) counts.
    token = m.group("mon")
    return token.lower() != "may" or token == "May" or bool(m.groupdict().get("d"))


def _nearest(month: int, day: int, today: date, tense: Tense) -> date | None:
    """`month`/`day` in the year that makes it the next (future) or latest (past) such day."""
    step = 1 if tense == "future" else -1
    for k in range(9):  # a 29 February may be up to eight years away
        try:
            d = date(today.year + step * k, month, day)
        except ValueError:
            continue
        if (d >= today) if tense == "future" else (d <= today):
            return d
    return None


def _explicit(text: str, today: date, tense: Tense) -> list[StatedDate]:
    found: list[StatedDate] = []

    def add(m: re.Match[str], d: date | None, granularity: Granularity, year: bool = True) -> None:
        if d is not None:
            found.append(StatedDate(m.start(), m.end(), d, granularity, year))

    for m in _ISO.finditer(text):
        try:
            add(m, date(int(m.group("y")), int(m.group("m")), int(m.group("d"))), "day")
        except ValueError:
            continue
    for pattern in (_MONTH_DAY, _DAY_MONTH):
        for m in pattern.finditer(text):
            if not _is_month(m):
                continue
            month, day = month_number(m.group("mon")), int(m.group("d"))
            if m.group("y"):
                try:
                    add(m, date(int(m.group("y")), month, day), "day")
                except ValueError:
                    continue
            else:
                add(m, _nearest(month, day, today, tense), "day", year=False)
    for m in _MONTH_YEAR.finditer(text):
        if _is_month(m):
            add(m, date(int(m.group("y")), month_number(m.group("mon")), 1), "month")
    for m in _IN_MONTH.finditer(text):
        if not _is_month(m):
            continue
        month = month_number(m.group("mon"))
        direction = (m.group("dir") or "").lower()
        if direction == "next" or (direction in ("", "coming", "this") and tense == "future"):
            year = today.year + (
                1 if month < today.month or (direction == "next" and month == today.month) else 0
            )
        else:
            year = today.year - (
                1 if month > today.month or (direction == "last" and month == today.month) else 0
            )
        add(m, date(year, month, 1), "month", year=False)
    for m in _IN_YEAR.finditer(text):
        add(m, date(int(m.group("y")), 1, 1), "year")
    for m in _WEEKDAY.finditer(text):
        if _DIRECTED.search(text, 0, m.start()):  # "next Friday": relative_time's
            continue
        target = WEEKDAYS.index(m.group("wd").lower())
        if tense == "future":
            add(m, today + timedelta(days=(target - today.weekday()) % 7 or 7), "day", year=False)
        else:
            add(m, today - timedelta(days=(today.weekday() - target) % 7 or 7), "day", year=False)
    return found


def find_stated_dates(text: str, at: datetime | date, tense: Tense) -> list[StatedDate]:
    """The dates stated in `text`, in order and without overlaps (the longest wins)."""
    today = at.date() if isinstance(at, datetime) else at
    found = _explicit(text, today, tense)
    for r in find_relative_dates(text, today):
        lead = _LEAD.search(text, 0, r.start)
        start = lead.start() if lead and lead.end() == r.start else r.start
        found.append(StatedDate(start, r.end, r.day, r.granularity))
    found.sort(key=lambda s: (s.start, s.start - s.end))
    kept: list[StatedDate] = []
    for s in found:
        if not kept or s.start >= kept[-1].end:
            kept.append(s)
    return kept

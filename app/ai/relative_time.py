"""Relative time words ("yesterday", "last week", "in 3 days") restated as absolute dates.

Summaries and facts outlive the conversation they come from: "yesterday" read a month later is
wrong. So the words stay and the date they meant, taken from the message's `created_at`, is added
after them: "yesterday" -> "yesterday (2026-11-19)". English only; a phrase already followed by a
date in parentheses is left alone, so resolving twice is the same as once.

Conventions for the ambiguous ones: weeks run Monday to Sunday ("last week" -> "week of <Monday>");
"last Friday" is the latest Friday before the message's day, "next Friday" the first one after it,
"this Friday" the coming one (today included); a weekend is named by its Saturday.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Literal

Granularity = Literal["day", "week", "weekend", "month", "year"]

MONTHS: tuple[str, ...] = ("January", "February", "March", "April", "May", "June", "July")
MONTHS += ("August", "September", "October", "November", "December")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_NUMBER_WORDS |= {"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_NUMBER_WORDS |= {"a couple of": 2, "couple of": 2}


@dataclass(frozen=True)
class RelativeDate:
    """One relative time phrase found in a text, and what it resolves to."""

    start: int
    end: int
    phrase: str
    day: date  # the day it names; for a week, month or year: its first day (a weekend: its Saturday)
    granularity: Granularity

    @property
    def label(self) -> str:
        """The text put in parentheses after the phrase."""
        if self.granularity == "week":
            return f"week of {self.day.isoformat()}"
        if self.granularity == "weekend":
            return f"weekend of {self.day.isoformat()}"
        if self.granularity == "month":
            return f"{MONTHS[self.day.month - 1]} {self.day.year}"
        if self.granularity == "year":
            return str(self.day.year)
        return self.day.isoformat()


Resolved = tuple[date, Granularity]
_Rule = tuple[re.Pattern[str], Callable[[re.Match[str], date], Resolved]]

_NUM = rf"(?P<n>[0-9]{{1,4}}|a\s+couple\s+of|{'|'.join(sorted(_NUMBER_WORDS, key=len, reverse=True))})"
_UNIT = r"(?P<unit>day|week|month|year)s?"
_DIR = r"(?P<dir>last|next|this|coming)"
_MON = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
# Something that reads as a date right after the phrase, inside parentheses: a year, 11/19, Nov 19, 19 Nov.
_DATE_AFTER = (
    rf"(?:['\u2019]s)?\s*\([^()\n]{{0,40}}?(?:[0-9]{{4}}|[0-9]{{1,2}}[/.-][0-9]{{1,2}}"
    rf"|\b{_MON}\s*[0-9]{{1,2}}\b|\b[0-9]{{1,2}}(?:st|nd|rd|th)?\s+{_MON})"
)
_COMBINING = "[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"


def _compile(body: str) -> re.Pattern[str]:
    # The possessive ("yesterday's") belongs to the phrase, so the date goes after it.
    # A combining mark after the last letter makes it another word ("yesterdaý"), which \b misses.
    return re.compile(rf"\b(?:{body})(?:['\u2019]s)?\b(?!{_COMBINING}|{_DATE_AFTER})", re.IGNORECASE)


def _count(m: re.Match[str]) -> int:
    raw = " ".join(m.group("n").lower().split())
    return int(raw) if raw.isdigit() else _NUMBER_WORDS[raw]


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _shift(d: date, unit: str, k: int) -> Resolved:
    if unit == "day":
        return d + timedelta(days=k), "day"
    if unit == "week":
        return _monday(d + timedelta(weeks=k)), "week"
    if unit == "weekend":
        return _monday(d) + timedelta(days=5 + 7 * k), "weekend"
    if unit == "month":
        year, month = divmod(d.year * 12 + d.month - 1 + k, 12)
        return date(year, month + 1, 1), "month"
    return date(d.year + k, 1, 1), "year"


def _by_direction(m: re.Match[str], d: date) -> Resolved:
    direction = m.group("dir").lower()
    return _shift(d, m.group("unit").lower(), {"last": -1, "this": 0}.get(direction, 1))


def _weekday(m: re.Match[str], d: date) -> Resolved:
    target = WEEKDAYS.index(m.group("wd").lower())
    direction = m.group("dir").lower()
    if direction == "last":
        return d - timedelta(days=(d.weekday() - target) % 7 or 7), "day"
    if direction == "next":
        return d + timedelta(days=(target - d.weekday()) % 7 or 7), "day"
    return d + timedelta(days=(target - d.weekday()) % 7), "day"


def _days(k: int) -> Callable[[re.Match[str], date], Resolved]:
    return lambda _m, d: (d + timedelta(days=k), "day")


_RULES: list[_Rule] = [
    (_compile(r"the\s+day\s+before\s+yesterday"), _days(-2)),
    (_compile(r"the\s+day\s+after\s+tomorrow"), _days(2)),
    (_compile(r"yesterday|last\s+night"), _days(-1)),
    (_compile(r"today|tonight|this\s+(?:morning|afternoon|evening)"), _days(0)),
    (_compile(r"tomorrow"), _days(1)),
    (_compile(rf"{_NUM}\s+{_UNIT}\s+ago"), lambda m, d: _shift(d, m.group("unit").lower(), -_count(m))),
    (_compile(rf"in\s+{_NUM}\s+{_UNIT}"), lambda m, d: _shift(d, m.group("unit").lower(), _count(m))),
    (
        _compile(rf"{_NUM}\s+{_UNIT}\s+from\s+(?:now|today)"),
        lambda m, d: _shift(d, m.group("unit").lower(), _count(m)),
    ),
    (_compile(rf"{_DIR}\s+(?P<unit>weekend|week|month|year)"), _by_direction),
    (_compile(rf"{_DIR}\s+(?P<wd>{'|'.join(WEEKDAYS)})"), _weekday),
]


def find_relative_dates(text: str, at: datetime | date) -> list[RelativeDate]:
    """The relative time phrases of `text` (not yet followed by a date), resolved against `at`,
    in order and without overlaps (the longest phrase wins where two overlap)."""
    day = at.date() if isinstance(at, datetime) else at
    found: list[RelativeDate] = []
    for pattern, resolve in _RULES:
        for m in pattern.finditer(text):
            try:
                resolved, granularity = resolve(m, day)
            except (OverflowError, ValueError):  # "in 9999 years": past date.max, not worth failing for
                continue
            found.append(RelativeDate(m.start(), m.end(), m.group(), resolved, granularity))
    found.sort(key=lambda r: (r.start, r.start - r.end))
    kept: list[RelativeDate] = []
    for r in found:
        if not kept or r.start >= kept[-1].end:
            kept.append(r)
    return kept


def resolve_relative_dates(text: str, at: datetime | date) -> str:
    """`text` with the date each relative time phrase meant added after it, in parentheses."""
    parts: list[str] = []
    pos = 0
    for r in find_relative_dates(text, at):
        parts += [text[pos : r.end], f" ({r.label})"]
        pos = r.end
    parts.append(text[pos:])
    return "".join(parts)

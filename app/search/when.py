"""The time a query asks about: "in May 2023", "on 8 May 2023", "in 2022", "last week", "yesterday".

A query naming a time gets the period it names, and hybrid search gives the turns sent within it a
bonus (ENGRAM_SEARCH_TIME_WEIGHT): "what did Ada do in May 2023?" prefers May's turns to others that
match as well. Relative phrases are resolved against the time of the search with the rules the
summaries and facts use (app/ai/relative_time.py). A query with no time in it gets none, and
"when did ..." questions name none; they ask for one, and the turn that holds the answer usually
says when ("I started a pottery class yesterday", "we moved last March"): `asks_when` and
`states_time` let hybrid search give such turns a bonus (ENGRAM_SEARCH_WHEN_WEIGHT).
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime, timedelta

from app.ai.relative_time import MONTHS, WEEKDAYS, RelativeDate, find_relative_dates

_MONTH = {m.lower(): i + 1 for i, m in enumerate(MONTHS)} | {
    m[:3].lower(): i + 1 for i, m in enumerate(MONTHS)
}
_MON = r"(?P<mon>" + "|".join(sorted(_MONTH, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?P<year>(?:19|20)[0-9]{2})"
_DAY_MONTH_YEAR = re.compile(
    rf"\b(?P<day>[0-9]{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MON},?\s+{_YEAR}\b", re.I
)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MON}\s+(?P<day>[0-9]{{1,2}})(?:st|nd|rd|th)?,?\s+{_YEAR}\b", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MON},?\s+(?:of\s+)?{_YEAR}\b", re.I)
_YEAR_ONLY = re.compile(rf"\b(?:in|during|of|since|by)\s+{_YEAR}\b", re.I)

Period = tuple[datetime, datetime]  # [start, end)

# A question asking for a time: "When did ...", "what date ...", "how long ago ...".
_ASKS_WHEN = re.compile(r"^\W*when\b|\bwhat\s+(?:date|day|month|year|time)\b|\bhow\s+long\s+ago\b", re.I)
# A turn that states a time: a relative phrase ("yesterday", "last week", "two years ago", "in a
# few days"), a weekday, a month or a year. One pattern rather than app/ai/relative_time's rules,
# which resolve each phrase and cost ~0.2 ms a turn (a hybrid search ranks ~230). "May" is left
# out: the modal verb is far more common than the month.
_WEEKDAYS = "|".join(WEEKDAYS)
_MONTHS_NOT_MAY = "|".join(m.lower() for m in MONTHS if m != "May")
_UNIT = "days?|weeks?|weekends?|months?|years?|nights?"
_STATES_TIME = re.compile(
    rf"\b(?:yesterday|today|tonight|tomorrow|ago|weekends?|{_WEEKDAYS}|{_MONTHS_NOT_MAY}|(?:19|20)[0-9]{{2}}"
    rf"|(?:last|next|this|past|coming)\s+(?:{_UNIT}|morning|afternoon|evening|summer|winter|spring|fall|autumn)"
    rf"|in\s+(?:a|an|one|two|three|four|five|six|a\s+few|a\s+couple\s+of|[0-9]+)\s+(?:{_UNIT}))\b"
)  # matched against the lowered text: re.I made it 3x slower (15.6 against 5.5 us a LoCoMo turn)


def _at(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def _month(year: int, month: int) -> Period:
    last = calendar.monthrange(year, month)[1]
    return _at(date(year, month, 1)), _at(date(year, month, last)) + timedelta(days=1)


def _relative(r: RelativeDate) -> Period:
    start = _at(r.day)
    if r.granularity == "day":
        return start, start + timedelta(days=1)
    if r.granularity == "weekend":
        return start, start + timedelta(days=2)
    if r.granularity == "week":
        return start, start + timedelta(days=7)
    if r.granularity == "month":
        return _month(r.day.year, r.day.month)
    return _at(date(r.day.year, 1, 1)), _at(date(r.day.year + 1, 1, 1))


def period(query: str, now: datetime) -> Period | None:
    """The period the query names (the first one, the most precise form first), or None."""
    for pattern in (_DAY_MONTH_YEAR, _MONTH_DAY_YEAR):
        m = pattern.search(query)
        if m:
            try:
                d = date(int(m["year"]), _MONTH[m["mon"].lower()], int(m["day"]))
            except ValueError:
                continue
            return _at(d), _at(d) + timedelta(days=1)
    m = _MONTH_YEAR.search(query)
    if m:
        return _month(int(m["year"]), _MONTH[m["mon"].lower()])
    m = _YEAR_ONLY.search(query)
    if m:
        y = int(m["year"])
        return _at(date(y, 1, 1)), _at(date(y + 1, 1, 1))
    found = find_relative_dates(query, now)
    return _relative(found[0]) if found else None


def asks_when(query: str) -> bool:
    """Whether the query asks for a time ("When did Ada move?")."""
    return _ASKS_WHEN.search(query) is not None


def states_time(text: str) -> bool:
    """Whether a turn states a time ("We moved last week", "on Friday", "in March")."""
    return _STATES_TIME.search(text.lower()) is not None

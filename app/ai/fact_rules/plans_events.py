"""Plan and event rules: intentions, trips, appointments, and dated past life events."""

from __future__ import annotations

import re

from app.ai.fact_rules.drafts import Draft, Rule, fact, rule
from app.ai.fact_rules.phrases import article, checked, date_in, slot_key, verb_phrase
from app.ai.fact_rules.relationships import PET_ALT
from app.ai.fact_rules.sentences import BE, Sentence
from app.ai.fact_rules.stated_dates import StatedDate
from app.ai.fact_rules.words import (
    BIG_PURCHASES,
    BODY_PARTS,
    EVENT_NOUNS,
    FAMILY,
    GERUNDS,
    GO_GERUNDS,
    HAD_NOUNS,
    META_VERBS,
    NAME_STOP,
    RACES,
    TRIP_NOUNS,
    alternation,
    word_pairs,
    word_set,
)
from app.ai.relative_time import MONTHS, WEEKDAYS

_PROPER_RUN = re.compile(r"\b[A-Z][\w'&.-]*(?:\s+(?:(?:of|de|del|la|le|the|and|&)\s+)?[A-Z][\w'&.-]*)*")
_NOT_PROPER = NAME_STOP | {m.lower() for m in MONTHS} | {d.lower() for d in WEEKDAYS} | word_set("i i'm im")


def proper_key(text: str, lower_only: bool = False) -> str | None:
    """The first proper noun of `text`, as the key of a plan about it ("fly to Iceland on June 8",
    "cancel Iceland", "the Arctic Monkeys concert"): the same trip or show however it is put."""
    if lower_only:
        return None
    for m in _PROPER_RUN.finditer(text):
        words = [w for w in m.group().split() if w.lower().strip(".") not in _NOT_PROPER]
        if words:
            return slot_key(" ".join(words))
    return None


# Plans that are about going somewhere or seeing someone: keyed by the place or name, so a
# cancellation that names only that ends them.
_GOING = re.compile(
    r"\b(?:visit|travel|fly|trip|vacation|holiday|move\s+to|see|attend|head|drive)\b|\bgo\s+to\s+(?:the\s+)?[A-Z]"
)


def plan_fact(vp: str, d: StatedDate | None, *, has: bool = False) -> Draft:
    content = (f"Has {vp}" if has else f"Plans to {vp}") + (f" {d.render()}" if d else "")
    key = re.sub(r"^(?:an?|their)\s+", "", vp) if has else vp
    key = re.sub(r"\s+for\s+(?:an?|one|two|three|a\s+few|a\s+couple\s+of|[0-9]+)\s+(?:day|week|month)s?\b",
                 "", key, flags=re.IGNORECASE)  # fmt: skip
    travel = re.search(
        r"\b(?:visit|travel|fly|trip|vacation|holiday|move\s+to)\b|\bgo\s+to\s+(?:the\s+)?[A-Z]", vp
    )
    subject = (_GOING.search(vp) and not has and proper_key(key)) or slot_key(key)
    return fact(f"plan:{subject}", content, topics=("plans", "travel") if travel else None)


def _b_plan(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm planning to / I plan to / I've decided to / my plan is to <verb> ...", any verb but a
    conversation one; "planning on visiting" reads as "visit"."""
    found = verb_phrase(m, s, m.end(), "future")
    if not found or not found[0]:
        return []
    vp, d = found
    first = vp.split()[0].lower()
    if first.endswith("ing"):
        if first not in GERUNDS:
            return []
        vp = GERUNDS[first] + vp[len(first) :]
    if vp.split()[0].lower() in META_VERBS - {"start", "go", "get", "change"}:
        return []
    return [plan_fact(vp, d)]


def _b_planning_np(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm planning a trip to Japan in April" -> "Plans a trip to Japan in April 2027."."""
    found = verb_phrase(m, s, m.start("np"), "future")
    if not found or not found[0]:
        return []
    np, d = found
    travel = re.search(r"\b(?:trip|vacation|holiday|visit|move)\b", np)
    key = proper_key(np) or slot_key(re.sub(r"^(?:an?|their)\s+", "", np))
    return [fact(f"plan:{key}", f"Plans {np}" + (f" {d.render()}" if d else ""),
                 topics=("plans", "travel") if travel else None)]  # fmt: skip


def _going_to(vp: str) -> str:
    """What follows "I'm going to": a verb phrase, or where to ("Tokyo", "the Azores", "the gym")."""
    first = vp.split()[0]
    place_like = first[0].isupper() and first.lower() not in NAME_STOP
    return f"go to {vp}" if place_like or first.lower() in ("the", "a", "an", "their") else vp


_FAMILY_WORDS = alternation(
    [*FAMILY, "parents", "family", "folks", "grandparents", "friends", "kids", "children"]
)


_VENTURES = alternation(
    word_set(
        "business company startup shop store restaurant bakery cafe café bar studio practice clinic podcast"
    )
    | word_set("channel blog app website brand gallery")
)


STUDIES = (
    r"course|degree|program|programme|phd|master's|masters|school|university|college|uni|internship|class|"
    r"workshop|lessons|bootcamp|apprenticeship|training"
)


_TO_PLACE = r"(?:back\s+)?to\s+(?:the\s+)?[A-Z]"


_A = r"(?:an?|their|the)\s+(?:[\w'-]+\s+){0,2}?"


# What a plan's verb must be followed by to make a plan worth keeping ("visit Tokyo", not "visit
# the bathroom"); verbs not listed make no plan. The second field: whether it needs a stated date.
_PLAN_OBJECTS: dict[str, tuple[str, bool]] = {
    "visit": (rf"(?:the\s+)?[A-Z]|their\s+(?:\w+\s+)?(?:{_FAMILY_WORDS})\b", False),
    **dict.fromkeys(("travel", "fly", "move", "relocate", "emigrate"), (_TO_PLACE, False)),
    **dict.fromkeys(("head", "drive"), (_TO_PLACE, True)),
    "leave": (r"for\s+(?:the\s+)?[A-Z]", True),
    "go": (
        rf"{_TO_PLACE}|on\s+(?:{_A})?(?:{alternation(TRIP_NOUNS)})\b|(?:{alternation(GO_GERUNDS)})\b",
        True,
    ),
    **dict.fromkeys(("learn", "study"), (r"(?!how\b|about\b|more\b|a\s+bit\b)[^\W\d_]", False)),
    **dict.fromkeys(("buy", "sell"), (rf"{_A}(?:{alternation(BIG_PURCHASES)})\b", False)),
    "adopt": (rf"{_A}(?:{PET_ALT}|child|baby)\b", False),
    "get": (
        r"(?:married|engaged|divorced)\b|an?\s+(?:new\s+)?(?:job|dog|cat|puppy|kitten|tattoo|car|degree)\b",
        True,
    ),
    "marry": (r"[A-Z]|their\s+(?:partner|girlfriend|boyfriend|fianc)", False),
    **dict.fromkeys(("retire", "graduate"), (r"", False)),
    "quit": (r"(?:their\s+job|smoking|drinking|vaping)\b", False),
    "apply": (r"(?:to|for)\s+\S", False),
    **dict.fromkeys(
        ("start", "begin"),
        (
            rf"{_A}(?:new\s+)?(?:job|{_VENTURES}|{STUDIES})\b|(?:learning|studying|training)\b|"
            rf"(?:[\w-]+\s+){{0,2}}?(?:{STUDIES})\b",
            True,
        ),
    ),
    **dict.fromkeys(("open", "launch"), (rf"{_A}(?:{_VENTURES})\b", False)),
    "build": (rf"{_A}(?:house|home|cabin)\b", False),
    **dict.fromkeys(
        ("climb", "hike"), (r"(?:the\s+)?[A-Z]|(?:an?|the)\s+(?:mountain|volcano|trail)\b", False)
    ),
    "run": (rf"{_A}(?:{alternation(RACES)}|half\s+marathon)\b|in\s+the\s+[A-Z]", False),
    "take": (rf"{_A}(?:trip|vacation|holiday|course|class|exam|test|gap\s+year|sabbatical|cruise)\b", True),
    "have": (rf"(?:an?\s+|their\s+)?(?:{alternation(HAD_NOUNS)})\b", True),
    **dict.fromkeys(
        ("attend", "host", "throw"),
        (rf"{_A}(?:{alternation(EVENT_NOUNS)}|party|festival|bbq|reunion)\b|[A-Z]", True),
    ),
    "celebrate": (rf"{_A}(?:birthday|anniversary|graduation|retirement|engagement)\b", True),
    **dict.fromkeys(("compete", "perform", "present"), (r"(?:in|at)\s+\S", True)),
    "become": (
        r"an?\s+(?:[\w-]+\s+)?(?:citizen|parent|dad|mom|mum|father|mother|grandparent|doctor|nurse|lawyer|"
        r"teacher|engineer)\b",
        False,
    ),
    "propose": (r"(?:to\s+\S|$)", False),
    # "see Bjork live in May": a show or someone named, with its date.
    "see": (r"(?:the\s+)?[A-Z]", True),
    "renovate": (r"their\s+\w+", False),
}


def _plan_ok(vp: str, dated: bool) -> bool:
    verb, _, rest = vp.partition(" ")
    wanted = _PLAN_OBJECTS.get(verb.lower())
    return wanted is not None and (dated or not wanted[1]) and re.match(wanted[0], rest) is not None


def _b_intends(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm going to / gonna / I'll / I want to <verb>": a plan when the verb and its object make one
    ("visit Tokyo", "run a marathon"; some only with a date: "have surgery next week")."""
    found = verb_phrase(m, s, m.end(), "future")
    if not found or not found[0]:
        return []
    vp, d = found
    how = (m.group("how") or m.group("how2") or "will").lower()
    if how.startswith(("going", "gonna")):
        vp = _going_to(vp)
    elif vp.split()[0].lower() == "be":  # "I'll be visiting Paris"
        words = [*vp.split(), ""]
        vp = " ".join([GERUNDS[words[1].lower()], *words[2:]]).strip() if words[1].lower() in GERUNDS else ""
    return [plan_fact(vp, d)] if vp and _plan_ok(vp, d is not None) else []


_PROGRESSIVE_PLANS = word_set(
    """flying visiting moving relocating traveling travelling heading driving leaving starting beginning
    running taking having getting attending hosting throwing celebrating graduating retiring competing
    presenting adopting buying selling opening launching going emigrating performing proposing"""
)


def _b_progressive(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm flying to Tokyo next Friday", "I'm moving to Berlin", "I'm having surgery next week"."""
    found = verb_phrase(m, s, m.end(), "future")
    if found is None:
        return []
    rest, d = found
    vp = f"{GERUNDS[m.group('g').lower()]} {rest}".strip()
    return [plan_fact(vp, d)] if _plan_ok(vp, d is not None) else []


def _b_appointment(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I have a dentist appointment tomorrow", "my exam is on Monday": with a date only."""
    noun = " ".join((m.group("n") or m.group("n2")).split())
    if not checked(noun, 4):
        return []
    d = date_in(m, s, m.end() + len(s.tail(m.end())), "future")
    if d is None or (m.group("is2") and not m.end() - 4 <= d.start <= m.end() + 1):
        return []
    det = (m.group("det") or "a").lower()
    return [plan_fact(f"{article(noun)} {noun}" if det in ("a", "an") else f"their {noun}", d, has=True)]


_EVENT_ALIASES = word_pairs(
    """sold:bought completed:ran finished:ran did:ran defended:ran traveled:travelled flew:travelled
    failed:passed received:earned hiked:climbed launched:opened founded:opened"""
)


# What a past verb must be followed by to make a life event ("ran a marathon", not "ran out of milk").
_EVENT_OBJECTS = {
    "went": rf"to\s+(?:the\s+)?[A-Z]|on\s+(?:{_A})?(?:{alternation(TRIP_NOUNS)})\b",
    "got": r"(?:promoted|hired|accepted)\b|an?\s+(?:new\s+)?(?:job|promotion|raise|car|degree|tattoo|"
    r"scholarship|"
    r"award)\b|their\s+(?:license|licence|driver's\s+license|driving\s+licence|degree|diploma|phd|first)\b|"
    r"into\s+(?:[A-Z]|college|university|grad\s+school|med\s+school|law\s+school)",
    "broke": rf"their\s+(?:{alternation(BODY_PARTS)})\b",
    "lost": r"their\s+(?:job|father|mother|mom|mum|dad|grandmother|grandfather|grandma|grandpa|wife|husband|"
    r"brother|sister)\b|weight\b",
    "bought": rf"{_A}(?:{alternation(BIG_PURCHASES)})\b",
    "ran": rf"{_A}(?:{alternation(RACES)}|half\s+marathon)\b",
    "visited": rf"(?:the\s+)?[A-Z]|their\s+(?:\w+\s+)?(?:{_FAMILY_WORDS})\b",
    "travelled": _TO_PLACE,
    "passed": r".*\b(?:test|exam|exams|bar|certification|boards|course|interview)\b",
    "earned": r".*\b(?:degree|phd|master's|masters|promotion|award|certification|black\s+belt|scholarship|"
    r"diploma|"
    r"raise|license|licence)\b",
    "had": rf"(?:an?\s+|their\s+)?(?:{alternation(HAD_NOUNS)})\b",
    "graduated": r"",
    "proposed": r"(?:to\s+\S|$)",
    "won": rf"{_A}(?:award|prize|competition|tournament|race|medal|championship|lottery|scholarship|grant|"
    r"contest|"
    r"election|title|cup)\b",
    "started": rf"{_A}(?:new\s+)?(?:job|{_VENTURES}|{STUDIES})\b|(?:learning|studying|training)\b",
    "climbed": r"(?:the\s+)?[A-Z]|(?:an?|the)\s+(?:mountain|volcano)\b",
    "celebrated": rf"{_A}(?:birthday|anniversary|graduation|retirement|engagement)\b",
    "opened": rf"{_A}(?:{_VENTURES})\b",
    "attended": rf"{_A}(?:{alternation(EVENT_NOUNS)}|festival|reunion)\b|[A-Z]",
    "became": r"an?\s+(?:[\w-]+\s+)?(?:citizen|parent|dad|mom|mum|father|mother|grandparent|grandmother|"
    r"grandfather|uncle|aunt)\b",
    "published": rf"{_A}(?:book|novel|paper|article|album|game|poem|poetry\s+collection)\b",
}


def _event_ok(verb: str, rest: str) -> bool:
    """Whether `verb` and what follows it make a life event worth keeping (not "had pizza")."""
    pattern = _EVENT_OBJECTS.get(_EVENT_ALIASES.get(verb, verb))
    return pattern is not None and re.match(pattern, rest) is not None


_EVENT_VERBS = word_set(
    """went had got broke lost bought sold ran completed finished did defended visited travelled traveled
    flew graduated passed failed earned received won climbed hiked published launched founded started
    opened attended celebrated proposed became"""
)


def _b_event(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I ran a marathon last Sunday" -> "Ran a marathon on 2026-11-15.": past life events, dated."""
    verb = m.group("v").lower()
    found = verb_phrase(m, s, m.end(), "past")
    if found is None:
        return []
    rest, d = found
    if d is None or not _event_ok(verb, rest):
        return []
    vp = f"{verb} {rest}".strip()
    return [fact(f"event:{slot_key(vp)}", f"{vp} {d.render()}", when=d.day, about=vp)]


_EVENT_NOUN = alternation(EVENT_NOUNS)


def _future(s: Sentence) -> StatedDate | None:
    """The first date ahead stated anywhere in the sentence ("I signed up for X, the first session is
    on May 3")."""
    return next((d for d in s.dates("future") if d.day >= s.at.date()), None)


def _b_tickets(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Got tickets for Bjork in May", "I bought tickets to see Muse on June 3": seeing them, then."""
    d = _future(s)
    run = None if s.lower_only or d is None else _PROPER_RUN.match(s.tail(m.end()).lstrip())
    if run is None or run.group().split()[0].lower() in _NOT_PROPER:
        return []
    return [plan_fact(f"see {run.group()}", d)]


def _b_show_when(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Arctic Monkeys concert in April, can't wait": a dated show, told without "I"."""
    d = _future(s)
    name = m.group("x")
    if d is None or name.split()[0].lower() in _NOT_PROPER:
        return []
    return [plan_fact(f"see {name} live", d)]


def _b_signed_up(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I signed up for a welding course, the first session is on May 3": taking it, then."""
    tail = s.tail(m.end())
    course = re.match(rf"\s*((?:an?|the|my)\s+)?((?:[\w-]+\s+){{0,2}}?(?:{STUDIES}))\b", tail, re.IGNORECASE)
    d = _future(s)
    if not course or d is None:  # undated, it is told as what was done ("signed up yesterday")
        return []
    return [plan_fact(f"take {course_phrase(course.group(2))}", d)]


def course_phrase(course: str) -> str:
    """ "a pottery class", "salsa lessons" (no article for a plural)."""
    last = course.split()[-1].lower()
    return course if last.endswith("s") and not last.endswith("ss") else f"{article(course)} {course}"


RULES: tuple[Rule, ...] = tuple(rule(*r) for r in (
    ("tickets", "tickets", _b_tickets,
     r"\b(?:i\s+|we\s+)?(?:(?:just|finally)\s+)?(?:got|bought|have|grabbed|scored)\s+tickets\s+(?:for|to)\s+"
     r"(?:see\s+)?(?:the\s+)?"),
    ("show_when", "concert gig show", _b_show_when,
     r"^\W*(?P<x>(?-i:[A-Z])[\w'&.-]*(?:\s+(?-i:[A-Z])[\w'&.-]*){0,3})\s+(?:concert|gig|show)\s+"
     r"(?=on|in|next|this|tomorrow)"),
    ("signed_up", "signed registered enrolled", _b_signed_up,
     r"\b(?:i|we)(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|finally|also)\s+)?(?:signed\s+up|registered|enrolled)\s+"
     r"(?:for|in)\s+"),
    ("plan", "planning plan intend intending decided goal resolution", _b_plan,
     r"\b(?:i|we)\s*(?:'\s*m|\s+am|'\s*re|\s+are)?\s+(?:(?:also|still|now|really|seriously)\s+)?(?:planning|"
     r"plan|"
     r"intend|intending)\s+(?:on\s+|to\s+)|\b(?:i|we)(?:\s*'\s*ve|\s+have)?\s+(?:(?:finally|"
     r"just)\s+)?decided\s+to\s+|"
     r"\bmy\s+(?:plan|goal|resolution|new\s+year'?s\s+resolution)\s+(?:for\s+\S+\s+)?is\s+to\s+"),
    ("booked", "booked", _b_planning_np,
     r"\b(?:i|we)(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|finally|already|also)\s+)?booked\s+(?P<np>(?:an?|my|our|the)\s+"
     r"(?:[\w'-]+\s+){0,2}?(?:trip|flights?|holiday|vacation|cruise|getaway|tickets?)\b)"),
    ("planning_np", "planning", _b_planning_np,
     rf"{BE}\s+(?:(?:also|still|now|currently)\s+)?planning\s+(?P<np>(?:an?|my|our)\s+(?:(?:big|small|"
     rf"little|short|"
     r"long|quick|family|road|weekend|surprise|birthday|summer|winter|ski|camping|two-week)\s+){0,2}(?:trip|"
     r"vacation|"
     r"holiday|visit|move|wedding|party|honeymoon|getaway)\b)"),
    ("intends", "going gonna want wanna ll will", _b_intends,
     rf"(?:{BE}\s+(?:(?:also|still|definitely|finally|really|actually)\s+)?(?P<how>going\s+to|gonna)|"
     r"\b(?:i|we)\s+(?:(?:also|definitely|really|still)\s+)?(?P<how2>want\s+to|wanna)|"
     r"\b(?:i|we)\s*(?:'\s*ll|\s+will)\s+(?:(?:definitely|also|finally|actually)\s+)?)\s*"),
    ("progressive", " ".join(_PROGRESSIVE_PLANS), _b_progressive,
     rf"{BE}\s+(?:(?:also|finally|actually|officially|now)\s+)?(?P<g>{alternation(_PROGRESSIVE_PLANS)})\b"),
    ("appointment", " ".join(EVENT_NOUNS), _b_appointment,
     rf"\bi(?:\s*'\s*ve\s+got|\s+have\s+got|\s+have|\s+got)\s+(?P<det>an?|my)\s+"
     rf"(?P<n>(?:[^\W\d_][\w'-]*\s+){{0,3}}?(?:{_EVENT_NOUN}))\b|"
     rf"\bmy\s+(?P<n2>(?:[^\W\d_][\w'-]*\s+){{0,2}}?(?:{_EVENT_NOUN}))\s+(?P<is2>is)\s+"),
    ("event", " ".join(_EVENT_VERBS), _b_event,
     rf"\b(?:i|we)\s+(?:(?:just|finally|actually|also|recently|officially|successfully)\s+)?"
     rf"(?P<v>{alternation(_EVENT_VERBS)})\b"),
))  # fmt: skip

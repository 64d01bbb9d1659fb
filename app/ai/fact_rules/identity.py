"""Identity rules: name, age, birthday and birth year, nationality, languages."""

from __future__ import annotations

import re

from app.ai.fact_rules.drafts import Draft, Rule, fact, rule
from app.ai.fact_rules.names import person_name, place
from app.ai.fact_rules.phrases import past_day
from app.ai.fact_rules.sentences import END, IM, Sentence
from app.ai.fact_rules.words import (
    DIETS,
    LANGUAGE_KEYS,
    LANGUAGES,
    NATIONALITIES,
    NOT_NAMES_AFTER_IM,
    TIME_WORDS,
    alternation,
)
from app.ai.relative_time import MONTHS


def _b_my_name(m: re.Match[str], s: Sentence) -> list[Draft]:
    tail = s.tail(m.end())
    if re.match(r"\s*(?:not|n't|also|actually)\b", tail, re.IGNORECASE):
        return []
    name = person_name(tail, max_words=3, lower_ok=s.lower_only)
    return [fact("name", f"Is named {name}")] if name else []


def _b_call_me(m: re.Match[str], s: Sentence) -> list[Draft]:
    tail = s.tail(m.end())
    name = person_name(tail)
    if not name or name.lower() in TIME_WORDS:
        return []
    rest = tail[tail.find(name) + len(name) :].strip()
    if rest and not re.match(
        r"(?:[,.!]|$|please\b|instead\b|from\s+now\s+on\b|for\s+short\b)", rest, re.IGNORECASE
    ):
        return []
    return [fact("name", f"Is named {name}")]


_ADJECTIVE_ENDINGS = ("ing", "able", "ible", "ful", "ous", "ish", "ese", "less")


def _b_im_name(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Hi, I'm Sarah": a capitalised word after "I'm" that is no adjective, ending the clause."""
    tail = s.tail(m.end())
    name = None if s.lower_only else person_name(tail)
    if not name or any(w.lower() in NOT_NAMES_AFTER_IM for w in name.split()):
        return []
    first = name.split()[0].lower()
    if first in NATIONALITIES | LANGUAGES or first in DIETS or first.endswith(_ADJECTIVE_ENDINGS):
        return []
    rest = tail[tail.find(name) + len(name) :]
    if not re.match(
        r"\s*(?:$|[,.!]|[^\w\s]+\s*$|and\b|from\b|here\b|by\s+the\s+way\b|btw\b|nice\s+to\b|haha\b|lol\b|tbh\b)",
        rest,
        re.IGNORECASE,
    ):
        return []
    return [fact("name", f"Is named {name}"), *_introduction(rest, s)]


_INTRO_AGE = re.compile(
    r"\s*(?:,\s*|\s+and\s+)([0-9]{1,3})(?:\s*(?:years\s+old|y/?o))?(?=\s*(?:$|[,.!]|and\b))", re.IGNORECASE
)


_INTRO_PLACE = re.compile(
    r"\s*(?:,\s*|\s+and\s+)(?:(?P<home>living|based)\s+in|(?:originally\s+)?from)\s+", re.IGNORECASE
)


def _introduction(rest: str, s: Sentence) -> list[Draft]:
    """What follows a name in an introduction: "I'm Ana, 34, living in Lisbon", "..., from Porto"."""
    out: list[Draft] = []
    for _ in range(3):
        if (age := _INTRO_AGE.match(rest)) and 10 <= int(age.group(1)) <= 110:
            out.append(fact("age", f"Is {int(age.group(1))} years old"))
            rest = rest[age.end() :]
        elif (where := _INTRO_PLACE.match(rest)) and (found := place(rest[where.end() :], s)):
            home = where.group("home") is not None
            out.append(fact("home", f"Lives in {found}") if home else fact("origin", f"Is from {found}"))
            rest = rest[where.end() :].lstrip()[len(found) :]
        else:
            break
    return out


def _b_age(m: re.Match[str], s: Sentence) -> list[Draft]:
    n = int(m.group("n"))
    turned = "turn" in m.group().lower()
    return (
        [fact("age", f"Is {n} years old", when=past_day(m, s) if turned else None)] if 10 <= n <= 110 else []
    )


def _b_birthday(m: re.Match[str], s: Sentence) -> list[Draft]:
    d = next((d for d in s.dates("future") if m.end() - 4 <= d.start <= m.end() + 4), None)
    if d is None or d.granularity not in ("day", "month"):
        return []
    month = MONTHS[d.day.month - 1]
    return [fact("birthday", f"Has a birthday on {month} {d.day.day}" if d.granularity == "day" else
                 f"Has a birthday in {month}")]  # fmt: skip


def _b_born(m: re.Match[str], s: Sentence) -> list[Draft]:
    tail = s.tail(m.end())
    out: list[Draft] = []
    where = re.match(r"\s*(?:and\s+raised\s+)?in\s+", tail, re.IGNORECASE)
    found = place(tail[where.end() :], s) if where else None
    if found and found.lower() not in {mo.lower() for mo in MONTHS}:
        out.append(fact("birthplace", f"Was born in {found}"))
    d = next((d for d in s.dates("past") if m.end() <= d.start and d.end <= m.end() + len(tail)), None)
    if d is None or d.day > s.at.date():
        return out
    month = MONTHS[d.day.month - 1]
    if d.granularity == "day":
        out.append(fact("birthday", f"Was born on {d.day.isoformat()}" if d.year_stated else
                        f"Has a birthday on {month} {d.day.day}"))  # fmt: skip
    elif d.granularity == "month" and d.year_stated:
        out.append(fact("birthday", f"Was born in {month} {d.day.year}"))
    elif d.granularity == "year":
        out.append(fact("birth_year", f"Was born in {d.day.year}"))
    return out


def _b_nationality(m: re.Match[str], s: Sentence) -> list[Draft]:
    nat = " ".join(m.group("nat").lower().split())
    if nat == "polish" and not s.lower_only:  # "I'm Polish" is capitalised; "polish" is a verb
        return []
    display = "-".join(" ".join(w.capitalize() for w in part.split()) for part in nat.split("-"))
    return [fact(f"nationality:{nat.replace(' ', '-')}", f"Is {display}")]


_WEAK_LANGUAGE = re.compile(
    r"\b(?:a\s+little|a\s+bit|some|basic|broken|badly|poorly|not\s+(?:very\s+)?well|a\s+few\s+words|rusty)\b",
    re.IGNORECASE,
)


_LANGUAGE_ITEM = re.compile(
    rf"\s*(?:,\s*|\s+and\s+|\s+as\s+well\s+as\s+)?(?:(?:fluent|native|good|decent|conversational|perfect|"
    rf"excellent|business|pretty\s+good)\s+)?(?P<lang>{alternation(LANGUAGES)})(?![\w-])",
    re.IGNORECASE,
)


def _b_native_language(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Romanian is my native language": the language before the trigger, alone in its clause."""
    start = s.clause_start(m.start())
    lang = " ".join(s.text[start : m.start()].lower().split())
    if lang not in LANGUAGES:
        return []
    shown = " ".join(w.capitalize() for w in lang.split())
    return [fact(f"language:{LANGUAGE_KEYS.get(lang, lang)}", f"Is a native {shown} speaker")]


def _b_speak(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I speak Spanish and French", never "I speak a little Spanish"."""
    tail = s.tail(m.end())
    found: list[str] = []
    pos = 0
    while (item := _LANGUAGE_ITEM.match(tail, pos)) and len(found) < 8:
        found.append(" ".join(item.group("lang").lower().split()))
        pos = item.end()
    if _WEAK_LANGUAGE.search(tail[: pos + 30]):
        return []
    native = bool(re.search(r"native|mother|first", m.group(), re.IGNORECASE))
    out = []
    for lang in found:
        shown = lang.upper() if lang in ("asl", "bsl") else " ".join(w.capitalize() for w in lang.split())
        content = f"Is a native {shown} speaker" if native else f"Speaks {shown}"
        out.append(fact(f"language:{LANGUAGE_KEYS.get(lang, lang)}", content))
    return out


_NAT = alternation(NATIONALITIES)


RULES: tuple[Rule, ...] = tuple(rule(*r) for r in (
    ("my_name", "name", _b_my_name, r"\bmy\s+(?:first\s+|full\s+|real\s+)?name\s*(?:is|'s)\s+"),
    ("call_me", "call", _b_call_me, r"\b(?:(?:you\s+can|please|just|feel\s+free\s+to)\s+)?call\s+me\s+"),
    ("go_by", "by", _b_call_me, r"\bi\s+go\s+by\s+"),
    ("age", "i im", _b_age,
     rf"{IM}\s+(?:now\s+|just\s+)?(?P<n>[0-9]{{1,3}})(?:\s*(?:years?|yrs?)\s*old|\s*y/?o|"
     rf"\s+years\s+of\s+age)?"
     rf"(?![\w%.,]\d){END}"),
    ("turned", "turned", _b_age,
     r"\bi\s+(?:just\s+|recently\s+)?turned\s+(?P<n>[0-9]{1,3})\b(?!\s*(?:%|percent|degrees|minutes|hours|"
     r"times))"),
    ("as_age", "as", _b_age,
     r"\bas\s+an?\s+(?P<n>[0-9]{1,3})[-\s]?(?:years?|yrs?)[-\s]?old\s*,?\s+(?=(?:i|i'm|im|i've)\b)"),
    ("guess_age", "guess", _b_age,
     r"\bguess\s+who'?s\s+(?P<n>[0-9]{1,3})(?:\s+(?:years\s+old\s+)?today)?\s*[,!.]*\s*(?:it's\s+)?me\b"),
    # "It was my birthday this week, 33 now haha": the age it brought.
    ("birthday_age", "birthday", _b_age,
     r"\bmy\s+birthday\s+(?:was\s+)?(?:(?:this|last)\s+(?:week|weekend)|yesterday|today|on\s+\w+)\s*[,!.]*\s*"
     r"(?:(?:i'm|im|i\s+am|so)\s+)?(?P<n>[0-9]{1,3})\s+(?:now|today)\b", "unanchored"),
    ("birthday", "birthday", _b_birthday, r"\bmy\s+birthday\s*(?:is|'s)\s+"),
    ("born", "born", _b_born, r"\bi\s+was\s+born\b"),
    ("nationality", "i im", _b_nationality,
     rf"{IM}\s+(?:(?:an?|proud|also|originally|fully|100%)\s+){{0,2}}(?P<nat>(?:{_NAT})(?:-(?:{_NAT}))?)"
     r"(?:\s+(?:citizen|national))?(?=\s*(?:$|[,.;!)]|\b(?:and|but|by|btw|so|too|lol|haha|from|living|who|"
     r"born)\b))"),
    ("citizenship", "citizenship passport nationality", _b_nationality,
     rf"\bi\s+(?:have|hold)\s+(?:an?\s+)?(?P<nat>{_NAT})\s+(?:citizenship|passport|nationality)\b"),
    ("im_name", "i im", _b_im_name, rf"{IM}\s+(?=[^\W\d_])"),
    ("speak", "speak", _b_speak, r"\bi\s+(?:(?:also|can|can\s+also|also\s+can|do)\s+)?speak\s+"),
    ("grew_up_speaking", "speaking", _b_speak, r"\bi\s+grew\s+up\s+speaking\s+"),
    ("fluent_in", "fluent bilingual trilingual native", _b_speak,
     rf"{IM}\s+(?:also\s+)?(?:fluent|bilingual|trilingual|native)\s+in\s+|{IM}\s+(?:an?\s+)?native\s+"
     rf"(?=(?:{alternation(LANGUAGES)})\s+speaker)"),
    ("mother_tongue", "language tongue", _b_speak,
     r"\bmy\s+(?:native|first|mother)\s+(?:language|tongue)\s+is\s+"),
    ("is_mother_tongue", "language tongue", _b_native_language,
     r"\b(?:is|'s)\s+my\s+(?:native|first|mother)\s+(?:language|tongue)\b", "unanchored"),
))  # fmt: skip

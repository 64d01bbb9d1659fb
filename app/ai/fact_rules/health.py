"""Health rules (kind `other`): allergies, intolerances, known conditions."""

from __future__ import annotations

import re

from app.ai.fact_rules.drafts import Draft, Rule, fact, rule
from app.ai.fact_rules.phrases import checked, ends, objects, slot_key
from app.ai.fact_rules.sentences import END, IM, Sentence
from app.ai.fact_rules.words import (
    CONDITION_ADJECTIVES,
    CONDITIONS,
    NOT_ALLERGENS,
    PLURAL_ALLERGENS,
    alternation,
)


def allergy_fact(thing: str, *, negated: bool = False) -> Draft:
    return fact(f"allergy:{slot_key(thing)}", f"Is allergic to {thing}", negated=negated)


def b_allergic_to(m: re.Match[str], s: Sentence) -> list[Draft]:
    tail = s.tail(m.end())
    if m.groupdict().get("neg") and not ends(m.group("neg"), tail):
        return []
    return [allergy_fact(i, negated=bool(m.groupdict().get("neg"))) for i in objects(tail, max_words=3)]


def _b_allergy_noun(m: re.Match[str], s: Sentence) -> list[Draft]:
    thing = " ".join(m.group("obj").split())
    if not checked(thing, 2) or thing.lower() in NOT_ALLERGENS:
        return []
    return [allergy_fact(PLURAL_ALLERGENS.get(thing.lower(), thing))]


def _b_intolerant(m: re.Match[str], s: Sentence) -> list[Draft]:
    x = (m.group("x") or m.group("x2")).lower()
    return [fact(f"intolerance:{x}", f"Is {x} intolerant")]


def _b_condition(m: re.Match[str], s: Sentence) -> list[Draft]:
    shown = CONDITIONS[" ".join(m.group("c").lower().split())]
    return [fact(f"condition:{shown.lower()}", f"Has {shown}")]


def _b_condition_adj(m: re.Match[str], s: Sentence) -> list[Draft]:
    content, key = CONDITION_ADJECTIVES[m.group("a").lower()]
    return [fact(f"condition:{key}", content)]


RULES: tuple[Rule, ...] = tuple(rule(*r) for r in (
    ("allergic_to", "allergic allergy allergies", b_allergic_to,
     rf"{IM}\s+(?:(?:very|severely|highly|deathly|also|really|super|extremely|mildly|"
     rf"slightly)\s+)?allergic\s+to\s+|"
     r"\bi\s+have\s+(?:an?\s+)?allerg(?:y|ies)\s+to\s+"),
    ("allergy_noun", "allergy allergies", _b_allergy_noun,
     r"\bi\s+(?:have|'ve\s+got|have\s+got|suffer\s+from)\s+(?:an?\s+)?(?:(?:severe|serious|mild|bad|deadly|"
     r"life[-\s]threatening|slight)\s+)?(?P<obj>(?:[^\W\d_][\w-]*\s+){1,2}?)allerg(?:y|ies)\b(?!\s+to)"),
    ("my_allergy", "allergy allergies", _b_allergy_noun,
     r"\bmy\s+(?P<obj>(?:[^\W\d_][\w-]*\s+){1,2}?)allerg(?:y|ies)\b(?!\s+to)", "unanchored"),
    ("intolerant", "intolerant intolerance", _b_intolerant,
     rf"{IM}\s+(?:(?:very|severely|also|slightly)\s+)?(?P<x>lactose|gluten|fructose|histamine|dairy|wheat)"
     r"[-\s]intolerant\b|\bi\s+have\s+(?:an?\s+)?(?P<x2>lactose|gluten|fructose|histamine)\s+intolerance\b"),
    ("condition", "have got suffer live diagnosed", _b_condition,
     rf"\bi\s+(?:have|'ve\s+got|have\s+got|suffer\s+from|live\s+with|was\s+diagnosed\s+with|(?:'ve|"
     rf"have)\s+been\s+"
     rf"diagnosed\s+with|got\s+diagnosed\s+with)\s+(?P<c>{alternation(CONDITIONS)})(?![\w-])(?!\s+(?:about|over|of|"
     rf"when|"
     r"because|today|tonight|right\s+now|at\s+the\s+moment))"),
    ("condition_adj", "i im", _b_condition_adj,
     rf"{IM}\s+(?:(?:also|type\s+[12])\s+)?(?P<a>{alternation(CONDITION_ADJECTIVES)})(?![\w-]){END}"),
))  # fmt: skip

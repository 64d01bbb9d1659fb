"""Location rules: home, moves, origin, where the user grew up."""

from __future__ import annotations

import re

from app.ai.fact_rules.drafts import Builder, Draft, Rule, fact, rule
from app.ai.fact_rules.names import PLACES, place
from app.ai.fact_rules.phrases import ends, past_day
from app.ai.fact_rules.sentences import BE, IM, IVE, Sentence
from app.ai.fact_rules.words import FAMILY, NAME_STOP, NATIONALITIES


def b_place(content: str, subject: str, *, negated: bool = False, dated: bool = False) -> Builder:
    """A builder for "<trigger> <place>": `content` with the place put in for "{}"."""

    def build(m: re.Match[str], s: Sentence) -> list[Draft]:
        tail = s.tail(m.end())
        if m.groupdict().get("neg") and not ends(m.group("neg"), tail):
            return []
        where = place(tail, s)
        if where is None or (subject == "origin" and where.lower() in NATIONALITIES):
            return []
        return [fact(subject, content.format(where), negated=negated, when=past_day(m, s) if dated else None)]

    return build


def _b_call_home(m: re.Match[str], s: Sentence) -> list[Draft]:
    tail = s.tail(m.end())
    where = place(tail, s)
    if not where or not re.match(rf"\s*{re.escape(where)}\s+home\b", tail):
        return []
    return [fact("home", f"Lives in {where}")]


def _b_since_moving(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Since moving to Chicago I walk everywhere": a move, told in passing. The main clause must be
    the user's ("since moving to Rome, my sister ..." is hers)."""
    tail = s.tail(m.end())
    where = place(tail, s)
    if where is None:
        return []
    after = tail[tail.find(where) + len(where) :]
    before = s.text[: m.start()]
    if not re.match(r"\s*,?\s*(?:i|i'm|im|i've|we|we're|we've)\b", after, re.IGNORECASE) and not re.match(
        r"\W*(?:\w+\W+){0,2}?(?:i|we)\b", before, re.IGNORECASE
    ):
        return []
    return [fact("home", f"Lives in {where}")]


_MOVE_WORDS = re.compile(r"\b(?:mov(?:e|ed|ing)|left|relocat\w*|settled)\b", re.IGNORECASE)


def _b_is_home(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Barcelona is home now", "Lisbon is our new home": the place before the trigger, alone in its
    clause. A name can stand there too ("Tom is home now"), so the place must be a known one or the
    sentence must speak of a move."""
    start = s.clause_start(m.start())
    before = s.text[start : m.start()].strip()
    where = place(before, s)
    if not where or where != before or where.lower() in FAMILY or where.lower() in NAME_STOP:
        return []
    if where.lower() not in PLACES and not _MOVE_WORDS.search(s.text):
        return []
    return [fact("home", f"Lives in {where}")]


RULES: tuple[Rule, ...] = tuple(rule(*r) for r in (
    ("live", "live reside", b_place("Lives in {}", "home"),
     r"\b(?:i|we)\s+(?:(?:currently|still|now|also|actually)\s+)?(?:live|reside)\s+(?:(?:here\s+)?in|on)\s+"),
    ("living", "living based residing located lived", b_place("Lives in {}", "home"),
     rf"{BE}\s+(?:(?:currently|still|now|also|actually)\s+)?(?:living|based|residing|located)\s+(?:in|"
     rf"out\s+of)\s+|"
     rf"{IVE}\s+(?:been\s+living|lived|been\s+based)\s+(?:here\s+)?in\s+(?=[^.;!?]*\b(?:for|since)\b)"),
    ("call_home", "home", _b_call_home, r"\bi\s+(?:now\s+)?call\s+"),
    ("moved_to", "moved relocated", b_place("Lives in {}", "home", dated=True),
     r"\b(?:i|we)(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|recently|finally|actually|also)\s+){0,2}(?:moved|"
     r"relocated)\s+(?:back\s+)?"
     r"(?:here\s+)?(?:to|into)\s+"),
    ("since_moving", "moving moved relocating relocated", _b_since_moving,
     r"\b(?:ever\s+)?since\s+(?:i\s+|we\s+)?(?:moving|moved|relocating|relocated)\s+(?:back\s+)?(?:here\s+)?to\s+"),
    ("settled_in", "settled", b_place("Lives in {}", "home"),
     r"\b(?:i|we)(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|finally|now|recently)\s+){0,2}settled\s+(?:in(?:to)?\s+)?"
     r"(?:(?:my|our|a|the)\s+(?:new\s+)?(?:flat|apartment|house|place|home|condo)\s+)?in\s+"),
    ("is_home", "home", _b_is_home,
     r"\b(?:is|'s)\s+(?:(?:my|our)\s+(?:new\s+)?home|(?:my|our)?\s*(?:new\s+)?home\s+now)\b(?!\s+(?:to|of|for)\b)",
     "unanchored"),
    ("from", "from", b_place("Is from {}", "origin"),
     rf"{IM}\s+(?:(?:originally|actually|also)\s+)?from\s+|\bi\s+(?:originally\s+|"
     rf"actually\s+)?come\s+from\s+"),
    ("grew_up", "grew raised", b_place("Grew up in {}", "grew_up"),
     r"\bi\s+(?:grew\s+up|was\s+raised)\s+(?:in|on)\s+"),
))  # fmt: skip

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
    if not where or where.casefold() != before.casefold():
        return []
    if where.lower() in FAMILY or where.lower() in NAME_STOP:
        return []
    if where.lower() not in PLACES and not _MOVE_WORDS.search(s.text):
        return []
    return [fact("home", f"Lives in {where}")]


_VISITING = re.compile(
    r"\b(?:trip|visit(?:ing)?|holiday|vacation|conference|hotel|staying|tourists?|business|weekend|"
    r"for\s+(?:a|the|two|three|few|couple)\b|just\s+(?:arrived|landed))",
    re.IGNORECASE,
)


def _b_here_in(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Here in Oslo it's been raining all week", not "here in Rome for the weekend"."""
    if _VISITING.search(s.text):
        return []
    where = place(s.tail(m.end()), s)
    return [fact("home", f"Lives in {where}")] if where else []


_NOW_ONLY = re.compile(
    r"\b(?:today|tonight|tomorrow|now|right\s+now|at\s+the\s+moment|this\s+\w+|until|till|for\s+\w+|"
    r"until|again|already|yet|currently)\b",
    re.IGNORECASE,
)


def _b_im_in(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm in Rotterdam." with nothing after the place in its clause but a filler: home. Not "I'm
    in Rome for the weekend", "I'm in Paris right now", "I'm in love", nor on a trip."""
    tail = s.tail(m.end())
    where = place(tail, s)
    if where is None or _VISITING.search(s.text) or _NOW_ONLY.search(s.text):
        return []
    rest = tail[tail.find(where) + len(where) :]
    if not re.fullmatch(r"\s*(?:(?:tbh|lol|haha+|btw|ha)\b\s*)*[.!]*\s*", rest, re.IGNORECASE):
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
     r"\b(?:is|'s)\s+(?:(?:(?:my|our)\s+(?:new\s+)?home|(?:my|our)?\s*(?:new\s+)?home\s+now)\b(?!\s+(?:to|of|for)\b)|"
     r"home\s+(?:(?:for|to)\s+(?:me|us)|now)\b)",
     "unanchored"),
    # "The rent here in Lyon is insane": what one pays where one lives.
    ("rent_here", "rent rents", b_place("Lives in {}", "home"),
     r"\b(?:my|our|the)\s+(?:rent|rents)\s+(?:here\s+)?in\s+(?=[^.;!?]*\b(?:is|are|went|keeps|just)\b)",
     "unanchored"),
    # "I'm in Rotterdam, if that matters": where one is, said for nothing else (no trip, no time).
    ("im_in", "in", _b_im_in, rf"{IM}\s+(?:(?:currently|also)\s+)?(?:based\s+)?in\s+"),
    # "Here in Oslo it's been raining all week": the writer is there, and not on a trip.
    ("here_in", "here", _b_here_in, r"^\W*(?:(?:so|well|ugh|btw|also|ok|lol)\W+){0,2}here\s+in\s+"),
    ("from", "from", b_place("Is from {}", "origin"),
     rf"{IM}\s+(?:(?:originally|actually|also)\s+)?from\s+|\bi\s+(?:originally\s+|"
     rf"actually\s+)?come\s+from\s+"),
    ("grew_up", "grew raised", b_place("Grew up in {}", "grew_up"),
     r"\bi\s+(?:grew\s+up|was\s+raised)\s+(?:in|on)\s+"),
))  # fmt: skip

"""Diet rules: vegetarian / vegan and diet plans, kosher / halal, foods and drinks the user avoids."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from app.ai.fact_rules.drafts import Draft, Rule, fact, rule
from app.ai.fact_rules.phrases import article, ends, objects, past_day, slot_key
from app.ai.fact_rules.sentences import END, IM, Sentence
from app.ai.fact_rules.words import DIET_PLANS, DIETS, DRINKS, MEATS, alternation, word_set

_NO_MEAT = frozenset(("vegetarian", "vegan", "pescatarian", "pescetarian", "lacto-vegetarian", "plant-based",
                      "plant based"))  # fmt: skip


def meat_ended(when: date | None = None) -> list[Draft]:
    keys = sorted({slot_key(m) for m in MEATS})
    return [replace(fact(f"likes:{k}", f"Likes {k}", negated=True, when=when), if_known=True) for k in keys]


def b_diet(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm vegan", "I went vegan (last year)", "I'm not vegetarian anymore"."""
    if m.groupdict().get("neg") and not ends(m.group("neg"), s.tail(m.end())):
        return []
    negated = bool(m.groupdict().get("neg") or m.groupdict().get("stop"))
    dated = negated or bool(m.groupdict().get("became"))
    d = " ".join(m.group("d").lower().split())
    when = past_day(m, s) if dated else None
    out = [fact("diet", DIETS[d], negated=negated, when=when)]
    # undated: "in February" would date it before the liking it ends, which it then could not end
    return out + meat_ended() if d in _NO_MEAT and not negated else out


def _b_diet_plan(m: re.Match[str], s: Sentence) -> list[Draft]:
    d = " ".join(m.group("d").lower().split())
    d = "keto" if d == "ketogenic" else d.replace(" ", "-") if d.startswith(("low", "gluten", "plant")) else d
    d = d.capitalize() if d in ("mediterranean", "whole30") else d
    return [fact("diet", f"Follows {article(d)} {d} diet")]


def _b_observes(m: re.Match[str], s: Sentence) -> list[Draft]:
    k = m.group("k").lower()
    return [fact(f"observes:{k}", "Keeps kosher" if k == "kosher" else "Eats halal")]


def eats_fact(thing: str, *, ended: bool, when: date | None = None) -> Draft:
    drink = thing.lower() in DRINKS
    if not ended:  # "I don't eat pork": a standing avoidance
        return fact(f"avoids:{slot_key(thing)}", f"Does not {'drink' if drink else 'eat'} {thing}")
    verb = "drinks" if drink else "eats"
    return fact(f"{verb}:{slot_key(thing)}", f"{verb} {thing}", negated=True, when=when)


def ended_eating(things: list[str], when: date | None = None) -> list[Draft]:
    """The endings of eating `things`, and of liking meat dishes when meat is one of them."""
    out = [eats_fact(t, ended=True, when=when) for t in things]
    return out + meat_ended() if any(t.lower() in ("meat", "red meat") for t in things) else out


_FOOD_BAD = word_set("much enough anything everything out breakfast lunch dinner here there well late alone")


def b_dont_eat(m: re.Match[str], s: Sentence) -> list[Draft]:
    tail = s.tail(m.end())
    ended = ends(m.group("neg"), tail)
    drink = m.group("v").lower() == "drink"
    items = [i for i in objects(tail, max_words=3, max_items=4) if i.split()[0].lower() not in _FOOD_BAD]
    items = [i for i in items if not drink or i.lower() in DRINKS]
    return ended_eating(items) if ended else [eats_fact(i, ended=False) for i in items]


DIET = alternation(DIETS)


RULES: tuple[Rule, ...] = tuple(rule(*r) for r in (
    ("diet", "i im", b_diet, rf"{IM}\s+(?:(?:now|also|still|strictly|fully|completely|100%|an?)\s+){{0,2}}"
                              rf"(?P<d>{DIET})(?![\w-]){END}"),
    ("as_diet", "as", b_diet,
     rf"\bas\s+an?\s+(?P<d>{DIET})(?=\s*$|\s*,?\s+(?:i|i'm|im|i've|my|me|what\s+can\s+i|how\s+(?:can|do)\s+i)\b)",
     "anywhere"),
    ("diet_became", "went gone became become turned been", b_diet,
     r"\bi(?:\s*'\s*ve|\s+have)?\s+(?:(?:just|recently|finally|officially)\s+){0,2}(?P<became>went|gone|"
     r"became|become|turned|"
     rf"been)\s+(?:an?\s+|fully\s+)?(?P<d>{DIET})(?![\w-])"),
    ("diet_plan", "diet", _b_diet_plan,
     rf"(?:{IM}\s+(?:on|following|doing|eating)|\bi\s+(?:follow|eat|do|stick\s+to))\s+(?:an?|the)\s+"
     rf"(?P<d>{alternation(DIET_PLANS)})\s+diet\b"),
    ("observes", "kosher halal", _b_observes,
     r"\bi\s+(?:(?:only|strictly|also|always)\s+)?(?:keep|eat)\s+(?P<k>kosher|halal)\b"),
))  # fmt: skip

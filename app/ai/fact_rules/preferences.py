"""Preference rules: likes, dislikes, favourites, fandoms and habits."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date

from app.ai.fact_rules.drafts import Draft, Rule, fact, rule
from app.ai.fact_rules.phrases import (
    checked,
    gerund,
    objects,
    plain_object,
    singular,
    slot_key,
    third_party,
    third_person,
    trim,
    without,
)
from app.ai.fact_rules.sentences import END, FAV, IM, IVE, LIKE_ADV, OBJ_END, RESTRICTED, Sentence
from app.ai.fact_rules.words import (
    COMMON_NOUNS,
    GAMES,
    GERUNDS,
    GO_GERUNDS,
    GO_PLACES,
    GRIPES,
    INSTRUMENTS,
    JOB_NOUNS,
    MEATS,
    META_VERBS,
    NAME_STOP,
    NOT_TITLES,
    SPELLING,
    SPORTS,
    alternation,
    word_set,
)
from app.ai.relative_time import WEEKDAYS


def _liked(item: str) -> str | None:
    """A liked or disliked thing as a fact states it: "to cook" -> "cooking"."""
    words = item.split()
    if words[0].lower() != "to":
        return item
    if len(words) < 2 or words[1].lower() in META_VERBS:
        return None
    return " ".join([gerund(words[1]), *words[2:]])


_ACTIVITY_LEAD = word_set("playing doing going")


def activity_key(thing: str) -> str | None:
    """The subject key of an activity, however it is named: "playing the guitar", "the guitar" ->
    "guitar"; "going swimming", "swimming" -> "swimming"; None when `thing` is no activity. A liking
    of an activity, the habit of it and its ending then share one subject."""
    words = [w.lower() for w in thing.split()]
    if words and words[0] in ("the", "a", "some"):
        words = words[1:]
    if not words:
        return None
    if words[0] in _ACTIVITY_LEAD and len(words) > 1:
        return activity_key(" ".join(words[1:]).removeprefix("to ")) or slot_key(" ".join(words[1:]))
    phrase = " ".join(words)
    if phrase in GAMES or phrase in INSTRUMENTS or phrase in SPORTS or phrase in GO_GERUNDS:
        return slot_key(phrase)
    if GERUNDS.get(words[0]) in HABIT_VERBS:
        first = SPELLING.get(words[0], words[0])
        return f"{first} {slot_key(' '.join(words[1:]))}" if len(words) > 1 else first
    return None


def prefs(
    items: Iterable[str], *, dislike: bool = False, negated: bool = False, verb: str = "Likes"
) -> list[Draft]:
    out = []
    for item in items:
        thing = _liked(item)
        if thing and not _OWN.search(thing):  # "Likes running my own studio" says "my" of nobody
            activity = None if dislike else activity_key(thing)
            last = singular(thing.split()[-1].lower())
            # "a good steak" -> likes:steak, the subject that giving up meat ends
            key = slot_key(last) if last in MEATS and not dislike else slot_key(thing)
            key = f"activity:{activity}" if activity else f"{'dislikes' if dislike else 'likes'}:{key}"
            out.append(fact(key, f"{'Dislikes' if dislike else verb} {thing}", negated=negated, about=thing))
    return out


_OWN = re.compile(r"\b(?:my|me|mine|myself|our|ours|us|i)\b", re.IGNORECASE)
_SARCASM_LEAD = re.compile(r"\b(?:oh|just|sure|yeah|wow|great|totally|sooo+|so+\s+much)\b", re.IGNORECASE)


def _b_like(m: re.Match[str], s: Sentence) -> list[Draft]:
    verb = m.group("v")
    if verb.isupper() and len(verb) > 1 and _SARCASM_LEAD.search(s.text[: m.end()]):
        return []  # "Oh I just LOVE waiting"
    tail = s.tail(m.end())
    if verb.lower() == "prefer" and not re.match(r"\s*to\s", tail, re.IGNORECASE):
        tail = re.split(
            r"\s+(?:to|over|than|rather\s+than|instead\s+of)\s+", tail, maxsplit=1, flags=re.IGNORECASE
        )[0]
    items = objects(tail, max_words=5)
    if any(i.lower() in GRIPES or i.lower().startswith(("being ", "getting ")) for i in items):
        return []
    # "I love the colors", "I love the bold theme": a reaction to what was just shown,
    # not a taste; a liking of "the" one thing holds only for a few things everyone knows. The
    # article reaches over the rest of the list: "I love the tall pines and blue lake".
    shown = next((n for n, i in enumerate(items) if _SHOWN.match(i)), len(items))
    items = items[:shown]
    return prefs(items, verb="Prefers" if verb.lower() == "prefer" else "Likes")


_SHOWN = re.compile(
    r"(?i:the|that|this|your|those|these)\s+(?!(?i:beach|sea|ocean|outdoors|countryside|mountains|city|"
    r"snow|rain|sun|summer|winter|autumn|fall|spring|night|morning|gym|theatre|theater|cinema|movies|"
    r"opera|ballet|piano|guitar|violin|drums|cello|flute|saxophone)\b)(?![A-Z])"
)


def _b_fan(m: re.Match[str], s: Sentence) -> list[Draft]:
    return prefs(objects(s.tail(m.end()), max_words=5))


def _b_fan_noun(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm a huge jazz fan", "I'm a coffee addict"."""
    thing = " ".join(m.group("obj").split())
    if (
        not checked(thing, 3)
        or singular(thing.split()[-1]) in JOB_NOUNS
        or thing.split()[0].lower() in NOT_TITLES
    ):
        return []
    return prefs([thing])


def _b_dislike(m: re.Match[str], s: Sentence) -> list[Draft]:
    return prefs(objects(s.tail(m.end())), dislike=True)


_NOT_CATEGORIES = word_set("thing things part one way bit moment is")


def _b_favourite(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "My favourite colour is blue", "Sushi is my favourite food", "Jazz is my favourite"."""
    cat: str | None = m.groupdict().get("cat")
    if cat is not None:  # "my favourite <cat> is <thing>"
        thing = plain_object(s.tail(m.end()), max_words=5)
    else:  # "<thing> is my favourite (<cat>)"
        start = s.clause_start(m.start())
        cat, thing = m.group("cat2"), trim(s.text[start : m.start()])
        if not checked(thing, 4) or thing.split()[0].lower() in NAME_STOP - {"the"}:
            return []
        if start == 0 and thing.split()[0].lower() in COMMON_NOUNS | MEATS:  # "Sushi is ...": only first
            thing = thing[:1].lower() + thing[1:]
    if thing is None:
        return []
    if not cat:
        return prefs([thing])
    cat = " ".join(cat.lower().split())
    if not checked(cat, 3) or cat.split()[-1] in _NOT_CATEGORIES:
        return []
    word = "Favorite" if "favor" in m.group("fav").lower() else "Favourite"
    last = singular(thing.split()[-1].lower())
    # A meat dish as the favourite food is a liking of it, the subject that giving up meat ends.
    meat = slot_key(cat) in ("food", "dish", "meal") and (last in MEATS or f"{last}s" in MEATS)
    subject = f"likes:{slot_key(last)}" if meat else f"favorite:{slot_key(cat)}"
    return [fact(subject, f"{word} {cat} is {thing}", about=f"{cat} {thing}")]


def _b_liked_before(m: re.Match[str], s: Sentence) -> list[Draft]:
    start = s.clause_start(m.start())
    thing = trim(s.text[start : m.start()])
    if not checked(thing, 4) or thing.split()[0].lower() in NAME_STOP - {"the"}:
        return []
    if start == 0 and thing.split()[0].lower() in COMMON_NOUNS | GERUNDS.keys():  # sentence case
        thing = thing[:1].lower() + thing[1:]
    return prefs([thing])


_FREQUENCY = re.compile(
    r"\b(?:every\s+(?:single\s+)?(?:day|morning|evening|night|week|weekend|month|other\s+day|"
    rf"{'|'.join(WEEKDAYS)})|"
    r"each\s+(?:day|morning|evening|night|week|weekend)|daily|nightly|weekly|monthly|"
    rf"on\s+(?:the\s+)?(?:weekends?|weekdays|{'|'.join(d + 's' for d in WEEKDAYS)})|"
    r"(?:once|twice|three\s+times|four\s+times|five\s+times|[2-9]\s*(?:times|x))\s+(?:a|per)\s+(?:day|"
    r"week|month)|"
    r"most\s+(?:days|mornings|evenings|nights|weekends)|before\s+work|after\s+work|in\s+the\s+mornings|"
    r"in\s+the\s+evenings|regularly|religiously)\b",
    re.IGNORECASE,
)


HABIT_VERBS = word_set(
    """run jog swim cycle bike hike walk meditate exercise train surf climb boulder ski snowboard dance
    bake cook read paint draw knit sew journal write practice practise volunteer row skate lift stretch
    pray garden do go play smoke vape box"""
)


_PLAY_BAD = word_set(
    """with in on at for around along by against through outside it safe dumb hard nice fair favorites
    favourites music loud pretend dress up down back catch tricks"""
)


_PLAY_BAD_PHRASES = ("a role", "a part", "the role", "the part", "the field", "a game", "a trick", "a joke",
                     "the fool", "the victim", "a big", "an important", "a key")  # fmt: skip


def habit_fact(verb: str, obj: str, *, negated: bool = False, freq: str = "", adverb: str = "",
           when: date | None = None) -> Draft | None:  # fmt: skip
    """A habit from a base verb and its object ("play", "tennis"); None if the pair says nothing."""
    verb, low = verb.lower(), obj.lower()
    if verb == "play":
        ok = bool(obj) and low.split()[0] not in _PLAY_BAD and not low.startswith(_PLAY_BAD_PHRASES)
    elif verb == "go":
        ok = low.removeprefix("to ") in GO_PLACES or low in GO_GERUNDS
    elif verb == "do":
        ok = low.removeprefix("some ") in SPORTS or activity_key(low.removeprefix("some ")) is not None
    else:
        ok = bool(obj) or verb not in ("practice", "practise")
    swapped = third_party(obj) if obj else ""
    if not ok or (obj and not checked(obj, 3)) or swapped is None:
        return None
    if verb in ("play", "do", "go") and obj:
        key = activity_key(f"{gerund(verb)} {low.removeprefix('to ')}") or slot_key(low.removeprefix("to "))
    else:
        key = SPELLING.get(gerund(verb), gerund(verb)) + (f" {slot_key(obj)}" if obj else "")
    key = f"activity:{key}"
    content = " ".join(p for p in (adverb.lower(), third_person(verb), swapped, freq) if p)
    return fact(key, content, negated=negated, when=when, about=f"{gerund(verb)} {obj}")


def habit_object(tail: str, s: Sentence, offset: int) -> str | None:
    """The object of a habit verb: up to its frequency or a preposition, without its date."""
    for d in s.dates("past"):
        tail = without(tail, offset, d)
    m = OBJ_END.search(tail)
    head = _FREQUENCY.split(tail[: m.start()] if m else tail)[0]
    if RESTRICTED.search(head):
        return None
    head = re.split(r"\s+(?:for|with|at|in|on|before|after|during|near|around|whenever)\b", " " + head,
                    maxsplit=1, flags=re.IGNORECASE)[0]  # fmt: skip
    return trim(re.sub(r"\b(?:a\s+lot\s+of|lots\s+of|some|a\s+bit\s+of)\s+", "", head, flags=re.IGNORECASE))


def _b_habit(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I play tennis", "I run every morning", "I usually cook dinner"."""
    tail = s.tail(m.end())
    verb = " ".join(m.group("v").lower().split())
    freq = _FREQUENCY.search(OBJ_END.split(tail, maxsplit=1)[0])
    adverb = (m.group("adv") or "").split()[:1]
    often = adverb and adverb[0].lower() in (
        "usually",
        "always",
        "often",
        "regularly",
        "normally",
        "typically",
    )
    if verb != "play" and not freq and not often:
        return []
    obj = habit_object(tail, s, m.end())
    if obj is None:
        return []
    draft = habit_fact(
        verb, obj, freq=freq.group() if freq else "", adverb=adverb[0] if often and not freq else ""
    )
    return [draft] if draft else []


_LOTS = re.compile(
    r"\b(?:a\s+lot|all\s+(?:day|the\s+time)|every\s+(?:single\s+)?day|constantly|non-?stop|on\s+repeat|"
    r"daily|religiously)\b",
    re.IGNORECASE,
)


def _b_listen(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I listen to opera pretty much all day": a liking, when the clause says how much."""
    tail = s.tail(m.end())
    if not _LOTS.search(tail):
        return []
    head = _LOTS.split(tail, maxsplit=1)[0]
    head = re.sub(r"\s+(?:pretty\s+much|basically|almost|literally)\s*$", "", head, flags=re.IGNORECASE)
    thing = plain_object(head, max_words=4)
    return prefs([thing]) if thing else []


def _b_listening_lots(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I've been listening to a lot of jazz(, I love it)"."""
    thing = plain_object(s.tail(m.end()), max_words=4)
    return prefs([thing]) if thing else []


def _b_could_eat(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I could eat pad thai every day": a liking, not a hypothesis."""
    tail = s.tail(m.end())
    every = re.search(
        r"\s+(?:every\s+(?:single\s+)?day|every\s+meal|all\s+day|forever)\b", tail, re.IGNORECASE
    )
    thing = plain_object(tail[: every.start()], max_words=3) if every else None
    return prefs([thing]) if thing else []


def _b_not_for_me(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "camping just isn't for me": the thing before the trigger, alone in its clause, a bare noun
    or gerund ("the email isn't for me" is about an email)."""
    start = s.clause_start(m.start())
    thing = trim(s.text[start : m.start()])
    if not thing or thing.split()[0].lower() in NAME_STOP or not checked(thing, 3):
        return []
    return prefs([thing[:1].lower() + thing[1:] if start == 0 else thing], dislike=True)


def _b_been_doing(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I've been playing volleyball for years": a habit that goes on."""
    tail = s.tail(m.end())
    if not re.search(r"\bfor\s+(?:years|ages|(?:a\s+few|many|\w+)\s+years|a\s+long\s+time)\b|\bsince\b", tail,
                     re.IGNORECASE):  # fmt: skip
        return []
    verb = GERUNDS.get(m.group("g").lower(), "")
    obj = habit_object(tail, s, m.end())
    if not verb or obj is None:
        return []
    draft = habit_fact(verb, obj)
    return [draft] if draft else []


def _b_back_from(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Just got back from hiking, I try to go every Sunday": a habit when the sentence says how often."""
    if not _FREQUENCY.search(s.text):
        return []
    verb = GERUNDS.get(m.group("g").lower(), "")
    obj = habit_object(s.tail(m.end()), s, m.end())
    draft = habit_fact(verb, obj or "") if verb and obj is not None else None
    return [draft] if draft else []


def _b_smoker(m: re.Match[str], s: Sentence) -> list[Draft]:
    return [fact("activity:smoking", "Smokes", topics=("habits", "health"))]


HABIT = alternation([*HABIT_VERBS, "work out"])


HABIT_GERUND = alternation(g for g, b in GERUNDS.items() if b in HABIT_VERBS)


RULES: tuple[Rule, ...] = tuple(rule(*r) for r in (
    ("favourite", "favourite favorite fave fav", _b_favourite,
     rf"\bmy\s+(?:(?:all[-\s]time|absolute|current|"
     rf"personal)\s+)?{FAV}\s+(?P<cat>(?:[^\W\d_][\w'-]*\s+){{0,2}}?"
     r"[^\W\d_][\w'-]*)\s*(?:is|are|'s|has\s+(?:got\s+)?to\s+be)\s+"),
    ("is_favourite", "favourite favorite fave fav", _b_favourite,
     rf"\b(?:is|are)\s+my\s+(?:(?:all[-\s]time|absolute|personal)\s+)?{FAV}\b(?:\s+(?P<cat2>(?!ever\b)"
     r"[^\W\d_][\w'-]*(?:\s+(?!ever\b|of\b)[^\W\d_][\w'-]*)?))?(?=\s*(?:$|[,.;!)]|\b(?:and|but|because|ever|"
     r"of\s+all\s+time)\b))",
     "unanchored"),
    # "Playing football is my favourite way to unwind", "ribs are my weakness": a liking, put after it.
    ("liked_before", "favourite favorite fave fav weakness guilty", _b_liked_before,
     rf"\b(?:is|are)\s+(?:(?:totally|definitely|honestly)\s+)?my\s+(?:(?:{FAV}\s+(?:way\s+to\s+(?:unwind|relax|"
     r"de-?stress|chill(?:\s+out)?|switch\s+off|spend\s+(?:a|my)\s+\w+)|hobby|pastime|thing\s+to\s+do))|"
     r"(?:biggest\s+|one\s+)?weakness|guilty\s+pleasure)\b", "unanchored"),
    ("like", "like love enjoy adore prefer dig", _b_like,
     rf"\bi\s+{LIKE_ADV}(?P<v>like|love|enjoy|adore|prefer|dig)\s+"),
    ("fan_of", "fan lover into obsessed passionate crazy keen", _b_fan,
     rf"{IM}\s+(?:(?:really|also|just|totally|definitely|still|so|such|very)\s+)?(?:(?:an?\s+)?(?:(?:big|"
     rf"huge|"
     r"massive|great|long[-\s]?time|die[-\s]?hard|avid|real|true)\s+)?(?:fan|lover)\s+of|(?:really\s+)?into|"
     r"obsessed\s+with|passionate\s+about|crazy\s+about|keen\s+on)\s+"),
    ("fan_noun", "fan lover enthusiast nerd geek buff addict junkie", _b_fan_noun,
     rf"{IM}\s+(?:also\s+)?an?\s+(?:(?:big|huge|massive|great|long[-\s]?time|die[-\s]?hard|avid)\s+)?"
     r"(?P<obj>(?:[^\W\d_][\w'&-]*\s+){1,3}?)"
     r"(?:fan|lover|enthusiast|nerd|geek|buff|addict|junkie)\b(?!\s+of)"),
    ("dislike", "hate dislike detest loathe despise stand bear", _b_dislike,
     r"\bi\s+(?:(?:really|absolutely|just|totally|honestly|genuinely|seriously|actually|also|truly)\s+)?"
     r"(?:hate|dislike|detest|loathe|despise|can'?t\s+stand|cannot\s+stand|can\s+not\s+stand|"
     r"can'?t\s+bear)\s+"),
    ("smoker", "smoker smoke", _b_smoker,
     rf"{IM}\s+(?:an?\s+)?(?:(?:heavy|light|social|regular|chain)\s+)?smoker{END}|"
     rf"\bi\s+(?:still\s+)?smoke(?:\s+cigarettes)?{END}"),
    ("listen", "listen", _b_listen,
     r"\bi\s+(?:(?:mostly|mainly|usually|always|often|really|just)\s+)?listen\s+to\s+"),
    ("listening_lots", "listening", _b_listening_lots,
     rf"{IVE}\s+been\s+listening\s+to\s+(?:a\s+lot\s+of|lots\s+of|so\s+much|nothing\s+but)\s+"),
    ("could_eat", "could", _b_could_eat, r"\bi\s+could\s+(?:honestly\s+|literally\s+|happily\s+)?eat\s+"),
    ("not_for_me", "me", _b_not_for_me,
     r"\b(?:just\s+|really\s+|definitely\s+)?(?:isn't|is\s+not|aren't|are\s+not)\s+(?:really\s+|just\s+)?"
     r"(?:for\s+me|my\s+thing|my\s+cup\s+of\s+tea)\b", "unanchored"),
    ("back_from", "back", _b_back_from,
     rf"\b(?:i(?:\s*'\s*ve|\s+have)?\s+)?(?:just\s+)?(?:got|came|come)\s+back\s+from\s+(?P<g>{HABIT_GERUND})\b"),
    ("been_doing", "been", _b_been_doing,
     rf"{IVE}\s+been\s+(?P<g>{HABIT_GERUND}|playing|doing|going)\b"),
    ("habit", " ".join(HABIT_VERBS) + " out", _b_habit,
     r"\bi\s+(?P<adv>(?:(?:usually|always|often|regularly|normally|typically|generally|also|still|sometimes|"
     rf"occasionally|mainly|mostly|do)\s+){{0,2}})(?P<v>{HABIT})\b"),
))  # fmt: skip

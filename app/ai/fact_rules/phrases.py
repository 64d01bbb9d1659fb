"""Reading the words after a trigger: objects and lists, verb phrases, singulars and gerunds, and the
dates a clause states.
"""

from __future__ import annotations

import re
from datetime import date

from app.ai.fact_rules.sentences import ANYMORE, LIST_END, OBJ_END, RESTRICTED, TRAILING, WORD, Sentence
from app.ai.fact_rules.stated_dates import StatedDate, Tense
from app.ai.fact_rules.words import BAD_START, DEICTIC, GERUND_OF, SPELLING, TOPIC_OF, word_pairs, word_set


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def article(phrase: str) -> str:
    return "an" if phrase[:1].lower() in "aeiou" else "a"


def sentence(text: str) -> str:
    """A fact's content: capitalised, single-spaced, one final full stop."""
    return capitalise(" ".join(text.split()).rstrip(" .")) + "."


_KEY_DROP = word_set("a an the my our their his her your some")


_SINGULAR_KEEP = word_set(
    """news series species physics mathematics maths politics economics gymnastics athletics aerobics
    glasses clothes pants jeans shorts scissors chess bass grass glass boss dress class process bus gas
    lens asparagus hummus couscous citrus octopus cactus analysis tennis basis crisis thesis diabetes
    christmas paris athens brussels wales netherlands philippines ibs pcos lupus"""
)


_IE_PLURALS = word_set(
    """movies cookies zombies pies ties lies rookies selfies smoothies brownies calories hoodies veggies
    foodies newbies indies goalies hippies aussies collies birdies techies budgies"""
)


def singular(word: str) -> str:
    w = word.lower()
    if len(w) <= 3 or w in _SINGULAR_KEEP or w.endswith(("ss", "us", "is", "ics", "'s")):
        return w
    if w in _IE_PLURALS:
        return w[:-1]
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ches", "shes", "xes", "zes", "sses")) or w in (
        "tomatoes",
        "potatoes",
        "mangoes",
        "heroes",
    ):
        return w[:-2]
    return w[:-1] if w.endswith("s") else w


def slot_key(text: str) -> str:
    """`text` as part of a subject: lower-case, no articles or possessives, last word singular, so
    that paraphrases ("the Beatles" / "Beatles", "cats" / "a cat") give the same key."""
    words = [w.rstrip(".") for w in WORD.findall(text)]
    keep = [w for w in words if w.lower() not in _KEY_DROP] or words
    if keep and not keep[-1][:1].isupper():
        keep[-1] = singular(keep[-1])
    return " ".join(SPELLING.get(w.lower(), w.lower()) for w in keep)


def trim(text: str) -> str:
    """`text` without filler at its end ("jazz a lot" -> "jazz") or stray symbols around it."""
    text = TRAILING.sub("", " " + " ".join(text.split()))
    return re.sub(r"^[^\w\"']+|[^\w)+#'\"]+$", "", text).strip()


def checked(obj: str, max_words: int) -> bool:
    """A short object of plain words, with no pronoun or conversation word in it."""
    words = obj.lower().split()
    if not words or len(words) > max_words or not any(ch.isalpha() for ch in obj):
        return False
    if words[0] in BAD_START or " ".join(words[:2]) in ("a lot", "the idea", "the way", "the fact"):
        return False
    return not any(w.strip(".,'\"!?") in DEICTIC for w in words)


def plain_object(text: str, *, max_words: int = 4) -> str | None:
    m = OBJ_END.search(text)
    head = text[: m.start()] if m else text
    obj = trim(head)
    return obj if not RESTRICTED.search(head) and checked(obj, max_words) else None


_COMPOUNDS = word_set(
    "rock and roll|rock 'n' roll|r&b|salt and pepper|fish and chips|mac and cheese|drum and bass|"
    "dungeons and dragons|peanut butter and jelly|rhythm and blues|sweet and sour|arts and crafts|"
    "black and white movies|black and white films|pb&j|rice and beans|bread and butter"
)


def objects(text: str, *, max_words: int = 4, max_items: int = 5) -> list[str]:
    """The items of a list object opening `text` ("jazz, blues and rock"), each a plain object."""
    m = LIST_END.search(text)
    head = text[: m.start()] if m else text
    if RESTRICTED.search(head):
        return []
    whole = trim(head)
    if whole.lower() in _COMPOUNDS:
        return [whole] if checked(whole, max_words) else []
    items = [trim(p) for p in re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+", whole) if p.strip()]
    for n, item in enumerate(items[1:], 1):
        # "blues records, they're a real comfort": a clause, which ends the list; "podcasts about
        # cooking and travel": what follows an item with a preposition is that preposition's.
        if item.split()[0].lower() in _CLAUSE_SUBJECTS or _HAS_PREPOSITION.search(items[n - 1]):
            items = items[:n]
            break
    if not items or len(items) > max_items or not all(checked(i, max_words) for i in items):
        return []
    return items


_CLAUSE_SUBJECTS = word_set(
    "i i'm im i've we we're we've they they're they've it it's he he's she she's you you're that that's "
    "there there's which who"
)
_HAS_PREPOSITION = re.compile(r"\s(?:about|of|on|with|for|from|in|into|at|by|like)\s", re.IGNORECASE)


_SWAP = word_pairs(
    "my:their me:them myself:themselves mine:theirs our:their us:them ourselves:themselves we:they"
)


_VP_BAD = DEICTIC - word_set("one first second third other another same way look point")


def third_party(vp: str) -> str | None:
    """A verb phrase with the speaker's pronouns made third person ("visit my parents" -> "visit
    their parents"); None when another pronoun leaves unclear who or what it is about."""
    out: list[str] = []
    for word in vp.split():
        bare = word.strip(".,!?'\"")
        if bare.lower() in _VP_BAD and bare not in ("US", "IT"):
            return None
        out.append(word.replace(bare, _SWAP[bare]) if bare in _SWAP else word)
    return " ".join(out)


def gerund(verb: str) -> str:
    v = verb.lower()
    if v in GERUND_OF:
        return GERUND_OF[v]
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v.endswith("e") and not v.endswith(("ee", "ye", "oe")) and len(v) > 2:
        return v[:-1] + "ing"
    if len(v) <= 4 and re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", v):
        return v + v[-1] + "ing"  # run -> running, swim -> swimming
    return v + "ing"


def third_person(verb: str) -> str:
    v = verb.lower()
    irregular = {"be": "is", "have": "has", "do": "does", "go": "goes", "work out": "works out"}
    if v in irregular:
        return irregular[v]
    if v.endswith(("s", "sh", "ch", "x", "z", "o")):
        return v + "es"
    if v.endswith("y") and len(v) > 1 and v[-2] not in "aeiou":
        return v[:-1] + "ies"
    return v + "s"


def topics_for(text: str, base: tuple[str, ...]) -> tuple[str, ...]:
    for w in text.lower().replace("-", " ").split():
        topic = TOPIC_OF.get(w) or TOPIC_OF.get(singular(w))
        if topic and topic not in base:
            return (*base, topic)
    return base


def _first_date(m: re.Match[str], s: Sentence, end: int, tense: Tense) -> StatedDate | None:
    """The first date stated in the clause of `m`, up to `end`."""
    start = s.clause_start(m.start())
    return next((d for d in s.dates(tense) if d.start >= start and d.end <= end + 1), None)


def _contradicts(d: StatedDate | None, s: Sentence, tense: Tense) -> bool:
    """A past date for a plan, a future one for an event ("I'm flying to Rome yesterday")."""
    return d is not None and (d.day > s.at.date() if tense == "past" else d.day < s.at.date())


def date_in(m: re.Match[str], s: Sentence, end: int, tense: Tense) -> StatedDate | None:
    d = _first_date(m, s, end, tense)
    return None if _contradicts(d, s, tense) else d


def past_day(m: re.Match[str], s: Sentence) -> date | None:
    d = date_in(m, s, m.end() + len(s.tail(m.end())), "past")
    return d.day if d else None


def without(text: str, offset: int, d: StatedDate | None) -> str:
    """`text` (at `offset` in its sentence) with the date `d` cut out."""
    if d is None or d.end <= offset or d.start >= offset + len(text):
        return text
    a, b = max(d.start - offset, 0), min(d.end - offset, len(text))
    return text[:a] + " " + text[b:]


_VP_END = re.compile(r"[,;:!?()\[\]\"{}<>|]|\s[-\u2013\u2014]+\s|\u2014|\.(?=\s|$)|\.\.\.|\u2026|"
                     r"\b(?:because|cause|cuz|since|but|though|although|while|whereas|so\s+(?:i|that|we)|"
                     r"and\s+(?:i|i'm|im|i've|my|we|it|then|also|after|now|hopefully)|lol|haha+|btw|"
                     r"hopefully|fingers\s+crossed)\b", re.IGNORECASE)  # fmt: skip


# Time words no date can be made of: left out of a fact rather than left relative in it.
_UNRESOLVED = re.compile(
    r"\b(?:(?:this|next|last|coming|in\s+the)\s+(?:summer|winter|spring|fall|autumn)|"
    r"on\s+the\s+\d{1,2}(?:st|nd|rd|th)|soon|later(?:\s+on)?|in\s+a\s+(?:few|couple\s+of)\s+\w+|someday|"
    r"eventually|at\s+some\s+point|one\s+day|right\s+away|asap)\b",
    re.IGNORECASE,
)


def verb_phrase(
    m: re.Match[str], s: Sentence, start: int, tense: Tense
) -> tuple[str, StatedDate | None] | None:
    """The verb phrase from `start` to the end of its clause, made third person and without its
    date; and the date stated in the clause, if any. None if it is conditional or unclear."""
    tail = s.tail(start)
    c = _VP_END.search(tail)
    end = start + (c.start() if c else len(tail))
    d = _first_date(m, s, end, tense)
    if _contradicts(d, s, tense):
        return None
    raw = _UNRESOLVED.sub(" ", without(s.text[start:end], start, d))
    if RESTRICTED.search(raw):
        return None
    vp = re.sub(r"(?:^|\s+)(?:on|in|at|by|for)$", "", trim(raw), flags=re.IGNORECASE)
    swapped = third_party(vp) if len(vp.split()) <= 9 else None
    return (swapped, d) if swapped is not None else None


def ends(negation: str, tail: str) -> bool:
    """Whether a negation ends something that was true: "no longer", "used to", or a plain "not" or
    "don't" followed by "any more". A plain "I don't like jazz" ends nothing."""
    return " ".join(negation.lower().split()) in ("no longer", "used to") or bool(ANYMORE.search(tail))

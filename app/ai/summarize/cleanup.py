"""What a sentence says without the chat around it: interjections, vocatives and intensifiers go,
greetings and acknowledgements are recognised as saying nothing, and the features that make a
sentence worth keeping (names, numbers, dates, first-person facts, constraints) are named.

Every pattern is anchored or bounded so that it runs in linear time on any input.
"""

from __future__ import annotations

import re

from app.ai.relative_time import MONTHS, WEEKDAYS
from app.ai.summarize.sentences import CLOSERS


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")
FILLER = _words(
    """hi hello hey hiya yo greetings good morning afternoon evening night day thanks thank thx ty you
    welcome please sorry ok okay k kk sure yes yeah yep yup no nope nah alright right great cool nice
    awesome perfect fine got it sounds lol haha hmm um uh oh ah wow bye goodbye see later cheers np
    anytime glad happy help helps helped to i me my we us your yours it its this that the a an is are
    was be am do does did can could would will shall may might how what anything else there here today
    again just so and or but for with of all too very much well totally absolutely indeed noted
    understood course that's it's you're i'm what's here's there's let's i'll you'll we'll wonderful
    amazing fantastic excellent lovely interesting exciting congratulations congrats really definitely
    exactly agreed good now then all"""
)
# Words a chat sentence opens with that carry nothing ("Wow, ", "Oh yeah! ", "Hey Sam! "). "No",
# "not" and "actually" are kept: they change what follows.
_INTERJECTIONS = (
    r"(?:wow+|whoa+|oh+|ooh+|hey+|hi+|hello|yeah+|yes+|yep|yup|well|haha+|hah|lol|aww+|omg|totally|sure|"
    r"thanks|thank\s+you|cool|great|awesome|nice|ok|okay|hmm+|um+|uh+|ah+|gosh|gee|absolutely|"
    r"definitely|honestly|anyway|alright|so)(?![\w'\u2019-])"
)
# Up to four of them in a row, closed by punctuation ("Oh wow, ..."): "So I went" keeps its "so".
_INTERJECTION = re.compile(
    rf"(?:{_INTERJECTIONS}\s{{1,3}}){{0,3}}{_INTERJECTIONS}\s{{0,2}}[,!.;:\u2026-]+\s{{0,3}}", re.IGNORECASE
)
# "Hey Sam! ", "Thanks, Ana. ": a greeting or thanks with the name of whom it is for.
_GREETING = re.compile(
    r"(?:hey+|hi+|hello|thanks|thank\s+you)[\s,]{1,3}[A-Z][a-z]{1,20}\s{0,2}[,!.;:\u2026-]+\s{0,3}",
    re.IGNORECASE,
)
_VOCATIVE_END = re.compile(r",\s{0,3}[A-Z][a-z]{1,20}(?P<stop>[!.?\u2026]{0,3})$")  # "..., Priya!"
# Intensifiers and hedges that say nothing a summary needs ("really", "just", "you know").
_HOLLOW = re.compile(
    r"\b(?:really|just|very|totally|literally|basically|definitely|absolutely|honestly|kind\s+of|"
    r"sort\s+of|you\s+know|i\s+mean)\b,?\s?",
    re.IGNORECASE,
)
_SPACES = re.compile(r"[ \t]{2,}")
_SPACE_BEFORE_STOP = re.compile(r"(?<!\s)\s++(?=[,.!?;:])")  # from a run's start only

DATE = re.compile(
    rf"\b(?:[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}|[0-9]{{1,2}}[/.][0-9]{{1,2}}(?:[/.][0-9]{{2,4}})?|"
    rf"{'|'.join(MONTHS)}|{'|'.join(WEEKDAYS)})\b",
    re.IGNORECASE,
)
FACT = re.compile(
    r"\b(?:i|we)(?:['\u2019](?:m|re|ve|ll|d)|\s{1,3}(?:am|are|was|were|have|had|will|would|shall|plan|want|"
    r"need|like|love|hate|prefer|enjoy|live|work|moved|bought|got|own|study|started|finished|went|visited|"
    r"joined|adopted|met|made|don['\u2019]t|do\s+not|can['\u2019]t|cannot|never|always|usually))\b|"
    r"\bmy\s{1,3}[^\W\d_]{1,30}(?:\s{1,3}[^\W\d_]{1,30})?\s{1,3}(?:is|are|was|were)\b|"
    r"\b(?:call\s+me|remind\s+me|i['\u2019]m\s+allergic|i\s+am\s+allergic)\b",
    re.IGNORECASE,
)
# What a plan must respect. Hard: allergies and diets, money, deadlines. Soft: how long, with whom,
# papers.
HARD_CONSTRAINT = re.compile(
    r"\b(?:allerg\w{0,8}|intoleran\w{0,4}|vegan|vegetarian|gluten|lactose|kosher|halal|diabet\w{0,4}|"
    r"budget|afford|deadline|due\s+(?:on|by)|no\s+later\s+than|can['\u2019]?t\s+eat|cannot\s+eat|"
    r"don['\u2019]t\s+eat)|[$\u20ac\u00a3\u00a5]\s?[0-9]|(?<![0-9])[0-9]++\s?(?:usd|eur|gbp|dollars|euros|"
    r"pounds|yen)\b",
    re.IGNORECASE,
)
SOFT_CONSTRAINT = re.compile(
    r"\b(?:visas?|passports?|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|"
    r"twenty)\s+(?:day|night|week|month)s?\b|with\s+my\s+(?:wife|husband|partner|sister|brother|mom|"
    r"mother|dad|father|son|daughter|kids|children|friend|family|boss)|my\s+(?:wife|husband|partner)\b)|"
    r"(?<![0-9])[0-9]++\s*+(?:-\s*)?(?:day|night|week|month)s?\b",
    re.IGNORECASE,
)
# Every pattern that scans whole sentences, for the linear-time tests.
CONSTRAINT_PATTERNS = (HARD_CONSTRAINT, SOFT_CONSTRAINT, FACT, DATE, WORD)
NOT_NAMES = {"I", "OK"} | {f"I{q}{s}" for q in "'\u2019" for s in ("m", "ve", "ll", "d")}


# A talk's social close ("Talk to you soon!", "Take care, Sam.", "See you later!"): says nothing
# a summary needs, and, being like every turn a little, it covers the whole chat well enough to
# win the choice's close calls against the talk's main event (a fp16 word table flipped one).
_CLOSING = re.compile(
    r"(?:(?:ok(?:ay)?|well|alright|anyway|so)[\s,]{1,3})?(?:"
    r"(?:talk|speak|chat)(?:\s{1,3}(?:to|with)\s{1,3}(?:you|ya|u))?\s{1,3}(?:soon|later)|"
    r"take\s{1,3}care|see\s{1,3}(?:you|ya|u)(?:\s{1,3}(?:soon|later|around|then))?|"
    r"catch\s{1,3}(?:you|ya|u)\s{1,3}later|(?:good\s?)?bye(?:\s?bye)?|"
    r"have\s{1,3}an?\s{1,3}(?:good|great|nice|lovely)\s{1,3}(?:day|night|evening|weekend|one)|"
    r"until\s{1,3}next\s{1,3}time)"
    r"(?:[\s,]{1,3}[A-Z][a-z]{1,20})?[\s!.\u2026]*+",
    re.IGNORECASE,
)


def is_low_information(sentence: str) -> bool:
    """Greetings, thanks, "ok", "how can I help?", a closing "talk to you soon": no number and
    only filler words."""
    if any(ch.isdigit() for ch in sentence):
        return False
    if _CLOSING.fullmatch(sentence.strip()):
        return True
    words = WORD.findall(sentence)
    # "Both.", "Sounds good!": too short to stand alone in a summary. ASCII only: a short CJK
    # sentence is one "word" to this pattern and may say a lot.
    if len(words) <= 2 and len(sentence) < 16 and sentence.isascii():
        return True
    return all(w.lower() in FILLER for w in words)


def condense(sentence: str) -> str:
    """The sentence without its opening interjections and vocatives, a closing vocative, and
    intensifiers; "" when nothing is left. ("Wow, that's so cool, Priya!" -> "That's so cool!")"""
    pos = 0
    while True:  # each round consumes at least one character: linear
        m = _GREETING.match(sentence, pos) or _INTERJECTION.match(sentence, pos)
        if m is None or m.end() == pos:
            break
        pos = m.end()
    rest = sentence[pos:]
    if not rest.strip(" ,!.?;:\u2026-"):
        return ""
    end = _VOCATIVE_END.search(rest)
    if end is not None:
        rest = rest[: end.start()] + (end.group("stop") or ".")
    rest = _HOLLOW.sub("", rest)
    rest = _SPACE_BEFORE_STOP.sub("", _SPACES.sub(" ", rest)).strip(" ,;:-")
    if not rest:
        return ""
    return rest[0].upper() + rest[1:]


def is_question(sentence: str) -> bool:
    return sentence.rstrip(CLOSERS).endswith(("?", "\uff1f"))


def has_name(sentence: str) -> bool:
    """A capitalised word past the first one ("went to Kyoto with Ana")."""
    words = WORD.findall(sentence)
    return any(w[0].isupper() and w not in NOT_NAMES for w in words[1:])

"""Relationship rules: named relatives, partners and pets, "I have a sister / two kids", marital status."""

from __future__ import annotations

import re
from datetime import date

from app.ai.fact_rules.drafts import Draft, Rule, fact, rule
from app.ai.fact_rules.names import person_name
from app.ai.fact_rules.phrases import article, past_day, singular
from app.ai.fact_rules.sentences import BE, END, IM, Sentence
from app.ai.fact_rules.words import COMMON_NOUNS, FAMILY, KIN_ADJ, NAME_STOP, PETS, alternation

_FAMILY_ALT = alternation([*FAMILY, *(f"{w} in law" for w in ("mother", "father", "sister", "brother"))])


PET_ALT = alternation(PETS)


_KIN = rf"(?:(?P<adj>{alternation(KIN_ADJ)}|best)\s+)?(?P<rel>{_FAMILY_ALT}|{PET_ALT})"


_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


_NUMBERS |= {"seven": 7, "eight": 8, "nine": 9, "ten": 10} | {str(n): n for n in range(1, 13)}


_NUMBER_WORDS = {v: k for k, v in _NUMBERS.items() if k.isalpha() and v > 1}


def _kin(word: str) -> tuple[str, str] | None:
    """(subject prefix, word a fact uses) for a relative's or a pet's word, singular or plural."""
    w = " ".join(word.lower().split()).replace(" in law", "-in-law")
    for cand in (w, singular(w), {"children": "child", "kids": "kid"}.get(w, w)):
        if cand in FAMILY:
            return FAMILY[cand]
        if cand in PETS:
            return "pet", PETS[cand]
    return None


def kin_fact(
    word: str, adj: str | None, name: str, *, negated: bool = False, when: date | None = None
) -> Draft | None:
    """ "Has an older sister named Maria." [sibling:maria], "Has a wife named Anna." [partner]."""
    kin = _kin(word)
    if kin is None:
        return None
    prefix, noun = kin
    if adj and adj.lower() not in ("new", "late", "only"):
        noun = f"{adj.lower()} {noun}"
    subject = "partner" if prefix == "partner" else f"{prefix}:{name.lower()}"
    return fact(subject, f"Has {article(noun)} {noun} named {name}", negated=negated, when=when)


def _b_kin_name(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "my sister Maria", "my sister, Maria,", "my sister's name is Maria", "my dog is called Rex"."""
    tail = s.tail(m.end())
    called = m.groupdict().get("called") is not None
    name = person_name(tail, max_words=2 if called else 1, lower_ok=called and s.lower_only)
    if not name:
        return []
    after = tail[tail.find(name) + len(name) :]
    if not called and not re.match(r"(?:'s|s')?(?:\s|$|[,.;!?])", after):
        return []
    draft = kin_fact(m.group("rel"), m.group("adj"), name)
    return [draft] if draft else []


def _b_name_is_kin(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Maria is my sister", "Rex is my dog"."""
    name = m.group("name")
    if m.groupdict().get("appos") is not None and s.lower_only and name.islower():
        # "rosa, my older sister, ...": all lower case, a name is told by the apposition alone
        if name in COMMON_NOUNS or name.endswith("ly") or len(name) < 3:
            return []
        name = name.capitalize()
    if not name[0].isupper() or name.lower() in NAME_STOP or (name.isupper() and len(name) > 3):
        return []
    draft = kin_fact(m.group("rel"), m.group("adj"), name)
    return [draft] if draft else []


_ITEM = re.compile(
    rf"\s*(?P<q>an?|one|two|three|four|five|six|seven|eight|nine|ten|[1-9]|1[0-2])\s+"
    rf"(?P<adj>(?:(?:{alternation(KIN_ADJ)}|lovely|beautiful|cute|wonderful|amazing|adorable|sweet|grown|adult|"
    rf"teenage|rescue|grown-up|small|young|\d+[-\s]year[-\s]old)\s+){{0,2}})"
    rf"(?P<noun>children|kids|(?:{_FAMILY_ALT}|{PET_ALT})(?:e?s)?)(?![\w-])"
    rf"(?:\s*(?:,\s*|\s+(?:named|called)\s+)(?P<names>[A-Z][^\W\d_]+(?:"
    rf"(?:\s*,\s*|\s+and\s+)[A-Z][^\W\d_]+){{0,3}})"
    rf"(?![\w-]))?",
    re.IGNORECASE,
)


_ITEM_SEP = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s+plus\s+)", re.IGNORECASE)


_ITEM_FOLLOW = re.compile(
    r"\s*(?:$|[,.;:!?)]|(?:who|which|that|and|but|so|at|in|with|from|back|living|too|also|now|as|whom|plus|"
    r"of\s+(?:my|our)\s+own|under|over|aged|named|called|i|we|last|this|next|yesterday|today|tonight|"
    r"recently|"
    r"earlier|ago|[0-9]+|one|two|three|four|five|a\s+(?:few|couple))\b)",
    re.IGNORECASE,
)


def _b_have(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I have a sister named Maria and two dogs", "I've got three kids, Sam, Leo and Mia",
    "we (just) adopted a kitten called Mochi"."""
    acquired = bool(m.group("acq"))
    items: list[re.Match[str]] = []
    pos = m.end()
    while (it := _ITEM.match(s.text, pos)) and len(items) < 6:
        items.append(it)
        pos = it.end()
        sep = _ITEM_SEP.match(s.text, pos)
        if not sep or not _ITEM.match(s.text, sep.end()):
            break
        pos = sep.end()
    if not items or not _ITEM_FOLLOW.match(s.text, pos):
        return []
    when = past_day(m, s) if acquired else None
    out: list[Draft] = []
    for it in items:
        kin = _kin(it.group("noun"))
        if kin is None or (acquired and kin[0] != "pet"):
            continue
        prefix, noun = kin
        count = _NUMBERS.get(it.group("q").lower(), 1)
        adjs = it.group("adj").split()
        adj = adjs[0].lower() if len(adjs) == 1 and adjs[0].lower() in KIN_ADJ else None
        names = re.split(r"\s*,\s*|\s+and\s+", it.group("names")) if it.group("names") else []
        called = s.lower_only and re.search(r"\b(?:named|called)\s", it.group(), re.IGNORECASE) is not None
        names = [n.capitalize() if called else n for n in names if n.lower() not in NAME_STOP]
        names = [n for n in names if n[0].isupper()]
        names = names if len(names) <= count else []
        out += [
            d for n in names if (d := kin_fact(it.group("noun") if count == 1 else noun, adj, n, when=when))
        ]
        if (names and count == 1) or prefix == "friend":
            continue
        if prefix == "partner":
            out.append(fact("relationship_status", f"Has {article(noun)} {noun}", when=when))
            continue
        said = " ".join(it.group("noun").lower().split())
        said = f"{adj} {said}" if adj and count == 1 else said
        phrase = f"{article(said)} {said}" if count == 1 else f"{_NUMBER_WORDS.get(count, count)} {said}"
        topics = ("pets",) if prefix == "pet" else None
        out.append(fact(f"has:{singular(noun)}", f"Has {phrase}", when=when, topics=topics))
    return out


def _b_parent_of(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm a mom of two" -> "Has two children."."""
    n = _NUMBERS.get(m.group("n").lower(), 0)
    return [fact("has:child", f"Has {_NUMBER_WORDS.get(n, n)} children")] if n > 1 else []


def _b_partner(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm married to Anna", "I got engaged to Tom", "I'm dating Sam", "I married Anna"."""
    name = person_name(s.tail(m.end()))
    if not name:
        return []
    st = (m.group("st") or m.group("st2") or m.group("st3")).lower().split()[0]
    verb = {"married": "Is married to", "engaged": "Is engaged to"}.get(st, "Is dating")
    return [fact("partner", f"{verb} {name}", when=past_day(m, s) if m.group("st") is None else None)]


def _b_seeing_someone(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = person_name(s.text[m.end() :], max_words=1)
    return [fact("partner", f"Is dating {name}")] if name else []


def _b_status(m: re.Match[str], s: Sentence) -> list[Draft]:
    st = " ".join((m.group("st") or m.group("st2")).lower().split())
    content = "Is in a relationship" if st.startswith("in a") else f"Is {st}"
    return [fact("relationship_status", content, when=past_day(m, s) if m.group("st2") else None)]


RULES: tuple[Rule, ...] = tuple(rule(*r) for r in (
    # An empty "called" group: the name is said outright, as after "named" (two words, any case).
    ("kin_name_is", "name", _b_kin_name,
     rf"\bmy\s+{_KIN}(?:'s|s')?\s+name\s*(?:is|'s)\s+(?P<called>)", "anywhere"),
    ("kin_called", "named called", _b_kin_name,
     rf"\bmy\s+{_KIN}\s*,?\s+(?:is\s+)?(?P<called>named|called)\s+",
     "anywhere"),
    ("kin_apposition", "my", _b_kin_name, rf"\bmy\s+{_KIN}\s*,?\s+(?=[^\W\d_])", "anywhere"),
    ("name_is_kin", "my", _b_name_is_kin, rf"\b(?P<name>[^\W\d_][\w'-]*)\s+is\s+my\s+{_KIN}\b(?!'s|\s+name)"),
    # "Maria, my sister, ...", "Coming home to Coco (my dog)": true in any clause, as "my sister Maria"
    ("name_apposition", "my", _b_name_is_kin,
     rf"\b(?P<name>[^\W\d_][\w'-]*)(?P<appos>\s*,\s*|\s*\(\s*)my\s+{_KIN}\s*(?:,|\))", "anywhere"),
    ("have", "have got ve adopted rescued", _b_have,
     r"\b(?:i|we)(?:\s*'\s*ve\s+got|\s+have\s+got|\s+(?:also\s+|still\s+)?have|"
     r"\s+(?:(?:just|recently|finally)\s+)?(?P<acq>got|adopted|rescued))\s+"),
    ("parent_of", "mom mum mother dad father parent", _b_parent_of,
     rf"{IM}\s+(?:an?\s+)?(?:(?:proud|single|busy|working)\s+)?(?:mom|mum|mother|dad|father|parent)\s+"
     r"(?:of|to)\s+"
     r"(?P<n>two|three|four|five|six|[2-9])\b(?!\s+(?:dogs?|cats?|pets?))"),
    ("partner", "married engaged dating seeing relationship out", _b_partner,
     rf"{BE}\s+(?:(?:happily|recently|newly|also|now|currently)\s+)?(?P<st>married\s+to|engaged\s+to|dating|"
     rf"seeing|"
     r"in\s+a\s+relationship\s+with|going\s+out\s+with)\s+|\b(?:i|we)\s+(?:(?:just|recently|finally)\s+)?"
     r"(?:got\s+(?P<st2>married|engaged)\s+to|(?P<st3>married)(?=\s+[A-Z]))\s+"),
    # "I'm seeing someone new now, Julia", "I've started seeing someone, her name is Ines".
    ("seeing_someone", "seeing dating", _b_seeing_someone,
     rf"(?:{BE}\s+(?:now\s+)?|\bi(?:\s*'\s*ve|\s+have)?\s+(?:just\s+)?started\s+)(?:seeing|dating)\s+"
     r"someone(?:\s+new)?(?:\s+now)?\s*[,:]\s*(?:(?:her|his|their)\s+name\s+is\s+|(?:it's|its)\s+)?"),
    ("status", "married single engaged divorced widowed separated relationship", _b_status,
     rf"{BE}\s+(?:(?:happily|recently|newly|currently|now|still|also|finally)\s+)?(?P<st>married|single|"
     rf"engaged|"
     r"divorced|widowed|separated|in\s+a\s+(?:(?:long[-\s]distance|serious|committed|happy|"
     r"new)\s+)?relationship)"
     rf"(?![-\w]){END}|\b(?:i|we)\s+(?:(?:just|recently|finally|officially)\s+)?got\s+(?P<st2>married|"
     rf"engaged|"
     r"divorced)\b"),
))  # fmt: skip

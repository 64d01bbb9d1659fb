"""The sentence a rule reads, its clause boundaries, and the trigger fragments ("I'm",
"I've", "don't") the rule tables are written with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from app.ai.fact_rules.stated_dates import StatedDate, Tense, find_stated_dates


@dataclass
class Sentence:
    """One normalised sentence of a user's message, with what every builder needs about it."""

    text: str
    at: datetime
    lower_only: bool  # no capital letter to go by: proper nouns cannot be told apart by case
    _dates: dict[str, list[StatedDate]] = field(default_factory=dict)

    def dates(self, tense: Tense) -> list[StatedDate]:
        if tense not in self._dates:
            self._dates[tense] = find_stated_dates(self.text, self.at, tense)
        return self._dates[tense]

    def tail(self, pos: int) -> str:
        """The text from `pos` to the end of its clause (the next strong punctuation)."""
        m = _TAIL_END.search(self.text, pos)
        return self.text[pos : m.start() if m else len(self.text)]

    def clause_start(self, pos: int) -> int:
        start = 0
        for m in _CLAUSE_BOUNDARY.finditer(self.text, 0, pos):
            start = m.end()
        return start


_TAIL_END = re.compile(r"[;!?()\[\]\"{}<>|\n]|\s[-\u2013\u2014]+\s|[\u2013\u2014]|:\s|\.\.\.|\u2026")


_CLAUSE_BOUNDARY = re.compile(
    r"[,;:]|\s[-\u2013\u2014]+\s|\u2014|\b(?:and|but|so|because|cause|cuz|since|as|though|although|plus|then|"
    r"yet|while|whereas|or)\b",
    re.IGNORECASE,
)


_CONJUNCTIONS = (
    r"especially|particularly|such\s+as|including|because|cause|cuz|coz|since|but|though|although|while|"
    r"whereas|until|till|than|rather|instead|lol|lmao|haha+|tbh|imo|btw|so\s+(?:i|that|we|it|much|many)|"
    # "I hate olives, always have": the tail says how long, it names nothing.
    r"always\s+(?:have|had|has|did|was|were)|ever\s+since|"
    r"and\s+(?:i|i'm|im|i've|i'd|my|we|it|it's|they|he|she|you|then|also|now|so|but|still)"
)


# Where a list object ends ("jazz, blues and rock because ..."): punctuation or a new clause.
LIST_END = re.compile(
    rf"[;:!?()\[\]\"{{}}<>|/]|\s[-\u2013\u2014]+\s|\u2014|\.(?=\s|$)|\.\.\.|\u2026|\b(?:{_CONJUNCTIONS})\b",
    re.IGNORECASE,
)


OBJ_END = re.compile(rf",|{LIST_END.pattern}", re.IGNORECASE)


# Words that make what precedes them conditional or restricted: nothing to keep.
RESTRICTED = re.compile(
    r"\b(?:that|which|who|whom|whose|where|when|whenever|if|unless|except|as\s+long\s+as)\b", re.IGNORECASE
)


TRAILING = re.compile(
    r"(?:\s+(?:a\s+lot(?:\s+more)?|lots|so\s+much|very\s+much|too|as\s+well|also|lately|these\s+days|"
    r"nowadays|now|in\s+general|generally|the\s+most|more\s+than\s+anything|especially|of\s+course|anyway|"
    r"honestly|really|though|right\s+now|at\s+the\s+moment|for\s+now|actually|personally|either|then|again|"
    r"ok|okay|any\s?more|no\s+more|still|for\s+sure|completely|entirely|altogether|for\s+good|at\s+all|by\s+the\s+way|haha|lol|tbh|imo|ngl|more|less|better|best|sometimes|"
    r"occasionally|often|every\s+now\s+and\s+then|from\s+time\s+to\s+time))+$",
    re.IGNORECASE,
)


ANYMORE = re.compile(r"\b(?:any\s?more|no\s+more|these\s+days|nowadays)\b", re.IGNORECASE)


END = (
    r"(?=\s*(?:$|[,.;!?)]|\b(?:and|but|so|now|too|btw|lol|haha|since|for|because|though|anymore|"
    r"these\s+days|nowadays|tbh|honestly|ngl)\b))"
)


WORD = re.compile(r"[^\W_][\w'&+#.-]*")


NAME_WORD = re.compile(r"\s*([^\W\d_][^\W\d_'\-]*(?:['\-][^\W\d_]+)*)")


IM = r"\b(?:i\s*'\s*m|i\s+am|im)"


BE = r"\b(?:i\s*'\s*m|i\s+am|im|we\s*'\s*re|we\s+are)"


IVE = r"\b(?:i\s*'\s*ve|i\s+have|we\s*'\s*ve|we\s+have)"


DONT = r"(?:don'?t|do\s+not)"


NOW = r"(?:(?:currently|now|still|also|actually|just|recently|finally|officially)\s+){0,2}"


LIKE_ADV = (
    r"(?:(?:really|also|just|absolutely|totally|truly|genuinely|honestly|actually|definitely|still|do|so|"
    r"especially|particularly|quite|seriously|personally|secretly|always|generally|mostly|now)\s+){0,3}"
)


FAV = r"(?P<fav>favou?rite|fave?|fav)"

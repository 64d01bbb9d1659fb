"""Which earlier statements a later one overrides.

A summary states where a conversation ended up, not every step on the way: "maybe Osaka" followed
by "let's skip Osaka" keeps only the latter, and "the budget is $3,000" followed by "the budget is
$2,500 now" keeps only the new amount. Two rules, both on the sentences' embeddings:

- a later sentence with a change cue (skip, cancel, instead, actually, no longer, changed my
  mind...) overrides each earlier one that has a content word of the cue's object (the
  CUE_WINDOW words after the cue: "skip *Osaka*"), if they are about the same thing at all
  (cosine >= CUE_SIMILARITY);
- a later sentence by the same speaker that says nearly the same (cosine >= RESTATED) overrides
  the earlier one: it restates it, with whatever changed since.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from app.ai.summarize.cleanup import WORD

CUE_SIMILARITY = 0.35
CUE_WINDOW = 3
RESTATED = 0.86

_CUE = re.compile(
    r"\b(?:skip(?:ping|ped)?|cancel(?:l?ed|ling|s)?|instead|actually|rather|no\s+longer|any\s?more|"
    r"changed?\s+(?:my|our)\s+minds?|scratch\s+that|never\s?mind|forget|drop(?:ping|ped)?|won['\u2019]t|"
    r"will\s+not|not\s+going|decided|switch(?:ed|ing)?|replac(?:e|ed|ing)|no\s+more|don['\u2019]t\s+want|"
    r"do\s+not\s+want|don['\u2019]t\s+need|moved|postpone[ds]?|reschedul\w{0,4}|now)\b",
    re.IGNORECASE,
)
_STOP = frozenset(
    re.findall(
        r"\S+",
        """the and for with that this what have has had was were are our your their they them then than
        there here from into onto about just also very really some any all can could would should will
        shall might must may not dont don't won't i'm it's that's let's lets maybe perhaps think sure
        want need like going go get got make made take took see saw know yes yeah okay well good great
        nice cool day days time thing things instead actually rather skip cancel decided now more""",
    )
)


def cue_objects(text: str) -> frozenset[str]:
    """The content words right after each change cue: what the change is about."""
    out: set[str] = set()
    for m in _CUE.finditer(text):
        out |= content_words(" ".join(text[m.end() : m.end() + 200].split()[:CUE_WINDOW]))
    return frozenset(out)


def content_words(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in WORD.findall(text) if len(w) >= 3 and w.lower() not in _STOP) | {
        n for n in re.findall(r"[0-9]+", text)
    }


def overridden(
    texts: Sequence[str],
    speakers: Sequence[str | None],
    fresh: Sequence[bool],
    vectors: npt.NDArray[np.float32],
) -> tuple[set[int], set[int]]:
    """The indices (in conversation order) of the statements a later fresh one overrides, and of
    those that override. Only fresh statements override: the previous summary's statements
    already settled among themselves."""
    sims = vectors @ vectors.T
    words = [content_words(t) for t in texts]
    objects = [cue_objects(texts[j]) if fresh[j] else frozenset[str]() for j in range(len(texts))]
    out: set[int] = set()
    by: set[int] = set()
    for j in range(len(texts)):
        if not fresh[j]:
            continue
        for i in range(j):
            if i in out:
                continue
            if objects[j] & words[i] and sims[i, j] >= CUE_SIMILARITY:
                out.add(i)
                by.add(j)
            elif sims[i, j] >= RESTATED and speakers[i] == speakers[j]:
                out.add(i)
    return out, by - out

"""Sentences and token-bounded prefixes of user text, in linear time on any input.

Every pattern here matches without backtracking over unbounded runs: a line break is found on
its own (the spaces around it are trimmed afterwards, in one pass), never as `\\s*\\n\\s*`, which
rescans a long run of spaces from each of its positions (quadratic: a 100 KB message of spaces
took seconds).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.ai.tokenizer import Tokenizer


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ABBREVIATIONS = _words("mr mrs ms dr prof sr jr st vs e.g i.e cf approx dept est fig inc ltd mt")
# Quotes and brackets that may close a sentence after its full stop; CJK stops need no space after.
CLOSERS = "\"'\u201d\u2019\u00bb)\\]\uff09\u300d\u300f"
_CJK_STOPS = "\u3002\uff01\uff1f"
_OPENERS = "([\"'\u201c\u2018"
# A stop run matches only from its first character and possessively: tried from each of its
# characters, with backtracking, a long run of dots before a letter costs the square of its length.
_BOUNDARY = re.compile(
    rf"(?P<p>(?<![.!?\u2026])[.!?\u2026]++[{CLOSERS}]*+)(?=\s|$)|[{_CJK_STOPS}]++[{CLOSERS}]*+|(?P<n>\n)"
)
_NON_SPACE = re.compile(r"\S")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`, whitespace trimmed. Ends are sentence punctuation
    (Latin or CJK) before a space, or a line break; "Dr." and initials like "J." do not end one."""
    spans: list[tuple[int, int]] = []
    start = 0

    def add(s: int, e: int) -> None:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            spans.append((s, e))

    for m in _BOUNDARY.finditer(text):
        stop = m.group("p")
        if stop == ".":
            word = text[max(start, m.start() - 20) : m.start()].split()[-1:] or [""]
            token = word[0].lstrip(_OPENERS)
            if token.lower() in _ABBREVIATIONS or (len(token) == 1 and token.isupper()):
                continue
        elif stop and set(stop) <= {".", "\u2026"}:
            following = _NON_SPACE.search(text, m.end())  # from the match on: no copy of the rest
            if following is not None and following.group().islower():
                continue  # a trailing-off "..." inside a sentence
        add(start, m.start() if m.group("n") else m.end())
        start = m.end()
    add(start, len(text))
    return spans


def split_sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in sentence_spans(text)]


def truncate_to_tokens(text: str, max_tokens: int, tokenizer: Tokenizer) -> str:
    """The longest prefix of `text` within `max_tokens`: cut after a sentence if that keeps at least
    half the budget, else after a word, else (one enormous word, or a script without spaces) anywhere."""
    text = text.strip()
    if max_tokens <= 0:
        return ""
    if tokenizer.count(text) <= max_tokens:
        return text
    sentence_ends = [e for _, e in sentence_spans(text)]
    cut, used = _longest_prefix(text, sentence_ends, max_tokens, tokenizer)
    if used * 2 < max_tokens:
        word_ends = [m.end() for m in re.finditer(r"\S+", text)]
        cut, used = _longest_prefix(text, word_ends, max_tokens, tokenizer)
    if not cut:
        cut, _ = _longest_prefix(text, range(1, len(text)), max_tokens, tokenizer)
    return cut


def _longest_prefix(text: str, cuts: Sequence[int], budget: int, tokenizer: Tokenizer) -> tuple[str, int]:
    # Binary search: token counts grow with the prefix (near enough: every answer is counted).
    lo, hi, best = -1, len(cuts), ("", 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        prefix = text[: cuts[mid]].rstrip()
        n = tokenizer.count(prefix)
        if n <= budget:
            lo, best = mid, (prefix, n)
        else:
            hi = mid
    return best

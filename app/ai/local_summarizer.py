"""A deterministic extractive summariser: no model server, only the local embedder.

The summary is a choice of the conversation's own sentences, each line "[date] Speaker: text" (the
date only where it changes), in chronological order. Salience is similarity to the centroid of all
candidate sentences plus boosts for what memories are made of (names, numbers, dates, first-person
facts, preferences and plans); greetings and acknowledgements never compete, near-duplicates are
skipped (MMR), and the previous summary's sentences run with a bonus so older key facts persist.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from app.ai.embedder import Embedder, Vectors
from app.ai.offload import Offload, inline
from app.ai.relative_time import MONTHS, WEEKDAYS, resolve_relative_dates
from app.ai.summarizer import Turn
from app.ai.tokenizer import Tokenizer

CHUNK_TOKENS = 60  # a longer sentence is cut (at word boundaries) into pieces of at most this many
CHUNK_CHARS = 480  # window read per piece: more than CHUNK_TOKENS tokens of any script
MAX_CANDIDATES = 256  # bounds the embedding call; the most promising (by boosts) are kept
DUPLICATE = 0.9  # cosine above which a sentence repeats one already kept
MMR_LAMBDA = 0.3  # weight of the similarity to kept sentences, against salience
SLACK = 8  # tokens of error allowed in the additive cost estimate before counting exactly
# "user": what the user says about themselves is what a memory is for; an assistant's suggestions
# are less often worth keeping.
BOOSTS = {
    "name": 0.10,
    "number": 0.10,
    "date": 0.10,
    "fact": 0.15,
    "previous": 0.15,
    "question": -0.05,
    "user": 0.10,
}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ABBREVIATIONS = _words("mr mrs ms dr prof sr jr st vs e.g i.e cf approx dept est fig inc ltd mt")
# Quotes and brackets that may close a sentence after its full stop; CJK stops need no space after.
_CLOSERS = "\"'\u201d\u2019\u00bb)\\]\uff09\u300d\u300f"
_CJK_STOPS = "\u3002\uff01\uff1f"
_OPENERS = "([\"'\u201c\u2018"
_BOUNDARY = re.compile(
    rf"(?P<p>[.!?\u2026]+[{_CLOSERS}]*)(?=\s|$)|[{_CJK_STOPS}]+[{_CLOSERS}]*|(?P<n>\s*\n\s*)"
)
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")
_FILLER = _words(
    """hi hello hey hiya yo greetings good morning afternoon evening night day thanks thank thx ty you
    welcome please sorry ok okay k kk sure yes yeah yep yup no nope nah alright right great cool nice
    awesome perfect fine got it sounds lol haha hmm um uh oh ah wow bye goodbye see later cheers np
    anytime glad happy help helps helped to i me my we us your yours it its this that the a an is are
    was be am do does did can could would will shall may might how what anything else there here today
    again just so and or but for with of all too very much well totally absolutely indeed noted
    understood course that's it's you're i'm what's here's there's let's i'll you'll we'll wonderful
    amazing fantastic excellent lovely interesting exciting congratulations congrats really definitely
    exactly agreed good"""
)
_FACT = re.compile(
    r"\b(?:i|we)(?:['\u2019](?:m|re|ve|ll|d)|\s+(?:am|are|was|were|have|had|will|would|shall|plan|want|"
    r"need|like|love|hate|prefer|enjoy|live|work|moved|bought|got|own|study|don['\u2019]t|do\s+not|can['\u2019]t|"
    r"cannot|never|always|usually))\b|\bmy\s+[^\W\d_]+(?:\s+[^\W\d_]+)?\s+(?:is|are|was|were)\b|"
    r"\b(?:call\s+me|remind\s+me|i['\u2019]m\s+allergic|i\s+am\s+allergic)\b",
    re.IGNORECASE,
)
_DATE = re.compile(
    rf"\b(?:[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}|[0-9]{{1,2}}[/.][0-9]{{1,2}}(?:[/.][0-9]{{2,4}})?|"
    rf"{'|'.join(MONTHS)}|{'|'.join(WEEKDAYS)})\b",
    re.IGNORECASE,
)
_NOT_NAMES = {"I", "OK"} | {f"I{q}{s}" for q in "'\u2019" for s in ("m", "ve", "ll", "d")}
_SUMMARY_LINE = re.compile(
    r"^(?:\[(?P<day>[0-9]{4}-[0-9]{2}-[0-9]{2})\]\s*)?(?:(?P<speaker>[^\W\d_][\w .'\u2019-]{0,63}?):\s+)?"
)


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
        elif stop and set(stop) <= {".", "\u2026"} and text[m.end() :].lstrip()[:1].islower():
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


@dataclass
class _Candidate:
    text: str
    group: int  # sentences of one turn (or one summary line) share a line when kept together
    speaker: str | None
    day: str | None
    previous: bool
    filler: bool
    boost: float = 0.0
    by_user: bool = False
    # Token costs, to estimate what adding the sentence adds to the rendered summary
    cost: int = 0
    speaker_cost: int = 0  # a line of its own ("Alice: ")
    day_cost: int = 0  # the first line of its day ("[2026-11-20] ")


def is_low_information(sentence: str) -> bool:
    """Greetings, thanks, "ok", "how can I help?": no number and only filler words."""
    if any(ch.isdigit() for ch in sentence):
        return False
    words = _WORD.findall(sentence)
    # "Both.", "Sounds good!": too short to stand alone in a summary. ASCII only: a short CJK
    # sentence is one "word" to this pattern and may say a lot.
    if len(words) <= 2 and len(sentence) < 16 and sentence.isascii():
        return True
    return all(w.lower() in _FILLER for w in words)


def _boost(c: _Candidate) -> float:
    words = _WORD.findall(c.text)
    features = {
        "name": any(w[0].isupper() and w not in _NOT_NAMES for w in words[1:]),
        "number": any(ch.isdigit() for ch in c.text),
        "date": bool(_DATE.search(c.text)),
        "fact": bool(_FACT.search(c.text)),
        "previous": c.previous,
        "question": c.text.rstrip(_CLOSERS).endswith(("?", "\uff1f")),
        "user": c.by_user,
    }
    return sum(BOOSTS[k] for k, on in features.items() if on)


def _salience(cands: Sequence[_Candidate], vectors: Vectors) -> npt.NDArray[np.float64]:
    """Cosine to the centroid plus the boosts, rounded so float noise never reorders."""
    centroid = vectors.mean(axis=0)
    centroid /= max(float(np.linalg.norm(centroid)), 1e-12)
    scores: npt.NDArray[np.float64] = np.round((vectors @ centroid) + np.array([c.boost for c in cands]), 6)
    return scores


def _speaker(turn: Turn) -> str:
    # Names are free text: no colon, brackets or line break, which would break the line format.
    label = " ".join(re.sub(r"[:\[\]]", " ", turn.name or turn.role).split())[:64]
    return (label if turn.name else label.capitalize()) or "Unknown"


class LocalSummarizer:
    name = "local/extractive"

    def __init__(self, *, embedder: Embedder | None, tokenizer: Tokenizer, offload: Offload = inline) -> None:
        self._embedder = embedder  # None only in the child process that runs the CPU parts
        self._tokenizer = tokenizer
        self._offload = offload

    async def summarize(self, *, previous: str | None, turns: Sequence[Turn], max_tokens: int) -> str:
        if max_tokens <= 0:
            return ""
        assert self._embedder is not None
        # The pure-Python parts (splitting, scoring, selecting) run through `offload` (the worker's
        # child processes, within the item's time budget); only the embedding call runs here.
        candidates = await self._offload(_prepare, self._tokenizer.name, previous, list(turns))
        if not candidates:
            return ""
        vectors = await self._embedder.embed([c.text for c in candidates])
        return await self._offload(_choose, self._tokenizer.name, candidates, vectors, max_tokens)

    def prepare(self, previous: str | None, turns: Sequence[Turn]) -> list[_Candidate]:
        """The candidate sentences, filler only where there is nothing else, at most MAX_CANDIDATES,
        with their token costs."""
        candidates = self._candidates(previous, turns)
        if not all(c.filler for c in candidates):  # filler only competes when there is nothing else
            candidates = [c for c in candidates if not c.filler]
        if len(candidates) > MAX_CANDIDATES:
            best = sorted(range(len(candidates)), key=lambda i: (-candidates[i].boost, i))
            candidates = [candidates[i] for i in sorted(best[:MAX_CANDIDATES])]
        count = self._tokenizer.count
        for c in candidates:
            c.cost = count(c.text) + 1  # the joining space or line break
            c.speaker_cost = count(f"{c.speaker}: ") if c.speaker else 0
            c.day_cost = count(f"[{c.day}] ") if c.day else 0
        return candidates

    def choose(self, candidates: list[_Candidate], vectors: Vectors, max_tokens: int) -> str:
        """The summary: the best candidates that fit, rendered."""
        kept = self._select(candidates, vectors, max_tokens)
        if kept:
            return self._render([candidates[i] for i in kept])
        return self._fallback(candidates, vectors, max_tokens)

    def _candidates(self, previous: str | None, turns: Sequence[Turn]) -> list[_Candidate]:
        out: list[_Candidate] = []
        day: str | None = None
        for group, line in enumerate((previous or "").splitlines()):
            m = _SUMMARY_LINE.match(line)
            assert m is not None  # every part of the pattern is optional
            day = m.group("day") or day
            for sentence in split_sentences(line[m.end() :]):
                out.append(_Candidate(sentence, -1 - group, m.group("speaker"), day, True, False))
        for group, turn in enumerate(sorted(turns, key=lambda t: t.seq)):
            turn_day, speaker = turn.created_at.date().isoformat(), _speaker(turn)
            for sentence in split_sentences(turn.content):
                filler = is_low_information(sentence)
                for piece in self._pieces(resolve_relative_dates(sentence, turn.created_at)):
                    out.append(
                        _Candidate(
                            piece, group, speaker, turn_day, False, filler, by_user=turn.role == "user"
                        )
                    )
        for c in out:
            c.boost = _boost(c)
        return out

    def _pieces(self, sentence: str) -> list[str]:
        pieces: list[str] = []
        rest = sentence.strip()
        while rest:
            if len(rest) <= CHUNK_CHARS and self._tokenizer.count(rest) <= CHUNK_TOKENS:
                pieces.append(rest)
                break
            window = rest[:CHUNK_CHARS]
            head = truncate_to_tokens(window, CHUNK_TOKENS, self._tokenizer)
            if head == window.rstrip() and len(rest) > len(window):  # the window fit: end it at a word
                space = max(head.rfind(" "), head.rfind("\n"))
                head = head[:space].rstrip() if space > len(head) // 2 else head
            head = head or rest[:1]  # a character over budget by itself still makes progress
            pieces.append(head)
            rest = rest[len(head) :].lstrip()
        return pieces

    def _select(self, cands: list[_Candidate], vectors: Vectors, max_tokens: int) -> list[int]:
        """Greedy MMR in order of salience, each sentence kept if it is no near-duplicate and fits;
        the token count is estimated additively and counted exactly near the budget."""
        salience = _salience(cands, vectors)
        sims = vectors @ vectors.T
        closest = np.zeros(len(cands))  # highest similarity to a kept sentence
        undecided = np.ones(len(cands), dtype=bool)
        kept: list[int] = []
        used = 0
        while undecided.any():
            # Rounded so float noise never reorders; argmax takes the earliest of equals.
            value = np.round(salience - MMR_LAMBDA * closest, 6)
            i = int(np.argmax(np.where(undecided, value, -np.inf)))
            undecided[i] = False
            c = cands[i]
            cost = c.cost
            if all(cands[k].group != c.group for k in kept):
                cost += c.speaker_cost + (c.day_cost if all(cands[k].day != c.day for k in kept) else 0)
            if closest[i] > DUPLICATE or used + cost > max_tokens + SLACK:
                continue
            trial = sorted([*kept, i])
            if used + cost > max_tokens - SLACK:
                exact = self._tokenizer.count(self._render([cands[k] for k in trial]))
                if exact > max_tokens:
                    continue
                used = exact
            else:
                used += cost
            kept = trial
            closest = np.maximum(closest, sims[:, i])
        while kept and self._tokenizer.count(self._render([cands[k] for k in kept])) > max_tokens:
            kept.remove(min(kept, key=lambda k: (salience[k], -k)))  # the estimate was wrong: rare
        return kept

    def _fallback(self, cands: list[_Candidate], vectors: Vectors, max_tokens: int) -> str:
        """Nothing fits whole: the most salient sentence, cut to the budget, with as much of its
        prefix ("[date] Speaker:") as leaves room for some of its words."""
        best = cands[int(np.argmax(_salience(cands, vectors)))]
        variants = [(best.day, best.speaker), (None, best.speaker), (None, None)]
        for n, (day, speaker) in enumerate(variants, 1):
            line = self._render([_Candidate(best.text, best.group, speaker, day, best.previous, best.filler)])
            prefix = line[: len(line) - len(best.text)]
            if self._tokenizer.count(prefix) * 2 <= max_tokens or n == len(variants):
                return truncate_to_tokens(line, max_tokens, self._tokenizer)
        raise AssertionError("unreachable")

    @staticmethod
    def _render(kept: Sequence[_Candidate]) -> str:
        lines: list[str] = []
        last_day: str | None = None
        for k, c in enumerate(kept):
            if k and c.group == kept[k - 1].group:
                lines[-1] += " " + c.text
                continue
            date = f"[{c.day}] " if c.day and c.day != last_day else ""
            last_day = c.day or last_day
            lines.append(date + (f"{c.speaker}: " if c.speaker else "") + c.text)
        return "\n".join(lines)

    async def aclose(self) -> None:
        """The embedder belongs to the caller, who closes it."""


# The CPU parts as module functions, so a child process can run them (by name, with a tokenizer
# name rather than the tokenizer itself).
@functools.cache
def _rules(tokenizer: str) -> LocalSummarizer:
    return LocalSummarizer(embedder=None, tokenizer=Tokenizer(tokenizer))


def _prepare(tokenizer: str, previous: str | None, turns: Sequence[Turn]) -> list[_Candidate]:
    return _rules(tokenizer).prepare(previous, turns)


def _choose(tokenizer: str, candidates: list[_Candidate], vectors: Vectors, max_tokens: int) -> str:
    return _rules(tokenizer).choose(candidates, vectors, max_tokens)

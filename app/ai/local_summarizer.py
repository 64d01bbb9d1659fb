"""A deterministic offline summariser: no model server, only the local embedder and the tokenizer.

A summary is a fraction of what it covers (ENGRAM_SUMMARY_MAX_RATIO of the covered tokens, at most
the step's `max_tokens`), written as lines "[date] Speaker: statements" in the order things were
said (the date only where it changes). It is made in three passes:

1. statements: every sentence of the new turns, relative time words resolved against the turn's
   `created_at`, stripped of interjections, vocatives and intensifiers; greetings and
   acknowledgements are dropped. The previous summary's statements join them, first;
2. overrides (app.ai.summarize.overrides): a later statement that cancels, corrects or restates
   an earlier one removes it ("maybe Osaka" then "skip Osaka" keeps only the latter);
3. choice (app.ai.summarize.select): the statements that best cover all the others, weighted by
   what memories are made of (names, numbers, dates, first-person facts, constraints such as
   allergies, budgets, deadlines, trip length and companions), within the budget. The previous
   summary's statements weigh more: each stands for many turns, so a step folds the old summary
   into the new one instead of copying or losing it.

Passes 1 and 3 are pure functions of their inputs (`prepare`, `compose`); only the embedding
between them calls the model. They run through `offload` (the worker's child processes, within
the item's time budget; inline elsewhere), so they never hold the API's event loop.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from app.ai.embedder import Embedder, Vectors
from app.ai.fact_extractor import speaker_of
from app.ai.offload import Offload, inline
from app.ai.relative_time import MONTHS, resolve_relative_dates
from app.ai.summarize import cleanup, overrides, select
from app.ai.summarize.sentences import sentence_spans as sentence_spans
from app.ai.summarize.sentences import split_sentences as split_sentences
from app.ai.summarize.sentences import truncate_to_tokens as truncate_to_tokens
from app.ai.summarizer import Turn
from app.ai.third_person import restate, stands_alone
from app.ai.tokenizer import Tokenizer, named

DEFAULT_RATIO = 0.3
MIN_TOKENS = 48  # the least a summary is given, however short what it covers: a few statements
CHUNK_TOKENS = 60  # a longer sentence is cut (at word boundaries) into pieces of at most this many
CHUNK_CHARS = 480  # window read per piece: more than CHUNK_TOKENS tokens of any script
MAX_CANDIDATES = 256  # bounds the embedding call and the choice; the heaviest are kept
# What a statement's weight is made of: BASE plus each feature's weight times how often it occurs
# (at most MAX_COUNT times): specific details are what a memory is for.
BASE = 0.5
MAX_COUNT = 3
WEIGHTS = {
    "name": 0.3,  # each capitalised word past the first
    "number": 0.35,  # each number or date
    "fact": 0.4,  # first-person facts and plans
    "hard": 1.5,  # allergies and diets, money, deadlines
    "soft": 0.6,  # durations, companions, papers
    "question": -0.8,
    "assistant": -0.3,  # an unnamed assistant's suggestions are less often worth keeping than what users say
    "short": -0.4,  # under four words: too little to stand alone
}
CHANGE_WEIGHT = 1.0  # added to a statement that overrides an earlier one: where the plan ended up
PREVIOUS_WEIGHT = 2.0  # a previous summary's statement stands for several turns
OPENING_WEIGHT = 3.0  # "Priya and Sam talked on ...": cheap, and what a reader asks first
_SUMMARY_LINE = re.compile(
    r"(?:\[(?P<day>[0-9]{4}-[0-9]{2}-[0-9]{2})\]\s{0,3})?"
    r"(?:(?P<speaker>[^\W\d_][\w .'\u2019-]{0,63}?):\s{1,3})?"
)
_LABEL_JUNK = re.compile(r"[:\[\]\s]+")


@dataclass
class Statement:
    text: str
    speaker: str | None
    day: str | None
    previous: bool
    role: str = ""  # of the turn it comes from ("" from a previous summary)
    named: bool = False  # the turn has a name (a person, even in the assistant role)
    # Restated in the third person ("Priya went ..."): it names its speaker, so it needs no label.
    restated: bool = False
    weight: float = 1.0
    cost: int = 0  # tokens it adds to the rendered summary (with its line's label, estimated)


@dataclass
class Draft:
    """What `prepare` makes of a step's input: statements in conversation order."""

    statements: list[Statement] = field(default_factory=list)
    previous_tokens: int = 0
    turn_tokens: int = 0


def _named_person(turn: Turn) -> bool:
    """A turn by a person with a name: a named user, or a named assistant (the other person of a
    talk between two people, as `speaker_of` reads it); not a tool or a system prompt."""
    return bool(turn.name and turn.name.strip()) and speaker_of(turn) != ""


def _speaker(turn: Turn) -> str:
    # Names are free text: no colon, brackets or line break, which would break the line format.
    label = _LABEL_JUNK.sub(" ", turn.name or turn.role).strip()[:64].strip()
    return (label if turn.name else label.capitalize()) or "Unknown"


_NUMBER = re.compile(r"(?<![0-9])[0-9][0-9,.:/-]*+")


def _weight(s: Statement) -> float:
    words = cleanup.WORD.findall(s.text)
    names = {w for w in words[1:] if w[0].isupper() and w not in cleanup.NOT_NAMES}
    numbers = set(_NUMBER.findall(s.text)) | {m.group().lower() for m in cleanup.DATE.finditer(s.text)}
    features = {
        "name": min(len(names), MAX_COUNT),
        "number": min(len(numbers), MAX_COUNT),
        "fact": cleanup.FACT.search(s.text) is not None,
        "hard": cleanup.HARD_CONSTRAINT.search(s.text) is not None,
        "soft": cleanup.SOFT_CONSTRAINT.search(s.text) is not None,
        "question": cleanup.is_question(s.text),
        "assistant": _unnamed_assistant(s),
        "short": len(words) < 4,
    }
    return max(0.1, BASE + sum(WEIGHTS[k] * float(v) for k, v in features.items()))


def _unnamed_assistant(s: Statement) -> bool:
    return s.role == "assistant" and not s.named


def _constrains(text: str) -> bool:
    return (
        cleanup.HARD_CONSTRAINT.search(text) is not None or cleanup.SOFT_CONSTRAINT.search(text) is not None
    )


def _pieces(sentence: str, tokenizer: Tokenizer) -> list[str]:
    """A sentence cut into pieces of at most CHUNK_TOKENS tokens, at word boundaries."""
    pieces: list[str] = []
    pos, end = 0, len(sentence)
    while pos < end:
        window = sentence[pos : pos + CHUNK_CHARS]
        if pos + CHUNK_CHARS >= end and tokenizer.count(window) <= CHUNK_TOKENS:
            pieces.append(window.strip())
            break
        head = truncate_to_tokens(window, CHUNK_TOKENS, tokenizer)
        if head == window.rstrip() and pos + CHUNK_CHARS < end:  # the window fit: end it at a word
            space = max(head.rfind(" "), head.rfind("\n"))
            head = head[:space].rstrip() if space > len(head) // 2 else head
        head = head or window[:1]  # a character over budget by itself still makes progress
        pieces.append(head)
        pos += window.find(head) + len(head)
        while pos < end and sentence[pos].isspace():
            pos += 1
    return [p for p in pieces if p]


def parse_summary(previous: str) -> list[Statement]:
    """The statements of a summary in this format (or the former extractive one, which is the same
    line format), each with the day and speaker of its line."""
    out: list[Statement] = []
    day: str | None = None
    for line in previous.splitlines():
        m = _SUMMARY_LINE.match(line)
        assert m is not None  # every part of the pattern is optional
        day = m.group("day") or day
        for sentence in split_sentences(line[m.end() :]):
            out.append(Statement(sentence, m.group("speaker"), day, previous=True))
    return out


def prepare(previous: str | None, turns: Sequence[Turn], tokenizer: Tokenizer) -> Draft:
    """Pass 1: the statements of the previous summary and of the new turns, with their weights
    and estimated costs. Pure: no model, no I/O."""
    draft = Draft(statements=parse_summary(previous or ""))
    draft.previous_tokens = tokenizer.count(previous) if previous else 0
    for s in draft.statements:
        s.weight = PREVIOUS_WEIGHT * _weight(s)
    fresh: list[Statement] = []
    filler: list[Statement] = []  # greetings and thanks: said only when nothing else was
    ordered = sorted(turns, key=lambda t: t.seq)
    # A tool's or a system prompt's `name` is no person: only people talk and are talked to.
    names = sorted({_speaker(t) for t in ordered if _named_person(t)})
    opening = _opening(names, ordered)
    if opening is not None:
        fresh.append(opening)
    for turn in ordered:
        draft.turn_tokens += tokenizer.count(turn.content)
        day, speaker = turn.created_at.date().isoformat(), _speaker(turn)
        # Said to the one other named person of the talk, "you" is them.
        person = _named_person(turn)
        others = [n for n in names if n != speaker or not person]
        listener = others[0] if len(others) == 1 else None
        for sentence in split_sentences(turn.content):
            text = "" if cleanup.is_low_information(sentence) else cleanup.condense(sentence)
            low = not text or cleanup.is_low_information(text)
            for piece in _pieces(
                resolve_relative_dates(sentence if low else text, turn.created_at), tokenizer
            ):
                s = Statement(piece, speaker, day, previous=False, role=turn.role, named=bool(turn.name))
                s.weight = _weight(s)  # on the speaker's own words: "I ..." is what FACT looks for
                if (person or (listener and turn.role in ("user", "assistant"))) and not low:
                    s.text, changed = restate(piece, speaker, listener=listener, me=person)
                    # Only a statement that names its speaker stands without the label: "You're
                    # doing great" stays Sam's opinion ("Sam: Priya is doing great").
                    s.restated = changed and stands_alone(s.text, speaker)
                (filler if low else fresh).append(s)
    if not fresh and not draft.statements:
        fresh = filler
    if len(fresh) > MAX_CANDIDATES:
        heaviest = sorted(range(len(fresh)), key=lambda i: (-fresh[i].weight, i))[:MAX_CANDIDATES]
        fresh = [fresh[i] for i in sorted(heaviest)]
    draft.statements += fresh
    for s in draft.statements:
        s.cost = tokenizer.count(s.text) + 1  # and the joining space or line break
    return draft


def _opening(names: list[str], turns: Sequence[Turn]) -> Statement | None:
    """ "Priya and Sam talked on 3 March 2023 at 4:10 pm.": who talked and when, for a talk
    between named people (two or more), from its first turn's time."""
    if len(names) < 2:
        return None
    at = turns[0].created_at
    when = f"on {at.day} {MONTHS[at.month - 1]} {at.year} at {at.hour % 12 or 12}:{at.minute:02d} "
    when += "am" if at.hour < 12 else "pm"
    who = ", ".join(names[:-1]) + " and " + names[-1]
    s = Statement(f"{who} talked {when}.", None, at.date().isoformat(), previous=False, restated=True)
    s.weight = OPENING_WEIGHT
    return s


def budget_for(draft: Draft, *, max_tokens: int, ratio: float | None) -> int:
    """A fraction of what the summary covers: the previous summary (itself within the ratio of
    what it covered) plus `ratio` of the new turns' tokens; at least MIN_TOKENS, at most max_tokens
    (None: max_tokens)."""
    if ratio is None:
        return max_tokens
    wanted = draft.previous_tokens + math.floor(ratio * draft.turn_tokens)
    return min(max_tokens, max(MIN_TOKENS, wanted))


def render(kept: Sequence[Statement]) -> str:
    """Lines "[date] Speaker: statements" in conversation order; statements that name their
    speaker ("Priya went ...") need no label and share a line with their neighbours of the day."""
    lines: list[str] = []
    last_day: str | None = None
    last: tuple[str | None, str | None] | None = None
    for s in kept:
        label = None if s.restated else s.speaker
        if last is not None and (label, s.day) == last:
            lines[-1] += " " + s.text
        else:
            date = f"[{s.day}] " if s.day and s.day != last_day else ""
            last_day = s.day or last_day
            lines.append(date + (f"{label}: " if label else "") + s.text)
        last = (label, s.day)
    return "\n".join(lines)


def compose(draft: Draft, vectors: Vectors, *, budget: int, tokenizer: Tokenizer) -> str:
    """Passes 2 and 3: drop what later statements override, choose what covers the rest best
    within `budget` tokens, render in conversation order. Pure: no model, no I/O."""
    statements = draft.statements
    gone, changes = overrides.overridden(
        [s.text for s in statements],
        [s.speaker for s in statements],
        [not s.previous for s in statements],
        vectors,
    )
    alive = [i for i in range(len(statements)) if i not in gone]
    cands = [statements[i] for i in alive]
    weights = [s.weight + (CHANGE_WEIGHT if i in changes else 0.0) for i, s in zip(alive, cands, strict=True)]
    vecs = vectors[alive]
    label_cost = {s.speaker: tokenizer.count(f"{s.speaker}: ") for s in cands if s.speaker}
    costs = [s.cost + (label_cost.get(s.speaker, 0) if s.speaker and not s.restated else 0) for s in cands]
    # Taken first: what a plan must respect (hard constraints, old or new, first; then the new soft
    # ones) and what changed it; not questions, not an assistant's restatements.
    first = sorted(
        (
            k
            for k, i in enumerate(alive)
            if not _unnamed_assistant(cands[k])
            and not cleanup.is_question(cands[k].text)
            and (
                cleanup.HARD_CONSTRAINT.search(cands[k].text) is not None
                or (not cands[k].previous and (i in changes or _constrains(cands[k].text)))
            )
        ),
        key=lambda k: (
            cleanup.HARD_CONSTRAINT.search(cands[k].text) is None,
            -round(weights[k] ** 2 / costs[k] ** select.COST_EXPONENT, 9),
            k,
        ),
    )

    def fits(choice: list[int]) -> bool:
        return tokenizer.count(render([cands[k] for k in choice])) <= budget

    chosen = select.choose(
        sims=select.coverage_similarity(vecs),
        weights=weights,
        costs=costs,
        budget=budget,
        fits=fits,
        first=first,
        eligible=[not cleanup.is_question(s.text) for s in cands],
    )
    while chosen and not fits(chosen):  # the estimate was wrong: drop the lightest (rare)
        chosen.remove(min(chosen, key=lambda k: (weights[k], -k)))
    if chosen:
        return render([cands[k] for k in chosen])
    return _fallback(cands, budget, tokenizer)


def _fallback(cands: list[Statement], budget: int, tokenizer: Tokenizer) -> str:
    """Nothing fits whole: the heaviest statement cut to the budget, with as much of its label
    ("[date] Speaker:") as leaves room for some of its words."""
    if not cands:
        return ""
    best = max(cands, key=lambda s: s.weight)  # the first of the heaviest
    variants = [(best.day, best.speaker), (None, best.speaker), (None, None)]
    for n, (day, speaker) in enumerate(variants, 1):
        line = render([Statement(best.text, speaker, day, best.previous)])
        prefix = line[: len(line) - len(best.text)]
        if tokenizer.count(prefix) * 2 <= budget or n == len(variants):
            return truncate_to_tokens(line, budget, tokenizer)
    raise AssertionError("unreachable")


class LocalSummarizer:
    name = "local/condensed"

    def __init__(
        self,
        *,
        embedder: Embedder,
        tokenizer: Tokenizer,
        ratio: float | None = DEFAULT_RATIO,
        offload: Offload = inline,
    ) -> None:
        self._embedder = embedder
        self._tokenizer = tokenizer
        self._ratio = ratio
        self._offload = offload

    async def summarize(self, *, previous: str | None, turns: Sequence[Turn], max_tokens: int) -> str:
        if max_tokens <= 0:
            return ""
        name = self._tokenizer.name
        draft = await self._offload(_prepare, name, previous, list(turns))
        if not draft.statements:
            return ""
        if not turns:  # nothing new: the previous summary stands (within the budget)
            return await self._offload(_truncate, name, render(draft.statements), max_tokens)
        vectors = await self._embedder.embed([s.text for s in draft.statements])
        budget = budget_for(draft, max_tokens=max_tokens, ratio=self._ratio)
        return await self._offload(_compose, name, draft, np.asarray(vectors), budget)

    async def aclose(self) -> None:
        """The embedder belongs to the caller, who closes it."""


# The passes as module functions of a tokenizer's name, so a child process can run them.
def _prepare(tokenizer: str, previous: str | None, turns: Sequence[Turn]) -> Draft:
    return prepare(previous, turns, named(tokenizer))


def _compose(tokenizer: str, draft: Draft, vectors: Vectors, budget: int) -> str:
    return compose(draft, vectors, budget=budget, tokenizer=named(tokenizer))


def _truncate(tokenizer: str, text: str, max_tokens: int) -> str:
    return truncate_to_tokens(text, max_tokens, named(tokenizer))

"""Reconciliation: what candidate facts change in a user's current facts, as a list of operations.

Pure (no I/O), so every case is tested directly; `app.facts.tasks` applies the operations. In
the order the candidates came, each one is:
- a negation ("no longer eats meat") -> the current facts it ends are invalidated at its time: its
  subject's, and those of the same thing liked, eaten or done ("No longer eats fish." ends "Likes
  fish."; "Doesn't like hiking any more." ends "Likes hiking in the mountains.");
- an exact duplicate of a current fact -> nothing (but a new source message counts as a mention);
- a near duplicate (cosine >= merge threshold, no conflicting subject) -> merged into it;
- a new value of an exclusive slot (same subject) -> the old fact ends when the new one starts
  (`invalid_at`, `superseded_by`); a value older than the current one arriving late is stored
  as already superseded by it;
- a correction of an exclusive slot ("Actually I moved to Paris, not Berlin", "I meant Paris") ->
  the wrong value never held: it ends at its own `valid_from` (reason "corrected") and the new one
  holds from then, so no time shows both;
- a preference opposite to a current one about the same thing ("Dislikes the mountains." against
  "Likes hiking in the mountains.") -> the older one ends when the newer starts ("contradicted");
- anything else -> added.
Nothing is ever deleted here: what used to be true stays, with the dates it held.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

import numpy as np
import numpy.typing as npt

from app.ai.fact_extractor import FactCandidate

Vector = npt.NDArray[np.float32]
_WORD = re.compile(r"\w+")


def normalize(content: str) -> str:
    """The form two statements are compared in for exact duplicates. Linear in the text (str
    methods, no pattern that could backtrack over a run of spaces or dots)."""
    return " ".join(content.casefold().split()).rstrip(" .!?;:,")


@dataclass(frozen=True)
class Current:
    """A fact of the user that is valid now, as reconciliation needs it."""

    fact_id: uuid.UUID
    content: str
    subject: str | None
    exclusive: bool
    valid_from: datetime
    importance: float
    source_message_ids: tuple[uuid.UUID, ...]
    vector: Vector | None  # None until the worker has embedded it


@dataclass(frozen=True)
class Add:
    fact_id: uuid.UUID
    candidate: FactCandidate
    vector: Vector
    # Set when a newer value of the slot is already current: stored as ended by it.
    invalid_at: datetime | None = None
    superseded_by: uuid.UUID | None = None


@dataclass(frozen=True)
class Mention:
    """Said again (exact or near duplicate): new sources, a fresh mention, maybe a better text."""

    fact_id: uuid.UUID
    old_content: str
    new_content: str  # == old_content unless the merge took the more specific wording
    source_message_ids: tuple[uuid.UUID, ...]  # only the ones not already recorded
    importance: float
    at: datetime
    merged: bool  # a near duplicate (recorded as an UPDATE event); False: an exact repeat


@dataclass(frozen=True)
class Invalidate:
    fact_id: uuid.UUID
    content: str
    at: datetime
    reason: str  # "superseded", "negated", "corrected" or "contradicted"
    superseded_by: uuid.UUID | None
    source_message_ids: tuple[uuid.UUID, ...]


Op = Add | Mention | Invalidate


@dataclass(frozen=True)
class Thresholds:
    merge: float  # cosine at which a candidate is a near duplicate of a current fact
    negation: float  # cosine at which a negation without a shared subject ends a fact


@dataclass
class _State:
    current: list[Current]
    ops: list[Op] = field(default_factory=list)


@dataclass(frozen=True)
class Known:
    """A stored fact of the user, valid or not, as far as "was this read before?" needs it."""

    subject: str | None
    content: str
    source_message_ids: frozenset[uuid.UUID]


def reconcile(
    candidates: Sequence[tuple[FactCandidate, Vector]],
    current: Sequence[Current],
    thresholds: Thresholds,
    known: Sequence[Known] = (),
) -> list[Op]:
    """The operations that bring `current` up to date with `candidates` (vectors L2-normalised).

    `known` are all the user's stored facts, ended ones too: a candidate whose source messages a
    stored fact of the same subject (or, without one, the same statement) already records was read
    before, and is skipped; so reading a conversation again, after some of what it said has been
    superseded, adds nothing.
    """
    state = _State(current=list(current))
    for candidate, vector in candidates:
        if _read_before(candidate, known):
            continue
        if candidate.negated:
            _negate(state, candidate, vector, thresholds)
        else:
            _assert(state, candidate, vector, thresholds)
    return state.ops


def _read_before(cand: FactCandidate, known: Sequence[Known]) -> bool:
    sources = set(cand.source_message_ids)
    if cand.negated:  # a negation is not stored; what it ended records it as an event, not a source
        return False
    norm = normalize(cand.content)
    return any(
        sources <= k.source_message_ids
        and (k.subject == cand.subject if cand.subject is not None else normalize(k.content) == norm)
        for k in known
    )


def _cosine(a: Vector | None, b: Vector) -> float:
    return -1.0 if a is None else float(np.dot(a, b))


def _negate(state: _State, cand: FactCandidate, vector: Vector, th: Thresholds) -> None:
    ended = [
        f
        for f in state.current
        if f.valid_from <= cand.valid_from
        and (
            (cand.subject is not None and f.subject is not None and ends(cand.subject, f.subject))
            or normalize(f.content) == normalize(cand.content)
            or (_compatible(f, cand) and _cosine(f.vector, vector) >= th.negation)
        )
    ]
    for f in ended:
        state.ops.append(
            Invalidate(
                fact_id=f.fact_id,
                content=f.content,
                at=cand.valid_from,
                reason="negated",
                superseded_by=None,
                source_message_ids=cand.source_message_ids,
            )
        )
        state.current.remove(f)


# Slots that say the speaker likes, does or takes something, and those that say the opposite.
_LIKING = frozenset(("likes", "activity", "eats", "drinks", "habit", "favorite"))
_DISLIKING = frozenset(("dislikes", "avoids"))
# A leading verb of the slot's key says how, not what: "likes:eating fish" is about fish.
_HOW = frozenset(("eating", "drinking", "playing", "going", "doing", "watching", "listening", "having"))
_FILLER = frozenset(("in", "the", "a", "an", "of", "on", "at", "to", "with", "and", "for", "my", "some"))


def _thing(subject: str) -> tuple[str, tuple[str, ...]]:
    """A subject's prefix and the words of what it is about: "activity:hiking in mountain" ->
    ("activity", ("hiking", "in", "mountain"))."""
    prefix, _, key = subject.partition(":")
    words = key.split()
    if len(words) > 1 and words[0] in _HOW:
        words = words[1:]
    return prefix, tuple(words)


def ends(negated: str, subject: str) -> bool:
    """Whether a negation with subject `negated` ends a fact with `subject`: the same slot, or the
    same thing liked, eaten or done ("eats:fish" ends "likes:fish" and "likes:eating fish",
    "activity:hiking" ends "activity:hiking in mountain"), or disliked ("dislikes:x" / "avoids:x"),
    or a plan whose key has every word of the negated one's."""
    if negated == subject:
        return True
    (np_, n), (fp, f) = _thing(negated), _thing(subject)
    if np_ == fp == "plan":  # "plan:woodworking class" ends "plan:start woodworking class"
        words = set(n) - _FILLER
        return len(words) > 1 and words <= set(f)
    family = _LIKING if np_ in _LIKING else _DISLIKING if np_ in _DISLIKING else frozenset()
    return bool(n) and fp in family and f[: len(n)] == n


def opposed(a: str, b: str) -> bool:
    """Whether two subjects are opposite preferences about the same thing: one likes or does what
    the other dislikes or avoids, the words of one naming all of the other's ("likes:hiking in
    mountain" / "dislikes:mountain"; not "likes:italian food" / "dislikes:spicy food")."""
    (ap, aw), (bp, bw) = _thing(a), _thing(b)
    if not ((ap in _LIKING and bp in _DISLIKING) or (ap in _DISLIKING and bp in _LIKING)):
        return False
    x, y = set(aw) - _FILLER, set(bw) - _FILLER
    return bool(x and y) and (x <= y or y <= x)


def displaces(newer: Current, older: Current) -> bool:
    """Whether `newer`, being current, leaves no room for `older` to be current too: the same
    statement, another value of its exclusive slot, or the opposite preference about the same
    thing (what reconciliation would have ended `older` for, had `newer` arrived after it)."""
    if normalize(newer.content) == normalize(older.content):
        return True
    if newer.subject is None or older.subject is None:
        return False
    same_slot = newer.exclusive and older.exclusive and newer.subject == older.subject
    return same_slot or opposed(newer.subject, older.subject)


def _compatible(f: Current, cand: FactCandidate) -> bool:
    """Two statements about different named slots are never the same fact, however alike they read
    ("Lives in Lisbon." / "Lives in Porto." embed close)."""
    return f.subject is None or cand.subject is None or f.subject == cand.subject


def _may_merge(f: Current, cand: FactCandidate) -> bool:
    """In an exclusive slot a near duplicate must say no other thing: "Lives in Lisbon, Portugal."
    merges into "Lives in Lisbon.", but "Lives in Porto." replaces it, however close they embed."""
    if not (cand.exclusive and f.subject == cand.subject):
        return True
    a, b = set(_WORD.findall(f.content.casefold())), set(_WORD.findall(cand.content.casefold()))
    return a <= b or b <= a


def _assert(state: _State, cand: FactCandidate, vector: Vector, th: Thresholds) -> None:
    norm = normalize(cand.content)
    same = next((f for f in state.current if normalize(f.content) == norm), None)
    if same is not None:
        _mention(state, same, cand, cand_content=same.content, merged=False)
        return
    near = [(f, _cosine(f.vector, vector)) for f in state.current if _compatible(f, cand)]
    best = max(near, key=lambda p: p[1], default=None)
    if best is not None and best[1] >= th.merge and _may_merge(best[0], cand):
        f = best[0]
        # The longer wording of the same fact usually carries more ("Lives in Lisbon, Portugal.").
        text = cand.content if len(cand.content) > len(f.content) else f.content
        _mention(state, f, cand, cand_content=text, merged=True)
        return
    new_id = uuid.uuid4()
    wrong = _corrected(state, cand)
    if wrong:  # the new value holds from when the wrong one was said; that one never held
        cand = replace(cand, valid_from=min(cand.valid_from, *(f.valid_from for f in wrong)))
        for f in wrong:
            _end(state, f, cand, at=f.valid_from, reason="corrected", by=new_id)
    slot = [f for f in state.current if cand.exclusive and f.subject == cand.subject]
    against = [f for f in state.current if f.subject and cand.subject and opposed(f.subject, cand.subject)]
    newer = [f for f in (*slot, *against) if f.valid_from > cand.valid_from]
    if newer and not wrong:  # an older value, read late: it held until the current one started
        first = min(newer, key=lambda f: f.valid_from)
        state.ops.append(
            Add(
                fact_id=new_id,
                candidate=cand,
                vector=vector,
                invalid_at=first.valid_from,
                superseded_by=first.fact_id,
            )
        )
        return
    for f in slot:
        _end(state, f, cand, at=cand.valid_from, reason="superseded", by=new_id)
    for f in against:
        if f in state.current:
            _end(state, f, cand, at=cand.valid_from, reason="contradicted", by=new_id)
    state.ops.append(Add(fact_id=new_id, candidate=cand, vector=vector))
    state.current.append(
        Current(
            fact_id=new_id,
            content=cand.content,
            subject=cand.subject,
            exclusive=cand.exclusive,
            valid_from=cand.valid_from,
            importance=cand.importance,
            source_message_ids=cand.source_message_ids,
            vector=vector,
        )
    )


def _corrected(state: _State, cand: FactCandidate) -> list[Current]:
    """The current facts a correction replaces: in its exclusive slot, those holding the value it
    names as wrong (all of the slot's when it names none)."""
    if not (cand.correction and cand.exclusive and cand.subject is not None):
        return []
    slot = [f for f in state.current if f.subject == cand.subject]
    if cand.corrects is None:
        return slot
    wrong = cand.corrects.casefold()
    return [f for f in slot if wrong in f.content.casefold()]


def _end(state: _State, f: Current, cand: FactCandidate, *, at: datetime, reason: str, by: uuid.UUID) -> None:
    state.ops.append(
        Invalidate(
            fact_id=f.fact_id,
            content=f.content,
            at=at,
            reason=reason,
            superseded_by=by,
            source_message_ids=cand.source_message_ids,
        )
    )
    state.current.remove(f)


def _mention(state: _State, f: Current, cand: FactCandidate, *, cand_content: str, merged: bool) -> None:
    new_sources = tuple(m for m in cand.source_message_ids if m not in f.source_message_ids)
    if not new_sources:  # this very message was read before: running twice changes nothing
        return
    state.ops.append(
        Mention(
            fact_id=f.fact_id,
            old_content=f.content,
            new_content=cand_content,
            source_message_ids=new_sources,
            importance=max(f.importance, cand.importance),
            at=cand.valid_from,
            merged=merged,
        )
    )
    updated = replace(
        f,
        content=cand_content,
        importance=max(f.importance, cand.importance),
        source_message_ids=f.source_message_ids + new_sources,
    )
    state.current[state.current.index(f)] = updated


@dataclass(frozen=True)
class SpeakerFacts:
    """One speaker's facts, as reconciliation needs them."""

    current: list[Current]
    known: list[Known]


def reconcile_speakers(
    candidates: Sequence[FactCandidate],
    vectors: Vector,
    facts: dict[str | None, SpeakerFacts],
    thresholds: Thresholds,
) -> list[Op]:
    """Each speaker's candidates reconciled with that speaker's facts only: Priya's home is not
    the user's."""
    ops: list[Op] = []
    for speaker in dict.fromkeys(c.speaker for c in candidates):
        mine = facts.get(speaker, SpeakerFacts(current=[], known=[]))
        pairs = [(c, v) for c, v in zip(candidates, vectors, strict=True) if c.speaker == speaker]
        ops.extend(reconcile(pairs, mine.current, thresholds, mine.known))
    return ops

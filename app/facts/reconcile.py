"""Reconciliation: what candidate facts change in a user's current facts, as a list of operations.

Pure (no I/O), so every case is tested directly; `app.facts.tasks` applies the operations. In
the order the candidates came, each one is:
- a negation ("no longer eats meat") -> the current facts it ends are invalidated at its time;
- an exact duplicate of a current fact -> nothing (but a new source message counts as a mention);
- a near duplicate (cosine >= merge threshold, no conflicting subject) -> merged into it;
- a new value of an exclusive slot (same subject) -> the old fact ends when the new one starts
  (`invalid_at`, `superseded_by`); a value older than the current one arriving late is stored
  as already superseded by it;
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
_SPACE = re.compile(r"\s+")
_TRAIL = re.compile(r"[\s.!?;:,]+$")
_WORD = re.compile(r"\w+")


def normalize(content: str) -> str:
    """The form two statements are compared in for exact duplicates."""
    return _TRAIL.sub("", _SPACE.sub(" ", content.casefold()).strip())


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
    reason: str  # "superseded" or "negated"
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
            (cand.subject is not None and f.subject == cand.subject)
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
    slot = [f for f in state.current if cand.exclusive and f.subject == cand.subject]
    new_id = uuid.uuid4()
    newer = [f for f in slot if f.valid_from > cand.valid_from]
    if newer:  # an older value, read late: it held until the current one started
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
        state.ops.append(
            Invalidate(
                fact_id=f.fact_id,
                content=f.content,
                at=cand.valid_from,
                reason="superseded",
                superseded_by=new_id,
                source_message_ids=cand.source_message_ids,
            )
        )
        state.current.remove(f)
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

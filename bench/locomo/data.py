"""Reading a LoCoMo-format file (the public `locomo10.json` layout) into plain dataclasses.

    from bench.locomo.data import load, DEFAULT_DATA
    convs = load(DEFAULT_DATA)            # list[Conversation], in file order
    conv = convs[0]
    conv.sample_id, conv.speaker_a, conv.speaker_b
    for s in conv.sessions:               # Session: number, date (UTC datetime), turns
        for t in s.turns:                 # Turn: dia_id, speaker, text, blip_caption
            ...
    for q in conv.questions:              # Question: question, answer, evidence (dia_ids), category
        ...
    conv.turn("D1:3")                     # the Turn of a dia_id (KeyError when unknown)

Nothing here talks to Engram (see bench/locomo/ingest.py for that). The data is licensed CC BY-NC:
it is read from `--data`, never copied into the repository.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = ROOT.parent.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
if not DEFAULT_DATA.exists():  # run from /work/main rather than a worktree
    DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
SCORED = (1, 2, 3, 4)  # category 5 (adversarial) has no answer in the conversation


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    blip_caption: str | None = None


@dataclass(frozen=True)
class Session:
    number: int
    date: datetime  # the session's `session_N_date_time`, read as UTC
    turns: list[Turn]


@dataclass(frozen=True)
class Question:
    question: str
    answer: str | None  # adversarial items have `adversarial_answer` instead
    evidence: list[str]  # dia_ids of the turns holding the answer
    category: int

    @property
    def category_name(self) -> str:
        return CATEGORIES.get(self.category, str(self.category))


@dataclass
class Conversation:
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: list[Session]
    questions: list[Question]
    _turns: dict[str, Turn] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._turns = {t.dia_id: t for s in self.sessions for t in s.turns}

    def turn(self, dia_id: str) -> Turn:
        return self._turns[dia_id]

    @property
    def turn_count(self) -> int:
        return len(self._turns)

    def speaker_of(self, dia_id: str) -> str | None:
        t = self._turns.get(dia_id)
        return None if t is None else t.speaker


_DATE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})\s*$", re.I)
_SESSION = re.compile(r"^session_(\d+)$")


def parse_date(value: str) -> datetime:
    """`1:56 pm on 8 May, 2023` -> 2023-05-08 13:56 UTC."""
    m = _DATE.match(value)
    if m is None:
        raise ValueError(f"unrecognised LoCoMo date: {value!r}")
    hour, minute, ampm, day, month, year = m.groups()
    h = int(hour) % 12 + (12 if ampm.lower() == "pm" else 0)
    parsed = datetime.strptime(f"{day} {month} {year}", "%d %B %Y")
    return parsed.replace(hour=h, minute=int(minute), tzinfo=UTC)


def _evidence(raw: Any) -> list[str]:
    # A few items in the public file hold several ids in one string ("D8:6; D9:17").
    out: list[str] = []
    for item in raw or []:
        out += [p for p in re.split(r"[;,\s]+", str(item)) if p]
    return out


def parse(items: list[dict[str, Any]]) -> list[Conversation]:
    convs: list[Conversation] = []
    for item in items:
        c = item["conversation"]
        sessions: list[Session] = []
        for key, turns in c.items():
            m = _SESSION.match(key)
            if m is None or not turns:
                continue
            n = int(m.group(1))
            sessions.append(
                Session(
                    number=n,
                    date=parse_date(c[f"session_{n}_date_time"]),
                    turns=[
                        Turn(
                            dia_id=t["dia_id"],
                            speaker=t["speaker"],
                            text=t["text"],
                            blip_caption=t.get("blip_caption"),
                        )
                        for t in turns
                    ],
                )
            )
        sessions.sort(key=lambda s: s.number)
        questions = [
            Question(
                question=q["question"],
                answer=None if q.get("answer") is None else str(q["answer"]),
                evidence=_evidence(q.get("evidence")),
                category=int(q["category"]),
            )
            for q in item.get("qa", [])
        ]
        convs.append(Conversation(item["sample_id"], c["speaker_a"], c["speaker_b"], sessions, questions))
    return convs


def load(path: Path | str = DEFAULT_DATA) -> list[Conversation]:
    """Every conversation of a LoCoMo-format JSON file, in file order."""
    with open(path, encoding="utf-8") as f:
        return parse(json.load(f))

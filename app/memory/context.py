"""The context block of a session's memory: its template, and fitting it to a token budget.

The template (documented in docs/api.md) is a sequence of blocks, each ending in a newline and
each starting with a non-space character:

    ## Summary of the conversation up to message 120
    <summary text>
    <blank line>
    ## Facts about the user
    - <fact>
    <blank line>
    ## Recent messages
    [2026-11-20 14:03 UTC] user (Ada): <content>
    [2026-11-20 14:03 UTC] assistant: <content>

How the budget is split (docs/api.md): the newest message always comes first (a budget too small
for it alone is refused, `BudgetTooSmall`); then the summary, whole, if it fits within
`summary_share` of the budget; then the facts, best first, within `facts_share`; then the other
messages, newest first, in what is left (including whatever the summary and facts did not use).

With tiktoken's encodings no pre-token crosses such a boundary (a run of whitespace ending in a
newline is its own pre-token, and the next block starts with a non-space), so the tokens of the
whole are the sum of the tokens of the blocks: each block is counted once (a message's line is
counted when it enters the cache: app/cache/document.py holds the line's form) and the total is
exact without encoding the whole context on every request. tests/api/test_memory.py checks the
sum against a full count.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.cache.document import Count, Doc, line_tokens, message_line
from app.errors import ValidationFailed

MESSAGES_HEADER = "## Recent messages\n"
FACTS_HEADER = "## Facts about the user\n"


class BudgetTooSmall(ValidationFailed):
    """The newest message does not fit `max_tokens` by itself: a context without the turn being
    answered misleads more than no answer."""

    def __init__(self, *, max_tokens: int, minimum: int) -> None:
        super().__init__(
            f"max_tokens: is {max_tokens}; the newest message alone needs {minimum}",
            errors=[{"loc": ["query", "max_tokens"], "msg": f"at least {minimum}", "type": "too_small"}],
            minimum_max_tokens=minimum,
        )


@functools.lru_cache(maxsize=16)  # per counting function (a tokenizer's bound `count`)
def _header_tokens(count: Count) -> int:
    """The tokens of MESSAGES_HEADER, counted once per tokenizer: encoding it on every memory
    read was ~2 % of a cached read's CPU (bench/memory_pieces.py with py-spy)."""
    return count(MESSAGES_HEADER)


def summary_block(doc: Doc) -> str:
    return f"## Summary of the conversation up to message {doc['to_seq']}\n{doc['content']}\n\n"


@dataclass
class Fitted:
    context: str
    token_count: int
    summary: Doc | None
    facts: list[Doc]
    messages: list[Doc]  # oldest first
    omitted: dict[str, Any] = field(default_factory=dict)


def fit(
    *,
    max_tokens: int,
    summary: Doc | None,
    facts: Sequence[Doc],
    newest_first: Iterable[Doc],
    count: Count,
    last_n: int | None,
    summary_share: float = 1.0,
    facts_share: float = 1.0,
) -> Fitted:
    """The newest message, then the summary (whole, within `summary_share` of the budget), then
    facts in the order given (within `facts_share`), then the other messages, newest first, whole.

    Stops at the first message that does not fit, so the messages stay a contiguous run ending
    at the newest: a gap in the middle of a conversation misleads more than a shorter window.
    Raises BudgetTooSmall when the newest message alone does not fit.
    """
    messages = iter(newest_first)
    newest = next(messages, None)
    header = _header_tokens(count)
    reserved = header + line_tokens(newest, count) if newest is not None else 0
    if reserved > max_tokens:
        raise BudgetTooSmall(max_tokens=max_tokens, minimum=reserved)
    left = max_tokens - reserved  # for the summary and the facts
    blocks: list[str] = []
    kept_summary: Doc | None = None
    summary_omitted = False
    if summary is not None:
        block = summary_block(summary)
        n = count(block)
        if n <= min(left, int(max_tokens * summary_share)):
            blocks.append(block)
            left -= n
            kept_summary = summary
        else:
            summary_omitted = True

    kept_facts: list[Doc] = []
    if facts:
        room = min(left, int(max_tokens * facts_share))
        lines = [f"- {f['content']}\n" for f in facts]
        size = count(FACTS_HEADER)
        for doc, line in zip(facts, lines, strict=True):
            n = count(line)
            if size + n + 1 > room:  # +1: the blank line that closes the block
                break
            kept_facts.append(doc)
            size += n
        while kept_facts:  # the +1 above is an estimate; the block's own count decides
            block = FACTS_HEADER + "".join(lines[: len(kept_facts)]) + "\n"
            size = count(block)
            if size <= room:
                blocks.append(block)
                left -= size
                break
            kept_facts.pop()

    kept: list[Doc] = []
    budget = left + reserved - header  # the newest message's line is in it: it fits, as checked
    if newest is not None:
        for doc in itertools.chain([newest], messages):
            if last_n is not None and len(kept) >= last_n:
                break
            n = line_tokens(doc, count)
            if n > budget:
                break
            kept.append(doc)
            budget -= n
        kept.reverse()
        blocks.append(MESSAGES_HEADER)
        blocks.extend(message_line(d) for d in kept)
    else:
        budget = left
    context = "".join(blocks)
    return Fitted(
        context=context,
        token_count=max_tokens - budget,
        summary=kept_summary,
        facts=kept_facts,
        messages=kept,
        omitted={"summary": summary_omitted, "facts": len(facts) - len(kept_facts)},
    )

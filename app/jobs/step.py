"""What a derived-work step declares: claim, model call, store (and how its items fail).

A step is a small class in its domain's `tasks.py`; `app.jobs.runner` runs it. The step says
*what* (which rows, which model call, which writes); the runner owns *how*: the transaction, the
shared model lock, bisecting a failing batch, backoff and the failed state (through the step's
`fail`), metrics and the result. Adding one is documented in docs/architecture.md ("the worker").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection

from app.jobs.retry import RetryPolicy

ItemT = TypeVar("ItemT")
OutT = TypeVar("OutT")


class Step(Protocol[ItemT, OutT]):
    kind: str
    """The metrics label (and, for session jobs, `jobs.kind`)."""
    limit: int
    """Items one claim takes at most: a full claim means more may be waiting right now."""

    async def claim(self, conn: AsyncConnection) -> Sequence[ItemT]:
        """Lock and read the next items (`FOR UPDATE SKIP LOCKED`); empty when nothing is due.
        Everything the model call needs is read here: `call` gets no connection."""
        ...

    async def call(self, items: Sequence[ItemT]) -> Sequence[OutT]:
        """The model call: one output per item, in order. Raises on trouble; the runner decides
        who failed (an outage fails every item, any other error is bisected down to the item)."""
        ...

    async def store(self, conn: AsyncConnection, done: Sequence[tuple[ItemT, OutT]]) -> None:
        """Write the outputs (and move watermarks, drop or keep jobs) in the claim's transaction."""
        ...

    async def fail(
        self, conn: AsyncConnection, failed: Sequence[ItemT], error: str, retry: RetryPolicy
    ) -> None:
        """Record `error` on the items and schedule their retry (failed after the last attempt)."""
        ...


@dataclass(frozen=True)
class StepResult:
    kind: str
    claimed: int = 0
    done: int = 0
    failed: int = 0  # to be retried, or failed for good after the last attempt
    seconds: float = 0.0
    more: bool = False  # the claim was full: run again at once

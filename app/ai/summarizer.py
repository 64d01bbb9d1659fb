"""What every summariser offers (app/ai/factories.py picks one from settings, ENGRAM_LLM)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True)
class Turn:
    """One message as a summariser sees it."""

    seq: int
    role: str
    name: str | None
    content: str
    created_at: datetime


class Summarizer(Protocol):
    """Rolls a session forward: the new summary is made from the previous one plus the turns since.

    The result fits `max_tokens` (counted with the service's tokenizer), keeps names, numbers and
    dates, and states relative time words ("yesterday") as absolute dates taken from the turns'
    `created_at`. Deterministic for the `local` provider.
    """

    name: str

    async def summarize(self, *, previous: str | None, turns: Sequence[Turn], max_tokens: int) -> str: ...

    async def aclose(self) -> None: ...


class SummarizerUnavailable(RuntimeError):
    """The model endpoint is down, refusing or too slow (after retries): try the job again later."""


class SummarizerOutputInvalid(RuntimeError):
    """The model kept answering with output that fails validation (after retries)."""

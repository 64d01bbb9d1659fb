"""When a session's summary is due, and how big a step is (ENGRAM_SUMMARY_*)."""

from __future__ import annotations

from dataclasses import dataclass

from app.config import Settings


@dataclass(frozen=True)
class SummaryPolicy:
    trigger_messages: int
    trigger_tokens: int
    keep_recent: int
    max_tokens: int
    max_input_tokens: int

    @classmethod
    def from_settings(cls, settings: Settings) -> SummaryPolicy:
        return cls(
            trigger_messages=settings.summary_trigger_messages,
            trigger_tokens=settings.summary_trigger_tokens,
            keep_recent=settings.summary_keep_recent,
            max_tokens=settings.summary_max_tokens,
            max_input_tokens=settings.summary_max_input_tokens,
        )

    def due(self, *, pending_messages: int, pending_tokens: int) -> bool:
        """The same rule the append statement applies in SQL (app/messages/service.py)."""
        return pending_messages > self.keep_recent and (
            pending_messages >= self.trigger_messages or pending_tokens >= self.trigger_tokens
        )

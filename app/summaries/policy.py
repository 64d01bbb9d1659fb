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

    def sql_params(self) -> dict[str, int]:
        """The bind parameters of `due_sql`."""
        return {"keep": self.keep_recent, "trig_n": self.trigger_messages, "trig_tok": self.trigger_tokens}

    def due(self, *, pending_messages: int, pending_tokens: int) -> bool:
        """The rule in Python; `due_sql` is the same rule for the statements that queue jobs."""
        return pending_messages > self.keep_recent and (
            pending_messages >= self.trigger_messages or pending_tokens >= self.trigger_tokens
        )


def due_sql(row: str) -> str:
    """`SummaryPolicy.due` as a SQL condition on `row`, a sessions row (its last_seq,
    summarized_seq and unsummarized_tokens), with `SummaryPolicy.sql_params` bound: the append
    and the import queue summaries by this one rule."""
    pending = f"{row}.last_seq - {row}.summarized_seq"
    return f"{pending} > :keep AND ({pending} >= :trig_n OR {row}.unsummarized_tokens >= :trig_tok)"

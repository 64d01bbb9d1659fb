"""What a write makes due, in one place for the append, the edit, the delete, the import and the
end of a session: a summary (`SummaryPolicy`, `due_sql`: when one is due and how big a step is,
ENGRAM_SUMMARY_*), fact extraction (a batch with a user message), and re-derivation of an edited or
deleted message (`record_change`). The jobs rows are written in the caller's transaction, so due
work is never lost."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.config import Settings
from app.jobs import queue

# The kinds of the per-session jobs table (app/jobs/queue.py).
SUMMARIZE = "summarize"
EXTRACT = "extract"


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


async def queue_final_summary(
    conn: AsyncConnection, *, tenant_id: str, session_id: str, last_seq: int, summarized_seq: int
) -> None:
    """A session ended: a summary of every message not yet covered is due, however few."""
    if summarized_seq < last_seq:
        await queue.force(conn, kind=SUMMARIZE, tenant_id=tenant_id, session_id=session_id, to_seq=last_seq)


async def record_change(
    conn: AsyncConnection, *, tenant_id: str, session_id: str, message_id: uuid.UUID, seq: int, change: str
) -> None:
    """Make re-derivation of the message due, in the caller's transaction (the edit's or delete's)."""
    await conn.execute(
        text(
            "WITH c AS (INSERT INTO message_changes (tenant_id, session_id, message_id, seq, change) "
            "VALUES (:t, :s, :m, :seq, :c)) "
            "INSERT INTO jobs (tenant_id, kind, session_id) VALUES (:t, :k, :s) "
            "ON CONFLICT (tenant_id, kind, session_id) DO UPDATE SET status = 'pending', attempts = 0, "
            "error = NULL, run_after = now(), updated_at = now()"
        ),
        {"t": tenant_id, "s": session_id, "m": message_id, "seq": seq, "c": change, "k": EXTRACT},
    )

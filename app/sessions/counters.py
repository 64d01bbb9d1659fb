"""The counters of a sessions row and the one rule for each: who moves them, and how.

- `last_seq`: the newest message's seq. An append adds its batch (under the row lock, so seqs are
  gapless); an import recomputes it from what the session now holds.
- `summarized_seq` and `unsummarized_tokens`: how far the summary reaches and the tokens of the
  messages past it (the summary trigger, app/jobs/due.py). Appends add their tokens; an edit or a
  delete of a message not yet summarised adds its difference; a summary step and an import count
  them again.
- `cache_gen`: with `last_seq` and the row's `created_at` (`epoch`), the version a Redis window is
  valid for (app/cache/window.py). An append moves `last_seq`, and the write-through moves the
  window with it; every other change to what a window shows (an edit, a delete, retention, a
  summary replaced, an import) moves `cache_gen`, so the window is read again.

The append and the import embed these as SQL fragments in their single statements; the other
writers call the functions below in their own transactions.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.cache.document import micros


def bump_cache(row: str = "") -> str:
    """SQL SET item: the windows of the session are void (`row`: the table's alias and a dot)."""
    return f"cache_gen = {row}cache_gen + 1"


# The SET items of an append of `:n` messages of `:tok_sum` tokens.
APPENDED = (
    "last_seq = last_seq + :n, updated_at = now(), unsummarized_tokens = unsummarized_tokens + :tok_sum"
)
# What an UPDATE of the row returns for the cache version of the result (with its last_seq).
VERSION = f"cache_gen, {micros('created_at')} AS epoch"


def recounted(row: str, marks: str) -> str:
    """The SET items of an import: `marks` (a FROM item) has each session's new `last_seq` and
    `summarized_seq`; the unsummarised tokens are counted again from the messages."""
    return (
        f"last_seq = {marks}.last_seq, "
        f"summarized_seq = least({marks}.summarized_seq, {marks}.last_seq), "
        "unsummarized_tokens = (SELECT coalesce(sum(m.token_count), 0) FROM messages m "
        f"  WHERE m.tenant_id = {row}.tenant_id AND m.session_id = {row}.session_id "
        f"    AND m.seq > least({marks}.summarized_seq, {marks}.last_seq)), "
        f"{bump_cache(f'{row}.')}"
    )


async def invalidate(conn: AsyncConnection, *, tenant_id: str, session_id: str) -> None:
    """Messages went away (retention): the session's windows are void."""
    await conn.execute(
        text(f"UPDATE sessions SET {bump_cache()} WHERE tenant_id = :t AND session_id = :s"),
        {"t": tenant_id, "s": session_id},
    )


async def message_changed(
    conn: AsyncConnection, *, tenant_id: str, session_id: str, seq: int, token_delta: int
) -> None:
    """A message was edited or deleted: windows are void, and the summary trigger's token count
    follows when the message is not yet summarised."""
    await conn.execute(
        text(
            f"UPDATE sessions SET {bump_cache()}, unsummarized_tokens = greatest(0, "
            "  unsummarized_tokens + CASE WHEN :seq > summarized_seq THEN :d ELSE 0 END) "
            "WHERE tenant_id = :t AND session_id = :s"
        ),
        {"t": tenant_id, "s": session_id, "seq": seq, "d": token_delta},
    )


async def summarized(
    conn: AsyncConnection, *, tenant_id: str, session_id: str, to_seq: int, tokens: int, replaced: bool
) -> None:
    """A summary step reached `to_seq`, leaving `tokens` unsummarised; `replaced`: the latest
    summary a window shows changed, so windows are void."""
    await conn.execute(
        text(
            "UPDATE sessions SET summarized_seq = greatest(summarized_seq, :to), unsummarized_tokens = :tok, "
            "cache_gen = cache_gen + CASE WHEN CAST(:moved AS boolean) THEN 1 ELSE 0 END "
            "WHERE tenant_id = :t AND session_id = :s"
        ),
        {"t": tenant_id, "s": session_id, "to": to_seq, "tok": tokens, "moved": replaced},
    )


async def summaries_dropped(conn: AsyncConnection, *, tenant_id: str, session_id: str) -> None:
    """Summaries past a changed message were deleted: the watermark falls back to the newest
    left, and windows (which show the latest summary) are void."""
    await conn.execute(
        text(
            "UPDATE sessions SET summarized_seq = coalesce((SELECT max(to_seq) FROM summaries "
            f"WHERE tenant_id = :t AND session_id = :s), 0), {bump_cache()} "
            "WHERE tenant_id = :t AND session_id = :s"
        ),
        {"t": tenant_id, "s": session_id},
    )

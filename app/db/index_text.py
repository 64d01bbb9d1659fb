"""The text a message is indexed by: what a reader of the conversation sees, not only its content.

A turn like "I moved to Lisbon" says nothing by itself about who moved. A reader sees the speaker;
so does the index: the embedded text is `"<name>: <content>"` (the content alone when the message
has no name), and the keyword index (the generated column `messages.content_tsv`, see KEYWORD_SQL
below) covers the name as well as the content. The stored `content` stays exactly what the client
sent; only the index reads this text.

The session date is not in the embedded text: it cost 3 points of Recall@10 on bench/recall (short
turns matched less well) and gained LoCoMo nothing measurable over the name alone; time questions
are served by `created_at` instead (app/search/when.py). Measured in docs/benchmarks.md.

Changing EMBED_FORMAT changes every vector: it takes a migration that marks messages pending so
that the worker embeds them again (as migrations/versions/*_search_text.py does), never a request.
"""

from __future__ import annotations

# An encrypted content (app/crypto) gives the keyword index nothing: the words of a ciphertext are
# noise, and the words of the plain text would be the text itself, stored in clear. So encrypted
# rows are found by meaning (their embeddings) and by speaker name only (docs/encryption.md).
PLAIN_CONTENT = "CASE WHEN starts_with(content, 'engram-enc:') THEN '' ELSE content END"

# The generated column's expression (migrations and app/db/models.py): the speaker's name, then
# the content, so a query naming the speaker matches their turns by word too.
KEYWORD_SQL = f"to_tsvector('english'::regconfig, coalesce(name, '') || ' ' || {PLAIN_CONTENT})"
# The same for summaries and facts, which have no speaker.
TEXT_KEYWORD_SQL = f"to_tsvector('english'::regconfig, {PLAIN_CONTENT})"


def message_text(*, name: str | None, content: str) -> str:
    """What the worker embeds for a message (its content is stored and returned unchanged)."""
    who = (name or "").strip()
    return f"{who}: {content}" if who else content

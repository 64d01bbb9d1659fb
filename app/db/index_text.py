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

from app.ai.summarize.sentences import split_sentences

# An encrypted content (app/crypto) gives the keyword index nothing of its own: the words of a
# ciphertext are noise. What the index holds instead is the writer's choice, made in Python where
# the plain text is known (ENGRAM_ENCRYPTION_KEYWORD_INDEX, docs/encryption.md): the ordinary column
# `plain_tsv` holds `to_tsvector(<plain text>)` with `keep`, NULL with `drop` (the default), and the
# generated column below takes it for a sealed content. A row in clear is indexed from its content
# exactly as before, whatever `plain_tsv` holds, so a writer of plain rows (a bench's COPY, a
# test's INSERT) needs to know nothing of this. An INSERT of a sealed row that leaves `plain_tsv`
# out leaks nothing (the row is found by meaning only); an UPDATE of a sealed content must set it,
# or the old text's words stay (every writer does: tests/api/test_encryption.py checks them).
SEALED = "starts_with(content, 'engram-enc:')"

# The generated column's expression (migrations and app/db/models.py): the speaker's name, then
# the content, so a query naming the speaker matches their turns by word too.
KEYWORD_SQL = (
    f"CASE WHEN {SEALED} "
    "THEN coalesce(plain_tsv, to_tsvector('english'::regconfig, coalesce(name, '') || ' ')) "
    "ELSE to_tsvector('english'::regconfig, coalesce(name, '') || ' ' || content) END"
)
# The same for summaries and facts, which have no speaker.
TEXT_KEYWORD_SQL = (
    f"CASE WHEN {SEALED} THEN coalesce(plain_tsv, ''::tsvector) "
    "ELSE to_tsvector('english'::regconfig, content) END"
)


def plain_tsv_sql(param: str) -> str:
    """What a writer sets `plain_tsv` to from the text parameter `param` (fields.keyword_text):
    NULL for None (to_tsvector is strict)."""
    return f"to_tsvector('english'::regconfig, CAST(:{param} AS text))"


def message_keywords(*, name: str | None, content: str) -> str:
    """The text a message's keyword index covers: the same as KEYWORD_SQL's for a row in clear."""
    return f"{name or ''} {content}"


def message_text(*, name: str | None, content: str) -> str:
    """What the worker embeds for a message (its content is stored and returned unchanged)."""
    who = (name or "").strip()
    return f"{who}: {content}" if who else content


# A piece shorter than this many words ("Hey Sam!", "Wow.") is no sentence of its own for the
# sentence vectors: it joins the next one (or the last, at the end), so a greeting cannot match a
# query by itself.
SENTENCE_MIN_WORDS = 3
# Which pieces earn a vector of their own (each is a model run as long as itself: for chatty text
# the sentences doubled the worker's model work). A piece under SENTENCE_KEEP_WORDS words ("Thanks
# so much!", "How are you?", "That's so cool!") says little the whole message's vector does not;
# of the rest, the SENTENCES_PER_MESSAGE longest, which hold a turn's facts (the shortest instead
# lost 3 points of LoCoMo tune R@1). Chosen on the tune splits: docs/benchmarks.md, "Made
# searchable, session 15".
SENTENCE_KEEP_WORDS = 5
SENTENCES_PER_MESSAGE = 2


def message_sentences(*, name: str | None, content: str) -> list[str]:
    """What the worker embeds for the sentences of a message of several (`"<name>: <sentence>"`, as
    message_text): its longest few, none for a message of one, nor for one with fewer than two
    sentences of SENTENCE_KEEP_WORDS words. A long turn is then found by its one relevant sentence,
    which mean pooling over the whole turn dilutes (search reads the best of them for its best
    candidates: app/search/sentences.py)."""
    pieces: list[str] = []
    carry = ""
    for part in split_sentences(content):
        part = f"{carry} {part}" if carry else part
        if len(part.split()) < SENTENCE_MIN_WORDS:
            carry = part
            continue
        pieces.append(part)
        carry = ""
    if carry and pieces:
        pieces[-1] = f"{pieces[-1]} {carry}"
    if len(pieces) < 2:
        return []
    words = [len(p.split()) for p in pieces]
    kept = [i for i, n in enumerate(words) if n >= SENTENCE_KEEP_WORDS]
    if len(kept) < 2:
        return []
    longest = sorted(sorted(kept, key=lambda i: -words[i])[:SENTENCES_PER_MESSAGE])  # in turn order
    return [message_text(name=name, content=pieces[i]) for i in longest]

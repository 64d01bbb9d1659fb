"""sentence vectors: a message of several sentences is also embedded sentence by sentence (issue 11)

`messages.sentence_vecs` (bytea, float16, one vector per sentence: app/db/vectors.pack_vectors)
holds what the worker embeds for each sentence of a message (app/db/index_text.message_sentences);
hybrid search scores its best candidates by their best sentence too (app/search/sentences.py).
NULL for a message of one sentence, and for every message until the worker has embedded it again.

Every embedded message that may hold more than one sentence (a sentence stop followed by more
text) is marked pending, keeping its vector until the worker replaces it and adds its sentences,
so search works throughout and nothing runs in a request (as 0009_search_text). Messages of one
sentence are left alone: they gain no sentence vectors.

Revision ID: 0015_sentence_vectors
Revises: 0014_keyword_index
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_sentence_vectors"
down_revision: str | None = "0014_keyword_index"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("messages", sa.Column("sentence_vecs", sa.LargeBinary(), nullable=True))
    # A sealed content's text is not readable here: those are re-embedded whatever they hold.
    op.execute(
        "UPDATE messages SET embed_status = 'pending', embed_after = created_at "
        "WHERE embed_status = 'done' AND (content ~ '[.!?\u2026][^[:space:]]*[[:space:]]+[^[:space:]]' "
        "OR starts_with(content, 'engram-enc:'))"
    )


def downgrade() -> None:
    op.drop_column("messages", "sentence_vecs")

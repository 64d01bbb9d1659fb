"""search text: messages are indexed by what a reader sees (the speaker name, issue 11)

The keyword index (`content_tsv`, generated) covers the speaker's name too; the embeddings are
redone by the worker, which now embeds `"<name>: <content>"` (app/db/index_text.py):
every embedded message is marked pending again and keeps its old vector until the worker replaces
it, so search works throughout and nothing runs in a request. Until the worker has caught up,
GET /v1/indexing reports those messages as pending (and a search with wait_for_indexing_ms waits
for them).

Revision ID: 0009_search_text
Revises: 0008_fair_claims
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql as pg

revision: str = "0009_search_text"
down_revision: str | None = "0008_fair_claims"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NEW = "to_tsvector('english'::regconfig, coalesce(name, '') || ' ' || content)"
OLD = "to_tsvector('english'::regconfig, content)"


def _tsv(expression: str) -> None:
    op.drop_index("ix_messages_content_tsv", table_name="messages")
    op.drop_column("messages", "content_tsv")
    op.add_column("messages", sa.Column("content_tsv", pg.TSVECTOR(), sa.Computed(expression, persisted=True)))
    op.create_index("ix_messages_content_tsv", "messages", ["content_tsv"], postgresql_using="gin")


def upgrade() -> None:
    _tsv(NEW)
    # Re-embedded by the worker (the queue's partial index picks them up), oldest first.
    op.execute(
        "UPDATE messages SET embed_status = 'pending', embed_after = created_at "
        "WHERE embed_status = 'done'"
    )


def downgrade() -> None:
    _tsv(OLD)

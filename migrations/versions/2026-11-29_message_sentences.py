"""message sentences: sentence vectors in a table of their own, made after the message is searchable

The worker embedded a message and its longest sentences in one model call (0015), so a new
message became searchable only once its sentences were embedded too: about half the model's work
on chat text went to sentences, and made-searchable throughput was half the raw model's. Now the
embedding step stores the message's vector (searchable at once) and queues its sentences here;
a later, lower-priority step embeds them (app/indexing/sentence_tasks.py).

A table of their own, not columns of `messages`: the second step's write would otherwise be a
second non-HOT update of the message row (its pages are full), inserting into every index of
`messages` again, the HNSW graph's included. Here it updates a small row with b-tree indexes only.

`due_at` is when the row's sentences are due (NULL once embedded); `vecs` the packed vectors
(app/db/vectors.pack_vectors; NULL until embedded). Rows go with their message (cascade).
Existing sentence vectors move over; `messages.sentence_vecs` is dropped.

Revision ID: 0018_message_sentences
Revises: 0017_user_terms
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_message_sentences"
down_revision: str | None = "0017_user_terms"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_DUE = sa.text("due_at IS NOT NULL")


def upgrade() -> None:
    op.create_table(
        "message_sentences",
        sa.Column("message_id", sa.UUID(), nullable=False),
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=False),
        sa.Column("vecs", sa.LargeBinary(), nullable=True),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["messages.message_id"],
            name="fk_message_sentences_message_id_messages",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("message_id", name="pk_message_sentences"),
    )
    op.create_index("ix_message_sentences_due_at", "message_sentences", ["due_at"], postgresql_where=_DUE)
    op.create_index(
        "ix_message_sentences_tenant_id_user_id_due_at",
        "message_sentences",
        ["tenant_id", "user_id", "due_at"],
        postgresql_where=_DUE,
    )
    op.create_index(
        "ix_message_sentences_tenant_id_session_id",
        "message_sentences",
        ["tenant_id", "session_id"],
        postgresql_where=_DUE,
    )
    op.execute(
        "INSERT INTO message_sentences (message_id, tenant_id, user_id, session_id, vecs) "
        "SELECT message_id, tenant_id, user_id, session_id, sentence_vecs FROM messages "
        "WHERE sentence_vecs IS NOT NULL"
    )
    op.drop_column("messages", "sentence_vecs")


def downgrade() -> None:
    op.add_column("messages", sa.Column("sentence_vecs", sa.LargeBinary(), nullable=True))
    op.execute(
        "UPDATE messages m SET sentence_vecs = s.vecs FROM message_sentences s "
        "WHERE s.message_id = m.message_id AND s.vecs IS NOT NULL"
    )
    # Sentences still queued: the older worker makes them only with the message's own vector.
    op.execute(
        "UPDATE messages m SET embed_status = 'pending', embed_after = now() FROM message_sentences s "
        "WHERE s.message_id = m.message_id AND s.due_at IS NOT NULL"
    )
    op.drop_table("message_sentences")

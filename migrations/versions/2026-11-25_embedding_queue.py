"""embedding queue: per-message derived-work state, the worker's partial indexes

Revision ID: 0002_embedding_queue
Revises: 0001_initial
Create Date: 2026-11-25
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_embedding_queue"
down_revision: str | None = "0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "messages",
        sa.Column("embed_status", sa.Text(), nullable=False, server_default=sa.text("'pending'")),
    )
    op.add_column(
        "messages",
        sa.Column("embed_attempts", sa.Integer(), nullable=False, server_default=sa.text("0")),
    )
    op.add_column(
        "messages",
        sa.Column(
            "embed_after", sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")
        ),
    )
    op.add_column("messages", sa.Column("embed_error", sa.Text(), nullable=True))
    op.add_column("messages", sa.Column("embedded_at", sa.DateTime(timezone=True), nullable=True))
    # Rows embedded before this migration (none, in practice) count as done.
    op.execute("UPDATE messages SET embed_status = 'done' WHERE embedding IS NOT NULL")
    op.create_check_constraint(
        "ck_messages_embed_status", "messages", "embed_status IN ('pending', 'done', 'failed')"
    )
    op.create_index(
        "ix_messages_embed_queue", "messages", ["embed_after"],
        postgresql_where=sa.text("embed_status = 'pending'"),
    )
    op.create_index(
        "ix_messages_embed_scope", "messages", ["tenant_id", "user_id", "session_id"],
        postgresql_where=sa.text("embed_status <> 'done'"),
    )


def downgrade() -> None:
    op.drop_index("ix_messages_embed_scope", table_name="messages")
    op.drop_index("ix_messages_embed_queue", table_name="messages")
    op.drop_constraint("ck_messages_embed_status", "messages")
    for col in ("embedded_at", "embed_error", "embed_after", "embed_attempts", "embed_status"):
        op.drop_column("messages", col)

"""fact embedding retries: attempts, next try and last error on facts without a vector

Revision ID: 0005_fact_embed_retry
Revises: 0004_user_facts
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_fact_embed_retry"
down_revision: str | None = "0004_user_facts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("facts", sa.Column("embed_attempts", sa.Integer(), nullable=False, server_default=sa.text("0")))
    # When the worker may try next; 'infinity' once the last attempt failed (until the text changes).
    op.add_column(
        "facts",
        sa.Column("embed_after", sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")),
    )
    op.add_column("facts", sa.Column("embed_error", sa.Text(), nullable=True))
    op.drop_index("ix_facts_embed_queue", table_name="facts")
    op.create_index(
        "ix_facts_embed_queue", "facts", ["embed_after"], postgresql_where=sa.text("embedding IS NULL")
    )


def downgrade() -> None:
    op.drop_index("ix_facts_embed_queue", table_name="facts")
    op.create_index(
        "ix_facts_embed_queue", "facts", ["created_at"], postgresql_where=sa.text("embedding IS NULL")
    )
    op.drop_column("facts", "embed_error")
    op.drop_column("facts", "embed_after")
    op.drop_column("facts", "embed_attempts")

"""fact sources: whom a fact is about (`speaker`), and the message edits and deletes still to be
re-derived (`message_changes`, written in the transaction of the edit or delete)

Revision ID: 0006_fact_sources
Revises: 0005_fact_embed_retry
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import UUID

revision: str = "0006_fact_sources"
down_revision: str | None = "0005_fact_embed_retry"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # NULL: the user the facts belong to; a name: another person who spoke in one of their sessions.
    op.add_column("facts", sa.Column("speaker", sa.Text(), nullable=True))
    op.create_table(
        "message_changes",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=False),
        sa.Column("message_id", UUID(as_uuid=True), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("change", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")),
        sa.ForeignKeyConstraint(
            ["tenant_id", "session_id"],
            ["sessions.tenant_id", "sessions.session_id"],
            name="fk_message_changes_tenant_id_sessions",
            ondelete="CASCADE",
        ),
        sa.CheckConstraint("change IN ('edited', 'deleted')", name="ck_message_changes_change"),
    )
    op.create_index(
        "ix_message_changes_tenant_id_session_id_id", "message_changes", ["tenant_id", "session_id", "id"]
    )


def downgrade() -> None:
    op.drop_table("message_changes")
    op.drop_column("facts", "speaker")

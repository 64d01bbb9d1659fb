"""user terms: the largest users' keyword document frequencies, kept instead of counted per search

A search of a user past ENGRAM_SEARCH_USER_INDEX_MIN_ROWS weighed each query word by its document
frequency counted over a 10,000-message sample of the user read on every search (~19 ms, plus
~11 ms a word, at 1M messages). The worker's sweep of the large users' own indexes now counts them
once per user (app/search/user_terms.py): `user_term_counts` holds how many messages were counted,
`user_terms` how many of them hold each lexeme. Both go with the user (cascade), so a purge or a
tenant's deletion leaves none behind.

Revision ID: 0017_user_terms
Revises: 0016_user_bucket_stats
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017_user_terms"
down_revision: str | None = "0016_user_bucket_stats"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "user_term_counts",
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("docs", sa.BigInteger(), nullable=False),
        sa.Column("appended", sa.BigInteger(), nullable=False),
        sa.Column("refreshed_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id", "user_id"],
            ["users.tenant_id", "users.user_id"],
            name="fk_user_term_counts_tenant_id_users",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant_id", "user_id", name="pk_user_term_counts"),
    )
    op.create_table(
        "user_terms",
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("lexeme", sa.Text(), nullable=False),
        sa.Column("df", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id", "user_id"],
            ["user_term_counts.tenant_id", "user_term_counts.user_id"],
            name="fk_user_terms_tenant_id_user_term_counts",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant_id", "user_id", "lexeme", name="pk_user_terms"),
    )


def downgrade() -> None:
    op.drop_table("user_terms")
    op.drop_table("user_term_counts")

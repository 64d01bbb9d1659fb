"""user buckets' statistics: the planner learns that a user's rows all lie in one bucket (issue 16)

A search through a large user's own indexes (app/search/user_indexes.py) filters on the user and on
`(hashtext(tenant_id || '/' || user_id) & 1023) = <bucket>`. Without statistics PostgreSQL takes the
two as independent and estimates a 60,000-message user's rows at ~60 (a thousandth), so sorting
them by distance looks cheaper than the bucket's HNSW index (at 1M messages: 640 ms against 2 ms).
Functional-dependency statistics over (tenant_id, user_id, bucket) tell it the bucket adds nothing
once the user is known; ANALYZE gathers them now instead of at the next autovacuum.

Revision ID: 0016_user_bucket_stats
Revises: 0015_sentence_vectors
Create Date: 2026-11-28
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0016_user_bucket_stats"
down_revision: str | None = "0015_sentence_vectors"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        "CREATE STATISTICS st_messages_user_bucket (dependencies) "
        "ON tenant_id, user_id, (hashtext(tenant_id || '/' || user_id) & 1023) FROM messages"
    )
    op.execute("ANALYZE messages")


def downgrade() -> None:
    op.execute("DROP STATISTICS IF EXISTS st_messages_user_bucket")

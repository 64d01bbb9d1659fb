"""fair claims: the worker's queues by tenant and user, so claims can rotate across them

Revision ID: 0008_fair_claims
Revises: 0007_tenant_limits
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_fair_claims"
down_revision: str | None = "0007_tenant_limits"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Who has due embeddings (a loose scan over tenants, then users) and each one's oldest.
    op.create_index(
        "ix_messages_embed_fair",
        "messages",
        ["tenant_id", "user_id", "embed_after"],
        postgresql_where=sa.text("embed_status = 'pending'"),
    )
    # The next tenant's oldest due job of a kind.
    op.create_index(
        "ix_jobs_fair", "jobs", ["kind", "tenant_id", "run_after"], postgresql_where=sa.text("status = 'pending'")
    )


def downgrade() -> None:
    op.drop_index("ix_jobs_fair", table_name="jobs")
    op.drop_index("ix_messages_embed_fair", table_name="messages")

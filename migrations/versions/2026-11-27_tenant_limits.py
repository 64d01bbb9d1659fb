"""tenant limits: a tenant's own requests-per-second and messages-per-day (NULL: the settings')

Revision ID: 0007_tenant_limits
Revises: 0006_fact_sources
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_tenant_limits"
down_revision: str | None = "0006_fact_sources"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("tenants", sa.Column("rate_limit_rps", sa.Float(), nullable=True))
    op.add_column("tenants", sa.Column("messages_per_day", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    op.drop_column("tenants", "messages_per_day")
    op.drop_column("tenants", "rate_limit_rps")

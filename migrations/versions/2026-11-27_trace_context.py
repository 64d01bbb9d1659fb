"""trace context: the W3C traceparent of the request that made derived work due (NULL: not traced)

Revision ID: 0010_trace_context
Revises: 0009_search_text
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_trace_context"
down_revision: str | None = "0009_search_text"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Nullable without a default: a catalogue change only, no table rewrite.
    op.add_column("messages", sa.Column("trace_parent", sa.Text(), nullable=True))
    op.add_column("jobs", sa.Column("trace_parent", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("jobs", "trace_parent")
    op.drop_column("messages", "trace_parent")

"""encryption at rest: the key ids that sealed data, the rotation's progress, and keyword indexes
that skip encrypted texts (app/crypto; docs/encryption.md)

The generated `content_tsv` columns of messages, summaries and facts are made again with an
expression that indexes no encrypted content (its words are noise; the plain words would be the
text in clear). Rows stay as they are: nothing is encrypted by the migration itself.

Revision ID: 0013_encryption
Revises: 0012_webhooks
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql as pg

revision: str = "0013_encryption"
down_revision: str | None = "0012_webhooks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PLAIN = "CASE WHEN starts_with(content, 'engram-enc:') THEN '' ELSE content END"
NEW = {
    "messages": f"to_tsvector('english'::regconfig, coalesce(name, '') || ' ' || {PLAIN})",
    "summaries": f"to_tsvector('english'::regconfig, {PLAIN})",
    "facts": f"to_tsvector('english'::regconfig, {PLAIN})",
}
OLD = {
    "messages": "to_tsvector('english'::regconfig, coalesce(name, '') || ' ' || content)",
    "summaries": "to_tsvector('english'::regconfig, content)",
    "facts": "to_tsvector('english'::regconfig, content)",
}


def _tsv(table: str, expression: str) -> None:
    op.drop_index(f"ix_{table}_content_tsv", table_name=table)
    op.drop_column(table, "content_tsv")
    op.add_column(table, sa.Column("content_tsv", pg.TSVECTOR(), sa.Computed(expression, persisted=True)))
    op.create_index(f"ix_{table}_content_tsv", table, ["content_tsv"], postgresql_using="gin")


def upgrade() -> None:
    op.create_table(
        "encryption_keys",
        sa.Column("key_id", sa.Text(), nullable=False),
        sa.Column("canary", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("key_id", name=op.f("pk_encryption_keys")),
    )
    op.create_table(
        "encryption_rotation",
        sa.Column("table_name", sa.Text(), nullable=False),
        sa.Column("key_id", sa.Text(), nullable=False),
        sa.Column("after", sa.Text(), server_default=sa.text("''"), nullable=False),
        sa.Column("rewritten", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
        sa.Column("dirty", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("done", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.PrimaryKeyConstraint("table_name", name=op.f("pk_encryption_rotation")),
    )
    for table, expression in NEW.items():
        _tsv(table, expression)


def downgrade() -> None:
    for table, expression in OLD.items():
        _tsv(table, expression)
    op.drop_table("encryption_rotation")
    op.drop_table("encryption_keys")

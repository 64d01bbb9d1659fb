"""keyword index of encrypted texts, by setting (ENGRAM_ENCRYPTION_KEYWORD_INDEX, docs/encryption.md)

Each of messages, summaries and facts gains `plain_tsv`, an ordinary tsvector column that the
writers fill from the plain text of a sealed content when the setting is `keep` (NULL with `drop`,
the default). The generated `content_tsv` is made again to take `plain_tsv` for a sealed content;
for a content in clear it is the expression of 0013 (and 0009) unchanged. Every existing row has
`plain_tsv` NULL, so every row's `content_tsv` is what it was: nothing to re-index here. The
worker's sweep (app/crypto/rotation.py) fills or empties `plain_tsv` when the setting changes;
`encryption_rotation.keyword_index` records which setting a sweep pass applies.

Revision ID: 0014_keyword_index
Revises: 0013_encryption
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql as pg

revision: str = "0014_keyword_index"
down_revision: str | None = "0013_encryption"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen copies (app/db/index_text.py may change later; a migration must not).
SEALED = "starts_with(content, 'engram-enc:')"
NEW = {
    "messages": f"CASE WHEN {SEALED} THEN coalesce(plain_tsv, to_tsvector('english'::regconfig, "
    "coalesce(name, '') || ' ')) ELSE to_tsvector('english'::regconfig, coalesce(name, '') || ' ' || content) END",
    "summaries": f"CASE WHEN {SEALED} THEN coalesce(plain_tsv, ''::tsvector) "
    "ELSE to_tsvector('english'::regconfig, content) END",
    "facts": f"CASE WHEN {SEALED} THEN coalesce(plain_tsv, ''::tsvector) "
    "ELSE to_tsvector('english'::regconfig, content) END",
}
PLAIN = "CASE WHEN starts_with(content, 'engram-enc:') THEN '' ELSE content END"
OLD = {  # 0013's
    "messages": f"to_tsvector('english'::regconfig, coalesce(name, '') || ' ' || {PLAIN})",
    "summaries": f"to_tsvector('english'::regconfig, {PLAIN})",
    "facts": f"to_tsvector('english'::regconfig, {PLAIN})",
}


def _tsv(table: str, expression: str) -> None:
    op.drop_index(f"ix_{table}_content_tsv", table_name=table)
    op.drop_column(table, "content_tsv")
    op.add_column(table, sa.Column("content_tsv", pg.TSVECTOR(), sa.Computed(expression, persisted=True)))
    op.create_index(f"ix_{table}_content_tsv", table, ["content_tsv"], postgresql_using="gin")


def upgrade() -> None:
    for table, expression in NEW.items():
        op.add_column(table, sa.Column("plain_tsv", pg.TSVECTOR(), nullable=True))
        _tsv(table, expression)
    op.add_column(
        "encryption_rotation",
        sa.Column("keyword_index", sa.Text(), server_default=sa.text("'drop'"), nullable=False),
    )


def downgrade() -> None:
    op.drop_column("encryption_rotation", "keyword_index")
    for table, expression in OLD.items():
        _tsv(table, expression)  # back to no words of a sealed text, whatever `plain_tsv` held
        op.drop_column(table, "plain_tsv")

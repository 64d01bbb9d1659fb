"""initial: pgvector, tenants and API keys, users, sessions, messages, idempotency keys

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-25
"""

import os
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects import postgresql as pg

revision: str = "0001_initial"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NOW = sa.text("now()")
EMPTY = sa.text("'{}'::jsonb")


def _dim() -> int:
    dim = context.config.attributes.get("embedding_dim")
    return int(dim or os.environ.get("ENGRAM_EMBEDDING_DIM", "384"))


def _ts(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(
        name, sa.DateTime(timezone=True), nullable=nullable,
        server_default=None if nullable else NOW,
    )


def upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS vector")

    op.create_table(
        "tenants",
        sa.Column("tenant_id", sa.Text(), nullable=False),
        _ts("created_at"),
        sa.PrimaryKeyConstraint("tenant_id", name="pk_tenants"),
    )
    op.create_table(
        "api_keys",
        sa.Column("key_id", pg.UUID(as_uuid=True), nullable=False),
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("prefix", sa.Text(), nullable=False),
        sa.Column("key_hash", sa.Text(), nullable=False),
        _ts("created_at"),
        _ts("revoked_at", nullable=True),
        sa.PrimaryKeyConstraint("key_id", name="pk_api_keys"),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.tenant_id"], ondelete="CASCADE",
            name="fk_api_keys_tenant_id_tenants",
        ),
        sa.UniqueConstraint("key_hash", name="uq_api_keys_key_hash"),
    )
    op.create_index("ix_api_keys_tenant_id_created_at", "api_keys", ["tenant_id", "created_at"])

    op.create_table(
        "users",
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("metadata", pg.JSONB(), nullable=False, server_default=EMPTY),
        _ts("created_at"),
        _ts("updated_at"),
        sa.PrimaryKeyConstraint("tenant_id", "user_id", name="pk_users"),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.tenant_id"], ondelete="CASCADE",
            name="fk_users_tenant_id_tenants",
        ),
    )

    op.create_table(
        "sessions",
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("metadata", pg.JSONB(), nullable=False, server_default=EMPTY),
        sa.Column("last_seq", sa.BigInteger(), nullable=False, server_default=sa.text("0")),
        _ts("created_at"),
        _ts("updated_at"),
        _ts("ended_at", nullable=True),
        sa.PrimaryKeyConstraint("tenant_id", "session_id", name="pk_sessions"),
        sa.ForeignKeyConstraint(
            ["tenant_id", "user_id"], ["users.tenant_id", "users.user_id"], ondelete="CASCADE",
            name="fk_sessions_tenant_id_users",
        ),
    )
    op.create_index("ix_sessions_tenant_id_created_at", "sessions", ["tenant_id", "created_at"])
    op.create_index(
        "ix_sessions_tenant_id_user_id_created_at", "sessions",
        ["tenant_id", "user_id", "created_at"],
    )

    op.create_table(
        "messages",
        sa.Column("message_id", pg.UUID(as_uuid=True), nullable=False),
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("role", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("metadata", pg.JSONB(), nullable=False, server_default=EMPTY),
        sa.Column("token_count", sa.Integer(), nullable=False),
        _ts("created_at"),
        _ts("updated_at"),
        sa.Column("embedding", Vector(_dim()), nullable=True),
        sa.Column(
            "content_tsv", pg.TSVECTOR(),
            sa.Computed("to_tsvector('english'::regconfig, content)", persisted=True),
        ),
        sa.PrimaryKeyConstraint("message_id", name="pk_messages"),
        sa.ForeignKeyConstraint(
            ["tenant_id", "session_id"], ["sessions.tenant_id", "sessions.session_id"],
            ondelete="CASCADE", name="fk_messages_tenant_id_sessions",
        ),
        sa.CheckConstraint(
            "role IN ('system', 'user', 'assistant', 'tool')", name="ck_messages_role"
        ),
    )
    op.create_index(
        "uq_messages_tenant_id_session_id_seq", "messages",
        ["tenant_id", "session_id", "seq"], unique=True,
    )
    op.create_index(
        "ix_messages_tenant_id_user_id_created_at", "messages",
        ["tenant_id", "user_id", "created_at"],
    )
    op.create_index("ix_messages_content_tsv", "messages", ["content_tsv"], postgresql_using="gin")
    op.create_index(
        "ix_messages_metadata", "messages", ["metadata"], postgresql_using="gin",
        postgresql_ops={"metadata": "jsonb_path_ops"},
    )
    op.create_index(
        "ix_messages_embedding_hnsw", "messages", ["embedding"], postgresql_using="hnsw",
        postgresql_ops={"embedding": "vector_cosine_ops"},
    )

    op.create_table(
        "idempotency_keys",
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("request_hash", sa.Text(), nullable=False),
        sa.Column("response", pg.JSONB(), nullable=True),
        _ts("created_at"),
        sa.PrimaryKeyConstraint("tenant_id", "session_id", "key", name="pk_idempotency_keys"),
        sa.ForeignKeyConstraint(
            ["tenant_id", "session_id"], ["sessions.tenant_id", "sessions.session_id"],
            ondelete="CASCADE", name="fk_idempotency_keys_tenant_id_sessions",
        ),
    )
    op.create_index("ix_idempotency_keys_created_at", "idempotency_keys", ["created_at"])


def downgrade() -> None:
    for table in ("idempotency_keys", "messages", "sessions", "users", "api_keys", "tenants"):
        op.drop_table(table)

"""session memory: summaries, the jobs outbox, cache evictions, retention records

Revision ID: 0003_session_memory
Revises: 0002_embedding_queue
Create Date: 2026-11-26
"""

import os
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects.postgresql import JSONB, TSVECTOR, UUID

revision: str = "0003_session_memory"
down_revision: str | None = "0002_embedding_queue"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _dim() -> int:
    dim = context.config.attributes.get("embedding_dim")
    return int(dim or os.environ.get("ENGRAM_EMBEDDING_DIM", "384"))


def _session_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["tenant_id", "session_id"],
        ["sessions.tenant_id", "sessions.session_id"],
        name=f"fk_{table}_tenant_id_sessions",
        ondelete="CASCADE",
    )


def upgrade() -> None:
    # The summary watermark, the summary trigger's token count and the cache version live on the
    # session row, which every append already updates under its lock.
    for name, default in (("summarized_seq", "0"), ("unsummarized_tokens", "0"), ("cache_gen", "0")):
        op.add_column(
            "sessions", sa.Column(name, sa.BigInteger(), nullable=False, server_default=sa.text(default))
        )
    op.execute(
        "UPDATE sessions s SET unsummarized_tokens = "
        "coalesce((SELECT sum(token_count) FROM messages m "
        "WHERE m.tenant_id = s.tenant_id AND m.session_id = s.session_id), 0)"
    )

    op.create_table(
        "summaries",
        sa.Column("summary_id", UUID(as_uuid=True), primary_key=True),
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("from_seq", sa.BigInteger(), nullable=False),
        sa.Column("to_seq", sa.BigInteger(), nullable=False),
        sa.Column("message_count", sa.Integer(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("token_count", sa.Integer(), nullable=False),
        sa.Column("provider", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")),
        sa.Column("embedding", Vector(_dim()), nullable=True),
        sa.Column(
            "content_tsv",
            TSVECTOR(),
            sa.Computed("to_tsvector('english'::regconfig, content)", persisted=True),
        ),
        _session_fk("summaries"),
        sa.CheckConstraint("from_seq <= to_seq", name="ck_summaries_range"),
    )
    op.create_index(
        "uq_summaries_tenant_id_session_id_to_seq", "summaries", ["tenant_id", "session_id", "to_seq"],
        unique=True,
    )
    op.create_index(
        "ix_summaries_tenant_id_user_id_created_at", "summaries", ["tenant_id", "user_id", "created_at"]
    )
    op.create_index("ix_summaries_content_tsv", "summaries", ["content_tsv"], postgresql_using="gin")

    # Derived work per session other than embeddings (summaries now, fact extraction later):
    # one row per (session, kind), written in the transaction that makes the work due.
    op.create_table(
        "jobs",
        sa.Column("tenant_id", sa.Text(), primary_key=True),
        sa.Column("kind", sa.Text(), primary_key=True),
        sa.Column("session_id", sa.Text(), primary_key=True),
        sa.Column("status", sa.Text(), nullable=False, server_default=sa.text("'pending'")),
        sa.Column("run_after", sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("force_to_seq", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")),
        _session_fk("jobs"),
        sa.CheckConstraint("status IN ('pending', 'failed')", name="ck_jobs_status"),
    )
    op.create_index(
        "ix_jobs_queue", "jobs", ["run_after"], postgresql_where=sa.text("status = 'pending'")
    )

    # Redis keys to delete for deleted sessions and purged users, recorded with the delete so a
    # Redis outage at that moment cannot leave a purged user's messages in the cache.
    op.create_table(
        "cache_evictions",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")),
    )
    op.create_index("ix_cache_evictions_created_at", "cache_evictions", ["created_at"])

    op.create_table(
        "retention_events",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=False),
        sa.Column("removed", sa.Integer(), nullable=False),
        sa.Column("from_seq", sa.BigInteger(), nullable=False),
        sa.Column("to_seq", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("rule", JSONB(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")),
        _session_fk("retention_events"),
    )
    op.create_index(
        "ix_retention_events_tenant_id_session_id_created_at",
        "retention_events",
        ["tenant_id", "session_id", "created_at"],
    )


def downgrade() -> None:
    op.drop_table("retention_events")
    op.drop_table("cache_evictions")
    op.drop_table("jobs")
    op.drop_table("summaries")
    for name in ("cache_gen", "unsummarized_tokens", "summarized_seq"):
        op.drop_column("sessions", name)

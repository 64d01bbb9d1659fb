"""user facts: facts with validity and provenance, their change history, the extraction watermark

Revision ID: 0004_user_facts
Revises: 0003_session_memory
Create Date: 2026-11-26
"""

import os
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID

revision: str = "0004_user_facts"
down_revision: str | None = "0003_session_memory"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KINDS = ("identity", "preference", "relationship", "occupation", "location", "plan", "event", "other")
EVENTS = ("ADD", "UPDATE", "INVALIDATE", "DELETE")


def _dim() -> int:
    dim = context.config.attributes.get("embedding_dim")
    return int(dim or os.environ.get("ENGRAM_EMBEDDING_DIM", "384"))


def _user_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["tenant_id", "user_id"],
        ["users.tenant_id", "users.user_id"],
        name=f"fk_{table}_tenant_id_users",
        ondelete="CASCADE",
    )


def _ts(name: str, nullable: bool = False) -> sa.Column:  # type: ignore[type-arg]
    default = None if nullable else sa.text("now()")
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable, server_default=default)


def upgrade() -> None:
    # How far fact extraction has read each session; appends make the job due in their own
    # transaction, like summaries.
    op.add_column(
        "sessions", sa.Column("extracted_seq", sa.BigInteger(), nullable=False, server_default=sa.text("0"))
    )

    op.create_table(
        "facts",
        sa.Column("fact_id", UUID(as_uuid=True), primary_key=True),
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("subject", sa.Text(), nullable=True),
        sa.Column("exclusive", sa.Boolean(), nullable=False, server_default=sa.text("false")),
        sa.Column("topics", ARRAY(sa.Text()), nullable=False, server_default=sa.text("'{}'::text[]")),
        sa.Column("importance", sa.Float(), nullable=False),
        sa.Column("metadata", JSONB(), nullable=False, server_default=sa.text("'{}'::jsonb")),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column(
            "source_message_ids", ARRAY(UUID(as_uuid=True)), nullable=False, server_default=sa.text("'{}'")
        ),
        sa.Column("session_id", sa.Text(), nullable=True),
        _ts("valid_from"),
        _ts("invalid_at", nullable=True),
        sa.Column("superseded_by", UUID(as_uuid=True), nullable=True),
        sa.Column("mention_count", sa.Integer(), nullable=False, server_default=sa.text("1")),
        _ts("last_mentioned_at"),
        _ts("last_used_at", nullable=True),
        _ts("created_at"),
        _ts("updated_at"),
        sa.Column("embedding", Vector(_dim()), nullable=True),
        sa.Column(
            "content_tsv",
            sa.dialects.postgresql.TSVECTOR(),
            sa.Computed("to_tsvector('english'::regconfig, content)", persisted=True),
        ),
        _user_fk("facts"),
        sa.CheckConstraint(f"kind IN {KINDS!r}", name="ck_facts_kind"),
        sa.CheckConstraint("actor IN ('system', 'api')", name="ck_facts_actor"),
        sa.CheckConstraint("importance >= 0 AND importance <= 1", name="ck_facts_importance"),
        sa.CheckConstraint("invalid_at IS NULL OR invalid_at >= valid_from", name="ck_facts_validity"),
    )
    # A user's facts valid now (the common read), and by validity for as_of reads.
    op.create_index(
        "ix_facts_current",
        "facts",
        ["tenant_id", "user_id", "subject"],
        postgresql_where=sa.text("invalid_at IS NULL"),
    )
    op.create_index("ix_facts_tenant_id_user_id_valid_from", "facts", ["tenant_id", "user_id", "valid_from"])
    # The worker's queue of facts to embed (added or edited over the API, or by extraction).
    op.create_index(
        "ix_facts_embed_queue", "facts", ["created_at"], postgresql_where=sa.text("embedding IS NULL")
    )
    op.create_index("ix_facts_content_tsv", "facts", ["content_tsv"], postgresql_using="gin")
    op.create_index(
        "ix_facts_embedding_hnsw",
        "facts",
        ["embedding"],
        postgresql_using="hnsw",
        postgresql_ops={"embedding": "vector_cosine_ops"},
    )

    # Every change to a fact, kept after the fact itself is deleted (its text can be redacted).
    op.create_table(
        "fact_events",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("fact_id", UUID(as_uuid=True), nullable=False),
        sa.Column("event", sa.Text(), nullable=False),
        sa.Column("old_content", sa.Text(), nullable=True),
        sa.Column("new_content", sa.Text(), nullable=True),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("related_fact_id", UUID(as_uuid=True), nullable=True),
        sa.Column(
            "source_message_ids", ARRAY(UUID(as_uuid=True)), nullable=False, server_default=sa.text("'{}'")
        ),
        _ts("created_at"),
        _user_fk("fact_events"),
        sa.CheckConstraint(f"event IN {EVENTS!r}", name="ck_fact_events_event"),
        sa.CheckConstraint("actor IN ('system', 'api')", name="ck_fact_events_actor"),
    )
    op.create_index("ix_fact_events_tenant_id_fact_id_id", "fact_events", ["tenant_id", "fact_id", "id"])
    op.create_index(
        "ix_fact_events_tenant_id_user_id_created_at", "fact_events", ["tenant_id", "user_id", "created_at"]
    )

    # Sessions stored before this version: their facts are extracted as derived work like any other.
    op.execute(
        "INSERT INTO jobs (tenant_id, kind, session_id) "
        "SELECT tenant_id, 'extract', session_id FROM sessions WHERE last_seq > 0 ON CONFLICT DO NOTHING"
    )


def downgrade() -> None:
    op.execute("DELETE FROM jobs WHERE kind = 'extract'")
    op.drop_table("fact_events")
    op.drop_table("facts")
    op.drop_column("sessions", "extracted_seq")

"""audit trail: per-tenant opt-in, and an append-only table of who read or wrote what, when, from where

Revision ID: 0011_audit_trail
Revises: 0010_trace_context
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011_audit_trail"
down_revision: str | None = "0010_trace_context"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Append-only: no UPDATE ever, no TRUNCATE; a DELETE only from the retention sweep or a user purge
# (which say so for their own transaction: engram.audit_delete = on), or by the cascade of a
# tenant's deletion (its tenant row is gone by then). A guard against the application's mistakes,
# not against the database's owner, who can drop the trigger.
GUARD = [
    """
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF coalesce(current_setting('engram.audit_delete', true), '') = 'on'
           OR NOT EXISTS (SELECT 1 FROM tenants WHERE tenant_id = OLD.tenant_id) THEN
            RETURN OLD;
        END IF;
    END IF;
    RAISE EXCEPTION 'audit_events is append-only (% refused)', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END $$
""",
    "CREATE TRIGGER audit_events_no_update BEFORE UPDATE OR DELETE ON audit_events "
    "FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()",
    "CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events "
    "FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only()",
]


def upgrade() -> None:
    op.add_column("tenants", sa.Column("audit", sa.Boolean(), server_default=sa.text("false"), nullable=False))
    op.add_column("tenants", sa.Column("audit_retention_days", sa.Integer(), nullable=True))
    op.create_table(
        "audit_events",
        sa.Column("id", sa.BigInteger(), sa.Identity(), nullable=False),
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("key_id", postgresql.UUID(as_uuid=True), nullable=True),
        sa.Column("client", sa.Text(), nullable=True),
        sa.Column("request_id", sa.Text(), nullable=True),
        sa.Column("method", sa.Text(), nullable=False),
        sa.Column("operation", sa.Text(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=True),
        sa.Column("session_id", sa.Text(), nullable=True),
        sa.Column("ids", postgresql.JSONB(), server_default=sa.text("'{}'::jsonb"), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.tenant_id"], name="fk_audit_events_tenant_id_tenants", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_audit_events"),
    )
    op.create_index("ix_audit_events_tenant_id_id", "audit_events", ["tenant_id", "id"])
    op.create_index("ix_audit_events_at", "audit_events", ["at"])
    for statement in GUARD:
        op.execute(statement)


def downgrade() -> None:
    op.execute("DROP TABLE audit_events")
    op.execute("DROP FUNCTION audit_events_append_only()")
    op.drop_column("tenants", "audit_retention_days")
    op.drop_column("tenants", "audit")

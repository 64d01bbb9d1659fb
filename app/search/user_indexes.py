"""Indexes of their own for the largest users, so no user-scoped search scans tens of thousands of
rows exactly or filters the whole table's HNSW graph down to one user.

Without them a search scans a user's messages exactly up to ENGRAM_SEARCH_EXACT_MAX_ROWS (at 1M
messages, ~1.5 us a row: 72 ms for 48k), and past it walks the table's one HNSW index with
pgvector's iterative scan, which must visit about 1 / (the user's share of the table) tuples per hit,
while its keyword statement takes the full-text GIN index's matches of the whole table and then
drops the other users' (docs/benchmarks.md, search at 1M). So users past
ENGRAM_SEARCH_USER_INDEX_MIN_ROWS get a partial HNSW index and a partial GIN index each, which hold
only their rows, as pgvector's docs advise for a filter with few values; once built, their searches
go through them instead of the exact scan.

A partial index's predicate is stored in the catalog, so it does not name the user: messages are
hashed into 1,024 buckets by (tenant, user), and the indexes cover a bucket. A search that does not scan
exactly (its user has the index, or is past the exact limit) adds `bucket of the row = bucket of
(:t, :u)`, implied by its own user filter, so it changes no result: with a plan per execution
(app/search/sql.opening_query) PostgreSQL folds the right side to the constant that proves the
partial index applies. The other users of a bucket (1 in 1,024 of the rest) share the index and
are filtered as before. A purged user leaves no name behind, only an index that the next sweep
drops if nobody large is left in its bucket.

At most ENGRAM_SEARCH_USER_INDEXES buckets get indexes, the largest users' first: every partial
index is one more predicate PostgreSQL tests on each insert into messages and on each plan over it.
The worker builds them CONCURRENTLY (no write waits), one core at a time, in a lane of its own.
The same sweep keeps those users' keyword document frequencies (app/search/user_terms.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import structlog
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.crypto import fields
from app.search import user_terms

_log = structlog.get_logger("engram.search")


def bucket_of(tenant: str, user: str) -> str:
    """SQL for the bucket of (tenant, user), two SQL text expressions."""
    return f"(hashtext({tenant} || '/' || {user}) & 1023)"


# Migration 0016's statistics are over this very expression: change both together.
ROW_BUCKET = bucket_of("tenant_id", "user_id")
# The scope's bucket from its parameters; a custom plan folds it to a constant.
SCOPE_BUCKET = bucket_of("CAST(:t AS text)", "CAST(:u AS text)")
BUCKET_FILTER = f"{ROW_BUCKET} = {SCOPE_BUCKET}"
# Whether the scope's bucket has its HNSW index, built and valid (a catalog lookup by name).
OWN_INDEX = (
    "EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
    f"WHERE c.relname = 'ix_messages_bucket_' || lpad(CAST({SCOPE_BUCKET} AS text), 4, '0') || '_hnsw' "
    "AND i.indisvalid)"
)
NAME = re.compile(r"^ix_messages_bucket_(\d{4})_(hnsw|tsv)$")
# One session lock so that two workers never build the same index twice over.
LOCK_KEY = 0x656E_6772_616D_7569  # "engramui"
# An HNSW build much larger than maintenance_work_mem slows down sharply (the graph no longer fits);
# a 100k-message user's graph needs ~200 MB. One process, no parallel workers: it is background work
# on machines whose cores serve requests.
BUILD_SETTINGS = {"maintenance_work_mem": "'512MB'", "max_parallel_maintenance_workers": "0"}
# The sweep's connection holds its session lock while the term counts run on other connections
# (app/search/user_terms.py): it must not be closed for idling meanwhile (the worker's pool sets
# idle_session_timeout, app/db/engine.py).
HELD_SETTINGS = {"idle_session_timeout": "0"}


def index_name(bucket: int, kind: str) -> str:
    return f"ix_messages_bucket_{bucket:04d}_{kind}"


def create_sql(bucket: int, kind: str) -> str:
    """The DDL of one bucket's index; built from an integer only."""
    using = "hnsw (embedding vector_cosine_ops)" if kind == "hnsw" else "gin (content_tsv)"
    return (
        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {index_name(int(bucket), kind)} "
        f"ON messages USING {using} WHERE {ROW_BUCKET} = {int(bucket)}"
    )


# Users of at least :least messages with their bucket, largest first. `sessions.last_seq` sums what
# was ever appended (a cheap upper bound, from a small table) and picks the users to count; their
# rows still there are counted up to :cap (past it, the sum stands for their size).
LARGE_USERS = text(
    f"""
SELECT u.tenant_id, u.user_id, {bucket_of("u.tenant_id", "u.user_id")} AS bucket, u.appended,
  CASE WHEN c.n >= :cap THEN u.appended ELSE c.n END AS n
FROM (SELECT tenant_id, user_id, sum(last_seq) AS appended FROM sessions
      GROUP BY tenant_id, user_id HAVING sum(last_seq) >= :least) u
CROSS JOIN LATERAL (
  SELECT count(*) AS n FROM (
    SELECT 1 FROM messages m WHERE m.tenant_id = u.tenant_id AND m.user_id = u.user_id LIMIT :cap
  ) x
) c
WHERE c.n >= :least
ORDER BY n DESC, bucket, u.tenant_id, u.user_id
"""
)
EXISTING = text(
    "SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i "
    "JOIN pg_class c ON c.oid = i.indexrelid "
    "WHERE i.indrelid = 'messages'::regclass AND c.relname LIKE 'ix_messages_bucket_%'"
)


@dataclass
class Plan:
    """What one pass changes: indexes to drop (invalid, or no large user left) and to build."""

    drop: list[str] = field(default_factory=list)
    build: list[tuple[int, str]] = field(default_factory=list)
    keep: list[int] = field(default_factory=list)  # the buckets with indexes once it is done


def plan(large: list[tuple[int, int]], existing: dict[str, bool], *, min_rows: int, most: int) -> Plan:
    """`large`: (bucket, its largest user's messages), largest first, users of at least half
    `min_rows`. A bucket gets indexes once a user passes `min_rows` and keeps them until its largest
    falls under half of it (no build and drop back and forth around the limit)."""
    have = {int(m.group(1)) for name in existing if (m := NAME.match(name))}
    chosen = [b for b, n in large if n > min_rows or b in have][:most]
    p = Plan(keep=chosen)
    for name, valid in sorted(existing.items()):
        m = NAME.match(name)
        if m is None:
            continue
        if not valid or int(m.group(1)) not in chosen:
            p.drop.append(name)  # an invalid one is what a build cut short left: built again below
    for bucket in chosen:
        for kind in ("hnsw", "tsv"):
            name = index_name(bucket, kind)
            if name not in existing or not existing[name]:
                p.build.append((bucket, kind))
    return p


@dataclass
class Result:
    dropped: int = 0
    built: int = 0
    failed: int = 0  # builds that raised: tried again at the next sweep, not at once
    skipped: bool = False  # another worker holds the lock
    terms: user_terms.Result = field(default_factory=user_terms.Result)


async def maintain(engine: AsyncEngine, *, min_rows: int, most: int) -> Result:
    """One pass: drop what is no longer wanted, build what is missing. Runs in autocommit (an index
    is built or dropped CONCURRENTLY, which no transaction may hold)."""
    result = Result()
    async with engine.connect() as conn:
        await conn.execution_options(isolation_level="AUTOCOMMIT")
        if not (await conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": LOCK_KEY})).scalar():
            result.skipped = True
            return result
        try:
            for setting, value in HELD_SETTINGS.items():
                await conn.execute(text(f"SET {setting} = {value}"))
            least = max(min_rows // 2, 1)
            users = (await conn.execute(LARGE_USERS, {"least": least, "cap": min_rows + 1})).all()
            large: dict[int, int] = {}  # bucket: its largest user's messages, largest first
            for r in users:
                large.setdefault(int(r.bucket), int(r.n))
            existing = {r.name: bool(r.valid) for r in await conn.execute(EXISTING)}
            todo = plan(list(large.items()), existing, min_rows=min_rows, most=most)
            for name in todo.drop:
                await conn.execute(text(f"DROP INDEX CONCURRENTLY IF EXISTS {name}"))
                result.dropped += 1
                _log.info("user index dropped", index=name)
            for setting, value in BUILD_SETTINGS.items():
                await conn.execute(text(f"SET {setting} = {value}"))
            for bucket, kind in todo.build:
                # A build that fails (disk full, cancelled) leaves an invalid index that the next
                # pass drops and builds again; caught here so that it is not retried every few
                # seconds as a failed sweep would be, each try reading the whole table.
                try:
                    await conn.execute(text(create_sql(bucket, kind)))
                except Exception as exc:
                    result.failed += 1
                    name = index_name(bucket, kind)
                    _log.warning("user index build failed", index=name, error=str(exc)[:500])
                    continue
                result.built += 1
                _log.info("user index built", index=index_name(bucket, kind))
            # Their searches' keyword weights: no lexeme kept where the keyword index keeps no word.
            sealed_words_dropped = fields.keyring() is not None and not fields.keeps_keywords()
            result.terms = await user_terms.refresh(
                engine,
                conn,
                [
                    (r.tenant_id, r.user_id, int(r.appended))
                    for r in users
                    if int(r.n) > min_rows and int(r.bucket) in todo.keep
                ],
                keep=not sealed_words_dropped,
            )
        finally:
            # The connection goes back to the pool: none of the build's settings, nor the lock.
            for setting in (*BUILD_SETTINGS, *HELD_SETTINGS):
                await conn.execute(text(f"RESET {setting}"))
            await conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": LOCK_KEY})
    return result

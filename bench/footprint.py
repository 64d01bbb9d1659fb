"""Memory footprint of the production shape (issue 16): 2 API processes + worker + PostgreSQL + Redis.

Starts, all fresh and stopped on exit (Ctrl-C included): an embedded PostgreSQL in a temporary
directory, a redis-server of its own, `engram serve` with 2 processes (ENGRAM_WORKERS=2, the
worker off) and `engram worker`. Loads N sessions of M chat messages through the API (default
20 x 1,000 = 20k), waits until the worker has embedded them all, then serves some traffic every
process sees in production (searches by meaning, memory reads with a query, appends) and reads
RSS and PSS (shared pages split between the processes that map them, /proc/<pid>/smaps_rollup)
of every process, by group.

    .venv/bin/python -m bench.footprint                       # 20 x 1000 messages
    .venv/bin/python -m bench.footprint --sessions 5          # a quick look
    .venv/bin/python -m bench.footprint --app-dir /tmp/before/app     # another copy of `app`
    .venv/bin/python -m bench.footprint --embedder each      # every API process loads the model

`--embedder shared` (the default): the API processes embed queries through the worker's endpoint
(ENGRAM_EMBED_URL -> ENGRAM_WORKER_EMBED_PORT), as docker-compose.yml runs them; `each`: every API
process loads its own model (the shape before issue 16, and what an `app` copy without the
endpoint does).

Target: <= 800 MB PSS in all. Other ENGRAM_* variables in the environment pass through.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import asyncpg
import httpx
import psutil

from bench import memory as mem
from bench.append import postmaster_pid, tree
from tests.support.procs import free_port, stop

ROOT = Path(__file__).resolve().parents[1]

TARGET_MB = 800.0
QUERIES = ["where did I move last year", "what do I like to eat", "the flight to Lisbon", "my sister's job"]


def pss_mb(procs: Sequence[psutil.Process]) -> tuple[float, float]:
    rss = pss = 0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            info = p.memory_full_info()
            rss += info.rss
            pss += getattr(info, "pss", info.rss)
    return rss / 2**20, pss / 2**20


async def wait_indexed(url: str, limit: float) -> float:
    conn = await asyncpg.connect(url)
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < limit:
            left = await conn.fetchval(
                "SELECT (SELECT count(*) FROM messages WHERE embed_status = 'pending') "
                "+ (SELECT count(*) FROM message_sentences WHERE due_at IS NOT NULL)"
            )
            if left == 0:
                return time.monotonic() - t0
            await asyncio.sleep(1.0)
        raise RuntimeError(f"{left} messages still pending after {limit:.0f} s")
    finally:
        await conn.close()


async def backends(url: str) -> dict[str, list[int]]:
    """The client backends of the database by application_name (this query's own left out)."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT application_name, pid FROM pg_stat_activity "
            "WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
        )
    finally:
        await conn.close()
    out: dict[str, list[int]] = {}
    for r in rows:
        out.setdefault(r["application_name"], []).append(r["pid"])
    return out


async def traffic(base_url: str, sids: Sequence[str], rounds: int) -> int:
    """What each API process serves in production: searches by meaning, memory reads with a
    query (facts ranked by it), appends. Keep-alive off: every request is a new connection, so
    the kernel spreads them over both processes."""
    failures = 0
    async with httpx.AsyncClient(
        base_url=base_url, timeout=60.0, limits=httpx.Limits(max_keepalive_connections=0)
    ) as client:
        for i in range(rounds):
            sid = sids[i % len(sids)]
            q = QUERIES[i % len(QUERIES)]
            answers = [
                await client.post("/v1/search", json={"query": q, "mode": "hybrid", "limit": 10}),
                await client.get(f"/v1/sessions/{sid}/memory", params={"max_tokens": 2000, "query": q}),
                await client.post(
                    f"/v1/sessions/{sid}/messages",
                    json={"messages": [{"role": "user", "content": f"note {i}: {q}"}]},
                ),
            ]
            failures += sum(1 for r in answers if r.status_code >= 400)
    return failures


async def search_latency(base_url: str, n: int, concurrency: int) -> tuple[float, float, float]:
    """Hybrid searches (each embeds its query), `concurrency` at a time, keep-alive on: p50 and
    p95 in ms, and searches/s."""
    lat: list[float] = []
    async with httpx.AsyncClient(base_url=base_url, timeout=60.0) as client:
        left = iter(range(n))

        async def one_client() -> None:
            for i in left:
                t0 = time.perf_counter()
                body = {"query": f"{QUERIES[i % len(QUERIES)]} {i}", "mode": "hybrid", "limit": 10}
                r = await client.post("/v1/search", json=body)
                lat.append((time.perf_counter() - t0) * 1000)
                r.raise_for_status()

        t0 = time.perf_counter()
        await asyncio.gather(*(one_client() for _ in range(concurrency)))
        took = time.perf_counter() - t0
    q = statistics.quantiles(lat, n=100)
    return q[49], q[94], n / took


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sessions", type=int, default=20, help="sessions (default 20)")
    p.add_argument("--messages", type=int, default=1000, help="messages per session (default 1000)")
    p.add_argument("--procs", type=int, default=2, help="API processes (default 2)")
    p.add_argument("--rounds", type=int, default=60, help="search + memory + append rounds (default 60)")
    p.add_argument("--searches", type=int, default=200, help="searches per latency run (default 200)")
    p.add_argument("--app-dir", type=Path, default=None, help="run Engram on this copy of `app`")
    p.add_argument(
        "--embedder",
        choices=["shared", "each"],
        default="shared",
        help="query embeddings from the worker's endpoint (default) or a model in each API process",
    )
    args = p.parse_args(argv)
    if args.app_dir is not None:
        mem.APP_DIR = args.app_dir.resolve().parent  # as bench/memory.py: the package's parent
    say = mem.say
    with tempfile.TemporaryDirectory(prefix="engram-footprint-") as tmp_name:
        tmp = Path(tmp_name)
        log = tmp / "engram.log"
        pg = mem.start_postgres(tmp / "pg", needed=100, say=say)
        rs = mem.start_redis(tmp, None)
        api = worker = None
        try:
            mem.migrate(pg.url, log)
            embed_port = free_port()
            shared = args.embedder == "shared"
            api = mem.start_api(
                pg.url,
                args.procs,
                rs.url,
                "footprint",
                log,
                embed_url=f"http://127.0.0.1:{embed_port}" if shared else None,
            )
            say(f"loading {args.sessions} x {args.messages} messages")
            sids = asyncio.run(mem.load_sessions(api.base_url, args.sessions, args.messages, say))
            worker_env = mem.engram_env(
                pg.url, redis_url=rs.url, worker_embed_port=str(embed_port) if shared else None
            )
            worker = mem.spawn(mem.engram_cmd("worker"), worker_env, log)
            took = asyncio.run(wait_indexed(pg.url, limit=3600))
            say(f"all embedded after {took:.0f} s; serving {args.rounds} rounds of traffic")
            failures = asyncio.run(traffic(api.base_url, sids, args.rounds))
            time.sleep(2.0)
            groups: dict[str, list[psutil.Process]] = {
                "API (serve + its processes)": tree(api.proc.pid),
                "worker": tree(worker.pid),
                "PostgreSQL": tree(postmaster_pid(pg)),
                "Redis": [psutil.Process(rs.pid)] if rs.pid else [],
            }
            rows: list[tuple[str, int, float, float]] = []
            for name, procs in groups.items():
                rss, pss = pss_mb(procs)
                rows.append((name, len(procs), rss, pss))
            by_app = asyncio.run(backends(pg.url))
            per_api = [(q.pid, *pss_mb([q])) for q in tree(api.proc.pid)]
            per_worker = [(q.pid, *pss_mb([q])) for q in tree(worker.pid)]
            print(
                f"\nproduction shape, {args.sessions * args.messages:,} messages, {args.procs} API "
                f"processes, query embeddings: {args.embedder}"
            )
            print("| process group | processes | RSS MB | PSS MB |\n|---|--:|--:|--:|")
            for name, n, rss, pss in rows:
                print(f"| {name} | {n} | {rss:.0f} | {pss:.0f} |")
            total_rss, total_pss = sum(r[2] for r in rows), sum(r[3] for r in rows)
            print(f"| **all** | {sum(r[1] for r in rows)} | {total_rss:.0f} | **{total_pss:.0f}** |")
            print("\nAPI processes one by one (pid, RSS MB, PSS MB):")
            for pid, rss, pss in per_api:
                print(f"  {pid}: {rss:.0f} / {pss:.0f}")
            print("worker processes one by one (pid, RSS MB, PSS MB):")
            for pid, rss, pss in per_worker:
                print(f"  {pid}: {rss:.0f} / {pss:.0f}")
            print("PostgreSQL backends by application_name (count, PSS MB; the rest are its own processes):")
            for app_name, pids in sorted(by_app.items()):
                procs = [psutil.Process(pid) for pid in pids if psutil.pid_exists(pid)]
                print(f"  {app_name or '(none)'}: {len(pids)}, {pss_mb(procs)[1]:.0f}")
            print("\nhybrid search, query embedded per search (p50 ms, p95 ms, searches/s):")
            for c in (1, 16):
                p50, p95, rate = asyncio.run(search_latency(api.base_url, args.searches, c))
                load = os.getloadavg()[0]
                print(f"  c{c}: {p50:.1f} / {p95:.1f} ms, {rate:.0f}/s; load average {load:.2f}")
            verdict = "met" if total_pss <= TARGET_MB else "NOT met"
            print(f"\ntarget <= {TARGET_MB:.0f} MB PSS: {total_pss:.0f} MB -> {verdict}; failures {failures}")
            return 0 if failures == 0 else 1
        finally:
            if worker is not None:
                stop(worker)
            if api is not None:
                stop(api.proc)
            rs.stop()
            pg.stop()


if __name__ == "__main__":
    raise SystemExit(main())

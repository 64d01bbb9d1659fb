"""Search, two copies of `app` side by side (issue 16): CPU per search in the API, the embedding
worker and PostgreSQL, p50/p95 and searches/s, in interleaved rounds on the same data.

Starts an embedded PostgreSQL and a Redis of their own, loads N sessions of M chat messages
(10 users), has `engram worker` embed them, then starts one `engram serve` (2 processes) per
variant on the same database and drives user-scoped hybrid searches (each embeds its query) at
the given concurrency, alternating the variants round by round (the order flips every round).
With `--embedder shared` the API processes embed queries through the worker's endpoint
(ENGRAM_EMBED_URL) and the worker's CPU is part of each search; with `each` they load the model.

    .venv/bin/python -m bench.search_ab --a /tmp/before/app --b app      # lean route before/after
    .venv/bin/python -m bench.search_ab --a app --b app --embedder-a each --embedder-b shared

Everything started here is stopped on exit. Other ENGRAM_* variables pass through.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench import memory as mem
from bench.append import cpu_seconds, postmaster_pid, tree
from bench.footprint import wait_indexed
from tests.support.procs import free_port, stop

QUERIES = [
    "where did I move last year",
    "what do I like to eat",
    "the flight to Lisbon",
    "my sister's job",
    "the meeting about the budget",
    "which doctor did I see",
    "the concert next weekend",
    "my password reset",
]


@dataclass
class Variant:
    name: str
    app_dir: Path
    embedder: str
    api: mem.Api | None = None


async def drive(base_url: str, seconds: float, concurrency: int) -> list[float]:
    lat: list[float] = []
    stop = time.perf_counter() + seconds
    async with httpx.AsyncClient(base_url=base_url, timeout=60.0) as client:

        async def one(k: int) -> None:
            i = k
            while time.perf_counter() < stop:
                body = {
                    "query": QUERIES[i % len(QUERIES)],
                    "user_id": f"bench-user-{i % 10}",
                    "mode": "hybrid",
                    "limit": 10,
                }
                t0 = time.perf_counter()
                r = await client.post("/v1/search", json=body)
                lat.append((time.perf_counter() - t0) * 1000)
                r.raise_for_status()
                i += concurrency

        await asyncio.gather(*(one(k) for k in range(concurrency)))
    return lat


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--a", type=Path, required=True, help="variant A's `app` directory")
    p.add_argument("--b", type=Path, required=True, help="variant B's `app` directory")
    p.add_argument("--embedder-a", choices=["each", "shared"], default="each")
    p.add_argument("--embedder-b", choices=["each", "shared"], default="each")
    p.add_argument("--sessions", type=int, default=10)
    p.add_argument("--messages", type=int, default=1000)
    p.add_argument("--procs", type=int, default=2)
    p.add_argument("--concurrency", type=int, nargs="+", default=[1, 16])
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--warmup", type=float, default=2.0)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args(argv)
    variants = [
        Variant("A", args.a.resolve(), args.embedder_a),
        Variant("B", args.b.resolve(), args.embedder_b),
    ]
    say = mem.say
    with tempfile.TemporaryDirectory(prefix="engram-search-ab-") as tmp_name:
        tmp = Path(tmp_name)
        log = tmp / "engram.log"
        pg = mem.start_postgres(tmp / "pg", needed=100, say=say)
        rs = mem.start_redis(tmp, None)
        worker = None
        try:
            mem.APP_DIR = variants[1].app_dir.parent
            mem.migrate(pg.url, log)
            embed_port = free_port()
            embed_url = f"http://127.0.0.1:{embed_port}"
            for v in variants:
                mem.APP_DIR = v.app_dir.parent
                extra = {"embed_url": embed_url} if v.embedder == "shared" else {}
                v.api = mem.start_api(pg.url, args.procs, rs.url, f"search {v.name}", log, **extra)
            assert variants[0].api is not None
            say(f"loading {args.sessions} x {args.messages} messages")
            asyncio.run(mem.load_sessions(variants[0].api.base_url, args.sessions, args.messages, say))
            mem.APP_DIR = variants[1].app_dir.parent  # the newer worker serves both kinds
            env = mem.engram_env(pg.url, redis_url=rs.url, worker_embed_port=str(embed_port))
            worker = mem.spawn(mem.engram_cmd("worker"), env, log)
            took = asyncio.run(wait_indexed(pg.url, limit=3600))
            say(f"embedded after {took:.0f} s")
            pg_pid = postmaster_pid(pg)
            rows: dict[tuple[str, int], list[tuple[float, float, float, float, float, float, float]]] = {}
            for r in range(args.rounds):
                order = variants if r % 2 == 0 else variants[::-1]
                for c in args.concurrency:
                    for v in order:
                        assert v.api is not None
                        asyncio.run(drive(v.api.base_url, args.warmup, c))
                        procs = {"api": tree(v.api.proc.pid), "worker": tree(worker.pid), "pg": tree(pg_pid)}
                        cpu0 = {k: sum(cpu_seconds(ps).values()) for k, ps in procs.items()}
                        lat = asyncio.run(drive(v.api.base_url, args.seconds, c))
                        procs = {"api": tree(v.api.proc.pid), "worker": tree(worker.pid), "pg": tree(pg_pid)}
                        cpu = {k: sum(cpu_seconds(ps).values()) - cpu0[k] for k, ps in procs.items()}
                        n = len(lat)
                        q = statistics.quantiles(lat, n=100)
                        row = (
                            q[49],
                            q[94],
                            n / args.seconds,
                            cpu["api"] * 1000 / n,
                            cpu["worker"] * 1000 / n,
                            cpu["pg"] * 1000 / n,
                            os.getloadavg()[0],
                        )
                        rows.setdefault((v.name, c), []).append(row)
                        say(
                            f"round {r + 1} {v.name} c{c}: p50 {row[0]:.1f} p95 {row[1]:.1f} ms, "
                            f"{row[2]:.0f}/s, CPU ms/search api {row[3]:.2f} worker {row[4]:.2f} "
                            f"pg {row[5]:.2f}, load {row[6]:.2f}"
                        )
            print("\n| variant | c | p50 ms | p95 ms | searches/s | API CPU ms | worker CPU ms | PG CPU ms |")
            print("|---|--:|--:|--:|--:|--:|--:|--:|")
            for (name, c), found in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
                med = [statistics.median(x[i] for x in found) for i in range(6)]
                v = next(v for v in variants if v.name == name)
                print(
                    f"| {name} ({v.app_dir}, {v.embedder}) | {c} | {med[0]:.1f} | {med[1]:.1f} | "
                    f"{med[2]:.0f} | {med[3]:.2f} | {med[4]:.2f} | {med[5]:.2f} |"
                )
            loads = [x[6] for found in rows.values() for x in found]
            print(f"\nmedians of {args.rounds} rounds; 1-min load average {min(loads):.2f}-{max(loads):.2f}")
            return 0
        finally:
            if worker is not None:
                stop(worker)
            for v in variants:
                if v.api is not None:
                    stop(v.api.proc)
            rs.stop()
            pg.stop()


if __name__ == "__main__":
    raise SystemExit(main())

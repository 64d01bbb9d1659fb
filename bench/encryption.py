"""What encryption at rest (ENGRAM_ENCRYPTION_KEYS) costs the hot paths: append and memory-read
throughput, on vs off, in interleaved rounds (bench/wrk_rounds.py, shared with bench/otel.py).

Starts an embedded PostgreSQL with one database per configuration and an `engram serve` (auth on,
worker off) on each: encryption off, encryption on, and, with `--baseline DIR`, the `app` of
another checkout (e.g. the commit before encryption existed: what "off" costs against no code at
all). Each configuration gets a tenant whose 16 sessions hold 20 messages (written through its own
server, so sealed when on). Each round measures every configuration in a new random order with
`wrk`: single-message appends, then memory reads (`max_tokens=2000`, served from the Redis window,
which is sealed too when on). The table shows medians and each round's figure, the median of the
per-round ratios to `off`, and the API process's CPU time per request (less moved by the load of
other processes than req/s); on 2 shared cores the figures move with the machine's load, so
compare within a round: the load average is printed.

    .venv/bin/python -m bench.encryption [--rounds 5] [--seconds 5] [--baseline /path/to/checkout]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
from contextlib import ExitStack
from pathlib import Path

import asyncpg

from app.crypto.envelope import new_key
from app.db.embedded import start_embedded
from app.db.migrate import upgrade
from bench.wrk_rounds import Target, api, print_table, rounds
from tests.support.procs import free_port

ROOT = Path(__file__).resolve().parents[1]


async def new_database(url: str, name: str) -> str:
    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    db = url.replace("/postgres?", f"/{name}?")
    await upgrade(db, 384)
    return db


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--baseline", type=Path, help="A checkout whose `app` runs as the `before` config.")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("bench/encryption.py needs wrk (apt-get install wrk)")
    home = Path(tempfile.mkdtemp(prefix="engram-bench-enc-"))
    pg = start_embedded(home / "db")
    here = {"PYTHONPATH": str(ROOT)}
    envs = {
        "off": here,
        "on": {**here, "ENGRAM_ENCRYPTION_KEYS": f"k1:{new_key()}"},
    }
    if args.baseline is not None:
        envs = {"before": {"PYTHONPATH": str(args.baseline.resolve())}, **envs}
    try:
        urls = {name: asyncio.run(new_database(pg.url, f"bench_{name}")) for name in envs}
        with ExitStack() as stack:
            configs = {
                name: Target.start(
                    stack.enter_context(api(urls[name], free_port(), home / f"{name}.log", **env)),
                    f"enc-{name}",
                )
                for name, env in envs.items()
            }
            results = rounds(
                configs, count=args.rounds, seconds=args.seconds, connections=args.connections, workdir=home
            )
        print_table(
            "bench/encryption.py",
            results,
            list(configs),
            baseline="off",
            rounds_run=args.rounds,
            seconds=args.seconds,
            connections=args.connections,
        )
    finally:
        pg.stop()
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

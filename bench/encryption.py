"""What encryption at rest (ENGRAM_ENCRYPTION_KEYS) costs the hot paths: append and memory-read
throughput, on vs off, in interleaved rounds (the method of bench/otel.py, whose helpers it uses).

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
import os
import random
import shutil
import statistics
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

import asyncpg
import psutil

from app.crypto.envelope import new_key
from app.db.embedded import start_embedded
from app.db.migrate import upgrade
from bench.otel import api, lua, tenant, wrk
from tests.support.procs import free_port

ROOT = Path(__file__).resolve().parents[1]


def server_pid(base: str) -> int:
    """The pid of the process listening on `base`'s port (the API: worker off, one process)."""
    port = int(base.rsplit(":", 1)[1])
    for c in psutil.net_connections(kind="tcp"):
        if c.laddr and c.laddr.port == port and c.status == psutil.CONN_LISTEN and c.pid:
            return int(c.pid)
    raise RuntimeError(f"nothing listens on {base}")


def cpu_of(pid: int) -> float:
    t = psutil.Process(pid).cpu_times()
    return float(t.user + t.system)


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
            configs = {}
            pids = {}
            for name, env in envs.items():
                base = stack.enter_context(api(urls[name], free_port(), home / f"{name}.log", **env))
                key, sessions = tenant(base, f"enc-{name}", audit=False)
                configs[name] = (base, key, sessions)
                pids[name] = server_pid(base)
            results: dict[tuple[str, str], list[float]] = {}
            # The API process's CPU per request: less moved by a loaded machine than req/s.
            cpu: dict[tuple[str, str], list[float]] = {}
            for n in range(args.rounds):
                order = list(configs)
                random.shuffle(order)
                for name in order:
                    base, key, sessions = configs[name]
                    for op, method, paths in (
                        ("append", "POST", [f"/v1/sessions/{s}/messages" for s in sessions]),
                        ("memory", "GET", [f"/v1/sessions/{s}/memory?max_tokens=2000" for s in sessions]),
                    ):
                        script = home / f"{op}.lua"
                        lua(script, method, paths, key)
                        before = cpu_of(pids[name])
                        rps = wrk(base, script, args.seconds, args.connections)
                        used = cpu_of(pids[name]) - before
                        results.setdefault((name, op), []).append(rps)
                        cpu.setdefault((name, op), []).append(used / (rps * args.seconds) * 1e6)
                print(f"round {n + 1}/{args.rounds} done", file=sys.stderr)
        load = os.getloadavg()
        print(
            f"\nbench/encryption.py: {args.rounds} interleaved rounds of {args.seconds:.0f} s, "
            f"wrk -c{args.connections}; "
            f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} cores"
        )
        print(
            f"{'operation':<10}{'config':<9}{'median req/s':>14}{'vs off':>9}{'ratio/round':>14}"
            f"{'API CPU us/req':>16}{'vs off':>9}   rounds (req/s)"
        )
        for op in ("append", "memory"):
            off = results[("off", op)]
            for name in configs:
                values = results[(name, op)]
                med = statistics.median(values)
                # The ratio to `off` within each round, then its median: the load moves less within one.
                ratio = statistics.median(v / o for v, o in zip(values, off, strict=True))
                rounds = " ".join(f"{v:.0f}" for v in values)
                change = (med / statistics.median(off) - 1) * 100
                us = statistics.median(cpu[(name, op)])
                # CPU per request against `off` in each round, then the median of those ratios.
                us_ratio = statistics.median(
                    c / o for c, o in zip(cpu[(name, op)], cpu[("off", op)], strict=True)
                )
                print(
                    f"{op:<10}{name:<9}{med:>14.0f}{change:>8.1f}%{ratio:>14.3f}"
                    f"{us:>16.0f}{(us_ratio - 1) * 100:>8.1f}%   {rounds}"
                )
    finally:
        pg.stop()
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Webhook delivery latency after commit (issue 18; target: p50 < 1 s with the receiver up).

Starts an embedded PostgreSQL in a temporary directory, `engram serve` on it (its worker inside,
auth off, Redis for wake-ups when --redis is given) and a receiver (uvicorn, in this process),
registers the receiver as the default tenant's webhook endpoint, then makes changes over the API
and times each event from the moment the API answered (after its commit) to the moment the
receiver had the whole request:

- `facts`: `POST /v1/users/{u}/facts` one after another (a `facts.changed` event; no wake-up is
  sent, the worker finds it by its poll, ENGRAM_WORKER_POLL_SECONDS);
- `purge`: `PUT` then `DELETE /v1/users/{u}` one after another (`user.purged`; the API wakes the
  worker);
- `burst`: `--burst` fact adds from 16 concurrent clients (queueing behind the deliveries).

    .venv/bin/python -m bench.webhooks                 # 100 of each, 400 in the burst
    .venv/bin/python -m bench.webhooks --n 300 --redis redis://127.0.0.1:6379/14
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

from app.db.embedded import start_embedded
from app.db.migrate import upgrade
from tests.support.procs import free_port, log_tail, wait_ready
from tests.support.webhook_receiver import Receiver

ROOT = Path(__file__).resolve().parents[1]

ADMIN = "bench-admin-token"
TARGET_P50 = 1.0


def start_api(url: str, port: int, redis: str | None, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")},
        "ENGRAM_DATABASE_URL": url,
        "ENGRAM_PORT": str(port),
        "ENGRAM_AUTH": "off",
        "ENGRAM_ADMIN_TOKEN": ADMIN,
        "ENGRAM_LOG_LEVEL": "warning",
        "ENGRAM_MIGRATE_ON_START": "false",
        "ENGRAM_MODEL_CACHE_DIR": str(ROOT / ".engram" / "models"),
        **({"ENGRAM_REDIS_URL": redis} if redis else {}),
    }
    with log.open("wb") as out:
        return subprocess.Popen(
            [str(Path(sys.executable).with_name("engram")), "serve"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )


class Timing:
    """Answer times by the key the event will carry, and the receiver's times by the same key."""

    def __init__(self, receiver: Receiver) -> None:
        self.receiver = receiver
        self.answered: dict[str, float] = {}

    def latencies(self, key_of: str) -> list[float]:
        got: dict[str, float] = {}
        for r in self.receiver.received:
            body = r.json
            key = _key(body, key_of)
            if key is not None and key not in got:
                got[key] = r.at
        return [got[k] - t for k, t in self.answered.items() if k in got]


def _key(body: dict[str, object], kind: str) -> str | None:
    data = body["data"]
    assert isinstance(data, dict)
    if kind == "facts" and body["type"] == "facts.changed":
        return str(data["changes"][0]["fact_id"])
    if kind == "purge" and body["type"] == "user.purged":
        return str(data["user_id"])
    return None


async def run_facts(c: httpx.AsyncClient, t: Timing, n: int, gap: float) -> None:
    for i in range(n):
        r = await c.post(f"/v1/users/f{i % 10}/facts", json={"content": f"Fact number {i} about the bench."})
        r.raise_for_status()
        t.answered[r.json()["fact_id"]] = time.monotonic()
        await asyncio.sleep(gap)


async def run_purges(c: httpx.AsyncClient, t: Timing, n: int, gap: float) -> None:
    for i in range(n):
        user = f"p{i}"
        (await c.put(f"/v1/users/{user}", json={})).raise_for_status()
        (await c.delete(f"/v1/users/{user}")).raise_for_status()
        t.answered[user] = time.monotonic()
        await asyncio.sleep(gap)


async def run_burst(c: httpx.AsyncClient, t: Timing, n: int, concurrency: int = 16) -> float:
    queue = list(range(n))
    started = time.monotonic()

    async def client() -> None:
        while queue:
            i = queue.pop()
            r = await c.post(f"/v1/users/b{i % 50}/facts", json={"content": f"Burst fact {i}."})
            r.raise_for_status()
            t.answered[r.json()["fact_id"]] = time.monotonic()

    await asyncio.gather(*(client() for _ in range(concurrency)))
    return time.monotonic() - started


def row(name: str, xs: list[float], expected: int) -> str:
    if not xs:
        return f"{name:<8} {0:>5}/{expected:<5} (nothing received)"
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=100, method="inclusive") if len(xs) > 1 else [xs[0]] * 99
    return (
        f"{name:<8} {len(xs):>5}/{expected:<5} {q[49] * 1000:>8.0f} {q[94] * 1000:>8.0f} "
        f"{q[98] * 1000:>8.0f} {xs[-1] * 1000:>8.0f}"
    )


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100, help="events per sequential scenario")
    ap.add_argument("--burst", type=int, default=400, help="events in the concurrent burst (0: none)")
    ap.add_argument("--gap", type=float, default=0.05, help="seconds between sequential changes")
    ap.add_argument("--redis", default=None, help="ENGRAM_REDIS_URL for the server (wake-ups)")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="engram-bench-webhooks-"))
    pg = start_embedded(tmp / "data")
    proc: subprocess.Popen[bytes] | None = None
    receiver = Receiver()
    try:
        await upgrade(pg.url, 384)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        proc = start_api(pg.url, port, args.redis, tmp / "api.log")
        await receiver.start()
        wait_ready(base, proc, timeout=120, output=log_tail(tmp / "api.log"))
        async with httpx.AsyncClient(base_url=base, timeout=30) as c:
            r = await c.post(
                "/v1/admin/tenants/default/webhooks",
                json={"url": receiver.url, "events": ["facts.changed", "user.purged"]},
                headers={"Authorization": f"Bearer {ADMIN}"},
            )
            r.raise_for_status()
            print(f"load before: {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} cores")
            print(f"{'scenario':<8} {'got':>11} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}")
            results = {}
            runs: tuple[tuple[str, Callable[[Timing], Awaitable[None]]], ...] = (
                ("facts", lambda t: run_facts(c, t, args.n, args.gap)),
                ("purge", lambda t: run_purges(c, t, args.n, args.gap)),
            )
            for name, run in runs:
                receiver.received.clear()
                timing = Timing(receiver)
                await run(timing)
                await asyncio.sleep(2.0)  # the last ones arrive
                lat = timing.latencies(name)
                results[name] = lat
                print(row(name, lat, len(timing.answered)))
            if args.burst:
                receiver.received.clear()
                timing = Timing(receiver)
                seconds = await run_burst(c, timing, args.burst)
                with contextlib.suppress(AssertionError):  # what did not come is counted as missing
                    await receiver.wait_for(lambda rs: len(rs) >= len(timing.answered), within=60)
                lat = timing.latencies("facts")
                print(row("burst", lat, len(timing.answered)) + f"   ({args.burst / seconds:.0f} changes/s)")
            print(f"load after: {os.getloadavg()[0]:.2f} (1 min)")
            p50 = statistics.median(results["facts"] + results["purge"])
            verdict = "met" if p50 < TARGET_P50 else "MISSED"
            target = f"target < {TARGET_P50 * 1000:.0f} ms: {verdict}"
            print(f"delivery p50 after commit (sequential): {p50 * 1000:.0f} ms ({target})")
    finally:
        await receiver.stop()
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        pg.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())

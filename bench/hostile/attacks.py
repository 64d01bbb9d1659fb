"""Hostile clients against one live `engram serve` (auth on, otherwise default settings), each
attack for a bounded time while a second tenant's small requests are measured.

    .venv/bin/python -m bench.hostile.attacks                 # every attack, 60 s each
    .venv/bin/python -m bench.hostile.attacks --seconds 10    # shorter
    .venv/bin/python -m bench.hostile.attacks --only stalled_connections,tenant_flood

Per attack it prints the other tenant's p50 / p99 latency and errors (a GET of its user, every
50 ms), the worst time until its newly appended message is searchable by meaning (one append a
second, then searches until the message is found), the growth of the API process's memory
(RSS, largest sample minus the sample before the attack) and the bytes of planted content found
in the server's log; and, to show where the time goes, the p99 of GET /healthz (no key, no
database: the event loop alone), the cores the API process used and the machine's load average.
`quiet` measures the same with no attack: the floor of this machine as it is. Targets (issue 13):
p99 < 100 ms, 0 errors, searchable within 2 s, memory within +100 MB under 1,000 stalled
connections, 0 bytes of planted content in the logs.

Every attack targets 127.0.0.1 only, and stops by itself. The server runs the code on
PYTHONPATH (run with another checkout first on it to measure that one: the "before" column).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil

from tests.support.procs import free_port

ADMIN = "bench-admin-" + secrets.token_hex(16)
PLANTED = "PLANTED-" + uuid.uuid4().hex  # content of the attacks' bodies; must never be logged
MODEL_CACHE = Path.cwd() / ".engram" / "models"


# --- the server -------------------------------------------------------------------------------


class Server:
    def __init__(
        self, workdir: Path, database_url: str | None, settings: dict[str, str] | None = None
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = workdir / "server.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
        env.update(
            ENGRAM_AUTH="on",
            ENGRAM_ADMIN_TOKEN=ADMIN,
            ENGRAM_MODEL_CACHE_DIR=str(MODEL_CACHE),
            ENGRAM_LOG_LEVEL="info",
            HF_HUB_OFFLINE="1",
        )
        if database_url:
            env["ENGRAM_DATABASE_URL"] = database_url
        env.update(settings or {})
        args = [str(Path(sys.executable).with_name("engram")), "serve", "--port", str(self.port)]
        if not database_url:
            args += ["--data-dir", str(workdir / "data")]
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(args, env=env, stdout=self._log, stderr=self._log)

    async def ready(self) -> None:
        async with httpx.AsyncClient() as c:
            for _ in range(600):
                if self.proc.poll() is not None:
                    raise SystemExit(f"engram serve exited:\n{self.log_path.read_text()[-3000:]}")
                with contextlib.suppress(httpx.TransportError):
                    if (await c.get(f"{self.url}/readyz", timeout=1)).status_code == 200:
                        return
                await asyncio.sleep(0.3)
        raise SystemExit("engram serve did not become ready")

    def rss(self) -> int:
        """Memory of the API process (uvicorn's; the embedded PostgreSQL is not counted)."""
        proc = psutil.Process(self.proc.pid)
        return int(proc.memory_info().rss)

    def cpu_seconds(self) -> float:
        """CPU time of the API process (its event loop, threads and in-process worker), children
        (the worker's CPU pool) included; the embedded PostgreSQL is not counted."""
        proc = psutil.Process(self.proc.pid)
        total = float(sum(proc.cpu_times()[:2]))
        for child in proc.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if "postgres" not in child.name():
                    total += sum(child.cpu_times()[:2])
        return total

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._log.close()


# --- the other tenant, measured --------------------------------------------------------------


@dataclass
class Victim:
    url: str
    key: str
    latencies: list[float] = field(default_factory=list)
    # GET /healthz (no key, no database): what the event loop and HTTP alone cost, so the gap to
    # `latencies` is the gate and the database, and the rest is the process or the machine.
    loop: list[float] = field(default_factory=list)
    errors: int = 0
    searchable: list[float] = field(default_factory=list)
    unsearchable: int = 0

    def reset(self) -> None:
        self.latencies, self.loop, self.errors, self.searchable, self.unsearchable = [], [], 0, [], 0

    async def run(self, stop: asyncio.Event) -> None:
        headers = {"Authorization": f"Bearer {self.key}"}
        async with httpx.AsyncClient(base_url=self.url, headers=headers, timeout=10) as c:
            await asyncio.gather(self._reads(c, stop), self._writes(c, stop), self._health(c, stop))

    async def _health(self, c: httpx.AsyncClient, stop: asyncio.Event) -> None:
        while not stop.is_set():
            started = time.perf_counter()
            with contextlib.suppress(httpx.HTTPError):
                await c.get("/healthz")
            self.loop.append(time.perf_counter() - started)
            await asyncio.sleep(0.05)

    async def _reads(self, c: httpx.AsyncClient, stop: asyncio.Event) -> None:
        while not stop.is_set():
            started = time.perf_counter()
            try:
                r = await c.get("/v1/users/victim")
                ok = r.status_code == 200
            except httpx.HTTPError:
                ok = False
            self.latencies.append(time.perf_counter() - started)
            self.errors += not ok
            await asyncio.sleep(0.05)

    async def _writes(self, c: httpx.AsyncClient, stop: asyncio.Event) -> None:
        while not stop.is_set():
            word = f"zebra{random.randrange(10**9)}"
            started = time.perf_counter()
            try:
                r = await c.post(
                    "/v1/sessions/victim-s/messages",
                    json={"messages": [{"role": "user", "content": f"my code word is {word}"}]},
                )
                found = r.status_code == 201 and await self._found(c, word, started)
            except httpx.HTTPError:
                found = False
            if found:
                self.searchable.append(time.perf_counter() - started)
            else:
                self.unsearchable += 1
                self.errors += 1
            await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - started)))

    async def _found(self, c: httpx.AsyncClient, word: str, started: float) -> bool:
        # The query is the message itself: among the earlier "my code word is zebra…" turns only
        # this one has a cosine of 1, so it is found as soon as it is embedded. A query of the
        # random word alone ("code word zebra…") has no meaning the model can tell apart, and the
        # earlier turns crowded it out of the top 3 (counted as unsearchable with no attack).
        body = {
            "query": f"my code word is {word}",
            "session_id": "victim-s",
            "mode": "semantic",
            "limit": 3,
        }
        while time.perf_counter() - started < 10:
            r = await c.post("/v1/search", json=body)
            if r.status_code == 200 and any(word in h["content"] for h in r.json()["results"]):
                return True
            await asyncio.sleep(0.05)
        return False


# --- the attacks -------------------------------------------------------------------------------

Attack = Callable[["Ctx", asyncio.Event], Coroutine[Any, Any, None]]


@dataclass
class Ctx:
    url: str
    port: int
    attacker_key: str


async def _raw(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port)


async def _hold(ctx: Ctx, stop: asyncio.Event, first: bytes, drip: bytes | None, count: int) -> None:
    """`count` connections that send `first` and then `drip` every 5 s; reopened when dropped."""

    async def one() -> None:
        while not stop.is_set():
            try:
                reader, writer = await _raw(ctx.port)
            except OSError:
                await asyncio.sleep(0.5)
                continue
            try:
                if first:
                    writer.write(first)
                    await writer.drain()
                while not stop.is_set():
                    with contextlib.suppress(TimeoutError):
                        data = await asyncio.wait_for(reader.read(65536), 5)
                        if not data:
                            break  # dropped by the server: come back
                    if drip:
                        writer.write(drip)
                        await writer.drain()
            except OSError:
                pass
            finally:
                writer.close()
            await asyncio.sleep(0.2)

    await asyncio.gather(*(one() for _ in range(count)))


async def slow_uploads(ctx: Ctx, stop: asyncio.Event) -> None:
    """60 uploads of 8 MB that never finish, without a valid key: the issue's 480 MB."""
    head = (
        "POST /v1/sessions/x/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer egm_{secrets.token_hex(8)}\r\nContent-Length: 8000000\r\n\r\n"
    ).encode()
    blob = ('{"messages": [{"role": "user", "content": "' + PLANTED + "x" * 60000).encode()
    await _hold(ctx, stop, head + blob[:1_000_000], blob[:60000], 60)


async def stalled_uploads_authenticated(ctx: Ctx, stop: asyncio.Event) -> None:
    """60 uploads by a tenant that send a little of their body and then stall."""
    head = (
        "POST /v1/sessions/x/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {ctx.attacker_key}\r\nContent-Length: 8000000\r\n\r\n"
    ).encode()
    await _hold(ctx, stop, head + ('{"messages": [{"content": "' + PLANTED).encode(), b"x", 60)


async def stalled_connections(ctx: Ctx, stop: asyncio.Event) -> None:
    """1,000 connections that never finish their headers."""
    await _hold(ctx, stop, b"GET /v1/users HTTP/1.1\r\nHost: x\r\n", b"X-a: b\r\n", 1000)


async def idle_connections(ctx: Ctx, stop: asyncio.Event) -> None:
    """1,000 connections that say nothing."""
    await _hold(ctx, stop, b"", None, 1000)


async def stalled_exports(ctx: Ctx, stop: asyncio.Event) -> None:
    """40 exports of the attacker's biggest user that are never read."""
    head = (
        "GET /v1/users/attacker/export HTTP/1.1\r\nHost: x\r\n"
        f"Authorization: Bearer {ctx.attacker_key}\r\n\r\n"
    ).encode()

    async def one() -> None:
        while not stop.is_set():
            try:
                sock = socket.create_connection(("127.0.0.1", ctx.port))
            except OSError:
                await asyncio.sleep(0.5)
                continue
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a window that fills at once
            sock.setblocking(False)
            sock.send(head)
            while not stop.is_set():
                await asyncio.sleep(1)
                try:
                    if sock.recv(1, socket.MSG_PEEK) == b"":
                        break  # the server gave up on us: start another
                except BlockingIOError:
                    continue
                except OSError:
                    break
            sock.close()

    await asyncio.gather(*(one() for _ in range(40)))


async def waiting_searches(ctx: Ctx, stop: asyncio.Event) -> None:
    """40 searches at a time that wait up to 10 s for indexing while the attacker keeps appending."""
    headers = {"Authorization": f"Bearer {ctx.attacker_key}"}
    async with httpx.AsyncClient(base_url=ctx.url, headers=headers, timeout=30) as c:

        async def feed() -> None:
            while not stop.is_set():
                msgs = [{"role": "user", "content": f"filler {i} {PLANTED}"} for i in range(10)]
                with contextlib.suppress(httpx.HTTPError):
                    await c.post("/v1/sessions/attacker-s/messages", json={"messages": msgs})
                await asyncio.sleep(1)

        async def search() -> None:
            while not stop.is_set():
                body = {"query": "filler", "user_id": "attacker", "wait_for_indexing_ms": 10000}
                with contextlib.suppress(httpx.HTTPError):
                    await c.post("/v1/search", json=body)

        await asyncio.gather(feed(), *(search() for _ in range(40)))


async def tenant_flood(ctx: Ctx, stop: asyncio.Event) -> None:
    """One tenant as fast as 64 connections go (reads and appends)."""
    headers = {"Authorization": f"Bearer {ctx.attacker_key}"}
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(base_url=ctx.url, headers=headers, timeout=30, limits=limits) as c:

        async def one(i: int) -> None:
            while not stop.is_set():
                with contextlib.suppress(httpx.HTTPError):
                    if i % 4:
                        await c.get("/v1/users/attacker")
                    else:
                        msg = {"role": "user", "content": f"flood {PLANTED}"}
                        await c.post("/v1/sessions/attacker-s/messages", json={"messages": [msg]})

        await asyncio.gather(*(one(i) for i in range(64)))


async def unknown_key_flood(ctx: Ctx, stop: asyncio.Event) -> None:
    """64 connections of requests, each with a new random key."""
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(base_url=ctx.url, timeout=30, limits=limits) as c:

        async def one() -> None:
            while not stop.is_set():
                headers = {"Authorization": f"Bearer egm_{secrets.token_urlsafe(24)}"}
                with contextlib.suppress(httpx.HTTPError):
                    await c.get("/v1/users/x", headers=headers)

        await asyncio.gather(*(one() for _ in range(64)))


async def quiet(ctx: Ctx, stop: asyncio.Event) -> None:
    """No attack: the other tenant's figures on this machine as it is (the floor the others are
    measured against; on a shared machine, other work shows here too)."""
    await stop.wait()


ATTACKS: dict[str, Attack] = {
    "quiet": quiet,
    "slow_uploads": slow_uploads,
    "stalled_uploads_authenticated": stalled_uploads_authenticated,
    "stalled_connections": stalled_connections,
    "idle_connections": idle_connections,
    "stalled_exports": stalled_exports,
    "waiting_searches": waiting_searches,
    "tenant_flood": tenant_flood,
    "unknown_key_flood": unknown_key_flood,
}


# --- the run -----------------------------------------------------------------------------------


async def _keys(url: str) -> tuple[str, str]:
    admin = {"Authorization": f"Bearer {ADMIN}"}
    async with httpx.AsyncClient(base_url=url, headers=admin) as c:
        out = []
        for tenant in ("attacker", "victim"):
            r = await c.post("/v1/admin/keys", json={"tenant_id": f"{tenant}-{uuid.uuid4().hex[:6]}"})
            r.raise_for_status()
            out.append(r.json()["key"])
    return out[0], out[1]


async def _seed(url: str, attacker: str, victim: str) -> None:
    for key, who in ((attacker, "attacker"), (victim, "victim")):
        async with httpx.AsyncClient(
            base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60
        ) as c:
            await c.post("/v1/sessions", json={"session_id": f"{who}-s", "user_id": who})
    # The attacker's user is big enough that an export does not fit a socket buffer (300 messages
    # of 2 kB); then the worker's backlog is let to drain, so each attack starts from quiet.
    async with _client(url, attacker) as c:
        msgs = [{"role": "user", "content": f"{PLANTED} " + "lorem ipsum " * 170} for _ in range(300)]
        await c.post("/v1/sessions/attacker-s/messages", json={"messages": msgs})
        for _ in range(60):
            r = await c.post("/v1/search", json={"query": "lorem", "wait_for_indexing_ms": 5000})
            if r.status_code == 200 and r.json()["indexing"]["complete"]:
                break


async def _until_idle(server: Server, limit: float = 300) -> None:
    """Wait until the seed's derived work is done (the attacker's summaries and facts come after
    its embeddings, and kept a core busy well into the `quiet` row): until the API process, its
    worker's children included, uses under a tenth of a core over two seconds."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = server.cpu_seconds()
        await asyncio.sleep(2)
        if server.cpu_seconds() - before < 0.2:
            return
    print(f"the worker was still busy after {limit:g} s; measuring anyway", flush=True)


def _client(url: str, key: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60)


@dataclass
class Row:
    attack: str
    p50_ms: float
    p99_ms: float
    loop_p99_ms: float  # GET /healthz: the event loop and HTTP alone
    api_cpu: float  # cores the API process (and its worker) used
    load: float  # the machine's load average meanwhile (other work on it shows here)
    errors: int
    searchable_max_s: float | None
    unsearchable: int
    memory_mb: float


def _attack_process(name: str, ctx: Ctx, seconds: float) -> None:
    async def timed() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(seconds, stop.set)
        task = asyncio.create_task(ATTACKS[name](ctx, stop))
        await stop.wait()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 15)

    asyncio.run(timed())


async def run_attack(name: str, server: Server, ctx: Ctx, victim: Victim, seconds: float) -> Row:
    await asyncio.sleep(3)  # what the last attack left behind settles (timeouts, the worker)
    base = server.rss()
    peak = base
    victim.reset()
    stop = asyncio.Event()
    lead = min(2.0, seconds / 5)  # the attack builds up before measuring starts
    # The attacker runs in a process of its own: in this one, its busy loop would delay the
    # measuring coroutines and count as the server's latency.
    attacker = multiprocessing.get_context("spawn").Process(
        target=_attack_process, args=(name, ctx, lead + seconds), daemon=True
    )
    attacker.start()
    await asyncio.sleep(lead)
    cpu0, wall0, load0 = server.cpu_seconds(), time.monotonic(), os.getloadavg()[0]
    measuring = asyncio.create_task(victim.run(stop))
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await asyncio.sleep(0.5)
        with contextlib.suppress(psutil.Error):
            peak = max(peak, server.rss())
    cpu = (server.cpu_seconds() - cpu0) / (time.monotonic() - wall0)
    load = (load0 + os.getloadavg()[0]) / 2
    stop.set()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(measuring, 30)
    attacker.join(30)
    if attacker.is_alive():
        attacker.kill()
    lat = sorted(victim.latencies) or [float("nan")]
    loop = sorted(victim.loop) or [float("nan")]
    return Row(
        attack=name,
        p50_ms=1000 * lat[len(lat) // 2],
        p99_ms=1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))],
        loop_p99_ms=1000 * loop[min(len(loop) - 1, int(len(loop) * 0.99))],
        api_cpu=cpu,
        load=load,
        errors=victim.errors,
        searchable_max_s=max(victim.searchable) if victim.searchable else None,
        unsearchable=victim.unsearchable,
        memory_mb=(peak - base) / 1e6,
    )


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=60, help="each attack's duration")
    parser.add_argument("--only", default="", help="comma-separated attacks (default: all)")
    parser.add_argument("--database-url", default=None, help="an empty PostgreSQL with pgvector")
    parser.add_argument("--json", type=Path, default=None, help="write the rows here too")
    parser.add_argument("--log", type=Path, default=None, help="keep a copy of the server's log here")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="ENGRAM_X=VALUE",
        help="a setting of the server other than its default (repeatable): to measure a choice",
    )
    args = parser.parse_args()
    settings = dict(kv.split("=", 1) for kv in args.set)
    if any(not k.startswith("ENGRAM_") for k in settings):
        parser.error("--set takes ENGRAM_ settings")
    names = [n for n in args.only.split(",") if n] or list(ATTACKS)
    with tempfile.TemporaryDirectory(prefix="engram-hostile-") as tmp:
        server = Server(Path(tmp), args.database_url, settings)
        try:
            await server.ready()
            attacker, victim_key = await _keys(server.url)
            await _seed(server.url, attacker, victim_key)
            await _until_idle(server)
            ctx = Ctx(server.url, server.port, attacker)
            victim = Victim(server.url, victim_key)
            rows = []
            for name in names:
                row = await run_attack(name, server, ctx, victim, args.seconds)
                rows.append(row)
                print(_fmt(row), flush=True)
        finally:
            server.stop()
        log = server.log_path.read_bytes()
        if args.log:
            args.log.write_bytes(log)
    planted = log.count(PLANTED.encode()) * len(PLANTED)
    print(f"\nplanted content in the server log: {planted} bytes ({len(log)} bytes of log)")
    if args.json:
        args.json.write_text(
            json.dumps({"rows": [r.__dict__ for r in rows], "planted_bytes": planted}, indent=2)
        )


def _fmt(r: Row) -> str:
    s = "-" if r.searchable_max_s is None else f"{r.searchable_max_s:.2f}"
    return (
        f"{r.attack:30s} p50 {r.p50_ms:7.1f} ms  p99 {r.p99_ms:7.1f} ms  errors {r.errors:4d}  "
        f"searchable max {s:>6s} s (missed {r.unsearchable})  memory {r.memory_mb:+7.1f} MB  "
        f"healthz p99 {r.loop_p99_ms:7.1f} ms  API cpu {r.api_cpu:4.2f}  load {r.load:5.1f}"
    )


if __name__ == "__main__":
    asyncio.run(main())

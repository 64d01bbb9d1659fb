"""CPU per `GET /v1/sessions/{id}/memory` inside one API process: the app called directly over raw
ASGI (no uvicorn, no sockets but PostgreSQL's and Redis's), so what the app itself costs per
request is measured apart from the HTTP server and the load generator (bench/memory.py measures
the whole). An embedded PostgreSQL in a temporary directory, the local Redis (a database of its
own), auth off as in bench/memory.py; N sessions of M chat messages appended through the app.

    .venv/bin/python -m bench.memory_pieces                       # CPU µs per request, 5 segments
    .venv/bin/python -m bench.memory_pieces --profile /tmp/m.prof # and a cProfile of one segment

Prints the CPU µs per request (time.process_time, min and median of the segments); the window is
read from Redis (every request a hit, checked).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import text
from starlette.types import ASGIApp, Message

from app.config import Settings
from app.main import create_app
from bench.append import cpu_seconds, tree
from bench.chat_text import chat_messages
from tests.support.db import until

ROOT = Path(__file__).resolve().parents[1]
SYSTEM: list[float] = []  # the kernel's part of each segment's CPU µs per request
PG: list[float] = []  # the embedded PostgreSQL's CPU µs per request, per segment
DATA: list[Path] = []  # the data directory of the embedded PostgreSQL
REDIS_URL = os.environ.get("ENGRAM_BENCH_REDIS_URL", "redis://127.0.0.1:6379/11")


class Lifespan:
    """The ASGI lifespan protocol, as uvicorn drives it: its state is copied into every request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.state: dict[str, Any] = {}
        self._inbox: asyncio.Queue[Message] = asyncio.Queue()
        self._outbox: asyncio.Queue[Message] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": self.state}

        async def run() -> None:
            await self.app(scope, self._inbox.get, self._outbox.put)

        self._task = asyncio.create_task(run())
        await self._inbox.put({"type": "lifespan.startup"})
        answer = await self._outbox.get()
        if answer["type"] != "lifespan.startup.complete":
            raise RuntimeError(str(answer))

    async def stop(self) -> None:
        await self._inbox.put({"type": "lifespan.shutdown"})
        await self._outbox.get()
        if self._task is not None:
            await self._task


async def call(
    app: ASGIApp, state: dict[str, Any], method: str, path: str, query: bytes = b"", body: bytes = b""
) -> tuple[int, dict[bytes, bytes], bytes]:
    headers = [(b"host", b"127.0.0.1:8000"), (b"user-agent", b"wrk")]
    if body:
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "root_path": "",
        "headers": headers,
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 5555),
        "state": dict(state),
    }
    sent = False
    status = 0
    out_headers: dict[bytes, bytes] = {}
    chunks: list[bytes] = []

    async def receive() -> Message:
        nonlocal sent
        if sent:
            await asyncio.Event().wait()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            out_headers.update(dict(message.get("headers", [])))
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, out_headers, b"".join(chunks)


async def seed(app: ASGIApp, state: dict[str, Any], sessions: int, messages: int) -> list[str]:
    run = os.urandom(4).hex()
    sids = [f"mp-{run}-{i:03d}" for i in range(sessions)]
    for i, sid in enumerate(sids):
        body = orjson.dumps({"session_id": sid, "user_id": f"mp-user-{i % 10}"})
        status, _, text = await call(app, state, "POST", "/v1/sessions", body=body)
        assert status == 201, text
        msgs = chat_messages(messages, seed=1000 + i)
        for k in range(0, len(msgs), 1000):
            body = orjson.dumps({"messages": msgs[k : k + 1000]})
            status, _, text = await call(app, state, "POST", f"/v1/sessions/{sid}/messages", body=body)
            assert status == 201, text
    return sids


async def model_ready(app: ASGIApp, state: dict[str, Any]) -> None:
    async def probe() -> bool:
        return b'"model":"ok"' in (await call(app, state, "GET", "/readyz"))[2]

    await until(probe, within=300, every=0.5)


def pg_seconds(data_dir: Path) -> float:
    """CPU seconds of the embedded PostgreSQL's processes (the postmaster and its backends)."""
    pid = int((data_dir / "pg" / "postmaster.pid").read_text().split("\n", 1)[0])
    return sum(cpu_seconds(tree(pid)).values())


async def segment(
    app: ASGIApp,
    state: dict[str, Any],
    sids: list[str],
    n: int,
    query: bytes,
    *,
    hits: bool = True,
    concurrency: int = 1,
) -> float:
    rng = random.Random(7)
    paths = [f"/v1/sessions/{sid}/memory" for sid in sids]
    pg_before = pg_seconds(DATA[0]) if DATA else 0.0
    before = os.times()

    async def one_lane(count: int) -> None:
        for _ in range(count):
            status, headers, body = await call(app, state, "GET", rng.choice(paths), query)
            if status != 200 or (hits and headers.get(b"x-engram-cache") != b"hit"):
                raise RuntimeError(f"{status} {headers} {body[:300]!r}")

    # `concurrency` requests in flight, as a served process has them (wrk -c64 on 2 processes: 32).
    await asyncio.gather(*(one_lane(n // concurrency) for _ in range(concurrency)))
    n = n // concurrency * concurrency
    after = os.times()
    SYSTEM.append((after.system - before.system) / n * 1e6)
    if DATA:
        PG.append((pg_seconds(DATA[0]) - pg_before) / n * 1e6)
    return (after.user + after.system - before.user - before.system) / n * 1e6


async def transactions(state: dict[str, Any]) -> int:
    """Transactions PostgreSQL counted in this database (each autocommit statement is one), once
    the backends have reported them (they do when idle, at most once a second)."""
    await asyncio.sleep(1.5)
    async with state["engine"].connect() as conn:
        sql = "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"
        return int((await conn.execute(text(sql))).scalar_one())


async def main(args: argparse.Namespace) -> list[float]:
    with tempfile.TemporaryDirectory(prefix="engram-mp-") as tmp:
        settings = Settings(
            data_dir=Path(tmp),
            redis_url=REDIS_URL,
            auth="off",
            host="127.0.0.1",
            log_level="warning",
            run_worker=False,
            model_cache_dir=ROOT / ".engram" / "models",
        )
        DATA.append(Path(tmp))
        app = create_app(settings)
        life = Lifespan(app)
        await life.start()
        try:
            sids = await seed(app, life.state, args.sessions, args.messages)
            # The model loads in the background (threads of this process): measured after it.
            await model_ready(app, life.state)
            if args.freeze:  # as `engram serve` does once started (app.heap.freeze_startup)
                gc.collect()
                gc.freeze()
            query = f"max_tokens={args.budget}".encode()
            # Warm: the windows cached, the code paths run.
            await segment(app, life.state, sids, 300, query, hits=False)
            idle = time.process_time()
            await asyncio.sleep(2.0)
            print(f"idle CPU: {(time.process_time() - idle) / 2 * 100:.1f} % of a core", flush=True)
            out: list[float] = []
            for i in range(args.segments):
                if args.profile and i == 0:
                    prof = cProfile.Profile(time.process_time)
                    prof.enable()
                    await segment(app, life.state, sids, args.n, query)
                    prof.disable()
                    prof.dump_stats(args.profile)
                out.append(await segment(app, life.state, sids, args.n, query, concurrency=args.concurrency))
            if args.statements:
                before = await transactions(life.state)
                await segment(app, life.state, sids, args.n, query)
                # The count's own statement is one transaction more.
                per = (await transactions(life.state) - before - 1) / args.n
                print(f"PostgreSQL transactions per request: {per:.3f}", flush=True)
            if args.show:
                _, _, body = await call(app, life.state, "GET", f"/v1/sessions/{sids[0]}/memory", query)
                print(body.decode())
            return out
        finally:
            await life.stop()


def cli() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--n", type=int, default=3000, help="Requests per segment.")
    parser.add_argument("--segments", type=int, default=5)
    parser.add_argument("--profile", type=str, default=None, help="cProfile one extra segment to this file.")
    parser.add_argument("--concurrency", type=int, default=1, help="Requests in flight.")
    parser.add_argument(
        "--freeze", action="store_true", help="gc.freeze() after start-up, as `engram serve` does."
    )
    parser.add_argument("--show", action="store_true", help="Print one answer.")
    parser.add_argument(
        "--statements",
        action="store_true",
        help="Count PostgreSQL's transactions per request over one more segment (pg_stat_database).",
    )
    args = parser.parse_args()
    from app.logging import configure_logging

    configure_logging("warning", json=True)
    out = asyncio.run(main(args))
    load = os.getloadavg()
    print(
        f"memory read in process: CPU µs/request min {min(out):.0f} median {statistics.median(out):.0f} "
        f"({', '.join(f'{v:.0f}' for v in out)}); of which system median {statistics.median(SYSTEM):.0f}; "
        f"PostgreSQL µs/request median {statistics.median(PG[-len(out) :]):.0f}; "
        f"load average {load[0]:.1f} / {load[1]:.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(cli())

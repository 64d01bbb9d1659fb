"""The worker: derived work recorded with the write, never lost, never done twice."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Sequence
from datetime import UTC, datetime

import httpx
import orjson
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy import text

from app.ai.embedder import Embedder, EmbedderUnavailable, Vectors
from app.ai.local_embedder import LocalEmbedder
from app.ai.openai_embedder import OpenAIEmbedder
from app.db.embedded import EmbeddedPostgres
from app.indexing.tasks import EmbedMessages
from app.jobs.retry import RetryPolicy
from app.jobs.runner import StepRunner
from app.metrics import Metrics
from app.worker import Worker
from tests.support.app import STARTUP, client_for, make_app, make_settings
from tests.support.db import create_database, engine_for, fetch
from tests.support.seeding import seed


@pytest.fixture
async def own_db(pg: EmbeddedPostgres) -> str:
    return await create_database(pg)


async def test_a_message_becomes_searchable_with_no_call_but_the_post(api: httpx.AsyncClient) -> None:
    await api.post("/v1/sessions", json={"user_id": "u", "session_id": "s"})
    r = await api.post(
        "/v1/sessions/s/messages",
        json={"messages": [{"role": "user", "content": "My violin lesson moved to Thursdays."}]},
    )
    assert r.status_code == 201
    r = await api.post(
        "/v1/search",
        json={"query": "when is the music class", "mode": "semantic", "wait_for_indexing_ms": 10000},
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["indexing"] == {"pending": 0, "refining": 0, "complete": True}
    assert body["results"][0]["content"] == "My violin lesson moved to Thursdays."


class _Scripted:
    """The real model behind a script of failures."""

    def __init__(self, real: Embedder, *, outages: int = 0, poison: str | None = None) -> None:
        self.real = real
        self.name, self.dim = "scripted", real.dim
        self.outages = outages
        self.poison = poison
        self.calls = 0

    async def start(self) -> None:
        await self.real.start()

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        if self.outages > 0:
            self.outages -= 1
            raise EmbedderUnavailable("503 from the model server")
        if self.poison and any(self.poison in t for t in texts):
            raise ValueError("the model rejects this input")
        return await self.real.embed(texts)

    async def aclose(self) -> None:
        pass


POLICY = RetryPolicy(max_attempts=3, backoff_seconds=0.05, backoff_max_seconds=0.2)


async def _drain(url: str, embedder: Embedder, *, batch: int = 64, seconds: float = 20) -> None:
    engine = engine_for(url)
    runner, step = StepRunner(engine=engine, retry=POLICY), EmbedMessages(embedder=embedder, batch_size=batch)
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            await runner.run(step)
            left = await fetch(engine, "SELECT count(*) FROM messages WHERE embed_status = 'pending'")
            if left[0][0] == 0:
                return
            await asyncio.sleep(0.05)
        raise AssertionError("queue did not drain")
    finally:
        await engine.dispose()


async def test_an_outage_is_retried_with_backoff_then_done(own_db: str, embedder: LocalEmbedder) -> None:
    texts = await seed(own_db, 10, seed=2)
    flaky = _Scripted(embedder, outages=2)
    await _drain(own_db, flaky)
    engine = engine_for(own_db)
    rows = await fetch(engine, "SELECT embed_status, embed_attempts, embed_error FROM messages")
    await engine.dispose()
    assert len(rows) == len(texts)
    assert {(r[0], r[1], r[2]) for r in rows} == {("done", 3, None)}
    assert flaky.calls == 3


async def test_a_poisoned_item_fails_visibly_while_the_others_proceed(
    own_db: str, embedder: LocalEmbedder
) -> None:
    await seed(own_db, 20, seed=3)
    engine = engine_for(own_db)
    async with engine.begin() as conn:
        from sqlalchemy import text

        await conn.execute(text("UPDATE messages SET content = 'POISON pill' WHERE seq = 7"))
    await engine.dispose()
    await _drain(own_db, _Scripted(embedder, poison="POISON"))

    app = make_app(make_settings(own_db, auth="off", run_worker=False, redis_url=None))
    async with (
        LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app) as c,
    ):  # type: ignore[arg-type]
        status = (await c.get("/v1/indexing", params={"session_id": "s1"})).json()
        assert status["failed"] == 1 and status["pending"] == 0
        assert status["indexed_seq"] == 6 and status["last_seq"] == 20
        failed = (await c.get("/v1/indexing/failed")).json()["items"]
        assert [(f["seq"], f["attempts"]) for f in failed] == [(7, POLICY.max_attempts)]
        assert "rejects this input" in failed[0]["error"]
        r = await c.post("/v1/indexing/retry", json={"session_id": "s1"})
        assert r.json() == {"retried": 1}
        assert (await c.get("/v1/indexing", params={"session_id": "s1"})).json()["pending"] == 1
    await _drain(own_db, embedder)
    engine = engine_for(own_db)
    rows = await fetch(engine, "SELECT count(*) FROM messages WHERE embed_status = 'done'")
    await engine.dispose()
    assert rows[0][0] == 20


async def test_expired_idempotency_keys_are_swept(own_db: str) -> None:
    from datetime import timedelta

    from sqlalchemy import text

    from app.messages.tasks import sweep_idempotency_keys

    await seed(own_db, 1, seed=6)
    engine = engine_for(own_db)
    async with engine.begin() as conn:
        await conn.execute(
            text(
                "INSERT INTO idempotency_keys (tenant_id, session_id, key, request_hash, created_at) "
                "SELECT 'default', 's1', 'k' || g, 'h', now() - make_interval(hours => g) "
                "FROM generate_series(0, 47) g"
            )
        )
    assert await sweep_idempotency_keys(engine, ttl=timedelta(hours=24)) == 24  # hours 24..47
    left = await fetch(engine, "SELECT count(*) FROM idempotency_keys")
    await engine.dispose()
    assert left[0][0] == 24


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed on exit: nothing listens there


async def test_a_dead_embedder_stops_no_step_and_no_sweep(own_db: str) -> None:
    """The embedder is down and a fact lacks a vector: every step records its failure, and every
    sweep (evictions, retention, fact expiry, gauges, idempotency keys) still runs."""
    await seed(own_db, 6, seed=7)
    app = make_app(make_settings(own_db, auth="off", run_worker=False, redis_url=None))
    async with (
        LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app) as c,
    ):  # type: ignore[arg-type]
        for content in ("Hums a lot.", "Liked disco once."):
            r = await c.post("/v1/users/u1/facts", json={"content": content, "importance": 0.1})
            assert r.status_code == 201, r.text
    engine = engine_for(own_db)
    async with engine.begin() as conn:
        await conn.execute(text("UPDATE sessions SET summarized_seq = last_seq"))  # retention may cut
        await conn.execute(
            text(
                "UPDATE facts SET actor = 'system', valid_from = now() - interval '400 days', "
                "last_mentioned_at = now() - interval '365 days' WHERE content = 'Liked disco once.'"
            )
        )
        await conn.execute(
            text(
                "INSERT INTO idempotency_keys (tenant_id, session_id, key, request_hash, created_at) "
                "VALUES ('default', 's1', 'old', 'h', now() - interval '2 days')"
            )
        )
        await conn.execute(
            text(
                "INSERT INTO cache_evictions (tenant_id, session_id, created_at) "
                "VALUES ('default', 'gone', now() - interval '1 minute')"
            )
        )
    settings = make_settings(
        own_db,
        redis_url=None,
        embedder="openai",
        openai_base_url=f"http://127.0.0.1:{_dead_port()}/v1",
        openai_max_attempts=1,
        retention_max_messages=2,
        fact_expire_below=0.15,
        worker_backoff_seconds=0.05,
        worker_backoff_max_seconds=0.1,
    )
    metrics = Metrics()
    worker = Worker(
        settings=settings, engine=engine, embedder=OpenAIEmbedder(settings), redis=None, metrics=metrics
    )
    for sweep in worker.sweeps:
        sweep.every, sweep.due_at = 0.2, 0.0
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    try:
        for _ in range(300):  # 30 s at most
            if min(s.runs for s in worker.sweeps) >= 2:
                break
            await asyncio.sleep(0.1)
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)
    assert {s.name: s.runs >= 2 for s in worker.sweeps} == {
        "evictions": True,
        "retention": True,
        "expire_facts": True,
        "gauges": True,
        "idempotency_keys": True,
        "idle_summaries": True,
        "audit_retention": True,
        "webhook_gauges": True,
        "webhook_retention": True,
    }
    unembedded = await fetch(
        engine, "SELECT embed_attempts > 0, embed_error FROM facts WHERE content = 'Hums a lot.'"
    )
    messages = await fetch(
        engine, "SELECT count(*), bool_and(embed_error LIKE 'EmbedderUnavailable%') FROM messages"
    )
    effects = await fetch(
        engine,
        "SELECT (SELECT count(*) FROM idempotency_keys), (SELECT count(*) FROM cache_evictions), "
        "(SELECT count(*) FROM facts WHERE invalid_at IS NOT NULL)",
    )
    await engine.dispose()
    assert unembedded[0][0] and unembedded[0][1].startswith("EmbedderUnavailable"), unembedded
    assert messages[0] == (2, True), "retention keeps the newest two, which wait for the embedder"
    assert effects[0] == (0, 0, 1)
    for kind in ("embed", "embed_facts"):  # two messages, two facts: waiting, or failed for good
        waiting = (
            metrics.worker_backlog.labels(kind)._value.get() + metrics.worker_failed.labels(kind)._value.get()
        )
        assert waiting == 2, kind


async def test_lag_right_after_an_import_is_the_wait_not_the_messages_age(own_db: str) -> None:
    records = [
        {"type": "engram.export", "version": 1, "exported_at": "2025-06-02T10:00:00Z", "user_id": "x"},
        {"type": "user", "user_id": "x"},
        {"type": "session", "session_id": "old", "last_seq": 1},
        {
            "type": "message",
            "message_id": "0b0e6d52-5f0c-4c8e-9d43-2f6f1b7a9e01",
            "session_id": "old",
            "seq": 1,
            "role": "user",
            "content": "Last year's news.",
            "created_at": "2025-06-01T09:00:00Z",
        },
        {"type": "end", "records": 3},
    ]
    body = b"".join(orjson.dumps(r) + b"\n" for r in records)
    app = make_app(make_settings(own_db, auth="off", run_worker=False, redis_url=None))
    async with (
        LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app) as c,
    ):  # type: ignore[arg-type]
        r = await c.post("/v1/users/x/import", content=body, headers={"Content-Type": "application/x-ndjson"})
        assert r.status_code in (200, 201), r.text
        status = (await c.get("/v1/indexing", params={"user_id": "x"})).json()
    assert status["pending"] == 1
    assert 0 <= status["lag_seconds"] < 60, status  # it has waited seconds; it is months old


async def test_failed_at_is_when_the_item_failed_not_a_retry_time(
    own_db: str, embedder: LocalEmbedder
) -> None:
    await seed(own_db, 2, seed=8)
    engine = engine_for(own_db)
    async with engine.begin() as conn:
        await conn.execute(text("UPDATE messages SET content = 'POISON' WHERE seq = 2"))
    # One attempt, and a backoff that would put the next try an hour ahead.
    policy = RetryPolicy(max_attempts=1, backoff_seconds=3600, backoff_max_seconds=3600)
    step = EmbedMessages(embedder=_Scripted(embedder, poison="POISON"), batch_size=8)
    await StepRunner(engine=engine, retry=policy).run(step)
    await engine.dispose()
    app = make_app(make_settings(own_db, auth="off", run_worker=False, redis_url=None))
    async with (
        LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app) as c,
    ):  # type: ignore[arg-type]
        failed = (await c.get("/v1/indexing/failed")).json()["items"]
    assert [f["seq"] for f in failed] == [2]
    age = (datetime.now(UTC) - datetime.fromisoformat(failed[0]["failed_at"])).total_seconds()
    assert 0 <= age < 120, failed[0]["failed_at"]


class _Waits:
    """What an idle worker's lanes ask to wait, lane by lane, while it runs."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.lanes: dict[int, list[float]] = {}
        self.longest = asyncio.Event()  # a lane began a wait of the longest
        self.asked = asyncio.Event()  # a lane asked to wait
        idle = worker._idle

        async def recorded(stop: asyncio.Event, seconds: float) -> bool:
            self.lanes.setdefault(id(asyncio.current_task()), []).append(seconds)
            self.asked.set()
            if seconds >= worker.settings.worker_idle_poll_max_seconds:
                self.longest.set()
            return await idle(stop, seconds)

        worker._idle = recorded  # type: ignore[method-assign]
        for sweep in worker.sweeps:  # no sweep falls due meanwhile: only the polls count
            sweep.due_at = time.monotonic() + 3600


async def test_an_idle_worker_polls_less_while_work_is_announced_and_wakes_at_once(
    own_db: str, embedder: LocalEmbedder
) -> None:
    """In-process (its API pokes `wake`), an idle worker's waits double from 0.05 s to 1 s; a
    wake-up ends the longest wait at once and starts the waits again from the shortest. Alone, with
    no Redis, nothing announces work, so it polls at the shortest wait throughout."""
    engine = engine_for(own_db)
    settings = make_settings(
        own_db, redis_url=None, worker_poll_seconds=0.05, worker_idle_poll_max_seconds=1.0
    )
    stop = asyncio.Event()
    try:
        worker = Worker(
            settings=settings,
            engine=engine,
            embedder=embedder,
            redis=None,
            metrics=Metrics(),
            wake=asyncio.Event(),
        )
        waits = _Waits(worker)
        task = asyncio.create_task(worker.run(stop))
        await asyncio.wait_for(waits.longest.wait(), 30)
        await asyncio.sleep(0.1)
        woke = time.monotonic()  # ~0.9 s before the longest wait would end
        before = {lane: len(w) for lane, w in waits.lanes.items()}
        waits.asked.clear()
        worker.wake.set()
        await asyncio.wait_for(waits.asked.wait(), 5)  # a woken lane ran its round and idles again
        woken_after = time.monotonic() - woke
        stop.set()
        await asyncio.wait_for(task, 30)
        doubling = [0.05, 0.1, 0.2, 0.4, 0.8] + [1.0] * 20
        for lane, w in waits.lanes.items():  # the two lanes back off each on its own clock
            assert w[: before[lane]] == doubling[: before[lane]], w
        assert woken_after < 0.6, woken_after  # not the ~0.9 s left of the wait
        assert any(w[before[lane]] == 0.05 for lane, w in waits.lanes.items() if len(w) > before[lane])

        alone = Worker(settings=settings, engine=engine, embedder=embedder, redis=None, metrics=Metrics())
        waits = _Waits(alone)
        stop = asyncio.Event()
        task = asyncio.create_task(alone.run(stop))
        await asyncio.sleep(1.0)
        stop.set()
        await asyncio.wait_for(task, 30)
        asked = [s for lane in waits.lanes.values() for s in lane]
        assert len(asked) >= 3 and set(asked) == {0.05}, asked
    finally:
        stop.set()
        await engine.dispose()

"""`engram worker` processes: derived work is never lost when one is killed mid-batch, never done
twice by two at once, and goes on while Redis is down (tests/api/test_worker.py has the worker
in-process)."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import numpy as np
import pytest

from app.ai.local_embedder import LocalEmbedder
from app.db.embedded import EmbeddedPostgres
from tests.support.db import create_database, engine_for, fetch, wait_until
from tests.support.procs import start_worker
from tests.support.redis_server import RedisServer
from tests.support.seeding import seed


@pytest.fixture
async def own_db(pg: EmbeddedPostgres) -> str:
    return await create_database(pg)


async def _assert_each_embedded_once(url: str, texts: list[str], local: LocalEmbedder) -> None:
    engine = engine_for(url)
    rows = await fetch(
        engine,
        "SELECT content, embed_status, embed_attempts, CAST(embedding AS text) FROM messages ORDER BY seq",
    )
    await engine.dispose()
    assert [r[0] for r in rows] == texts
    assert {r[1] for r in rows} == {"done"}
    assert {r[2] for r in rows} == {1}, "a message was embedded more than once (or retried)"
    # Row by row, the stored vector is the model's vector for that row's content: nearest to its
    # own text, and equal to it (int8 inference varies a little with the batch a text shares).
    expected = await local.embed(texts)
    stored = np.array([np.fromstring(r[3].strip("[]"), sep=",") for r in rows], dtype=np.float32)
    sims = stored @ expected.T
    assert (np.argmax(sims, axis=1) == np.arange(len(texts))).all()
    floor = 0.95 if local.backend.startswith("onnx-int8") else 0.9999
    assert np.min(np.diag(sims)) > floor


async def test_sigkill_mid_batch_loses_nothing_and_embeds_each_message_once(
    own_db: str, embedder: LocalEmbedder
) -> None:
    texts = await seed(own_db, 3000)
    first = start_worker(own_db, ENGRAM_WORKER_BATCH_SIZE="256")
    try:
        await wait_until("SELECT count(*) FILTER (WHERE embed_status = 'done') > 300 FROM messages", own_db)
        first.send_signal(signal.SIGKILL)  # mid-batch: a claimed batch is in the model right now
        first.wait(timeout=10)
    finally:
        if first.poll() is None:
            first.kill()
    engine = engine_for(own_db)
    done = (await fetch(engine, "SELECT count(*) FROM messages WHERE embed_status = 'done'"))[0][0]
    await engine.dispose()
    assert 0 < done < len(texts), "the kill should land mid-way"
    second = start_worker(own_db)
    try:
        await wait_until("SELECT bool_and(embed_status = 'done') FROM messages", own_db)
    finally:
        second.send_signal(signal.SIGTERM)
        assert second.wait(timeout=30) == 0
    await _assert_each_embedded_once(own_db, texts, embedder)


async def test_two_workers_never_process_the_same_item(own_db: str, embedder: LocalEmbedder) -> None:
    texts = await seed(own_db, 2000, seed=1)
    workers = [start_worker(own_db, ENGRAM_WORKER_BATCH_SIZE="64") for _ in range(2)]
    try:
        await wait_until("SELECT bool_and(embed_status = 'done') FROM messages", own_db)
    finally:
        for w in workers:
            w.send_signal(signal.SIGTERM)
        assert [w.wait(timeout=30) for w in workers] == [0, 0]
    await _assert_each_embedded_once(own_db, texts, embedder)


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.close()


async def test_workers_keep_going_when_redis_stops(own_db: str, own_redis: RedisServer) -> None:
    worker = start_worker(own_db, ENGRAM_REDIS_URL=own_redis.url)
    try:
        await seed(own_db, 50, seed=4)
        await wait_until("SELECT bool_and(embed_status = 'done') FROM messages", own_db, within=60)
        own_redis.kill()
        await seed(own_db, 50, seed=5, session="s2")
        await wait_until(
            "SELECT count(*) = 100 AND bool_and(embed_status = 'done') FROM messages", own_db, within=60
        )
        assert worker.poll() is None, "the worker died with Redis"
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 0

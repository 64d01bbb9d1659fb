"""Sentence vectors come after a message is searchable: a step of their own, lower in priority,
never holding up a new message, never given up, dropped when the text changes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import httpx
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.ai.embedder import Embedder, EmbedderUnavailable, Vectors
from app.ai.local_embedder import LocalEmbedder
from app.db.embedded import EmbeddedPostgres
from app.db.index_text import SENTENCES_PER_MESSAGE, message_sentences, message_text
from app.db.vectors import unpack_vectors
from app.indexing.sentence_tasks import EmbedSentences
from app.indexing.tasks import BEHIND_SECONDS, EmbedMessages
from app.jobs.retry import RetryPolicy
from app.jobs.runner import StepRunner
from app.metrics import Metrics
from app.worker import Worker
from tests.support.app import STARTUP, client_for, make_app, make_settings
from tests.support.db import create_database, engine_for, fetch, until

POLICY = RetryPolicy(max_attempts=2, backoff_seconds=0.05, backoff_max_seconds=0.2)
LONG = (
    "Hey Sam! Nice to see you. Last weekend I finally started taking cello lessons at the "
    "community music school. My brother keeps teasing me about the noise every single evening."
)
SHORT = "Sounds like fun."


class _Counting:
    """The real model, counting the texts of each call, or down for the first `outages` calls."""

    def __init__(self, real: Embedder, *, outages: int = 0) -> None:
        self.real, self.name, self.dim = real, "counting", real.dim
        self.outages = outages
        self.calls: list[int] = []

    async def start(self) -> None:
        await self.real.start()

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if self.outages > 0:
            self.outages -= 1
            raise EmbedderUnavailable("503 from the model server")
        self.calls.append(len(texts))
        return await self.real.embed(texts)

    async def aclose(self) -> None:
        pass


@pytest.fixture
async def own_db(pg: EmbeddedPostgres) -> str:
    return await create_database(pg)


@pytest.fixture
async def client(own_db: str) -> AsyncIterator[httpx.AsyncClient]:
    app = make_app(make_settings(own_db, auth="off", run_worker=False, redis_url=None))
    async with (
        LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app) as c,
    ):  # type: ignore[arg-type]
        yield c


@pytest.fixture
async def engine(own_db: str) -> AsyncIterator[AsyncEngine]:
    e = engine_for(own_db)
    yield e
    await e.dispose()


async def _append(client: httpx.AsyncClient, *contents: str) -> list[str]:
    await client.post("/v1/sessions", json={"user_id": "sam", "session_id": "s1"})
    r = await client.post(
        "/v1/sessions/s1/messages",
        json={"messages": [{"role": "user", "name": "Sam", "content": c} for c in contents]},
    )
    assert r.status_code == 201, r.text
    return [m["message_id"] for m in r.json()["messages"]]


async def _run(engine: AsyncEngine, sql: str) -> None:
    async with engine.begin() as conn:
        await conn.execute(text(sql))


async def _scalar(engine: AsyncEngine, sql: str, **params: object) -> object:
    return (await fetch(engine, sql, **params))[0][0]


async def _search(client: httpx.AsyncClient) -> dict[str, object]:
    r = await client.post("/v1/search", json={"query": "who is learning the cello?", "user_id": "sam"})
    assert r.status_code == 200, r.text
    body: dict[str, object] = r.json()["indexing"]
    return body


async def test_a_backlog_is_searchable_before_its_sentences_and_they_follow(
    client: httpx.AsyncClient, engine: AsyncEngine, embedder: LocalEmbedder
) -> None:
    await _append(client, LONG, SHORT)
    model = _Counting(embedder)
    runner = StepRunner(engine=engine, retry=POLICY)
    embed = await runner.run(EmbedMessages(embedder=model, batch_size=2))  # a full claim: a backlog
    # One text a message: their sentences are not in the call that makes them searchable.
    assert embed.done == 2 and model.calls == [2]
    status = (await client.get("/v1/indexing", params={"session_id": "s1"})).json()
    assert (status["pending"], status["refining"], status["indexed_seq"]) == (0, 1, 2)
    assert await _search(client) == {"pending": 0, "refining": 1, "complete": False}
    queued = await fetch(engine, "SELECT vecs, due_at IS NOT NULL FROM message_sentences")
    assert queued == [(None, True)]  # the long turn only; the short one has no sentences to embed

    done = await runner.run(EmbedSentences(embedder=model, batch_size=16))
    assert done.done == 1 and model.calls == [2, SENTENCES_PER_MESSAGE]
    (vecs, due), *_ = await fetch(engine, "SELECT vecs, due_at FROM message_sentences")
    assert due is None and unpack_vectors(vecs, embedder.dim).shape == (SENTENCES_PER_MESSAGE, embedder.dim)
    assert await _search(client) == {"pending": 0, "refining": 0, "complete": True}
    assert (await runner.run(EmbedSentences(embedder=model, batch_size=16))).claimed == 0


async def test_without_a_backlog_the_sentences_come_in_the_messages_call(
    client: httpx.AsyncClient, engine: AsyncEngine, embedder: LocalEmbedder
) -> None:
    await _append(client, LONG, SHORT)
    model = _Counting(embedder)
    runner = StepRunner(engine=engine, retry=POLICY)
    assert (await runner.run(EmbedMessages(embedder=model, batch_size=16))).done == 2  # a short claim
    assert model.calls == [2 + SENTENCES_PER_MESSAGE]  # one call, no second pass
    (vecs, due), *_ = await fetch(engine, "SELECT vecs, due_at FROM message_sentences")
    assert due is None and unpack_vectors(vecs, embedder.dim).shape == (SENTENCES_PER_MESSAGE, embedder.dim)
    assert await _search(client) == {"pending": 0, "refining": 0, "complete": True}
    assert (await runner.run(EmbedSentences(embedder=model, batch_size=16))).claimed == 0


async def test_messages_that_waited_leave_their_sentences_for_later(
    client: httpx.AsyncClient, engine: AsyncEngine, embedder: LocalEmbedder
) -> None:
    """A short claim is behind too when its oldest message has waited BEHIND_SECONDS: the worker
    is not keeping up, so the messages' own wait must not grow by their sentences' model work."""
    await _append(client, LONG, SHORT)
    await _run(
        engine, f"UPDATE messages SET embed_after = now() - make_interval(secs => {2 * BEHIND_SECONDS})"
    )
    model = _Counting(embedder)
    runner = StepRunner(engine=engine, retry=POLICY)
    assert (await runner.run(EmbedMessages(embedder=model, batch_size=16))).done == 2
    assert model.calls == [2]
    assert await fetch(engine, "SELECT vecs IS NULL, due_at IS NOT NULL FROM message_sentences") == [
        (True, True)
    ]


async def test_a_failed_sentence_call_is_retried_and_never_fails_the_message(
    client: httpx.AsyncClient, engine: AsyncEngine, embedder: LocalEmbedder
) -> None:
    await _append(client, LONG)
    runner = StepRunner(engine=engine, retry=POLICY)
    await runner.run(EmbedMessages(embedder=embedder, batch_size=1))  # full: its sentences queued
    flaky = _Counting(embedder, outages=POLICY.max_attempts + 1)  # more than the messages' limit
    step = EmbedSentences(embedder=flaky, batch_size=16)
    for _ in range(POLICY.max_attempts + 1):
        await _run(engine, "UPDATE message_sentences SET due_at = now()")  # due again at once
        assert (await runner.run(step)).failed == 1
    rows = await fetch(engine, "SELECT attempts, due_at > now(), vecs FROM message_sentences")
    assert rows == [(POLICY.max_attempts + 1, True, None)]  # still queued, later: never given up
    status = (await client.get("/v1/indexing")).json()
    assert (status["pending"], status["failed"], status["refining"]) == (0, 0, 1)
    await _run(engine, "UPDATE message_sentences SET due_at = now()")
    assert (await runner.run(step)).done == 1
    assert await fetch(engine, "SELECT attempts, due_at FROM message_sentences") == [(0, None)]


async def test_sentences_the_model_rejects_are_dropped_after_the_last_attempt(
    client: httpx.AsyncClient, engine: AsyncEngine, embedder: LocalEmbedder
) -> None:
    """Unlike an outage, an input the model keeps rejecting is not retried for ever: after the
    derived work's attempts its sentences go, the message keeps its own vector, and no search
    waits on it."""
    await _append(client, LONG)
    runner = StepRunner(engine=engine, retry=POLICY)
    await runner.run(EmbedMessages(embedder=embedder, batch_size=1))  # full: its sentences queued

    class _Rejecting(_Counting):
        async def embed(self, texts: Sequence[str]) -> Vectors:
            raise ValueError("the model rejects this input")

    step = EmbedSentences(embedder=_Rejecting(embedder), batch_size=16)
    for attempt in range(1, POLICY.max_attempts + 1):
        await _run(engine, "UPDATE message_sentences SET due_at = now()")
        assert (await runner.run(step)).failed == 1
        left = await fetch(engine, "SELECT attempts FROM message_sentences")
        assert left == ([(attempt,)] if attempt < POLICY.max_attempts else []), (attempt, left)
    r = await client.post(
        "/v1/search", json={"query": "cello", "user_id": "sam", "wait_for_indexing_ms": 5000}
    )
    assert r.json()["indexing"] == {"pending": 0, "refining": 0, "complete": True}
    assert r.json()["results"][0]["content"] == LONG


async def test_an_edit_drops_the_old_sentences_and_the_worker_makes_new_ones(
    client: httpx.AsyncClient, engine: AsyncEngine, embedder: LocalEmbedder
) -> None:
    (mid,) = await _append(client, LONG)
    runner = StepRunner(engine=engine, retry=POLICY)
    await runner.run(EmbedMessages(embedder=embedder, batch_size=16))
    (old,), *_ = await fetch(engine, "SELECT vecs FROM message_sentences")
    edited = LONG.replace("cello lessons", "pottery classes").replace("noise", "mess")
    r = await client.patch(f"/v1/sessions/s1/messages/{mid}", json={"content": edited})
    assert r.status_code == 200, r.text
    assert await fetch(engine, "SELECT count(*) FROM message_sentences") == [(0,)]
    await runner.run(EmbedMessages(embedder=embedder, batch_size=1))  # a backlog: queued
    assert await fetch(engine, "SELECT vecs IS NULL, due_at IS NOT NULL FROM message_sentences") == [
        (True, True)
    ]
    await runner.run(EmbedSentences(embedder=embedder, batch_size=16))
    (new,), *_ = await fetch(engine, "SELECT vecs FROM message_sentences")
    assert new is not None and new != old
    # An edit to a single sentence leaves nothing to refine: the row goes with the re-embedding.
    r = await client.patch(f"/v1/sessions/s1/messages/{mid}", json={"content": SHORT})
    await runner.run(EmbedMessages(embedder=embedder, batch_size=16))
    assert await fetch(engine, "SELECT count(*) FROM message_sentences") == [(0,)]
    # And a deleted message takes its sentences with it.
    r = await client.post("/v1/sessions/s1/messages", json={"messages": [{"role": "user", "content": LONG}]})
    mid2 = r.json()["messages"][0]["message_id"]
    await runner.run(EmbedMessages(embedder=embedder, batch_size=16))
    assert await fetch(engine, "SELECT count(*) FROM message_sentences") == [(1,)]
    assert (await client.delete(f"/v1/sessions/s1/messages/{mid2}")).status_code == 204
    assert await fetch(engine, "SELECT count(*) FROM message_sentences") == [(0,)]


async def test_the_worker_makes_sentences_only_once_no_message_waits_for_its_own_vector(
    client: httpx.AsyncClient, own_db: str, engine: AsyncEngine, embedder: LocalEmbedder
) -> None:
    """Each lane iteration runs the first step with work and starts over while its claim is full:
    the sentences (second in order) get a turn only when the new messages' claims run short."""
    batch, turns = 8, 48
    contents = [f"{LONG} That was on day {i} of the month." for i in range(turns)]
    whole = {message_text(name="Sam", content=c) for c in contents}
    parts = {t for c in contents for t in message_sentences(name="Sam", content=c)}
    await _append(client, *contents)
    calls: list[tuple[str, int]] = []
    texts_seen: list[list[str]] = []

    class _Recording(_Counting):
        async def embed(self, texts: Sequence[str]) -> Vectors:
            kind = "message" if texts[0] in whole else "sentences" if texts[0] in parts else "other"
            calls.append((kind, len(texts)))  # "other": summaries and facts, which embed too
            texts_seen.append(list(texts))
            return await self.real.embed(texts)

    settings = make_settings(own_db, run_worker=False, redis_url=None, worker_batch_size=batch)
    worker = Worker(
        settings=settings, engine=engine, embedder=_Recording(embedder), redis=None, metrics=Metrics()
    )
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    try:
        finished = (
            "SELECT (SELECT count(*) FROM messages WHERE embed_status = 'done') = :n "
            "AND NOT EXISTS (SELECT 1 FROM message_sentences WHERE due_at IS NOT NULL)"
        )
        await until(lambda: _scalar(engine, finished, n=turns), within=120)
    finally:
        stop.set()
        await task
    first = next(i for i, (kind, _) in enumerate(calls) if kind == "sentences")
    before = sum(n for kind, n in calls[:first] if kind == "message")
    # At most the other lane's last batch is still in the model when the sentences' turn comes.
    assert before >= turns - batch, calls
    assert sum(t in parts for c in texts_seen for t in c) == turns * SENTENCES_PER_MESSAGE

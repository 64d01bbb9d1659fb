"""Builds what the app runs on (database, Redis, tokenizer, limits, caches) and closes it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TypedDict

import structlog
from fastapi import FastAPI
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncEngine

from app.ai.batcher import BatchedEmbedder
from app.ai.embedder import Embedder
from app.ai.model_gate import ModelGate
from app.ai.remote_embedder import RemoteEmbedder
from app.ai.tokenizer import Tokenizer
from app.audit.writer import AuditWriter
from app.auth import KeyResolver
from app.cache.answers import AnswerCache
from app.cache.window import WindowCache
from app.config import Settings
from app.crypto.keys import start_encryption
from app.db.embedded import EmbeddedPostgres, start_embedded
from app.db.engine import KEY_POOL_SIZE, make_engine, make_export_engine, make_key_engine
from app.db.lane import Lane
from app.db.migrate import upgrade
from app.gate import Admission
from app.heap import freeze_startup
from app.jobs.wake import Waker
from app.limits import Limits
from app.metrics import Metrics, pool_stats
from app.ratelimit.limiter import Counter
from app.redis_client import make_redis
from app.runtime import checked_embedder, for_queries, for_worker, needs_export
from app.telemetry.tracing import Tracing
from app.tenants.service import ensure_tenant

_log = structlog.get_logger("engram.lifespan")


class State(TypedDict):
    settings: Settings
    engine: AsyncEngine
    lane: Lane
    redis: Redis | None
    # Queries only: the worker embeds with the model gate itself, apart from this batching.
    embedder: BatchedEmbedder | RemoteEmbedder
    waker: Waker
    tokenizer: Tokenizer
    limits: Limits
    metrics: Metrics
    keys: KeyResolver
    admission: Admission
    export_engine: AsyncEngine
    cache: WindowCache
    answers: AnswerCache
    audit: AuditWriter


def make_lifespan(
    settings: Settings,
    metrics: Metrics,
    tracing: Tracing,
    *,
    freeze_heap: bool = False,
    lent_model: Embedder | None = None,
) -> Callable[[FastAPI], AbstractAsyncContextManager[State]]:
    """`freeze_heap`: the app is its process's only one (`engram serve`), which then freezes what
    it built at startup (app/heap.py). Not for tests, which build many apps in one process.
    `lent_model`: a loaded embedder the caller lends (create_app), used in place of the configured
    one and left open at shutdown."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[State]:
        embedded: EmbeddedPostgres | None = None
        url = settings.database_url
        if url is None:
            embedded = await asyncio.to_thread(start_embedded, settings.data_dir)
            url = embedded.url
        if settings.migrate_on_start:
            await upgrade(url, settings.embedding_dim)
        engine = make_engine(settings, url)
        # Before the worker: it reads sealed rows.
        await start_encryption(settings.encryption_keys, engine, keep_keywords=settings.keeps_keywords)
        key_engine = make_key_engine(url)
        export_engine = make_export_engine(settings, url)
        lane_engine = make_engine(
            settings, url, pool_size=settings.db_lane_size, max_overflow=0, application_name="engram-lane"
        )
        lane = Lane(lane_engine, size=settings.db_lane_size, timeout=settings.db_pool_timeout)
        metrics.watch_lane(lane.stats)
        metrics.watch_pool(lambda: pool_stats(engine))
        # A cache must fail fast: a hung Redis costs each request at most the timeout, once, then
        # WindowCache stays away from it for a second.
        redis = make_redis(settings.redis_url, timeout=settings.redis_timeout_seconds)
        for traced in (engine, key_engine, export_engine, lane_engine):
            tracing.instrument_engine(traced)
        tracing.instrument_redis(redis)
        if not settings.auth_on:
            _log.warning(
                "auth is OFF: every caller is tenant %r; only for local use on loopback",
                settings.default_tenant,
            )
            async with engine.begin() as conn:
                await ensure_tenant(conn, tenant_id=settings.default_tenant)
        embedder: BatchedEmbedder | RemoteEmbedder
        gate: ModelGate | None = None
        if settings.embed_url is not None:
            # Queries are embedded by the worker's model (app/ai/embed_server.py, which batches
            # them): this process loads none (~80 MB less each, docs/benchmarks.md).
            embedder = RemoteEmbedder(settings, settings.embed_url)
        else:
            # The model loads in the background (a first run exports it, ~30 s): the API serves
            # meanwhile, /readyz says why it is not ready, and the worker starts once it is.
            model_settings = for_worker(settings) if settings.run_worker else for_queries(settings)
            inner = await checked_embedder(model_settings, engine, given=lent_model)
            gate = ModelGate(inner, exporting=needs_export(inner), owned=lent_model is None)
            gate.prepare()
            embedder = BatchedEmbedder(gate)
        stop = asyncio.Event()
        wake = asyncio.Event() if settings.run_worker else None
        worker_task: asyncio.Task[None] | None = None
        if settings.run_worker and gate is not None:  # EMBED_URL refuses RUN_WORKER
            # Imported only here: an API process without a worker need not hold its steps.
            from app.worker import Worker

            model = gate
            worker = Worker(
                settings=settings,
                engine=engine,
                embedder=gate,
                redis=redis,
                metrics=metrics,
                wake=wake,
                tracing=tracing,
            )

            async def run_worker_when_ready() -> None:
                if await model.wait_ready(stop):
                    await worker.run(stop)

            worker_task = asyncio.create_task(run_worker_when_ready(), name="engram-worker")
        settle_task: asyncio.Task[None] | None = None
        if freeze_heap and gate is not None:
            loading = gate

            async def settle_when_loaded() -> None:
                # The model's load (onnxruntime, the tokenizer) comes after the freeze below.
                if await loading.wait_ready(stop):
                    freeze_startup()

            settle_task = asyncio.create_task(settle_when_loaded(), name="engram-heap-settle")
        audit = AuditWriter(
            engine, every=settings.audit_flush_seconds, max_buffer=settings.audit_buffer_max, metrics=metrics
        )
        audit.start()
        keys = KeyResolver(
            key_engine,
            ttl=settings.api_key_cache_seconds,
            unknown_ttl=settings.unknown_key_cache_seconds,
            stranger_lane=KEY_POOL_SIZE,
        )
        if freeze_heap:
            freeze_startup()  # what the process keeps is built: full collections skip it
        try:
            yield State(
                settings=settings,
                engine=engine,
                lane=lane,
                redis=redis,
                embedder=embedder,
                waker=Waker(redis, wake, quiet=tracing.quiet),
                tokenizer=Tokenizer(settings.tokenizer).load(),  # before the first request, not in it
                limits=Limits(settings),
                metrics=metrics,
                keys=keys,
                admission=Admission(settings, keys, Counter(redis)),
                export_engine=export_engine,
                cache=WindowCache(
                    redis,
                    window=settings.cache_window_messages,
                    ttl=settings.cache_ttl_seconds,
                    metrics=metrics,
                ),
                answers=AnswerCache(max_bytes=settings.cache_answer_bytes, metrics=metrics),
                audit=audit,
            )
        finally:
            stop.set()
            if settle_task is not None:
                await settle_task
            await audit.aclose()  # writes the events still buffered
            if worker_task is not None:
                await worker_task  # finishes (commits or rolls back) the batch in hand
            await embedder.aclose()
            if redis is not None:
                await redis.aclose()
            await engine.dispose()
            await lane.aclose()
            await key_engine.dispose()
            await export_engine.dispose()
            tracing.shutdown()  # exports the spans still buffered
            if embedded is not None:
                await asyncio.to_thread(embedded.stop)

    return lifespan

"""`engram worker`: the worker as its own process, stopped cleanly by SIGINT / SIGTERM."""

from __future__ import annotations

import asyncio
import signal

import structlog
from prometheus_client import start_http_server

from app.ai.embed_server import EmbedServer
from app.config import Settings
from app.crypto.keys import start_encryption
from app.db.engine import make_engine
from app.heap import freeze_startup
from app.metrics import Metrics
from app.redis_client import make_redis
from app.runtime import for_worker, start_embedder
from app.telemetry.factory import make_tracing
from app.worker import Worker

_log = structlog.get_logger("engram.worker")


async def run_worker(settings: Settings, database_url: str) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    metrics = Metrics()
    engine = make_engine(
        settings,
        database_url,
        application_name="engram-worker",
        idle_seconds=settings.worker_db_idle_seconds,
    )
    redis = make_redis(settings.redis_url)
    tracing = make_tracing(settings)
    tracing.instrument_engine(engine)
    tracing.instrument_redis(redis)
    await start_encryption(settings.encryption_keys, engine, keep_keywords=settings.keeps_keywords)
    embedder = await start_embedder(for_worker(settings), engine)
    if settings.worker_metrics_port is not None:
        start_http_server(settings.worker_metrics_port, addr=settings.host, registry=metrics.registry)
    # The API processes' query embeddings (ENGRAM_EMBED_URL), on this worker's model.
    server = None
    if settings.worker_embed_port is not None:
        server = EmbedServer(embedder, host=settings.host, port=settings.worker_embed_port)
        await server.start()
    try:
        worker = Worker(
            settings=settings, engine=engine, embedder=embedder, redis=redis, metrics=metrics, tracing=tracing
        )
        freeze_startup()  # full collections skip what starting up built (app/heap.py)
        await worker.run(stop)
    finally:
        if server is not None:
            await server.aclose()
        tracing.shutdown()
        await embedder.aclose()
        if redis is not None:
            await redis.aclose()
        await engine.dispose()

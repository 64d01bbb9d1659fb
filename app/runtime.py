"""Parts shared by the API process and `engram worker`: the embedder, checked against the schema."""

from __future__ import annotations

import structlog
from sqlalchemy.ext.asyncio import AsyncEngine

from app.ai.embedder import Embedder, EmbedderMismatch
from app.ai.factories import make_embedder
from app.ai.model_gate import preparing_note
from app.config import Settings
from app.db.introspect import embedding_dimension
from app.db.outage import is_outage

_log = structlog.get_logger("engram.runtime")


def for_queries(settings: Settings) -> Settings:
    """The settings of a model that embeds only queries (an API process that runs no worker): one
    short text at a time, which a second thread makes both slower and costlier. One query took
    0.89-0.99 ms of CPU and wall on one thread, against 1.57-1.59 ms of CPU and 1.21-1.23 ms wall on
    two (docs/benchmarks.md, session 17). An ENGRAM_EMBEDDER_THREADS set explicitly is kept."""
    return _one_thread_unless_set(settings)


def for_worker(settings: Settings) -> Settings:
    """The settings of the worker's model, whose calls run ENGRAM_WORKER_MODEL_CALLS at once
    (app/jobs/shared_model.py): one thread a call unless ENGRAM_EMBEDDER_THREADS is set. On 2
    cores, two one-thread calls at once made 12 % more messages searchable per second than one
    two-thread call, and lowered the lag at 100 msg/s: a core that PostgreSQL or the event loop
    takes for a moment stalls one call's only thread, not the second thread of the one call
    running (docs/benchmarks.md, session 20)."""
    return settings if settings.worker_model_calls == 1 else _one_thread_unless_set(settings)


def _one_thread_unless_set(settings: Settings) -> Settings:
    if "embedder_threads" in settings.model_fields_set:
        return settings
    return settings.model_copy(update={"embedder_threads": 1})


async def start_embedder(settings: Settings, engine: AsyncEngine) -> Embedder:
    """Build and load the configured embedder; refuse to start if its vectors cannot be stored."""
    embedder = await checked_embedder(settings, engine)
    _log.info("model: preparing", model=embedder.name, note=preparing_note(exporting=needs_export(embedder)))
    await embedder.start()
    return embedder


def needs_export(embedder: Embedder) -> bool:
    """Whether `embedder.start()` will export the local model first (a first run, ~30 s)."""
    from app.ai.local_embedder import LocalEmbedder

    return isinstance(embedder, LocalEmbedder) and embedder.needs_export()


async def checked_embedder(
    settings: Settings, engine: AsyncEngine, given: Embedder | None = None
) -> Embedder:
    """The configured embedder, not yet loaded (or `given`, the caller's); refuse to start if its
    vectors cannot be stored."""
    embedder = given if given is not None else make_embedder(settings)
    try:
        installed = await embedding_dimension(engine)
    except Exception as exc:
        if not is_outage(exc):
            raise
        # The API may start before its database is up (it answers 503 and /readyz says so).
        # Unchecked, a mismatch would show as the worker failing to store vectors, loudly.
        _log.warning("database unavailable at start; embedding dimension not checked", error=str(exc))
        installed = None
    for name, dim in (("ENGRAM_EMBEDDING_DIM", settings.embedding_dim), (embedder.name, embedder.dim)):
        if installed is not None and dim != installed:
            raise EmbedderMismatch(
                f"{name} gives {dim}-dimensional vectors but the database was installed with "
                f"vector({installed}); use an embedder of {installed} dimensions, or a new database"
            )
    return embedder

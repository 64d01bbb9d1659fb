"""The worker: claim-run-ack over the pending-work records in PostgreSQL.

Runs inside `engram serve` (ENGRAM_RUN_WORKER, the embedded default) or alone as `engram worker`;
any number of workers can run against one database.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from datetime import timedelta

import structlog
from redis.asyncio import Redis
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.ai.embedder import Embedder
from app.ai.fact_extractor import make_fact_extractor
from app.ai.summarizer import make_summarizer
from app.ai.tokenizer import Tokenizer
from app.cache import WindowCache
from app.config import Provider, Settings
from app.facts.forgetting import expire_facts
from app.facts.reconcile import Thresholds
from app.facts.tasks import embed_facts, extract_next
from app.indexing.tasks import RetryPolicy, embed_pending
from app.indexing.wake import listen
from app.memory import evictions
from app.messages.tasks import sweep_idempotency_keys
from app.metrics import Metrics
from app.retention.tasks import Rule, apply_retention
from app.summaries.policy import SummaryPolicy
from app.summaries.tasks import summarize_next
from app.transfer.tasks import embed_summaries_next

_log = structlog.get_logger("engram.worker")
BACKLOG_EVERY = 5.0  # seconds between backlog / lag gauge refreshes
SWEEP_EVERY = 600.0  # seconds between housekeeping sweeps (expired idempotency keys)
EVICT_EVERY = 15.0  # seconds between sweeps of cache evictions the API could not do
# Batches in flight per worker. Two keep the model busy: one batch writes and commits (and the
# next is claimed) while the other is in the model. They share one model lock, so the model
# never runs two batches at once and each batch still has the whole CPU for its model call.
PIPELINE = 2


class Worker:
    def __init__(
        self,
        *,
        settings: Settings,
        engine: AsyncEngine,
        embedder: Embedder,
        redis: Redis | None,
        metrics: Metrics,
        wake: asyncio.Event | None = None,
    ) -> None:
        self.settings = settings
        self.engine = engine
        self.embedder = embedder
        self.redis = redis
        self.metrics = metrics
        self.wake = wake or asyncio.Event()
        self.policy = RetryPolicy(
            max_attempts=settings.worker_max_attempts,
            backoff_seconds=settings.worker_backoff_seconds,
            backoff_max_seconds=settings.worker_backoff_max_seconds,
        )
        self.model_lock = asyncio.Lock()
        self.tokenizer = Tokenizer(settings.tokenizer)
        self.summarizer = make_summarizer(settings, embedder=embedder, tokenizer=self.tokenizer)
        self.summary_policy = SummaryPolicy.from_settings(settings)
        self.extractor = make_fact_extractor(settings, embedder=embedder, tokenizer=self.tokenizer)
        self.fact_thresholds = Thresholds(
            merge=settings.fact_merge_threshold, negation=settings.fact_negation_threshold
        )
        # A remote LLM does not need the local model's lock; the local summariser embeds sentences.
        self.llm_lock = self.model_lock if settings.llm is Provider.local else None
        self.cache = WindowCache(
            redis, window=settings.cache_window_messages, ttl=settings.cache_ttl_seconds, metrics=metrics
        )
        self.retention = Rule(
            max_messages=settings.retention_max_messages, max_age_days=settings.retention_max_age_days
        )

    async def run(self, stop: asyncio.Event) -> None:
        listener = (
            asyncio.create_task(listen(self.redis, self.wake, stop)) if self.redis is not None else None
        )
        _log.info("worker started", embedder=self.embedder.name, pipeline=PIPELINE)
        lanes = [asyncio.create_task(self._lane(stop, housekeeping=i == 0)) for i in range(PIPELINE)]
        try:
            await asyncio.gather(*lanes)
        finally:
            for lane in lanes:
                lane.cancel()
            await asyncio.gather(*lanes, return_exceptions=True)
            if listener is not None:
                listener.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await listener
            await self.summarizer.aclose()
            await self.extractor.aclose()
            _log.info("worker stopped")

    async def _lane(self, stop: asyncio.Event, *, housekeeping: bool) -> None:
        """One batch after another; lanes run side by side and share the model lock."""
        last_gauges = 0.0
        last_sweep = 0.0
        last_evict = 0.0
        last_retention = time.monotonic()
        while not stop.is_set():
            busy = False
            # Cleared before the claim, never after: a wake-up that arrives while this batch is in
            # the model (rows committed after the claim) is kept and ends the idle wait at once.
            self.wake.clear()
            try:
                busy = await self.run_once()
                # Summaries yield to embeddings: one lane takes them, and only while the embedding
                # queue is drained (a summary step holds the model for its sentences).
                if housekeeping and not busy:
                    busy = await self.summarize_once()
                if housekeeping and not busy:
                    busy = await self.extract_once()
                if housekeeping and not busy:
                    busy = await self.embed_facts_once()
                if housekeeping and not busy:
                    busy = await self.embed_summaries_once()
                if housekeeping and time.monotonic() - last_evict > EVICT_EVERY:
                    await evictions.sweep(self.engine, self.cache)
                    last_evict = time.monotonic()
                if housekeeping and time.monotonic() - last_retention > self.settings.retention_sweep_seconds:
                    await self.apply_retention()
                    await self.expire_facts()
                    last_retention = time.monotonic()
                if housekeeping and time.monotonic() - last_gauges > BACKLOG_EVERY:
                    await self.refresh_gauges()
                    last_gauges = time.monotonic()
                if housekeeping and time.monotonic() - last_sweep > SWEEP_EVERY:
                    await self.sweep()
                    last_sweep = time.monotonic()
            except Exception as exc:  # database down: keep the loop alive, retry soon
                _log.warning("worker iteration failed", error=f"{type(exc).__name__}: {exc}")
                await _sleep_or_stop(stop, 1.0)
                continue
            if not busy:
                await self._idle(stop)

    async def run_once(self) -> bool:
        """One batch; True if the queue may hold more right now."""
        result = await embed_pending(
            self.engine,
            embedder=self.embedder,
            batch_size=self.settings.worker_batch_size,
            policy=self.policy,
            model_lock=self.model_lock,
        )
        if result.claimed:
            self.metrics.worker_items.labels("embed", "done").inc(result.embedded)
            self.metrics.worker_items.labels("embed", "retry_or_failed").inc(result.failed)
            self.metrics.worker_batch.labels("embed").observe(result.seconds)
        return result.claimed == self.settings.worker_batch_size

    async def summarize_once(self) -> bool:
        """One summary step, if a session is due; True if one was claimed."""
        started = time.perf_counter()
        step = await summarize_next(
            self.engine,
            summarizer=self.summarizer,
            embedder=self.embedder,
            tokenizer=self.tokenizer,
            policy=self.summary_policy,
            retry=self.policy,
            embed_lock=self.model_lock,
            llm_lock=self.llm_lock,
        )
        if step.claimed:
            self.metrics.worker_items.labels("summarize", "retry_or_failed" if step.failed else "done").inc()
            self.metrics.worker_batch.labels("summarize").observe(time.perf_counter() - started)
        return step.claimed

    async def extract_once(self) -> bool:
        """One fact extraction step, if a session has unread messages; True if one was claimed."""
        started = time.perf_counter()
        step = await extract_next(
            self.engine,
            extractor=self.extractor,
            embedder=self.embedder,
            thresholds=self.fact_thresholds,
            max_input_tokens=self.settings.fact_max_input_tokens,
            retry=self.policy,
            embed_lock=self.model_lock,
            llm_lock=None,  # neither extractor runs the local model: embeddings need not wait for it
        )
        if step.claimed:
            self.metrics.worker_items.labels("extract", "retry_or_failed" if step.failed else "done").inc()
            self.metrics.worker_batch.labels("extract").observe(time.perf_counter() - started)
        return step.claimed

    async def embed_facts_once(self) -> bool:
        """Embed a batch of facts written over the API; True if there were any."""
        n = await embed_facts(
            self.engine,
            embedder=self.embedder,
            batch_size=self.settings.worker_batch_size,
            lock=self.model_lock,
        )
        if n:
            self.metrics.worker_items.labels("embed_facts", "done").inc(n)
        return n > 0

    async def embed_summaries_once(self) -> bool:
        """Embed a batch of an imported session's summaries; True if a session was claimed."""
        step = await embed_summaries_next(
            self.engine,
            embedder=self.embedder,
            batch_size=self.settings.worker_batch_size,
            retry=self.policy,
            lock=self.model_lock,
        )
        if step.embedded:
            self.metrics.worker_items.labels("embed_summaries", "done").inc(step.embedded)
        if step.failed:
            self.metrics.worker_items.labels("embed_summaries", "retry_or_failed").inc()
        return step.claimed

    async def expire_facts(self) -> int:
        if self.settings.fact_expire_below is None:
            return 0
        n = await expire_facts(
            self.engine,
            half_life_days=self.settings.fact_half_life_days,
            below=self.settings.fact_expire_below,
            after_days=self.settings.fact_expire_after_days,
        )
        if n:
            self.metrics.worker_items.labels("expire_facts", "expired").inc(n)
        return n

    async def apply_retention(self) -> int:
        removed = await apply_retention(self.engine, default=self.retention)
        if removed:
            self.metrics.worker_items.labels("retention", "removed").inc(removed)
        return removed

    async def sweep(self) -> None:
        ttl = timedelta(hours=self.settings.idempotency_ttl_hours)
        removed = await sweep_idempotency_keys(self.engine, ttl=ttl)
        if removed:
            _log.info("expired idempotency keys removed", count=removed)

    async def refresh_gauges(self) -> None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    text(
                        "SELECT count(*) FILTER (WHERE embed_status = 'pending') AS pending, "
                        "count(*) FILTER (WHERE embed_status = 'failed') AS failed, "
                        "coalesce(extract(epoch FROM now() - min(updated_at) "
                        "  FILTER (WHERE embed_status = 'pending')), 0) AS lag "
                        "FROM messages WHERE embed_status <> 'done'"
                    )
                )
            ).one()
            jobs = (
                await conn.execute(
                    text(
                        "SELECT kind, count(*) FILTER (WHERE status = 'pending') AS pending, "
                        "count(*) FILTER (WHERE status = 'failed') AS failed, "
                        "coalesce(extract(epoch FROM now() - min(created_at) "
                        "  FILTER (WHERE status = 'pending')), 0) AS lag "
                        "FROM jobs GROUP BY kind"
                    )
                )
            ).all()
        self.metrics.worker_backlog.labels("embed").set(row.pending)
        self.metrics.worker_failed.labels("embed").set(row.failed)
        self.metrics.worker_lag.labels("embed").set(float(row.lag))
        for kind in (
            "summarize",
            "extract",
            *(j.kind for j in jobs if j.kind not in ("summarize", "extract")),
        ):
            job = next((j for j in jobs if j.kind == kind), None)
            self.metrics.worker_backlog.labels(kind).set(job.pending if job else 0)
            self.metrics.worker_failed.labels(kind).set(job.failed if job else 0)
            self.metrics.worker_lag.labels(kind).set(float(job.lag) if job else 0.0)

    async def _idle(self, stop: asyncio.Event) -> None:
        if self.wake.is_set():  # woken while the last batch ran: more work was committed since
            return
        waiter = asyncio.create_task(self.wake.wait())
        stopper = asyncio.create_task(stop.wait())
        await asyncio.wait(
            {waiter, stopper},
            timeout=self.settings.worker_poll_seconds,
            return_when=asyncio.FIRST_COMPLETED,
        )
        for task in (waiter, stopper):
            task.cancel()


async def _sleep_or_stop(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)

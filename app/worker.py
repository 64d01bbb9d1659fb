"""The worker: claim-run-ack over the pending-work records in PostgreSQL.

Runs inside `engram serve` (ENGRAM_RUN_WORKER, the embedded default) or alone as `engram worker`;
any number of workers can run against one database.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from datetime import timedelta
from typing import Any

import structlog
from redis.asyncio import Redis
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.ai.embedder import Embedder
from app.ai.factories import make_fact_extractor, make_summarizer
from app.ai.tokenizer import Tokenizer
from app.audit import retention as audit_retention
from app.cache import evictions
from app.cache.window import WindowCache
from app.config import Settings
from app.crypto import fields
from app.crypto.rotation import Rotation
from app.facts.forgetting import expire_facts
from app.facts.reconcile import Thresholds
from app.facts.tasks import EmbedFacts, Extract
from app.indexing.sentence_tasks import KIND as SENTENCES
from app.indexing.sentence_tasks import EmbedSentences
from app.indexing.tasks import LAG, EmbedMessages, behind_seconds
from app.jobs import sweeps
from app.jobs.cpu import CpuPool
from app.jobs.due import SummaryPolicy
from app.jobs.idle import IdleBackoff, pause
from app.jobs.retry import RetryPolicy
from app.jobs.runner import StepRunner, describe
from app.jobs.shared_model import SharedModel
from app.jobs.step import Step
from app.jobs.wake import Listening, listen
from app.messages.tasks import sweep_idempotency_keys
from app.metrics import Metrics
from app.retention.tasks import Rule, apply_retention
from app.search import user_indexes
from app.summaries import idle as idle_summaries
from app.summaries.tasks import Summarize
from app.telemetry.genai import step_attributes
from app.telemetry.tracing import NoTracing, Tracing
from app.transfer.tasks import EmbedSummaries
from app.webhooks.dispatch import DeliveryLanes

_log = structlog.get_logger("engram.worker")
BACKLOG_EVERY = 5.0  # seconds between backlog / lag gauge refreshes
SWEEP_EVERY = 600.0  # seconds between housekeeping sweeps (expired idempotency keys)
EVICT_EVERY = 15.0  # seconds between sweeps of cache evictions the API could not do
EMBEDDING_STEPS = 2  # the first steps (messages, their sentences): every lane runs them


# What the child processes run: imported once by their fork server, not within an item's budget;
# with the token counter's table they use (app/ai/tokenizer_preload.py).
CPU_RULES = (
    "app.ai.local_fact_extractor",
    "app.ai.local_summarizer",
    "app.facts.reconcile",
    "app.ai.tokenizer_preload",
)


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
        tracing: Tracing | None = None,
    ) -> None:
        self.settings = settings
        self.engine = engine
        self.embedder = embedder
        self.redis = redis
        self.metrics = metrics
        # The in-process event of `engram serve`: this process's API announces its writes on it.
        self.local_wake = wake is not None
        self.wake = wake or asyncio.Event()
        self.listening = Listening()
        self.tracing = tracing or NoTracing()
        self.runner = StepRunner(
            engine=engine,
            retry=RetryPolicy.from_settings(settings),
            metrics=metrics,
            tracing=self.tracing,
            span_attributes=step_attributes(settings, model=embedder.name, dim=embedder.dim),
        )
        # Every step's model calls take turns on the one model; new messages' go first.
        model = SharedModel(embedder, turns=settings.worker_model_calls)
        # CPU-heavy text rules run in child processes, each call within the item's budget.
        self.cpu = CpuPool(
            processes=settings.worker_cpu_processes,
            budget_seconds=settings.worker_item_budget_seconds,
            preload=CPU_RULES,
            nice=settings.worker_cpu_nice,
        )
        tokenizer = Tokenizer(settings.tokenizer)
        self.summarizer = make_summarizer(settings, embedder=model, tokenizer=tokenizer, offload=self.cpu)
        self.extractor = make_fact_extractor(settings, embedder=model, tokenizer=tokenizer, offload=self.cpu)
        batch = settings.worker_batch_size
        # In priority order: each lane iteration runs the first step that has work. The messages'
        # embeddings come first, their sentences' next (they refine search; the steps after them
        # derive new memory); those two are the only steps of the other lanes, so both pipeline.
        self.steps: list[Step[Any, Any]] = [
            EmbedMessages(
                embedder=model.urgent,
                batch_size=batch,
                sentences=settings.index_sentences,
                behind=behind_seconds(settings.worker_poll_seconds),
            ),
            # The sentences a backlog left for later, after every message's own vector; whole
            # calls, as the messages' (app/indexing/sentence_tasks.py).
            EmbedSentences(embedder=model.urgent, batch_size=batch),
            Summarize(
                summarizer=self.summarizer,
                embedder=model,
                tokenizer=tokenizer,
                policy=SummaryPolicy.from_settings(settings),
                offload=self.cpu,
            ),
            Extract(
                extractor=self.extractor,
                embedder=model,
                thresholds=Thresholds(
                    merge=settings.fact_merge_threshold, negation=settings.fact_negation_threshold
                ),
                max_input_tokens=settings.fact_max_input_tokens,
                offload=self.cpu,
            ),
            EmbedFacts(embedder=model, batch_size=batch),
            EmbedSummaries(embedder=model, batch_size=batch),
        ]
        self.cache = WindowCache(
            redis, window=settings.cache_window_messages, ttl=settings.cache_ttl_seconds, metrics=metrics
        )
        # Webhook deliveries run in lanes of their own: a slow receiver never holds up the model.
        self.deliveries = DeliveryLanes(
            settings=settings,
            engine=engine,
            metrics=metrics,
            tracing=self.tracing,
            announced=self.announced,
        )
        self.retention = Rule(
            max_messages=settings.retention_max_messages, max_age_days=settings.retention_max_age_days
        )
        self.sweeps = [
            sweeps.Sweep("evictions", EVICT_EVERY, lambda: evictions.sweep(self.engine, self.cache)),
            sweeps.Sweep(
                "retention", settings.retention_sweep_seconds, self.apply_retention, first_now=False
            ),
            sweeps.Sweep(
                "expire_facts", settings.retention_sweep_seconds, self.expire_facts, first_now=False
            ),
            sweeps.Sweep("gauges", BACKLOG_EVERY, self.refresh_gauges),
            sweeps.Sweep("idempotency_keys", SWEEP_EVERY, self.sweep),
            sweeps.Sweep(
                "audit_retention",
                settings.retention_sweep_seconds,
                lambda: audit_retention.expire(self.engine, default_days=settings.audit_retention_days),
                first_now=False,
            ),
            sweeps.Sweep("webhook_gauges", BACKLOG_EVERY, self.deliveries.refresh_gauges),
            sweeps.Sweep("webhook_retention", SWEEP_EVERY, self.deliveries.forget_old, first_now=False),
        ]
        if fields.keyring() is not None:  # encryption on: rows under an older key are sealed again
            self.rotation = Rotation(
                engine, batch=settings.encryption_rotation_batch, on_rewritten=self._rewritten
            )
            self.sweeps.append(
                sweeps.Sweep("reencrypt", settings.encryption_rotation_seconds, self.rotation.run)
            )
        # Building a large user's indexes takes minutes: a sweep of its own, in a lane of its own.
        self.index_sweep = sweeps.Sweep(
            "user_indexes", settings.search_user_indexes_sweep_seconds, self.maintain_user_indexes
        )
        idle = settings.summary_idle_seconds
        if idle is not None:
            self.sweeps.append(
                sweeps.Sweep(
                    "idle_summaries",
                    settings.summary_idle_sweep_seconds,
                    lambda: idle_summaries.queue_idle(self.engine, idle_seconds=idle),
                )
            )

    async def run(self, stop: asyncio.Event) -> None:
        listener = None
        if self.redis is not None:
            with self.tracing.quiet():  # the wake-up listener's polls are no spans (the task keeps it)
                listener = asyncio.create_task(listen(self.redis, self.wake, stop, self.listening))
        self.cpu.start()
        # Batches in flight: one more than the model calls that may run at once
        # (ENGRAM_WORKER_MODEL_CALLS), so the model stays busy while a batch writes and commits
        # (and the next is claimed).
        pipeline = self.settings.worker_model_calls + 1
        _log.info("worker started", embedder=self.embedder.name, pipeline=pipeline)
        lanes = [asyncio.create_task(self._lane(stop, housekeeping=i == 0)) for i in range(pipeline)]
        lanes.append(asyncio.create_task(self.deliveries.run(stop)))
        lanes.append(asyncio.create_task(self._index_lane(stop)))
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
            await self.cpu.aclose()
            _log.info("worker stopped")

    async def _lane(self, stop: asyncio.Event, *, housekeeping: bool) -> None:
        """One batch after another; lanes run side by side and share the model lock. The
        housekeeping lane also runs the steps after the embeddings, and the sweeps."""
        steps = self.steps if housekeeping else self.steps[:EMBEDDING_STEPS]
        backoff = IdleBackoff.from_settings(self.settings)
        while not stop.is_set():
            # Cleared before the claim, never after: a wake-up that arrives while this batch is in
            # the model (rows committed after the claim) is kept and ends the idle wait at once.
            self.wake.clear()
            busy = trouble = worked = False
            for step in steps:
                try:
                    result = await self.runner.run(step)
                except Exception as exc:  # database down: the next step and the sweeps still run
                    _log.warning("worker step failed", kind=step.kind, error=describe(exc))
                    trouble = True
                    continue
                busy = result.more
                if result.claimed:  # its commit may have queued webhook events
                    self.deliveries.nudge()
                    worked = True  # and a failed item's retry is soon due
                if busy:
                    break
            if housekeeping:
                with self.tracing.quiet():  # periodic housekeeping: no trace every few seconds
                    await sweeps.run_due(self.sweeps)
            if worked or trouble:
                backoff.reset()
            if trouble and not busy:
                await pause(stop, None, 1.0)  # retry soon, without spinning on a dead database
            elif not busy:
                wait = backoff.wait(announced=self.announced())
                if housekeeping:  # a sweep falls due on its own clock, announced by nobody
                    wait = min(wait, max(sweeps.next_due(self.sweeps) - time.monotonic(), 0.0))
                if await self._idle(stop, wait):
                    backoff.reset()

    def announced(self) -> bool:
        """Whether new work is announced now (app/jobs/idle.py): with Redis, while the wake-up
        listener is subscribed; without, when this process's own API pokes the worker."""
        if self.redis is not None:
            return self.listening.up
        return self.local_wake

    async def _index_lane(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            with self.tracing.quiet():
                await sweeps.run_due([self.index_sweep])
            await pause(stop, None, max(self.index_sweep.due_at - time.monotonic(), 0.1))

    async def maintain_user_indexes(self) -> user_indexes.Result:
        result = await user_indexes.maintain(
            self.engine,
            min_rows=self.settings.search_user_index_min_rows,
            most=self.settings.search_user_indexes,
        )
        for outcome, n in (("built", result.built), ("dropped", result.dropped), ("failed", result.failed)):
            if n:
                self.metrics.worker_items.labels("user_indexes", outcome).inc(n)
        return result

    def _rewritten(self, table: str, n: int) -> None:
        self.metrics.worker_items.labels("reencrypt", table).inc(n)

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
                        f"{LAG} AS lag "
                        "FROM messages WHERE embed_status <> 'done'"
                    )
                )
            ).one()
            jobs = (
                await conn.execute(
                    text(
                        "SELECT kind, count(*) FILTER (WHERE status = 'pending') AS pending, "
                        "count(*) FILTER (WHERE status = 'failed') AS failed, "
                        "coalesce(extract(epoch FROM now() - min(run_after) "
                        "  FILTER (WHERE status = 'pending' AND run_after <= now())), 0) AS lag "
                        "FROM jobs GROUP BY kind"
                    )
                )
            ).all()
            sentences = (
                await conn.execute(
                    text(
                        "SELECT count(*) AS pending, coalesce(extract(epoch FROM now() - min(due_at) "
                        "  FILTER (WHERE due_at <= now())), 0) AS lag "
                        "FROM message_sentences WHERE due_at IS NOT NULL"
                    )
                )
            ).one()
            facts = (
                await conn.execute(
                    text(
                        "SELECT count(*) FILTER (WHERE embed_after <> 'infinity') AS pending, "
                        "count(*) FILTER (WHERE embed_after = 'infinity') AS failed, "
                        "coalesce(extract(epoch FROM now() - min(embed_after) "
                        "  FILTER (WHERE embed_after <= now())), 0) AS lag "
                        "FROM facts WHERE embedding IS NULL"
                    )
                )
            ).one()
        self.metrics.worker_backlog.labels("embed").set(row.pending)
        self.metrics.worker_failed.labels("embed").set(row.failed)
        self.metrics.worker_lag.labels("embed").set(float(row.lag))
        self.metrics.worker_backlog.labels(SENTENCES).set(sentences.pending)
        self.metrics.worker_lag.labels(SENTENCES).set(float(sentences.lag))
        self.metrics.worker_backlog.labels("embed_facts").set(facts.pending)
        self.metrics.worker_failed.labels("embed_facts").set(facts.failed)
        self.metrics.worker_lag.labels("embed_facts").set(float(facts.lag))
        for kind in (
            "summarize",
            "extract",
            *(j.kind for j in jobs if j.kind not in ("summarize", "extract")),
        ):
            job = next((j for j in jobs if j.kind == kind), None)
            self.metrics.worker_backlog.labels(kind).set(job.pending if job else 0)
            self.metrics.worker_failed.labels(kind).set(job.failed if job else 0)
            self.metrics.worker_lag.labels(kind).set(float(job.lag) if job else 0.0)

    async def _idle(self, stop: asyncio.Event, seconds: float) -> bool:
        """Wait `seconds`, or until a wake-up or the stop; True if woken."""
        if self.wake.is_set():  # woken while the last batch ran: more work was committed since
            return True
        await pause(stop, self.wake, seconds)
        if self.wake.is_set():  # a wake-up (e.g. after a user purge) may be for the deliveries too
            self.deliveries.nudge()
            return True
        return False

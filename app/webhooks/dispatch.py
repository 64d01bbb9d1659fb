"""The worker's delivery lanes: ENGRAM_WEBHOOK_CONCURRENCY loops, each running the delivery step
(one delivery per transaction), so a slow receiver holds up one lane, not the worker's model work
nor the other receivers. Lane 0 polls (backing off while idle, app/jobs/idle.py); the others sleep
until there is work.

A wake-up (`nudge`: the worker committed something that may have queued events) wakes one
sleeping lane, and a lane that found a delivery wakes one more, so the lanes join in as far as
there is work. Waking all of them on every wake-up made each look at the same empty queue, a
connection apiece at once, after every batch the worker committed; its pool then kept those
connections (docs/benchmarks.md, session 19)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

import structlog
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.jobs.idle import IdleBackoff, pause
from app.jobs.retry import RetryPolicy
from app.jobs.runner import StepRunner, describe
from app.metrics import Metrics
from app.telemetry.tracing import Tracing
from app.webhooks import tasks
from app.webhooks.sender import Sender

_log = structlog.get_logger("engram.webhooks")


class DeliveryLanes:
    def __init__(
        self,
        *,
        settings: Settings,
        engine: AsyncEngine,
        metrics: Metrics,
        tracing: Tracing | None = None,
        announced: Callable[[], bool] = lambda: False,
    ) -> None:
        self.engine = engine
        self.metrics = metrics
        self.lanes = settings.webhook_concurrency
        self.settings = settings
        # The worker's: whether new deliveries are announced (their changes' wake-ups, relayed).
        self.announced = announced
        self.retention_days = settings.webhook_retention_days
        self._sleeping: deque[asyncio.Event] = deque()  # each sleeping lane's own wake-up, oldest first
        self._owed = False  # a nudge that found every lane awake: the next to find nothing tries again
        retry = RetryPolicy.for_webhooks(settings)
        self.sender = Sender(
            timeout=settings.webhook_timeout_seconds, block_private=settings.webhook_block_private
        )
        self.step = tasks.Deliver(sender=self.sender, retry=retry, metrics=metrics)
        # With the worker's tracing: a delivery is a span, and an idle lane's polls are none.
        self.runner = StepRunner(engine=engine, retry=retry, metrics=metrics, tracing=tracing)

    async def run(self, stop: asyncio.Event) -> None:
        lanes = [asyncio.create_task(self._lane(stop, polls=i == 0)) for i in range(self.lanes)]
        try:
            await asyncio.gather(*lanes)
        finally:
            for lane in lanes:
                lane.cancel()
            await asyncio.gather(*lanes, return_exceptions=True)
            await self.sender.aclose()

    def nudge(self) -> None:
        """Deliveries may be due: one sleeping lane looks (and wakes another if it finds one). A
        lane's wake-up leaves the list only here (set) or when the lane's own wait runs out."""
        if self._sleeping:
            self._sleeping.popleft().set()
        else:
            self._owed = True

    async def _lane(self, stop: asyncio.Event, *, polls: bool) -> None:
        backoff = IdleBackoff.from_settings(self.settings)
        while not stop.is_set():
            try:
                found = (await self.runner.run(self.step)).claimed > 0
            except Exception as exc:  # the database is down: try again soon
                _log.warning("webhook delivery step failed", error=describe(exc))
                await pause(stop, None, 1.0)
                continue
            if found:  # a failed try's retry is due soon as well
                backoff.reset()
                self.nudge()  # more may be due: one more lane looks
                continue
            if self._owed:  # a nudge came while every lane was at work
                self._owed = False
                continue
            wake = asyncio.Event()
            self._sleeping.append(wake)
            await pause(stop, wake, backoff.wait(announced=self.announced()) if polls else None)
            if wake.is_set():
                backoff.reset()
            else:  # the poll's wait ran out (or the stop): no longer asleep
                self._sleeping.remove(wake)

    async def refresh_gauges(self) -> None:
        async with self.engine.connect() as conn:
            pending, failed, lag = await tasks.backlog(conn)
        self.metrics.worker_backlog.labels(tasks.KIND).set(pending)
        self.metrics.worker_failed.labels(tasks.KIND).set(failed)
        self.metrics.worker_lag.labels(tasks.KIND).set(lag)

    async def forget_old(self) -> int:
        async with self.engine.begin() as conn:
            return await tasks.forget_old(conn, days=self.retention_days)

"""Waking workers early. Redis pub/sub when configured (and an in-process event for the embedded
worker); without either, workers find new work by polling. Never the record of pending work:
that is the `embed_status` of each row in PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass

import structlog
from redis.asyncio import Redis

CHANNEL = "engram:work"
_log = structlog.get_logger("engram.wake")


class Waker:
    def __init__(
        self,
        redis: Redis | None,
        local: asyncio.Event | None,
        min_interval: float = 0.01,
        quiet: Callable[[], contextlib.AbstractContextManager[None]] = contextlib.nullcontext,
    ):
        self._redis = redis
        self._local = local
        self._min_interval = min_interval
        self._last = 0.0
        # Tracing's `quiet`: the wake-up is plumbing, not part of what a trace shows. The work it
        # wakes joins the request's trace through the traceparent stored with it, not through
        # this PUBLISH, and a span for it would say nothing (yet cost as much as the cache write's).
        self._quiet = quiet

    async def poke(self) -> None:
        """Best effort: a lost wake-up only delays work until the next poll."""
        if self._local is not None:
            self._local.set()
        now = time.monotonic()
        if self._redis is None or now - self._last < self._min_interval:
            return
        self._last = now
        try:
            with self._quiet():
                await self._redis.publish(CHANNEL, b"1")
        except Exception as exc:  # Redis down: workers poll; say so once in a while, not per call
            _log.debug("wake-up not published", error=type(exc).__name__)


@dataclass
class Listening:
    """Whether the listener is subscribed now: only then are other processes' writes announced
    (app/jobs/idle.py lets idle polls back off on that). Owned by one worker."""

    up: bool = False


async def listen(
    redis: Redis, event: asyncio.Event, stop: asyncio.Event, listening: Listening | None = None
) -> None:
    """Set `event` on every published wake-up; reconnect with backoff while Redis is down."""
    state = listening or Listening()
    delay = 0.5
    while not stop.is_set():
        try:
            async with redis.pubsub() as pubsub:
                await pubsub.subscribe(CHANNEL)
                state.up = True
                # Anything written while the channel was down was announced to nobody.
                event.set()
                delay = 0.5
                while not stop.is_set():
                    msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    if msg is not None:
                        event.set()
        except Exception as exc:  # connection lost: fall back to polling until it is back
            state.up = False
            _log.info("wake-up channel unavailable; polling", error=type(exc).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=delay)
            delay = min(delay * 2, 10.0)

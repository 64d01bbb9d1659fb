"""Requests per second per tenant, messages per day per tenant, requests per second per client
address for callers without a valid key: counted by `limits` in Redis (shared by every process)
or, without Redis, in this process's memory.

A cache must not take the service down with it: while Redis fails, counting falls back to this
process's memory for a second at a time (fail open towards Redis, still bounded per process).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import structlog
from limits import RateLimitItem, RateLimitItemPerDay, RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import (
    FixedWindowRateLimiter,
    RateLimiter,
    SlidingWindowCounterRateLimiter,
)
from redis.asyncio import Redis

from app.errors import AppError

_log = structlog.get_logger("engram.ratelimit")
RETRY_REDIS_SECONDS = 1.0


class RateLimited(AppError):
    status, slug, title = 429, "rate-limited", "Too many requests"


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    limit: int
    remaining: int
    reset_seconds: int  # until the window frees room again

    def headers(self, policy: str) -> dict[str, str]:
        return {
            "Retry-After": str(self.reset_seconds),
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset_seconds),
            "RateLimit-Policy": policy,
        }


def per_second(rps: float) -> RateLimitItem:
    """`rps` requests a second; a fraction becomes whole requests over a longer window."""
    if rps >= 1:
        return RateLimitItemPerSecond(round(rps))
    return RateLimitItemPerSecond(1, max(1, round(1 / rps)))


class Counter:
    """`limits` over Redis when given, else memory; Redis errors fall back to memory."""

    def __init__(self, redis: Redis | None) -> None:
        self._memory = _Strategies(MemoryStorage())
        self._redis = None
        if redis is not None:
            # The app's own client pool: its short timeouts make a hung Redis fail fast.
            storage = RedisStorage(
                "async+redis://",
                implementation="redispy",
                key_prefix="engram:limits",
                connection_pool=redis.connection_pool,  # type: ignore[arg-type]  # passed through
            )
            self._redis = _Strategies(storage)
        self._redis_down_until = 0.0

    async def hit(self, item: RateLimitItem, *key: str, cost: int = 1, sliding: bool = True) -> Verdict:
        """Count `cost` against the limit if it fits; the verdict says whether it did."""
        strategies = self._pick()
        try:
            return await strategies.hit(item, key, cost, sliding)
        except Exception as exc:
            if strategies is self._memory:
                raise
            self._redis_failed(exc)
            return await self._memory.hit(item, key, cost, sliding)

    async def test(self, item: RateLimitItem, *key: str, cost: int = 1, sliding: bool = True) -> bool:
        """Whether `cost` would fit, without counting it."""
        strategies = self._pick()
        try:
            return await strategies.pick(sliding).test(item, *key, cost=cost)
        except Exception as exc:
            if strategies is self._memory:
                raise
            self._redis_failed(exc)
            return await self._memory.pick(sliding).test(item, *key, cost=cost)

    async def refusal(self, item: RateLimitItem, *key: str, sliding: bool = True) -> Verdict:
        """The window's figures for a refusal (when room frees up)."""
        strategies = self._pick()
        try:
            return await strategies.refusal(item, key, sliding)
        except Exception as exc:
            if strategies is self._memory:
                raise
            self._redis_failed(exc)
            return await self._memory.refusal(item, key, sliding)

    def _redis_failed(self, exc: Exception) -> None:
        self._redis_down_until = time.monotonic() + RETRY_REDIS_SECONDS
        _log.warning("rate limits: Redis failed, counting in memory for a second", error=type(exc).__name__)

    def _pick(self) -> _Strategies:
        if self._redis is not None and time.monotonic() >= self._redis_down_until:
            return self._redis
        return self._memory


class _Strategies:
    def __init__(self, storage: Storage) -> None:
        self.sliding: RateLimiter = SlidingWindowCounterRateLimiter(storage)
        self.fixed: RateLimiter = FixedWindowRateLimiter(storage)

    def pick(self, sliding: bool) -> RateLimiter:
        return self.sliding if sliding else self.fixed

    async def hit(self, item: RateLimitItem, key: tuple[str, ...], cost: int, sliding: bool) -> Verdict:
        limiter = self.pick(sliding)
        if await limiter.hit(item, *key, cost=cost):
            return Verdict(True, item.amount, -1, 0)  # the window's figures cost a round trip
        return await self.refusal(item, key, sliding)

    async def refusal(self, item: RateLimitItem, key: tuple[str, ...], sliding: bool) -> Verdict:
        stats = await self.pick(sliding).get_window_stats(item, *key)
        reset = max(1, math.ceil(stats.reset_time - time.time()))
        return Verdict(False, item.amount, max(0, stats.remaining), reset)


def messages_per_day(n: int) -> RateLimitItem:
    return RateLimitItemPerDay(n)

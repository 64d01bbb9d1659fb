"""Requests of one tenant in flight in this process: at most `cap`, the next ones queued in order
for a bounded time, then refused.

Refusing at once made a client that ignores `Retry-After` retry in a tight loop: 24 searches
over a cap of 16 cost the API process more CPU in refusals (each one a new connection) than the
16 admitted searches, and every other tenant's p99 paid for it (bench/hostile
`waiting_searches`). A queued request has not had its body read (the gate runs on the headers),
so waiting costs an open connection and no memory to speak of; the queue itself is bounded too.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field


class SlotsFull(Exception):
    """The tenant's requests in flight stayed at the cap for the whole wait, or its queue is full."""


@dataclass
class _Tenant:
    held: int = 0
    waiters: list[asyncio.Future[None]] = field(default_factory=list)


class TenantSlots:
    """`cap` slots per tenant (0: unlimited), `queue` waiters at most, each for `wait` seconds."""

    def __init__(self, cap: int, *, queue: int, wait: float) -> None:
        self.cap = cap
        self.queue = queue
        self.wait = wait
        self._tenants: dict[str, _Tenant] = {}

    def in_flight(self, tenant_id: str) -> int:
        t = self._tenants.get(tenant_id)
        return t.held if t else 0

    async def acquire(self, tenant_id: str) -> None:
        if not self.cap:
            return
        t = self._tenants.setdefault(tenant_id, _Tenant())
        if t.held < self.cap and not t.waiters:
            t.held += 1
            return
        if len(t.waiters) >= self.queue or self.wait <= 0:
            raise SlotsFull
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        t.waiters.append(waiter)
        try:
            await asyncio.wait_for(asyncio.shield(waiter), self.wait)
        except (TimeoutError, asyncio.CancelledError) as exc:
            if waiter.done() and not waiter.cancelled():
                # The slot was handed over as the wait ended: pass it on rather than lose it.
                self._release(tenant_id, t)
            else:
                waiter.cancel()
                with contextlib.suppress(ValueError):
                    t.waiters.remove(waiter)
                self._forget_if_idle(tenant_id, t)
            if isinstance(exc, asyncio.CancelledError):
                raise
            raise SlotsFull from None

    @contextlib.asynccontextmanager
    async def held(self, tenant_id: str) -> AsyncIterator[None]:
        await self.acquire(tenant_id)
        try:
            yield
        finally:
            self.release(tenant_id)

    def release(self, tenant_id: str) -> None:
        if not self.cap:
            return
        t = self._tenants.get(tenant_id)
        if t is not None:
            self._release(tenant_id, t)

    def _release(self, tenant_id: str, t: _Tenant) -> None:
        # The slot goes straight to the oldest waiter (held stays the same), so a newcomer cannot
        # overtake the queue between a release and the waiter's wake-up.
        while t.waiters:
            waiter = t.waiters.pop(0)
            if not waiter.done():
                waiter.set_result(None)
                return
        t.held -= 1
        self._forget_if_idle(tenant_id, t)

    def _forget_if_idle(self, tenant_id: str, t: _Tenant) -> None:
        if t.held <= 0 and not t.waiters:
            self._tenants.pop(tenant_id, None)

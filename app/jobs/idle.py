"""How long an idle worker lane waits before it polls its queues again.

New work announces itself (app/jobs/wake.py: Redis pub/sub, or the in-process event of the worker
inside `engram serve`), so while the announcements arrive an idle lane's polls only catch what
nobody announced: a retry whose backoff has run out, a write by a process without Redis. Those can
wait a little, and an idle worker that polled six queues four times a second cost ~30 ms of CPU per
second and ~9 ms of PostgreSQL's (docs/benchmarks.md). So the wait doubles from
ENGRAM_WORKER_POLL_SECONDS with every poll that finds nothing, up to
ENGRAM_WORKER_IDLE_POLL_MAX_SECONDS, and starts again from the shortest after any work, any failed
item (its retry is soon due) or any wake-up. Without an announcing channel (`engram worker` alone
and no Redis, or Redis down) every poll waits the shortest, as polling is then all there is.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from app.config import Settings


@dataclass
class IdleBackoff:
    shortest: float
    longest: float
    _next: float = field(init=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> IdleBackoff:
        return cls(settings.worker_poll_seconds, settings.worker_idle_poll_max_seconds)

    def __post_init__(self) -> None:
        self.longest = max(self.longest, self.shortest)
        self._next = self.shortest

    def reset(self) -> None:
        """Work was found, an item failed or a wake-up came: poll soon again."""
        self._next = self.shortest

    def wait(self, *, announced: bool) -> float:
        """The next idle wait; `announced`: new work is announced by a wake-up channel now."""
        if not announced:
            self._next = self.shortest
            return self.shortest
        wait = self._next
        self._next = min(self._next * 2, self.longest)
        return wait


async def pause(stop: asyncio.Event, wake: asyncio.Event | None, seconds: float | None) -> None:
    """Until `stop`, `wake` or `seconds` (None: no timeout), whichever comes first."""
    waits = {asyncio.create_task(stop.wait())}
    if wake is not None:
        waits.add(asyncio.create_task(wake.wait()))
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in waits:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

"""Periodic housekeeping (cache evictions, retention, fact expiry, gauges, expired idempotency
keys), each on its own clock and guarded on its own: a sweep that fails is logged and tried
again soon, and never keeps another sweep, or a step, from running."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import structlog

_log = structlog.get_logger("engram.worker")
RETRY_FAILED = 5.0  # seconds before a failed sweep is tried again (if its interval is longer)


@dataclass
class Sweep:
    name: str
    every: float  # seconds between runs
    run: Callable[[], Awaitable[object]]
    first_now: bool = True  # else the first run waits a whole interval
    due_at: float = field(default=0.0, init=False)
    runs: int = field(default=0, init=False)  # completed runs (failed ones do not count)

    def __post_init__(self) -> None:
        self.due_at = 0.0 if self.first_now else time.monotonic() + self.every


async def run_due(sweeps: Sequence[Sweep]) -> None:
    """Run every sweep whose time has come, each guarded on its own."""
    for sweep in sweeps:
        now = time.monotonic()
        if now < sweep.due_at:
            continue
        try:
            await sweep.run()
        except Exception as exc:  # database or Redis trouble: the other sweeps still run
            _log.warning("sweep failed", sweep=sweep.name, error=f"{type(exc).__name__}: {exc}"[:2000])
            sweep.due_at = time.monotonic() + min(sweep.every, RETRY_FAILED)
            continue
        sweep.runs += 1
        sweep.due_at = time.monotonic() + sweep.every


def next_due(sweeps: Sequence[Sweep]) -> float:
    """The monotonic time the first of `sweeps` falls due (infinity for none)."""
    return min((sweep.due_at for sweep in sweeps), default=float("inf"))

"""A small pool of child processes for CPU-heavy text work, each call within a time budget.

In embedded mode the worker shares the API's process: pure-Python rules (the local summariser's
sentence splitting and selection, the local fact extractor, reconciliation) would hold the event
loop, and a thread would not help (`re` holds the GIL). Here they run in children started with
`spawn` (no inherited event loop, threads or connections). A call that runs past
ENGRAM_WORKER_ITEM_BUDGET_SECONDS raises `BudgetExceeded`, which fails that item alone (retried
with backoff like any failure); its child is killed and replaced (pebble), and the other children
keep working. The worker starts them when it starts, so the first item does not wait for them.
"""

from __future__ import annotations

import asyncio
import importlib
import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import ParamSpec, TypeVar

from pebble import ProcessExpired, ProcessPool

P = ParamSpec("P")
T = TypeVar("T")


class BudgetExceeded(RuntimeError):
    """The item's text work ran past its time budget; its child process was killed."""


class CpuUnavailable(RuntimeError):
    """The child processes could not be started: every item waits (an outage, not the input)."""


def _child_init(preload: tuple[str, ...]) -> None:
    # Ctrl-C reaches the whole process group: the parent stops the pool, children need not react.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Import the rules now, so an item's budget is not spent importing them.
    for module in preload:
        importlib.import_module(module)


class CpuPool:
    def __init__(self, *, processes: int, budget_seconds: float, preload: Sequence[str] = ()) -> None:
        """`preload`: modules each child imports at its start (the caller's rules: this pool
        knows none of them, so the machinery imports no domain)."""
        self.processes = processes
        self.budget_seconds = budget_seconds
        self.preload = tuple(preload)
        self._pool: ProcessPool | None = None

    def start(self) -> None:
        """Start the children now (they import the rules in the background), so the first item
        does not wait for them."""
        if self._pool is None:
            self._pool = ProcessPool(
                max_workers=self.processes,
                initializer=_child_init,
                initargs=(self.preload,),
                context=multiprocessing.get_context("spawn"),
            )
            self._pool.schedule(os.getpid)  # a pool starts its children on its first task

    async def __call__(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        self.start()
        assert self._pool is not None
        # The budget runs from when a child starts the call, not while it waits for a free child.
        future = self._pool.submit(fn, self.budget_seconds, *args, **kwargs)
        try:
            return await asyncio.wrap_future(future)
        except FutureTimeout:
            raise BudgetExceeded(
                f"{getattr(fn, '__qualname__', fn)} ran past its {self.budget_seconds:g} s budget"
            ) from None
        except ProcessExpired as exc:  # the child died (killed, out of memory): this item's fault too
            raise BudgetExceeded(f"{getattr(fn, '__qualname__', fn)} lost its process: {exc}") from None
        except BrokenProcessPool as exc:  # no child could start: a new pool next time
            self._pool = None
            raise CpuUnavailable(str(exc)) from exc

    async def aclose(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            # Kills running calls: their steps' transactions roll back and the items are redone.
            pool.stop()  # type: ignore[no-untyped-call]
            await asyncio.to_thread(pool.join, 10)

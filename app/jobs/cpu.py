"""A small pool of child processes for CPU-heavy text work, each call within a time budget.

In embedded mode the worker shares the API's process: pure-Python rules (the local summariser's
sentence splitting and selection, the local fact extractor, reconciliation) would hold the event
loop, and a thread would not help (`re` holds the GIL). Here they run in children forked from
multiprocessing's fork server: a clean process (started with exec, so no inherited event loop,
threads, connections or model) that imports the rules once; its children map those pages instead
of each importing its own copy (spawned, each child was ~70 MB PSS; forked from the server they
share the rules, the token counter's table and what the main script imports). A call that runs past
ENGRAM_WORKER_ITEM_BUDGET_SECONDS raises `BudgetExceeded`, which fails that item alone (retried
with backoff like any failure); its child is killed and replaced (pebble), and the other children
keep working. The worker starts them when it starts, so the first item does not wait for them.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import multiprocessing
import os
import signal
import sys
import types
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


def _child_init(preload: tuple[str, ...], nice: int) -> None:
    # Derived work can wait; a request cannot: under contention the scheduler gives the API's
    # process the cores first (with 10, a child gets about a tenth of a core another wants).
    os.nice(nice)
    # What the fork server imported is this child's too, shared until written: keep the
    # collector's full passes off it (app/heap.py), or the first one would copy its pages.
    gc.freeze()
    # Ctrl-C reaches the whole process group: the parent stops the pool, children need not react.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Import the rules now, so an item's budget is not spent importing them.
    for module in preload:
        importlib.import_module(module)


def _main_script_imports() -> list[str]:
    """The modules the main script's names come from, when it was run by path (`engram`, a
    console script): each child runs that script again (as `__mp_main__`, multiprocessing's rule
    for scripts), which then finds them imported. A main run as a module (`python -m app`) or
    from `-c` is not run again."""
    main = sys.modules["__main__"]
    if getattr(main, "__spec__", None) is not None or not getattr(main, "__file__", None):
        return []
    names = {
        v.__name__ if isinstance(v, types.ModuleType) else getattr(v, "__module__", None)
        for v in vars(main).values()
    }
    return sorted(n for n in names if isinstance(n, str) and n not in ("__main__", "builtins"))


class CpuPool:
    def __init__(
        self, *, processes: int, budget_seconds: float, preload: Sequence[str] = (), nice: int = 0
    ) -> None:
        """`preload`: modules the fork server imports before it forks the children (the caller's
        rules: this pool knows none of them, so the machinery imports no domain); each child
        imports them again at its start, a no-op unless the server could not. `nice`: added to
        the children's niceness."""
        self.processes = processes
        self.nice = nice
        self.budget_seconds = budget_seconds
        self.preload = tuple(preload)
        self._pool: ProcessPool | None = None

    def start(self) -> None:
        """Start the children now (they import the rules in the background), so the first item
        does not wait for them."""
        if self._pool is None:
            context = multiprocessing.get_context("forkserver")
            # One fork server per process (multiprocessing's), so one list: this pool's.
            context.set_forkserver_preload([*_main_script_imports(), *self.preload])
            self._pool = ProcessPool(
                max_workers=self.processes,
                initializer=_child_init,
                initargs=(self.preload, self.nice),
                context=context,
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

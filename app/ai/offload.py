"""Where CPU-heavy text work runs: a callable that takes a picklable function and its arguments.

The worker passes its process pool (app.jobs.cpu), which runs each call in a child process within a
time budget, so pure-Python rules never hold the API's event loop or its GIL. Used alone (tests,
benchmarks), the local summariser runs them inline and the local extractor in a thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ParamSpec, Protocol, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class Offload(Protocol):
    async def __call__(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T: ...


async def inline(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    return fn(*args, **kwargs)


async def in_thread(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    return await asyncio.to_thread(fn, *args, **kwargs)

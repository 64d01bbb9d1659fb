"""Keeping the garbage collector's full passes short: what a process builds while it starts is
frozen, so those passes skip it.

A long-running process holds some million objects made at startup (the modules of FastAPI,
SQLAlchemy, pydantic, numpy and the app's own, compiled queries, the model's tokenizer tables),
and none of them ever becomes garbage. CPython's oldest-generation collection walks all of them
each time it runs: every few seconds under load, it held the event loop for 150-260 ms (a
`gc.callbacks` probe of `engram serve` under bench/hostile `waiting_searches` and `tenant_flood`,
"collected 0" each time), which was every other tenant's p99. `gc.freeze()` moves them to a
permanent generation that collections skip; objects made afterwards are collected as usual.

What starting up freed goes back to the kernel at the same point. glibc's malloc keeps freed
memory inside its heaps for reuse and returns only a free top of a heap by itself: the holes that
loading the model leaves (its file parsed before its weights are laid out) stayed in the worker's
main process, ~7 MB (docs/benchmarks.md, "Footprint, session 12"). The local model trims again
after each batch it embeds (app/ai/local_embedder.py), once its arena has let go of the batch's
buffers.
"""

from __future__ import annotations

import ctypes
import gc


def freeze_startup() -> None:
    """Collect what starting up left behind, then exempt everything still alive from future
    collections. Call once the process has built what it keeps (again after a later, large load);
    what it frees later (a request's objects, dropped caches) is collected as always."""
    gc.collect()
    trim_c_heap()
    gc.freeze()


def trim_c_heap() -> None:
    """glibc's `malloc_trim(0)`: every whole free page of its heaps back to the kernel. Without
    glibc (musl, macOS) there is no such call and nothing is done."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)

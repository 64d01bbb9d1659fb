"""Keeping the garbage collector's full passes short: what a process builds while it starts is
frozen, so those passes skip it.

A long-running process holds some million objects made at startup (the modules of FastAPI,
SQLAlchemy, pydantic, numpy and the app's own, compiled queries, the model's tokenizer tables),
and none of them ever becomes garbage. CPython's oldest-generation collection walks all of them
each time it runs: every few seconds under load, it held the event loop for 150-260 ms (a
`gc.callbacks` probe of `engram serve` under bench/hostile `waiting_searches` and `tenant_flood`,
"collected 0" each time), which was every other tenant's p99. `gc.freeze()` moves them to a
permanent generation that collections skip; objects made afterwards are collected as usual.
"""

from __future__ import annotations

import gc


def freeze_startup() -> None:
    """Collect what starting up left behind, then exempt everything still alive from future
    collections. Call once the process has built what it keeps (again after a later, large load);
    what it frees later (a request's objects, dropped caches) is collected as always."""
    gc.collect()
    gc.freeze()

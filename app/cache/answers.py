"""Finished memory answers, in this process's memory: a read asked again at the same session
version is answered with the bytes sent last time, without reading the Redis window or fitting.

Safe for the same reason the window is (app/cache/window.py): an answer is kept under the
session's version `(created_at, last_seq, cache_gen)` (and the encryption key's id) and served
only when that is the version the request has just read from PostgreSQL; every change to what
the answer shows (an append, an edit, a delete, retention, a summary replaced, an import, the
session deleted and created again) moves the version (app/sessions/counters.py). The facts are
not in the version, so the caller keeps only answers of users without a valid fact (facts shown,
and their ranking by `query`, would need their own version). A tenant is part of the key.

Bounded by the size of the bodies kept (least recently used out first). Process memory only, like
the opened docs of the window cache: nothing is written to Redis or disk, and an entry of a
deleted session is never served again (its version read finds no row) and ages out.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from app.metrics import Metrics


@dataclass(frozen=True)
class Asked:
    """What an answer depends on besides the session's version: who asked, for which session, and
    the request's parameters (`query` is not one: without facts it changes nothing)."""

    tenant_id: str
    session_id: str
    max_tokens: int
    last_n: int | None
    roles: frozenset[str] | None
    summary_share: float
    facts_share: float


@dataclass(frozen=True)
class _Kept:
    version: str  # Version.key() of the session when the answer was made
    body: bytes


class AnswerCache:
    def __init__(self, *, max_bytes: int, metrics: Metrics) -> None:
        self.max_bytes = max_bytes
        self._kept: OrderedDict[Asked, _Kept] = OrderedDict()
        self._bytes = 0
        self._hits = metrics.cache_lookups.labels("answer")

    @property
    def enabled(self) -> bool:
        return self.max_bytes > 0

    def get(self, asked: Asked, version: str) -> bytes | None:
        """The answer kept for `asked` if it was made at `version`, else None."""
        kept = self._kept.get(asked)
        if kept is None or kept.version != version:
            return None
        self._kept.move_to_end(asked)
        self._hits.inc()
        return kept.body

    def put(self, asked: Asked, version: str, body: bytes) -> None:
        size = len(body)
        if size > self.max_bytes:
            return
        old = self._kept.pop(asked, None)
        if old is not None:  # an older version's answer: replaced, never kept beside it
            self._bytes -= len(old.body)
        self._kept[asked] = _Kept(version, body)
        self._bytes += size
        while self._bytes > self.max_bytes:
            _, dropped = self._kept.popitem(last=False)
            self._bytes -= len(dropped.body)

    def __len__(self) -> int:
        return len(self._kept)

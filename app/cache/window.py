"""The Redis window cache: per session, the newest messages and the latest summary.

A cache, never the truth. Every entry carries the version of the session it was built from,
`(created_at, last_seq, cache_gen)` of the sessions row, and a reader serves it only when that version is the
one it has just read from PostgreSQL. So an entry can be late or missing but is never served
stale: not after a write that did not reach Redis, not after Redis comes back from an outage.

Layout per session (one hash slot, so it works on Redis Cluster too):
    engram:w:{tenant/session}:v   "epoch:last_seq:cache_gen:complete" (complete: all messages)
    engram:w:{tenant/session}:m   list of message JSON, oldest first, at most `window` long
    engram:w:{tenant/session}:s   the latest summary's JSON, or "" for none
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast, overload

import orjson
import structlog
from cachetools import LRUCache
from redis.asyncio import Redis

from app.crypto import fields
from app.metrics import Metrics

_log = structlog.get_logger("engram.cache")
OPENED_DOCS = 8192  # opened docs kept per process (encryption on): a few MB

# Append to an entry only if it is at the version the append started from; trim to the window.
_EXTEND = """
local cur = redis.call('GET', KEYS[1])
if not cur or string.sub(cur, 1, -3) ~= ARGV[1] then return 0 end
local n = tonumber(ARGV[3])
for i = 5, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
local complete = string.sub(cur, -1)
if redis.call('LLEN', KEYS[2]) > n then
  redis.call('LTRIM', KEYS[2], -n, -1)
  complete = '0'
end
local ttl = tonumber(ARGV[4])
redis.call('SET', KEYS[1], ARGV[2] .. ':' .. complete, 'EX', ttl)
redis.call('EXPIRE', KEYS[2], ttl)
redis.call('EXPIRE', KEYS[3], ttl)
return 1
"""


@dataclass(frozen=True)
class Version:
    last_seq: int
    cache_gen: int
    # The session row's created_at (µs): a session deleted and created again under the same id
    # starts again at (0, 0), and must never match an entry of its predecessor.
    epoch: int

    def key(self) -> str:
        ring = fields.keyring()
        if ring is None:
            return f"{self.epoch}:{self.last_seq}:{self.cache_gen}"
        # Encryption on: an entry sealed under another primary key is stale (rebuilt, never
        # extended), so a rotated key leaves Redis with its entries and can then leave the list.
        return f"{self.epoch}:{self.last_seq}:{self.cache_gen}:{ring.primary}"

    def tag(self, complete: bool) -> str:
        return f"{self.key()}:{int(complete)}"


def _dump(tenant_id: str, doc: dict[str, Any], field: str) -> bytes:
    """A message (field `content`) or summary doc as the cache stores it: with encryption on, its
    text and metadata sealed (Redis persists to disk too, so an entry is data at rest), bound to
    the tenant and the message or summary id."""
    if fields.keyring() is None:
        return orjson.dumps(doc)
    row = doc.get("message_id") or doc.get("summary_id")
    sealed = {
        **doc,
        "content": fields.seal_text(doc["content"], tenant=tenant_id, table="cache", field=field, row=row),
    }
    if doc.get("metadata"):  # an empty object says nothing: left as it is, and read for free
        sealed["metadata"] = fields.seal_json(
            doc["metadata"], tenant=tenant_id, table="cache", field=f"{field}.metadata", row=row
        )
    return orjson.dumps(sealed)


def _load(tenant_id: str, raw: bytes, field: str, opened: LRUCache[Any, dict[str, Any]]) -> dict[str, Any]:
    """A doc as stored by `_dump`, opened. With encryption on, the docs opened lately are kept
    (`opened`, per tenant and stored bytes, in this process's memory only): a session's window is
    read again and again, and opening is most of what reading it costs."""
    if fields.keyring() is None:
        return cast(dict[str, Any], orjson.loads(raw))
    memo = (tenant_id, raw)
    known = opened.get(memo)
    if known is not None:
        return known
    doc: dict[str, Any] = orjson.loads(raw)
    row = doc.get("message_id") or doc.get("summary_id")
    doc["content"] = fields.open_text(doc["content"], tenant=tenant_id, table="cache", field=field, row=row)
    if doc.get("metadata"):
        doc["metadata"] = fields.open_json(
            doc["metadata"], tenant=tenant_id, table="cache", field=f"{field}.metadata", row=row
        )
    opened[memo] = doc
    return doc


class LazyDocs(Sequence[dict[str, Any]]):
    """Messages as Redis returned them, each parsed the first time it is read: a budget is
    usually filled by the newest few of a window of hundreds."""

    def __init__(self, raw: list[bytes], tenant_id: str, opened: LRUCache[Any, dict[str, Any]]) -> None:
        self._raw = raw
        self._tenant_id = tenant_id
        self._opened = opened
        self._docs: list[dict[str, Any] | None] = [None] * len(raw)
        self._sealed = fields.keyring() is not None  # else a doc is its JSON, nothing more to do

    def __len__(self) -> int:
        return len(self._raw)

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        doc = self._docs[i]
        if doc is None:
            raw = self._raw[i]
            sealed = self._sealed
            doc = _load(self._tenant_id, raw, "content", self._opened) if sealed else orjson.loads(raw)
            self._docs[i] = doc
        return doc


@dataclass
class Window:
    """The newest messages of a session (oldest first) and its latest summary, at `version`."""

    version: Version
    messages: Sequence[dict[str, Any]]
    summary: dict[str, Any] | None
    # True when `messages` holds every message of the session, so nothing older is in PostgreSQL.
    complete: bool
    # True when the cache entry holds older messages than `messages` (a tail was asked for).
    partial: bool = False


def _keys(tenant_id: str, session_id: str) -> tuple[str, str, str]:
    # '/' cannot occur in ids (Limits.check_id), so the pair is unambiguous.
    base = f"engram:w:{{{tenant_id}/{session_id}}}"
    return f"{base}:v", f"{base}:m", f"{base}:s"


class WindowCache:
    """Reads and writes windows; after a Redis error it stays away for `retry_after` seconds, so
    an outage costs each request nothing but the PostgreSQL path."""

    def __init__(
        self, redis: Redis | None, *, window: int, ttl: int, metrics: Metrics, retry_after: float = 1.0
    ) -> None:
        self._redis = redis
        self.window = window
        self._ttl = ttl
        self._metrics = metrics
        self._retry_after = retry_after
        self._down_until = 0.0
        self._extend = redis.register_script(_EXTEND) if redis is not None else None
        lookups = metrics.cache_lookups
        # The labelled children, once: `labels()` per request was a measurable part of a hit.
        self._counted = {k: lookups.labels(k) for k in ("hit", "miss", "stale", "bypass", "error")}
        self._opened: LRUCache[Any, dict[str, Any]] = LRUCache(maxsize=OPENED_DOCS)
        self._up = redis is not None  # what cache_up says, so a healthy read does not set it again
        metrics.cache_up.set(1 if self._up else 0)

    @property
    def enabled(self) -> bool:
        return self._redis is not None

    @property
    def healthy(self) -> bool:
        return self._redis is not None and time.monotonic() >= self._down_until

    def _failed(self, what: str, exc: Exception) -> None:
        if time.monotonic() >= self._down_until:
            _log.warning("redis unavailable; serving from PostgreSQL", op=what, error=type(exc).__name__)
        self._down_until = time.monotonic() + self._retry_after
        self._up = False
        self._metrics.cache_up.set(0)
        self._counted["error"].inc()

    def _ok(self) -> None:
        if not self._up:
            self._up = True
            self._metrics.cache_up.set(1)

    async def get(
        self, tenant_id: str, session_id: str, version: Version, *, tail: int | None = None
    ) -> Window | None:
        """The entry if it is at `version`; None on a miss, a stale entry or Redis trouble.

        With `tail`, only the newest `tail` messages come back (a budget rarely needs the whole
        window); `partial` then says whether the entry holds more.
        """
        if self._redis is None:
            return None
        if not self.healthy:
            self._counted["bypass"].inc()
            return None
        kv, km, ks = _keys(tenant_id, session_id)
        try:
            # MULTI/EXEC: one snapshot. A Lua script doing the same read was measured to save the
            # client ~35 µs but to cost Redis ~75 µs more (each message copied through Lua).
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.get(kv)
                pipe.lrange(km, -tail if tail else 0, -1)
                pipe.get(ks)
                pipe.llen(km)
                tag, raw_messages, raw_summary, length = await pipe.execute()
        except Exception as exc:
            self._failed("get", exc)
            return None
        self._ok()
        if tag is None:
            self._counted["miss"].inc()
            return None
        tag = tag.decode()
        if tag[:-2] != version.key() or raw_summary is None:
            self._counted["stale"].inc()
            return None
        self._counted["hit"].inc()
        partial = len(raw_messages) < length
        return Window(
            version=version,
            messages=LazyDocs(raw_messages, tenant_id, self._opened),
            summary=_load(tenant_id, raw_summary, "summary", self._opened) if raw_summary else None,
            complete=tag.endswith("1") and not partial,
            partial=partial,
        )

    async def put(self, tenant_id: str, session_id: str, window: Window) -> None:
        """Store a window read from PostgreSQL (in one snapshot with its version)."""
        if not self.healthy or self._redis is None:
            return
        kv, km, ks = _keys(tenant_id, session_id)
        messages = window.messages[-self.window :]
        complete = window.complete and len(messages) == len(window.messages)
        try:
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.delete(km)
                if messages:
                    pipe.rpush(km, *[_dump(tenant_id, m, "content") for m in messages])
                    pipe.expire(km, self._ttl)
                summary = _dump(tenant_id, window.summary, "summary") if window.summary else b""
                pipe.set(ks, summary, ex=self._ttl)
                pipe.set(kv, window.version.tag(complete), ex=self._ttl)
                await pipe.execute()
        except Exception as exc:
            self._failed("put", exc)
            return
        self._ok()

    async def extend(
        self,
        tenant_id: str,
        session_id: str,
        *,
        base: Version,
        new: Version,
        messages: Sequence[dict[str, Any]],
    ) -> bool:
        """Write-through of an append: add its messages to an entry that is exactly at `base`.

        Anything else (no entry, an older or newer one) is left alone: the next read rebuilds it.
        """
        if not self.healthy or self._extend is None or not messages:
            return False
        keys = _keys(tenant_id, session_id)
        try:
            done = await self._extend(
                keys=list(keys),
                args=[
                    base.key(),
                    new.key(),
                    self.window,
                    self._ttl,
                    *[_dump(tenant_id, m, "content") for m in messages],
                ],
            )
        except Exception as exc:
            self._failed("extend", exc)
            return False
        self._ok()
        return bool(done)

    async def evict(self, keys: Sequence[tuple[str, str]]) -> bool:
        """Delete the entries of these (tenant, session) pairs; False if Redis did not answer."""
        if self._redis is None:
            return True
        if not keys:
            return True
        try:
            # One DEL per session: each session's keys share a hash slot, different sessions may not.
            async with self._redis.pipeline(transaction=False) as pipe:
                for tenant_id, session_id in keys:
                    pipe.delete(*_keys(tenant_id, session_id))
                await pipe.execute()
        except Exception as exc:
            self._failed("evict", exc)
            return False
        self._ok()
        return True

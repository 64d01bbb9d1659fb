"""The Redis client of the API and the worker, from ENGRAM_REDIS_URL.

A `redis://`, `rediss://` or `unix://` URL is one server. `redis+sentinel://` follows the primary
that Redis Sentinel names: `redis+sentinel://[[user]:password@]host:port[,host:port...]/service[/db]`
(the sentinels' addresses, the monitored service's name, the database). After a failover the
client asks the sentinels again and reconnects to the new primary; the password is the primary's
(sentinels without a password of their own).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from redis.asyncio import Redis
from redis.asyncio.sentinel import Sentinel

SENTINEL_SCHEME = "redis+sentinel"
SENTINEL_PORT = 26379


@dataclass(frozen=True)
class SentinelUrl:
    sentinels: list[tuple[str, int]]
    service: str
    db: int
    username: str | None
    password: str | None


def parse_sentinel_url(url: str) -> SentinelUrl:
    parts = urlsplit(url)
    if parts.scheme != SENTINEL_SCHEME:
        raise ValueError(f"not a {SENTINEL_SCHEME}:// URL: {parts.scheme}://")
    userinfo, _, hostlist = parts.netloc.rpartition("@")
    username, _, password = userinfo.partition(":") if userinfo else ("", "", "")
    sentinels = [_address(item.strip()) for item in hostlist.split(",")]
    path = [p for p in parts.path.split("/") if p]
    if not path or len(path) > 2:
        raise ValueError(f"{SENTINEL_SCHEME}:// URL needs /service_name[/db], got {parts.path!r}")
    return SentinelUrl(
        sentinels=sentinels,
        service=unquote(path[0]),
        db=int(path[1]) if len(path) == 2 else 0,
        username=unquote(username) or None,
        password=unquote(password) or None,
    )


def _address(item: str) -> tuple[str, int]:
    """`host`, `host:port`, `[v6]` or `[v6]:port`."""
    if item.startswith("["):
        host, _, rest = item[1:].partition("]")
        port = rest.removeprefix(":")
    else:
        host, _, port = item.partition(":")
    if not host:
        raise ValueError(f"{SENTINEL_SCHEME}:// URL with an empty sentinel address: {item!r}")
    return host, int(port) if port else SENTINEL_PORT


def make_redis(url: str | None, *, timeout: float | None = None) -> Redis | None:
    """The client for `url` (None: no Redis); `timeout` bounds each connect and each call."""
    if not url:
        return None
    limits: dict[str, Any] = {"socket_timeout": timeout, "socket_connect_timeout": timeout}
    if urlsplit(url).scheme != SENTINEL_SCHEME:
        return Redis.from_url(url, **limits)
    found = parse_sentinel_url(url)
    sentinel = Sentinel(found.sentinels, sentinel_kwargs=limits)  # type: ignore[no-untyped-call]
    return sentinel.master_for(  # type: ignore[no-any-return]
        found.service, db=found.db, username=found.username, password=found.password, **limits
    )

"""The async engines (the per-request transaction is app/db/request.py's)."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pgvector.asyncpg import register_vector
from sqlalchemy import event, exc
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from app.config import Settings
from app.db.outage import count_session_end_as_disconnect
from app.jsonutil import loads


def async_url(url: str) -> str:
    """Accept the usual `postgresql://` / `postgres://` URLs and pick the asyncpg driver."""
    parts = urlsplit(url)
    scheme = parts.scheme.split("+", 1)[0]
    if scheme not in ("postgresql", "postgres"):
        raise ValueError(f"ENGRAM_DATABASE_URL must be a postgresql:// URL, not {parts.scheme}://")
    return urlunsplit(("postgresql+asyncpg", *parts[1:]))


def make_engine(
    settings: Settings,
    url: str,
    *,
    pool_size: int | None = None,
    max_overflow: int | None = None,
    application_name: str = "engram",
    idle_seconds: float | None = None,
) -> AsyncEngine:
    """`idle_seconds`: connections unused that long are closed, so a burst's extra backends do not
    stay (~15-20 MB each; `close_when_idle`). Not for the API's request pool, whose connections
    never close on their own (their count is DB_POOL_SIZE at most)."""
    server_settings = {"application_name": application_name, "timezone": "UTC"}
    if idle_seconds:
        server_settings["idle_session_timeout"] = str(int(idle_seconds * 1000))
    engine = create_async_engine(
        async_url(url),
        pool_size=settings.db_pool_size if pool_size is None else pool_size,
        max_overflow=settings.db_max_overflow if max_overflow is None else max_overflow,
        pool_timeout=settings.db_pool_timeout,
        # No ping per checkout (it cost three round trips a request): a connection broken by a
        # database restart fails its one request with a 503, and the pool is then renewed.
        pool_pre_ping=False,
        # With an idle limit, the most recently used connection first: the others go idle and close.
        pool_use_lifo=bool(idle_seconds),
        # Logs never hold content: a failed statement's error shows its SQL, not its values.
        hide_parameters=True,
        connect_args={"server_settings": server_settings},
        # jsonb prints a stored 1e30 as 1000...0; json.loads made that an int too big for orjson
        # (every later dumps of that metadata failed: cache writes, merge patches). orjson reads
        # it back as the float it was.
        json_deserializer=loads,
    )
    count_session_end_as_disconnect(engine)
    binary_vectors(engine)
    if idle_seconds:
        close_when_idle(engine, idle_seconds)
    return engine


# A connection idle for more than this share of the server's limit is replaced, not handed out:
# the server's clock starts a little before the pool's (it counts from its last reply).
_FRESH_SHARE = 0.8


def close_when_idle(engine: AsyncEngine, seconds: float) -> None:
    """PostgreSQL ends the engine's connections idle for `seconds` (`idle_session_timeout`, set at
    connect; PostgreSQL 14+), and the pool never hands out one idle for most of that: it is closed
    and replaced at checkout (SQLAlchemy's DisconnectionError from a checkout listener), so no
    caller gets a connection the server has ended or is about to. SQLAlchemy's `pool_pre_ping`
    would find them too, but it costs three round trips a checkout, and a failed ping renews the
    whole pool: every busy connection reconnected after each burst's idle ones closed."""
    fresh_for = seconds * _FRESH_SHARE

    @event.listens_for(engine.sync_engine, "checkin")
    def _idle_from(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine.sync_engine, "checkout")
    def _still_fresh(_dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.pop("idle_since", None)  # `info` goes with the connection it describes
        if since is not None and time.monotonic() - since > fresh_for:
            raise exc.DisconnectionError(f"idle for more than {fresh_for:g} s")


def binary_vectors(engine: AsyncEngine) -> None:
    """Every new connection sends and reads `vector` in pgvector's binary format (the `pgvector`
    package's asyncpg codec): parameters are float32 arrays (app.db.vectors), results
    `pgvector.Vector`s; no `%.7g` text printed and parsed per value."""

    @event.listens_for(engine.sync_engine, "connect")
    def _register(dbapi_connection: Any, _record: Any) -> None:
        try:
            dbapi_connection.run_async(register_vector)
        except ValueError as exc:  # a database without the extension yet (before `migrate`)
            if "unknown type" not in str(exc):
                raise


def make_export_engine(settings: Settings, url: str) -> AsyncEngine:
    """Exports stream for as long as their client reads: from a small pool of their own, so no
    number of slow downloads can take the request pool's connections."""
    return make_engine(
        settings, url, pool_size=settings.export_pool_size, max_overflow=0, application_name="engram-export"
    )


KEY_POOL_SIZE = 2  # the key pool's steady connections; as many again may overflow


def make_key_engine(url: str) -> AsyncEngine:
    """API-key lookups on a cache miss, from a small pool of their own outside the request pool:
    a flood of unknown keys opens no connection per request (and is limited per address). Keys
    not yet vouched for use at most KEY_POOL_SIZE of it (app.auth.KeyResolver's stranger lane): the
    overflow stays free for known keys' re-checks."""
    return create_async_engine(
        async_url(url),
        pool_size=KEY_POOL_SIZE,
        max_overflow=KEY_POOL_SIZE,
        pool_timeout=10,
        hide_parameters=True,
        connect_args={"server_settings": {"application_name": "engram-auth", "timezone": "UTC"}},
    )

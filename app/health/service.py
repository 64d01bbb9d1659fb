"""Readiness checks of the parts Engram depends on."""

from __future__ import annotations

import asyncio
from typing import Any

from redis.asyncio import Redis
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

CHECK_TIMEOUT = 2.0


async def check_database(engine: AsyncEngine) -> str:
    try:
        async with asyncio.timeout(CHECK_TIMEOUT), engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except Exception as exc:  # any failure means not ready; the reason is reported
        return f"error: {type(exc).__name__}"
    return "ok"


async def check_redis(redis: Redis | None) -> str:
    if redis is None:
        return "disabled"
    try:
        async with asyncio.timeout(CHECK_TIMEOUT):
            await redis.ping()
    except Exception as exc:
        return f"error: {type(exc).__name__}"
    return "ok"


async def readiness(engine: AsyncEngine, redis: Redis | None, model: str) -> tuple[bool, dict[str, Any]]:
    """`model` is the embedding model's state (`ok`, `preparing (...)`, `error: ...`)."""
    db, cache = await asyncio.gather(check_database(engine), check_redis(redis))
    # Redis is a cache: without it Engram still answers (degraded), so only the database and the
    # model (which search and the worker need) gate.
    # A shared embedding endpoint that does not answer (ENGRAM_EMBED_URL) costs search by meaning
    # alone (503s): degraded like Redis down, not a reason to take the process out of service.
    remote_down = model.startswith("unreachable")
    ready = db == "ok" and (model == "ok" or remote_down)
    healthy = cache in ("ok", "disabled") and not remote_down
    status = "ready" if ready and healthy else ("degraded" if ready else "unavailable")
    return ready, {"status": status, "checks": {"database": db, "redis": cache, "model": model}}

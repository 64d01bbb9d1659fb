"""Redis entries that must go because their session was deleted or its user purged.

Recorded in PostgreSQL in the deleting transaction, then evicted by the API right after the
commit; the worker's sweep evicts what is left (Redis was down, the API died in between), so a
purged user's messages never outlive the purge in the cache beyond an outage.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.cache.window import WindowCache

SWEEP_BATCH = 500


async def record(
    conn: AsyncConnection, *, tenant_id: str, user_id: str | None = None, session_id: str | None = None
) -> list[tuple[str, str]]:
    """Record the sessions (one, all of a user's, or all of the tenant's) whose entries must go;
    returns them."""
    where = "AND user_id = :u" if user_id is not None else "AND session_id = :s" if session_id else ""
    rows = (
        await conn.execute(
            text(
                "INSERT INTO cache_evictions (tenant_id, session_id) "
                f"SELECT tenant_id, session_id FROM sessions WHERE tenant_id = :t {where} "
                "RETURNING tenant_id, session_id"
            ),
            {"t": tenant_id, "u": user_id, "s": session_id},
        )
    ).all()
    return [(r.tenant_id, r.session_id) for r in rows]


async def evict_now(engine: AsyncEngine, cache: WindowCache, keys: list[tuple[str, str]]) -> None:
    """Right after the deleting commit: evict, then forget the records (kept if Redis failed)."""
    if not keys or not await cache.evict(keys):
        return
    async with engine.begin() as conn:
        await conn.execute(
            text(
                "DELETE FROM cache_evictions WHERE (tenant_id, session_id) IN "
                "(SELECT * FROM unnest(CAST(:t AS text[]), CAST(:s AS text[])))"
            ),
            {"t": [k[0] for k in keys], "s": [k[1] for k in keys]},
        )


async def sweep(engine: AsyncEngine, cache: WindowCache, *, min_age_seconds: float = 5.0) -> int:
    """Evict what is recorded (older than a few seconds: the API usually did it already)."""
    done = 0
    while True:
        async with engine.begin() as conn:
            rows = (
                await conn.execute(
                    text(
                        "SELECT id, tenant_id, session_id FROM cache_evictions "
                        "WHERE created_at < now() - make_interval(secs => :age) "
                        "ORDER BY id LIMIT :n FOR UPDATE SKIP LOCKED"
                    ),
                    {"age": min_age_seconds, "n": SWEEP_BATCH},
                )
            ).all()
            if not rows:
                return done
            if not await cache.evict([(r.tenant_id, r.session_id) for r in rows]):
                return done  # Redis is down: the rows stay for the next sweep
            await conn.execute(
                text("DELETE FROM cache_evictions WHERE id = ANY(CAST(:ids AS bigint[]))"),
                {"ids": [r.id for r in rows]},
            )
        done += len(rows)
        if len(rows) < SWEEP_BATCH:
            return done

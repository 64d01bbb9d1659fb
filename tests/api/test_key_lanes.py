"""The key lookup's lanes (app.auth.KeyResolver): a flood of new keys queues among itself and
never holds up a known key's re-check; concurrent lookups of one key share one query."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from app.auth import Caller, KeyResolver
from app.db.engine import make_key_engine
from app.tenants.service import create_key


@pytest.fixture
async def key_engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = make_key_engine(database_url)
    yield engine
    await engine.dispose()


async def _new_key(engine: AsyncEngine) -> str:
    async with engine.begin() as conn:
        created = await create_key(conn, tenant_id=f"t-{secrets.token_hex(6)}", name="lanes")
    return created.key


async def test_a_known_keys_recheck_goes_around_a_flood_of_new_keys(key_engine: AsyncEngine) -> None:
    key = await _new_key(key_engine)
    resolver = KeyResolver(key_engine, ttl=0, unknown_ttl=60, stranger_lane=1)
    first = await resolver.lookup(key)  # now vouched for: valid within the hour
    assert isinstance(first, Caller)
    async with resolver.strangers:  # the lane is full: a flood's lookups in flight
        stranger = asyncio.ensure_future(resolver.lookup(f"egm_{secrets.token_urlsafe(24)}"))
        # The cache has expired (ttl 0): the known key is looked up again, at once.
        again = await asyncio.wait_for(resolver.lookup(key), 10)
        assert again == first
        await asyncio.sleep(0.3)
        assert not stranger.done(), "a new key waits for the stranger lane"
    assert await asyncio.wait_for(stranger, 10) is None


async def test_concurrent_lookups_of_one_key_share_one_query(key_engine: AsyncEngine) -> None:
    key = await _new_key(key_engine)
    resolver = KeyResolver(key_engine, ttl=60, unknown_ttl=60, stranger_lane=1)
    queries = 0
    query = resolver._query

    async def counted(k: str, digest: bytes) -> Caller | None:
        nonlocal queries
        queries += 1
        return await query(k, digest)

    resolver._query = counted  # type: ignore[method-assign]  # counts the real query's calls
    callers = await asyncio.gather(*(resolver.lookup(key) for _ in range(10)))
    assert queries == 1
    assert len(set(callers)) == 1 and isinstance(callers[0], Caller)

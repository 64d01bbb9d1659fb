"""A tenant's requests over ENGRAM_TENANT_MAX_CONCURRENT wait for a slot, then get a 429; other
tenants never wait for them. The slot is held here by a search waiting for indexing with the
worker off (its message stays pending for the whole wait)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import httpx
import pytest
from asgi_lifespan import LifespanManager
from fastapi import FastAPI

from app.main import create_app
from tests.support.app import ADMIN_TOKEN, STARTUP, client_for, make_settings, new_tenant_client
from tests.support.problems import assert_problem

QUEUE_SECONDS = 1.5


@pytest.fixture(scope="module")
async def capped(database_url: str) -> AsyncIterator[FastAPI]:
    settings = make_settings(
        database_url, tenant_max_concurrent=1, tenant_queue_seconds=QUEUE_SECONDS, run_worker=False
    )
    application = create_app(settings)
    async with LifespanManager(application, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as manager:
        yield manager.app  # type: ignore[misc]


@contextlib.asynccontextmanager
async def _tenant(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(app, {"Authorization": f"Bearer {ADMIN_TOKEN}"}) as admin:
        client = await new_tenant_client(app, admin)
    async with client:
        yield await _with_a_pending_message(client)


async def _with_a_pending_message(client: httpx.AsyncClient) -> httpx.AsyncClient:
    r = await client.post("/v1/sessions", json={"user_id": "u", "session_id": "s"})
    assert r.status_code == 201, r.text
    r = await client.post("/v1/sessions/s/messages", json={"messages": [{"role": "user", "content": "hi"}]})
    assert r.status_code == 201, r.text
    return client


async def _hold(client: httpx.AsyncClient, seconds: float) -> httpx.Response:
    """Occupies the tenant's one slot for `seconds`: the message is never embedded here."""
    body = {"query": "hi", "session_id": "s", "wait_for_indexing_ms": int(seconds * 1000)}
    return await client.post("/v1/search", json=body)


async def test_a_request_over_the_cap_waits_for_the_slot_instead_of_a_429(capped: FastAPI) -> None:
    async with _tenant(capped) as client:
        holder = asyncio.create_task(_hold(client, 0.4))
        await asyncio.sleep(0.1)
        started = time.monotonic()
        queued = await client.get("/v1/users")
        waited = time.monotonic() - started
        assert queued.status_code == 200, queued.text
        assert waited >= 0.2, "it ran beside the holder: the cap did not apply"
        assert (await holder).status_code == 200


async def test_a_request_that_waits_too_long_gets_a_429_and_other_tenants_never_wait(
    capped: FastAPI,
) -> None:
    async with _tenant(capped) as client, _tenant(capped) as other:
        holder = asyncio.create_task(_hold(client, QUEUE_SECONDS + 2))
        await asyncio.sleep(0.2)
        started = time.monotonic()
        theirs = await other.get("/v1/users")
        assert theirs.status_code == 200 and time.monotonic() - started < 1.0
        refused = await client.get("/v1/users")
        waited = time.monotonic() - started
        assert_problem(refused, 429, "rate-limited")
        assert refused.headers["Retry-After"] == "1"
        assert QUEUE_SECONDS - 0.2 <= waited < QUEUE_SECONDS + 1.5
        assert (await holder).status_code == 200
        # The slot came back: the next request goes straight through.
        assert (await client.get("/v1/users")).status_code == 200

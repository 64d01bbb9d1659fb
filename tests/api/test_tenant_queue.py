"""A tenant's requests over ENGRAM_TENANT_MAX_CONCURRENT wait for a slot, then get a 429; other
tenants never wait for them."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest
from asgi_lifespan import LifespanManager
from fastapi import FastAPI

from app.gate import Admission
from tests.support.app import ADMIN_TOKEN, STARTUP, client_for, make_app, make_settings
from tests.support.problems import assert_problem

QUEUE_SECONDS = 1.5


@dataclass
class Capped:
    app: FastAPI
    admission: Admission


@dataclass
class Tenant:
    id: str
    client: httpx.AsyncClient


@pytest.fixture(scope="module")
async def capped(database_url: str) -> AsyncIterator[Capped]:
    settings = make_settings(
        database_url,
        tenant_max_concurrent=1,
        tenant_max_concurrent_searches=1,
        tenant_queue_seconds=QUEUE_SECONDS,
        run_worker=False,
    )
    application = make_app(settings)
    async with LifespanManager(application, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as manager:
        # The lifespan's state, as the requests see it (asgi-lifespan keeps it there).
        yield Capped(manager.app, manager._state["admission"])  # type: ignore[arg-type]


@contextlib.asynccontextmanager
async def _tenant(capped: Capped) -> AsyncIterator[Tenant]:
    """A fresh tenant and its client."""
    tenant_id = f"t-{uuid.uuid4().hex[:12]}"
    async with client_for(capped.app, {"Authorization": f"Bearer {ADMIN_TOKEN}"}) as admin:
        r = await admin.post("/v1/admin/keys", json={"tenant_id": tenant_id, "name": "queue"})
        assert r.status_code == 201, r.text
    async with client_for(capped.app, {"Authorization": f"Bearer {r.json()['key']}"}) as client:
        yield Tenant(tenant_id, client)


@contextlib.asynccontextmanager
async def _holding(capped: Capped, tenant: Tenant) -> AsyncIterator[None]:
    """The tenant's one slot taken, as a request in flight takes it (a slow request would do the
    same, but none is slow for sure: the suite's other app runs a worker on this database)."""
    await capped.admission.slots.acquire(tenant.id)
    try:
        yield
    finally:
        capped.admission.slots.release(tenant.id)


async def test_a_request_over_the_cap_waits_for_the_slot_instead_of_a_429(capped: Capped) -> None:
    async with _tenant(capped) as tenant:
        async with _holding(capped, tenant):
            queued = asyncio.create_task(tenant.client.get("/v1/users"))
            await asyncio.sleep(0.3)
            assert not queued.done(), "it ran beside the holder: the cap did not apply"
        r = await asyncio.wait_for(queued, 30)
        assert r.status_code == 200, r.text


async def test_a_request_that_waits_too_long_gets_a_429_and_other_tenants_never_wait(
    capped: Capped,
) -> None:
    async with _tenant(capped) as tenant, _tenant(capped) as other:
        async with _holding(capped, tenant):
            theirs = await other.client.get("/v1/users")
            assert theirs.status_code == 200, theirs.text
            started = time.monotonic()
            refused = await tenant.client.get("/v1/users")
            waited = time.monotonic() - started
        assert_problem(refused, 429, "rate-limited")
        assert refused.headers["Retry-After"] == "1"
        assert waited >= QUEUE_SECONDS - 0.1, "refused before its wait was over"
        # The slot came back: the next request goes straight through.
        assert (await tenant.client.get("/v1/users")).status_code == 200
        assert capped.admission.slots.in_flight(tenant.id) == 0


SEARCH = {"query": "anything", "mode": "keyword"}


async def test_a_search_over_the_search_cap_waits_then_gets_a_429_and_other_tenants_do_not_wait(
    capped: Capped,
) -> None:
    """ENGRAM_TENANT_MAX_CONCURRENT_SEARCHES: a tenant's searches run at most that many at once,
    the next in order; another tenant's search does not wait for them."""
    async with _tenant(capped) as tenant, _tenant(capped) as other:
        await capped.admission.searches.acquire(tenant.id)
        try:
            queued = asyncio.create_task(tenant.client.post("/v1/search", json=SEARCH))
            await asyncio.sleep(0.3)
            assert not queued.done(), "it ran beside the running search: the search cap did not apply"
            started = time.monotonic()
            r = await other.client.post("/v1/search", json=SEARCH)
            assert r.status_code == 200, r.text
            assert time.monotonic() - started < QUEUE_SECONDS
            refused = await asyncio.wait_for(queued, 30)
            assert_problem(refused, 429, "rate-limited")
            assert "ENGRAM_TENANT_MAX_CONCURRENT_SEARCHES" in refused.json()["detail"]
            assert refused.headers["Retry-After"] == "1"
            queued = asyncio.create_task(tenant.client.post("/v1/search", json=SEARCH))
            await asyncio.sleep(0.3)
            assert not queued.done()
        finally:
            capped.admission.searches.release(tenant.id)
        r = await asyncio.wait_for(queued, 30)
        assert r.status_code == 200, r.text
        assert r.json()["results"] == []
        assert capped.admission.searches.in_flight(tenant.id) == 0

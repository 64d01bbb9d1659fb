"""A tenant's requests over ENGRAM_TENANT_MAX_CONCURRENT wait for a slot, then get a 429; other
tenants never wait for them. The slot is held here by a search waiting for indexing with the
worker off (its message stays pending for the whole wait)."""

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
from app.main import create_app
from tests.support.app import ADMIN_TOKEN, STARTUP, client_for, make_settings
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
        database_url, tenant_max_concurrent=1, tenant_queue_seconds=QUEUE_SECONDS, run_worker=False
    )
    application = create_app(settings)
    async with LifespanManager(application, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as manager:
        # The lifespan's state, as the requests see it (asgi-lifespan keeps it there).
        yield Capped(manager.app, manager._state["admission"])  # type: ignore[arg-type]


@contextlib.asynccontextmanager
async def _tenant(capped: Capped) -> AsyncIterator[Tenant]:
    """A fresh tenant whose session `s` has a message the (stopped) worker never embeds."""
    tenant_id = f"t-{uuid.uuid4().hex[:12]}"
    async with client_for(capped.app, {"Authorization": f"Bearer {ADMIN_TOKEN}"}) as admin:
        r = await admin.post("/v1/admin/keys", json={"tenant_id": tenant_id, "name": "queue"})
        assert r.status_code == 201, r.text
    async with client_for(capped.app, {"Authorization": f"Bearer {r.json()['key']}"}) as client:
        r = await client.post("/v1/sessions", json={"user_id": "u", "session_id": "s"})
        assert r.status_code == 201, r.text
        msgs = {"messages": [{"role": "user", "content": "hi"}]}
        r = await client.post("/v1/sessions/s/messages", json=msgs)
        assert r.status_code == 201, r.text
        yield Tenant(tenant_id, client)


async def _hold(capped: Capped, tenant: Tenant, seconds: float) -> asyncio.Task[httpx.Response]:
    """A request that holds the tenant's one slot for `seconds`, once it holds it."""
    body = {"query": "hi", "session_id": "s", "wait_for_indexing_ms": int(seconds * 1000)}
    task = asyncio.create_task(tenant.client.post("/v1/search", json=body))
    # On a loaded machine the request can take a while to reach the gate.
    for _ in range(1000):
        if capped.admission.slots.in_flight(tenant.id):
            return task
        assert not task.done(), task.result().text
        await asyncio.sleep(0.01)
    raise AssertionError("the holding request was never admitted")


async def test_a_request_over_the_cap_waits_for_the_slot_instead_of_a_429(capped: Capped) -> None:
    async with _tenant(capped) as tenant:
        holder = await _hold(capped, tenant, 0.5)
        started = time.monotonic()
        queued = await tenant.client.get("/v1/users")
        waited = time.monotonic() - started
        assert queued.status_code == 200, queued.text
        assert (await holder).status_code == 200
        assert waited >= 0.2, "it ran beside the holder: the cap did not apply"


async def test_a_request_that_waits_too_long_gets_a_429_and_other_tenants_never_wait(
    capped: Capped,
) -> None:
    async with _tenant(capped) as tenant, _tenant(capped) as other:
        holder = await _hold(capped, tenant, QUEUE_SECONDS + 3)
        started = time.monotonic()
        theirs = await other.client.get("/v1/users")
        assert theirs.status_code == 200, theirs.text
        refused = await tenant.client.get("/v1/users")
        waited = time.monotonic() - started
        assert_problem(refused, 429, "rate-limited")
        assert refused.headers["Retry-After"] == "1"
        assert waited >= QUEUE_SECONDS - 0.1, "refused before its wait was over"
        assert (await holder).status_code == 200
        # The slot came back: the next request goes straight through.
        assert (await tenant.client.get("/v1/users")).status_code == 200
        assert capped.admission.slots.in_flight(tenant.id) == 0

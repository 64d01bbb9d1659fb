"""The app as the tests build it: settings on the suite's PostgreSQL and Redis, clients over ASGI,
and fresh tenants. Isolation between tests comes from tenants: each test that asks for `api` gets a
brand-new tenant with its own API key, so tests never see each other's rows and need no truncation."""

from __future__ import annotations

import os
import uuid

import httpx
from fastapi import FastAPI

from app.config import Settings
from app.main import create_app
from app.telemetry.tracing import Tracing
from tests.support.db import until
from tests.support.model import lendable_model

ADMIN_TOKEN = "test-admin-token"
# App start-up loads the local model; the first run on a machine also exports it to ONNX.
STARTUP = 180.0


# Redis databases for the tests: 15 for a plain run; under pytest-xdist one per worker (gw0 15,
# gw1 12, ...), so each has a keyspace of its own. 11, 13 and 14 are the benchmarks' (bench/).
_TEST_DBS = (15, 12, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)


def _redis_db() -> int:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return _TEST_DBS[int(worker.removeprefix("gw")) % len(_TEST_DBS)]


REDIS_URL = os.environ.get("ENGRAM_TEST_REDIS_URL", f"redis://127.0.0.1:6379/{_redis_db()}")


def make_settings(database_url: str, **overrides: object) -> Settings:
    base: dict[str, object] = {
        "database_url": database_url,
        "redis_url": REDIS_URL,
        "auth": "on",
        "admin_token": ADMIN_TOKEN,
        "migrate_on_start": False,
        "log_json": True,
        # One client address firing faster than any person: the limits are off here, and the
        # tests of the limits turn them on where they test them.
        "rate_limit_rps": 0,
        "tenant_max_concurrent": 0,
        "unauthenticated_rps": 100_000,
    }
    base.update(overrides)
    return Settings(**base)  # type: ignore[arg-type]


def make_app(settings: Settings, *, tracing: Tracing | None = None) -> FastAPI:
    """The app on `settings`, over the process's already-loaded model when it is the one the
    settings pick (tests.support.model): ~50 apps per process each loaded it again (~0.2 s of CPU
    and the wait for it before its worker starts). An app of another model loads its own."""
    return create_app(settings, tracing=tracing, model=lendable_model(settings))


def client_for(app: FastAPI, headers: dict[str, str] | None = None) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://engram.test", headers=headers or {}
    )


async def new_tenant_client(app: FastAPI, admin: httpx.AsyncClient) -> httpx.AsyncClient:
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    r = await admin.post("/v1/admin/keys", json={"tenant_id": tenant, "name": "test"})
    assert r.status_code == 201, r.text
    return client_for(app, {"Authorization": f"Bearer {r.json()['key']}"})


async def ready_model(c: httpx.AsyncClient) -> httpx.Response:
    """/readyz once the model (loaded after start-up, in the background) is ready."""

    async def probe() -> httpx.Response | None:
        r = await c.get("/readyz")
        return r if r.json()["checks"].get("model") == "ok" else None

    response: httpx.Response = await until(probe, within=STARTUP)
    return response

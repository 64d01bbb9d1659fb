"""Real parts: an embedded PostgreSQL 18 + pgvector for the whole run, the Redis on
127.0.0.1:6379 (ENGRAM_TEST_REDIS_URL), and the app served in-process over ASGI.

Isolation between tests comes from tenants: each test that asks for `api` gets a brand-new
tenant with its own API key, so tests never see each other's rows and need no truncation.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager
from fastapi import FastAPI

from app.ai.local_embedder import LocalEmbedder
from app.config import Settings
from app.db.embedded import EmbeddedPostgres, start_embedded
from app.db.migrate import upgrade
from app.main import create_app

ADMIN_TOKEN = "test-admin-token"
# App start-up loads the local model; the first run on a machine also exports it to ONNX.
STARTUP = 180.0
REDIS_URL = os.environ.get("ENGRAM_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture(scope="session", autouse=True)
def local_model() -> None:
    """Export (first run) and load the local model once, before any app starts."""
    LocalEmbedder(Settings()).load()


@pytest.fixture(scope="session")
def pg() -> Iterator[EmbeddedPostgres]:
    root = Path(tempfile.mkdtemp(prefix="engram-test-"))
    server = start_embedded(root)
    yield server
    server.stop()


@pytest.fixture(scope="session")
async def database_url(pg: EmbeddedPostgres) -> str:
    await upgrade(pg.url, 384)
    return pg.url


def make_settings(database_url: str, **overrides: object) -> Settings:
    base: dict[str, object] = {
        "database_url": database_url,
        "redis_url": REDIS_URL,
        "auth": "on",
        "admin_token": ADMIN_TOKEN,
        "migrate_on_start": False,
        "log_json": True,
        # One client address firing faster than any person: the limits are off here, and
        # tests/test_limits.py turns them on where it tests them.
        "rate_limit_rps": 0,
        "tenant_max_concurrent": 0,
        "unauthenticated_rps": 100_000,
    }
    base.update(overrides)
    return Settings(**base)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
async def app(database_url: str) -> AsyncIterator[FastAPI]:
    application = create_app(make_settings(database_url))
    async with LifespanManager(application, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as manager:
        yield manager.app  # type: ignore[misc]


def client_for(app: FastAPI, headers: dict[str, str] | None = None) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://engram.test", headers=headers or {}
    )


@pytest.fixture
async def admin(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(app, {"Authorization": f"Bearer {ADMIN_TOKEN}"}) as c:
        yield c


async def new_tenant_client(app: FastAPI, admin: httpx.AsyncClient) -> httpx.AsyncClient:
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    r = await admin.post("/v1/admin/keys", json={"tenant_id": tenant, "name": "test"})
    assert r.status_code == 201, r.text
    return client_for(app, {"Authorization": f"Bearer {r.json()['key']}"})


@pytest.fixture
async def api(app: FastAPI, admin: httpx.AsyncClient) -> AsyncIterator[httpx.AsyncClient]:
    """A client authenticated as a fresh tenant."""
    async with await new_tenant_client(app, admin) as c:
        yield c


@pytest.fixture
async def other_api(app: FastAPI, admin: httpx.AsyncClient) -> AsyncIterator[httpx.AsyncClient]:
    """A second, unrelated tenant."""
    async with await new_tenant_client(app, admin) as c:
        yield c

"""The app in-process over ASGI against the suite's PostgreSQL and Redis: one shared app (`app`,
worker on), clients of fresh tenants (`api`, `other_api`), the admin (`admin`), and an engine on
the shared database (`db`) for what a test reads or writes behind the API."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from asgi_lifespan import LifespanManager
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncEngine

from app.ai.local_embedder import LocalEmbedder
from tests.support.app import ADMIN_TOKEN, STARTUP, client_for, make_app, make_settings, new_tenant_client
from tests.support.db import engine_for
from tests.support.examples import share


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give each schemathesis case (tests/api/test_fuzz.py: one item per operation) an id of its own.
    With pytest 9, schemathesis 4.32's items all share the test function's id, and pytest-xdist
    keeps one item per id: `make test` ran one operation of the 56 and counted the file as passed.
    And run the loaded Hypothesis profile's share of its boundary cases (schemathesis' `coverage`
    phase, explicit examples that no `max_examples` bounds): all of them in `make test`, a fifth in
    the quick loop (~1,900 cases over the 56 operations, three times its drawn ones)."""
    for item in items:
        label = getattr(item, "operation_label", None)
        if label is None:
            continue
        if item._id.params is None:  # type: ignore[attr-defined]
            item._id = item._id.with_params(label)  # type: ignore[attr-defined]
        _share_of_boundary_cases(item.obj)  # type: ignore[attr-defined]


def _share_of_boundary_cases(test: object) -> None:
    cases = getattr(test, "hypothesis_explicit_examples", None)
    if not cases:
        return
    boundary = [c for c in cases if c.kwargs["case"].meta.phase.name == "coverage"]
    dropped = {id(c) for c in boundary} - {id(c) for c in share(boundary)}
    cases[:] = [c for c in cases if id(c) not in dropped]


@pytest.fixture(scope="session", autouse=True)
def local_model(embedder: LocalEmbedder) -> None:
    """The model exported (first run) before any app starts, so no app start exports it."""


@pytest.fixture(scope="session")
async def app(database_url: str) -> AsyncIterator[FastAPI]:
    application = make_app(make_settings(database_url))
    async with LifespanManager(application, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as manager:
        yield manager.app  # type: ignore[misc]


@pytest.fixture
async def admin(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(app, {"Authorization": f"Bearer {ADMIN_TOKEN}"}) as c:
        yield c


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


@pytest.fixture(scope="session")
async def db(database_url: str) -> AsyncIterator[AsyncEngine]:
    """An engine on the shared database, for reads and writes behind the API."""
    engine = engine_for(database_url)
    yield engine
    await engine.dispose()

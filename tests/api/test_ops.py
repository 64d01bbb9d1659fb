"""Health, readiness, metrics and request ids."""

from __future__ import annotations

import re

import asyncpg
import httpx
import pytest
from asgi_lifespan import LifespanManager
from fastapi import FastAPI

from tests.support.app import STARTUP, client_for, make_app, make_settings, ready_model


async def test_healthz(app: FastAPI) -> None:
    async with client_for(app) as c:
        r = await c.get("/healthz")
    assert r.status_code == 200
    assert r.json() == {"status": "ok"}


async def test_readyz_checks_database_and_redis(app: FastAPI) -> None:
    async with client_for(app) as c:
        r = await ready_model(c)
    assert r.status_code == 200
    assert r.json() == {"status": "ready", "checks": {"database": "ok", "redis": "ok", "model": "ok"}}


async def test_readyz_degraded_without_redis_and_503_without_database(database_url: str) -> None:
    app = make_app(make_settings(database_url, redis_url="redis://127.0.0.1:1/0"))
    async with (
        LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app) as c,
    ):  # type: ignore[arg-type]
        r = await ready_model(c)
        assert r.status_code == 200
        assert r.json()["status"] == "degraded"
        assert r.json()["checks"]["redis"].startswith("error")

    dead = make_app(make_settings("postgresql://postgres@127.0.0.1:1/none", redis_url=None))
    async with (
        LifespanManager(dead, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app) as c,
    ):  # type: ignore[arg-type]
        r = await c.get("/readyz")
        assert r.status_code == 503
        assert r.json()["checks"]["database"].startswith("error")
        assert r.json()["checks"]["redis"] == "disabled"


async def test_metrics_count_requests_by_route_template_and_pool(api: httpx.AsyncClient) -> None:
    assert (await api.get("/v1/users/ghost")).status_code == 404
    text = (await api.get("/metrics")).text
    assert re.search(
        r'engram_http_requests_total\{method="GET",route="/v1/users/\{user_id\}",status="404"\} \d', text
    )
    assert "engram_http_request_duration_seconds_bucket" in text
    assert re.search(r"^engram_db_pool_size \d", text, re.M)
    assert re.search(r"^engram_db_pool_checkedout \d", text, re.M)
    assert re.search(r"^engram_db_lane_size 4", text, re.M)
    assert re.search(r"^engram_db_lane_in_use \d", text, re.M)


async def test_request_id_is_echoed_or_generated(api: httpx.AsyncClient) -> None:
    r = await api.get("/healthz", headers={"X-Request-ID": "abc-123"})
    assert r.headers["X-Request-ID"] == "abc-123"
    r = await api.get("/healthz")
    assert re.fullmatch(r"[0-9a-f]{32}", r.headers["X-Request-ID"])
    # An unsafe id (log injection) is replaced, not echoed.
    r = await api.get("/healthz", headers={"X-Request-ID": "bad id\twith tab"})
    assert r.headers["X-Request-ID"] != "bad id\twith tab"
    # Errors carry it too.
    r = await api.get("/v1/sessions/nope", headers={"X-Request-ID": "err-1"})
    assert r.status_code == 404
    assert r.headers["X-Request-ID"] == "err-1"


async def test_database_outage_is_a_503_problem_not_a_500(database_url: str) -> None:
    dead = make_app(make_settings("postgresql://postgres@127.0.0.1:1/none", redis_url=None))
    headers = {"Authorization": "Bearer egm_some-key"}  # checking it needs the database
    async with (
        LifespanManager(dead, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app, headers) as c,
    ):  # type: ignore[arg-type]
        r = await c.get("/v1/users/someone")
    assert r.status_code == 503
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["type"] == "urn:engram:problem:unavailable"
    assert r.headers["Retry-After"] == "1"


class _BrokenDriver:
    """A driver connection that fails as asyncpg does when the server goes away mid-request."""

    def __init__(self, exc: Exception) -> None:
        self._exc = exc

    async def fetch(self, *_args: object) -> list[object]:
        raise self._exc


@pytest.mark.parametrize(
    ("exc", "status"),
    [
        (asyncpg.exceptions.AdminShutdownError("terminating connection due to administrator command"), 503),
        (asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed mid-operation"), 503),
        (asyncpg.exceptions.IdleSessionTimeoutError("idle-session timeout"), 503),
        (asyncpg.exceptions.InterfaceError("connection is closed"), 503),
        (asyncpg.exceptions.DivisionByZeroError("division by zero"), 500),
    ],
)
async def test_an_outage_on_the_drivers_connection_is_a_503_too(
    api: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch, exc: Exception, status: int
) -> None:
    """The hot statements bypass SQLAlchemy (app.db.sql.driver, app.db.lane), so asyncpg's own
    errors must be sorted into outage (503, retry) and bug (500) like the wrapped ones."""
    assert (await api.post("/v1/sessions", json={"user_id": "u", "session_id": "s"})).status_code == 201

    async def broken(_conn: object) -> _BrokenDriver:
        return _BrokenDriver(exc)

    async def failing(_lane: object, *_args: object) -> object:
        raise exc

    monkeypatch.setattr("app.search.sql.driver", broken)
    monkeypatch.setattr("app.db.lane.Lane.fetch", failing)
    monkeypatch.setattr("app.db.lane.Lane.fetchrow", failing)
    append = await api.post("/v1/sessions/s/messages", json={"messages": [{"role": "user", "content": "hi"}]})
    memory = await api.get("/v1/sessions/s/memory")
    search = await api.post("/v1/search", json={"query": "hi", "user_id": "u", "mode": "keyword"})
    for r in (append, memory, search):
        assert r.status_code == status, r.text
        assert r.headers["content-type"] == "application/problem+json"
        assert (r.headers.get("Retry-After") == "1") is (status == 503)

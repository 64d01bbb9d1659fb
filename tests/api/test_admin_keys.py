"""Admin API keys: create (secret shown once), list (no secret, cursor), revoke (effective at once);
the admin endpoints are closed when ENGRAM_ADMIN_TOKEN is unset."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from fastapi import FastAPI

from app.main import create_app
from tests.support.app import ADMIN_TOKEN, STARTUP, client_for, make_app, make_settings
from tests.support.problems import assert_problem

KEY_FIELDS = {"key_id", "tenant_id", "name", "prefix", "created_at", "revoked_at"}


def new_tenant() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


async def create_key(admin: httpx.AsyncClient, tenant: str, name: str = "") -> dict[str, Any]:
    r = await admin.post("/v1/admin/keys", json={"tenant_id": tenant, "name": name})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


async def list_keys(admin: httpx.AsyncClient, **params: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        r = await admin.get("/v1/admin/keys", params=params | ({"cursor": cursor} if cursor else {}))
        assert r.status_code == 200, r.text
        items += r.json()["items"]
        cursor = r.json()["next_cursor"]
        if cursor is None:
            return items


async def test_create_shows_the_key_once(app: FastAPI, admin: httpx.AsyncClient) -> None:
    tenant = new_tenant()
    created = await create_key(admin, tenant, "prod agent")
    key = created["key"]
    assert key.startswith("egm_")
    assert len(key) >= 40
    assert created["prefix"] == key[:10]
    assert created["tenant_id"] == tenant
    assert created["name"] == "prod agent"
    assert created["revoked_at"] is None
    uuid.UUID(created["key_id"])
    assert set(created) == KEY_FIELDS | {"key"}

    # Listed without the secret, nor anything derived from it beyond the prefix.
    (listed,) = await list_keys(admin, tenant_id=tenant)
    assert set(listed) == KEY_FIELDS
    assert listed == {k: v for k, v in created.items() if k != "key"}
    r = await admin.get("/v1/admin/keys", params={"tenant_id": tenant})
    assert key not in r.text
    assert hashlib.sha256(key.encode()).hexdigest() not in r.text

    # The key works, for its tenant.
    async with client_for(app, {"Authorization": f"Bearer {key}"}) as c:
        assert (await c.put("/v1/users/u", json={})).status_code == 201


async def test_every_key_is_different(admin: httpx.AsyncClient) -> None:
    tenant = new_tenant()
    keys = [await create_key(admin, tenant) for _ in range(5)]
    assert len({k["key"] for k in keys}) == 5
    assert len({k["key_id"] for k in keys}) == 5


async def test_list_pages_with_cursor_oldest_first(admin: httpx.AsyncClient) -> None:
    tenant = new_tenant()
    created = [await create_key(admin, tenant, f"k{i}") for i in range(7)]
    pages: list[list[str]] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"tenant_id": tenant, "limit": 3} | ({"cursor": cursor} if cursor else {})
        r = await admin.get("/v1/admin/keys", params=params)
        assert r.status_code == 200
        pages.append([k["name"] for k in r.json()["items"]])
        cursor = r.json()["next_cursor"]
        if cursor is None:
            break
    assert pages == [["k0", "k1", "k2"], ["k3", "k4", "k5"], ["k6"]]
    assert [k["key_id"] for k in await list_keys(admin, tenant_id=tenant)] == [k["key_id"] for k in created]


async def test_list_without_tenant_covers_all_tenants(admin: httpx.AsyncClient) -> None:
    one, two = new_tenant(), new_tenant()
    a, b = await create_key(admin, one), await create_key(admin, two)
    ids = {k["key_id"] for k in await list_keys(admin, limit=1000)}
    assert {a["key_id"], b["key_id"]} <= ids


async def test_list_rejects_bad_cursor_and_limits(admin: httpx.AsyncClient) -> None:
    assert_problem(await admin.get("/v1/admin/keys", params={"cursor": "nope"}), 400, "invalid-cursor")
    for limit in (0, 10**6):
        assert_problem(await admin.get("/v1/admin/keys", params={"limit": limit}), 422, "validation-error")
    # Found by tests/api/test_fuzz.py: a NUL byte in the tenant filter reached PostgreSQL (a 500).
    for tenant in ("a\x00b", "bad id"):
        r = await admin.get("/v1/admin/keys", params={"tenant_id": tenant})
        assert_problem(r, 422, "validation-error")


async def test_revoke_stops_the_key_at_once(app: FastAPI, admin: httpx.AsyncClient) -> None:
    tenant = new_tenant()
    doomed, spare = await create_key(admin, tenant, "doomed"), await create_key(admin, tenant, "spare")
    async with (
        client_for(app, {"Authorization": f"Bearer {doomed['key']}"}) as c,
        client_for(app, {"Authorization": f"Bearer {spare['key']}"}) as s,
    ):
        assert (await c.put("/v1/users/u", json={})).status_code == 201  # verified and cached

        r = await admin.delete(f"/v1/admin/keys/{doomed['key_id']}")
        assert r.status_code == 204
        r = await c.get("/v1/users/u")
        assert_problem(r, 401, "unauthorized")
        assert r.headers["www-authenticate"].startswith("Bearer")
        # Only that key: the tenant's other key and its data are fine.
        assert (await s.get("/v1/users/u")).status_code == 200

    listed = {k["name"]: k for k in await list_keys(admin, tenant_id=tenant)}
    assert listed["doomed"]["revoked_at"] is not None
    assert listed["spare"]["revoked_at"] is None
    # Revoking again is harmless and keeps the first time.
    assert (await admin.delete(f"/v1/admin/keys/{doomed['key_id']}")).status_code == 204
    again = {k["name"]: k for k in await list_keys(admin, tenant_id=tenant)}
    assert again["doomed"]["revoked_at"] == listed["doomed"]["revoked_at"]


async def test_revoke_unknown_or_malformed_key_id(admin: httpx.AsyncClient) -> None:
    assert_problem(await admin.delete(f"/v1/admin/keys/{uuid.uuid4()}"), 404, "not-found")
    assert_problem(await admin.delete("/v1/admin/keys/not-a-uuid"), 422, "validation-error")


async def test_create_validates_its_input(admin: httpx.AsyncClient) -> None:
    bad: list[tuple[Any, int]] = [
        ({"tenant_id": "has space"}, 422),
        ({"tenant_id": ""}, 422),
        ({"tenant_id": "t" * 129}, 422),
        ({"tenant_id": "ok", "name": "n" * 201}, 422),
        ({"tenant_id": "ok", "name": "nul\x00"}, 422),
        ({"tenant_id": "ok", "role": "admin"}, 422),
        ({}, 422),
    ]
    for body, status in bad:
        assert_problem(await admin.post("/v1/admin/keys", json=body), status, "validation-error")
    r = await admin.post(
        "/v1/admin/keys",
        content=b'{"tenant_id": "ok", "name": "\\ud800"}',
        headers={"Content-Type": "application/json"},
    )
    assert_problem(r, 422, "validation-error")
    assert await list_keys(admin, tenant_id="ok") == []


async def test_admin_credentials(app: FastAPI, api: httpx.AsyncClient) -> None:
    async with client_for(app) as anonymous:
        r = await anonymous.get("/v1/admin/keys")
        assert_problem(r, 401, "unauthorized")
        assert r.headers["www-authenticate"].startswith("Bearer")
    async with client_for(app, {"Authorization": "Bearer wrong-token"}) as wrong:
        assert_problem(await wrong.get("/v1/admin/keys"), 403, "forbidden")
        assert_problem(await wrong.post("/v1/admin/keys", json={"tenant_id": "x"}), 403, "forbidden")
    assert_problem(await api.get("/v1/admin/keys"), 403, "forbidden")


async def test_a_burst_on_a_fresh_key_does_not_exhaust_the_pool(database_url: str) -> None:
    """Many first requests with a key not yet cached, on a small pool: none may wait for a second
    connection while holding one (which would deadlock the pool and answer 503s)."""
    app = make_app(make_settings(database_url, db_pool_size=2, db_max_overflow=0, db_pool_timeout=3))
    async with LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as manager:
        served: Any = manager.app
        async with client_for(served, {"Authorization": f"Bearer {ADMIN_TOKEN}"}) as admin:
            key = (await create_key(admin, new_tenant()))["key"]
        async with client_for(served, {"Authorization": f"Bearer {key}"}) as c:
            rs = await asyncio.wait_for(asyncio.gather(*(c.get("/v1/users") for _ in range(12))), timeout=20)
    assert [r.status_code for r in rs] == [200] * 12


@pytest.fixture(scope="module")
async def no_admin_app(database_url: str) -> AsyncIterator[FastAPI]:
    app = make_app(make_settings(database_url, admin_token=None))
    async with LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as manager:
        yield manager.app  # type: ignore[misc]


async def test_admin_endpoints_are_closed_without_an_admin_token(
    no_admin_app: FastAPI, admin: httpx.AsyncClient, database_url: str
) -> None:
    created = await create_key(admin, new_tenant())  # made through the app that has a token
    spec = create_app(make_settings(database_url)).openapi()
    admin_ops = [
        (method.upper(), path)
        for path, item in spec["paths"].items()
        if path.startswith("/v1/admin/")
        for method in item
    ]
    assert len(admin_ops) >= 3
    for headers in (
        {},
        {"Authorization": f"Bearer {ADMIN_TOKEN}"},
        {"Authorization": f"Bearer {created['key']}"},
    ):
        async with client_for(no_admin_app, headers) as c:
            for method, path in admin_ops:
                concrete = path.replace("{key_id}", created["key_id"])
                body = {"tenant_id": "x"} if method == "POST" else None
                r = await c.request(method, concrete, json=body)
                problem = assert_problem(r, 403, "forbidden")
                assert "ENGRAM_ADMIN_TOKEN" in problem["detail"]
    # Nothing was revoked, and tenant keys keep working on that app.
    async with client_for(no_admin_app, {"Authorization": f"Bearer {created['key']}"}) as c:
        assert (await c.get("/v1/users")).status_code == 200
    (listed,) = await list_keys(admin, tenant_id=created["tenant_id"])
    assert listed["revoked_at"] is None

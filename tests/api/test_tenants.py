"""Tenants over the admin API: list them, and delete one with everything it owns (every row with
its tenant_id, in any table, found from information_schema; its Redis windows; its keys), leaving
every other tenant as it was."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.api.test_purge import populate, tenant_client
from tests.support.app import REDIS_URL, client_for


async def tenant_rows(db: AsyncEngine, tenant_id: str) -> dict[str, int]:
    """Rows of the tenant in every table that has a tenant_id column."""
    async with db.connect() as conn:
        tables = (
            await conn.execute(
                text(
                    "SELECT c.table_name FROM information_schema.columns c JOIN information_schema.tables t "
                    "  ON t.table_schema = c.table_schema AND t.table_name = c.table_name "
                    "WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' "
                    "AND c.column_name = 'tenant_id' ORDER BY 1"
                )
            )
        ).scalars()
        return {
            name: int(
                await conn.scalar(
                    text(f'SELECT count(*) FROM "{name}" WHERE tenant_id = :t'), {"t": tenant_id}
                )
                or 0
            )
            for name in list(tables)
        }


async def windows(tenant_id: str) -> list[bytes]:
    redis = Redis.from_url(REDIS_URL)
    try:
        return [k async for k in redis.scan_iter(match=f"engram:w:{{{tenant_id}/*")]
    finally:
        await redis.aclose()


async def test_deleting_a_tenant_leaves_nothing_of_it_and_touches_nobody_else(
    app: FastAPI, admin: httpx.AsyncClient, db: AsyncEngine
) -> None:
    tenant_a, a = await tenant_client(app, admin)
    tenant_b, b = await tenant_client(app, admin)
    async with a, b:
        for tenant, client in ((tenant_a, a), (tenant_b, b)):
            await populate(client, tenant, "ada", "s")
            await populate(client, tenant, "bob", "t")
            r = await client.post("/v1/users/ada/facts", json={"content": "Likes green tea."})
            assert r.status_code == 201
            assert (await client.get("/v1/sessions/s-1/memory")).status_code == 200  # cached in Redis
            r = await admin.post(
                f"/v1/admin/tenants/{tenant}/webhooks", json={"url": "http://127.0.0.1:9/nowhere"}
            )
            assert r.status_code == 201
            r = await admin.post(f"/v1/admin/tenants/{tenant}/webhooks/{r.json()['endpoint_id']}/ping")
            assert r.status_code == 202
        await a.post("/v1/sessions/s-1/summarize", params={"wait_seconds": 10})
        before_a, before_b = await tenant_rows(db, tenant_a), await tenant_rows(db, tenant_b)
        for table in (
            "api_keys",
            "users",
            "sessions",
            "messages",
            "facts",
            "fact_events",
            "webhook_endpoints",
        ):
            assert before_a[table] > 0, table
        assert await windows(tenant_a)

        listed = {t["tenant_id"]: t for t in await all_tenants(admin)}
        assert listed[tenant_a]["keys"] == 1 and listed[tenant_a]["users"] == 2
        assert listed[tenant_a]["webhooks"] == 1

        try:
            r = await asyncio.wait_for(admin.delete(f"/v1/admin/tenants/{tenant_a}"), timeout=60)
        except TimeoutError:
            pytest.fail("the tenant's delete hung")
        assert r.status_code == 204, r.text

        async def settled() -> dict[str, int]:
            return {k: v for k, v in (await tenant_rows(db, tenant_a)).items() if v}

        # The Redis evictions are recorded in the delete's transaction and removed once done.
        for _ in range(100):
            if not await settled():
                break
            await asyncio.sleep(0.1)
        assert await settled() == {}, "rows of the deleted tenant remain"
        assert await windows(tenant_a) == []
        assert (await a.get("/v1/users")).status_code == 401  # its key is gone at once here
        assert (await admin.get(f"/v1/admin/tenants/{tenant_a}/limits")).status_code == 404
        assert (await admin.delete(f"/v1/admin/tenants/{tenant_a}")).status_code == 404
        assert tenant_a not in {t["tenant_id"] for t in await all_tenants(admin)}

        # The other tenant, with the same user and session ids, is whole.
        after_b = await tenant_rows(db, tenant_b)
        for table in ("api_keys", "users", "sessions", "messages", "facts", "webhook_endpoints"):
            assert after_b[table] == before_b[table], table
        assert (await b.get("/v1/users/ada")).status_code == 200
        assert len((await b.get("/v1/sessions/s-1/messages")).json()["items"]) == 5
        assert await windows(tenant_b)

        # The id is free again: a new key makes an empty tenant of that name.
        r = await admin.post("/v1/admin/keys", json={"tenant_id": tenant_a})
        async with client_for(app, {"Authorization": f"Bearer {r.json()['key']}"}) as again:
            assert (await again.get("/v1/users")).json()["items"] == []


async def all_tenants(admin: httpx.AsyncClient) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        r = await admin.get(
            "/v1/admin/tenants", params={"limit": 50} | ({"cursor": cursor} if cursor else {})
        )
        assert r.status_code == 200, r.text
        items += r.json()["items"]
        cursor = r.json()["next_cursor"]
        if cursor is None:
            return items


async def test_tenants_list_pages_and_bad_ids_are_refused(app: FastAPI, admin: httpx.AsyncClient) -> None:
    made = sorted([f"t-{uuid.uuid4().hex[:12]}" for _ in range(3)])
    for tenant in made:
        assert (await admin.post("/v1/admin/keys", json={"tenant_id": tenant})).status_code == 201
    r = await admin.get("/v1/admin/tenants", params={"limit": 1})
    assert r.status_code == 200 and len(r.json()["items"]) == 1 and r.json()["next_cursor"]
    ids = [t["tenant_id"] for t in await all_tenants(admin)]
    assert ids == sorted(ids) and set(made) <= set(ids)
    assert (await admin.delete("/v1/admin/tenants/no-such-tenant")).status_code == 404
    assert (await admin.delete("/v1/admin/tenants/bad%20id")).status_code == 422
    assert (await admin.get("/v1/admin/tenants", params={"cursor": "junk"})).status_code == 400
    async with client_for(app) as nobody:
        assert (await nobody.get("/v1/admin/tenants")).status_code == 401
        assert (await nobody.delete(f"/v1/admin/tenants/{made[0]}")).status_code == 401

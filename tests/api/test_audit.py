"""The audit trail: per tenant, opt-in; who (key), what (operation, ids), when, from where, for
every read and write; append-only (a trigger refuses UPDATE, TRUNCATE and stray DELETEs); its own
retention; queryable (filters, pages) and exported as JSON Lines by the admin API; never content."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import httpx
import orjson
import pytest
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from app.audit.retention import expire
from tests.support.app import client_for
from tests.support.db import engine_for, fetch, until

SECRET = "SECRET-7f3a9c-planted"


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = engine_for(database_url)
    yield engine
    await engine.dispose()


async def audited_tenant(app: FastAPI, admin: httpx.AsyncClient, *, on: bool = True) -> tuple[str, str, str]:
    """A fresh tenant with its audit trail on (or off): (tenant id, key id, key)."""
    tenant = f"audit-{uuid.uuid4().hex[:10]}"
    r = await admin.post("/v1/admin/keys", json={"tenant_id": tenant, "name": "audit"})
    assert r.status_code == 201, r.text
    r2 = await admin.put(f"/v1/admin/tenants/{tenant}/audit", json={"enabled": on})
    assert r2.status_code == 200, r2.text
    assert r2.json() == {"tenant_id": tenant, "enabled": on, "retention_days": None}
    return tenant, r.json()["key_id"], r.json()["key"]


async def events(admin: httpx.AsyncClient, tenant: str, **params: Any) -> list[dict[str, Any]]:
    r = await admin.get(f"/v1/admin/tenants/{tenant}/audit/events", params={"limit": 1000, **params})
    assert r.status_code == 200, r.text
    return list(r.json()["items"])


async def traffic(app: FastAPI, key: str) -> str:
    """Reads and writes of one user's memory, a secret in the content and in a query."""
    async with client_for(app, {"Authorization": f"Bearer {key}", "X-Request-ID": "req-audit-1"}) as api:
        r = await api.post("/v1/sessions", json={"user_id": "ada", "session_id": "s1"})
        assert r.status_code == 201, r.text
        r = await api.post(
            "/v1/sessions/s1/messages",
            json={"messages": [{"role": "user", "content": f"My PIN is {SECRET}"}]},
        )
        assert r.status_code == 201, r.text
        message_id = r.json()["messages"][0]["message_id"]
        assert (await api.get(f"/v1/sessions/s1/memory?query={SECRET}")).status_code == 200
        assert (await api.get(f"/v1/sessions/s1/messages/{message_id}")).status_code == 200
        r = await api.post("/v1/search", json={"query": f"pin {SECRET}", "user_id": "ada", "mode": "keyword"})
        assert r.status_code == 200, r.text
        assert (await api.get("/v1/sessions?user_id=ada")).status_code == 200
        assert (await api.get("/v1/sessions/nope/memory")).status_code == 404
    return str(message_id)


async def test_every_read_and_write_is_recorded_without_content(
    app: FastAPI, admin: httpx.AsyncClient, db: AsyncEngine
) -> None:
    tenant, key_id, key = await audited_tenant(app, admin)
    message_id = await traffic(app, key)
    found = await until(lambda: _at_least(admin, tenant, 7))
    ops = [e["operation"] for e in reversed(found)]  # the list is newest first
    assert ops == [
        "create_session",
        "append_messages",
        "get_memory",
        "get_message",
        "search",
        "list_sessions",
        "get_memory",
    ]
    by_op = {e["operation"]: e for e in found}
    for e in found:
        assert e["key_id"] == key_id
        assert e["client"] == "127.0.0.1"
        assert e["request_id"] == "req-audit-1"
    assert by_op["append_messages"]["method"] == "POST" and by_op["append_messages"]["status"] == 201
    # Whose memory: the session's user is filled in; a search's scope comes from its body.
    assert by_op["get_message"]["session_id"] == "s1" and by_op["get_message"]["user_id"] == "ada"
    assert by_op["get_message"]["ids"] == {"message_id": message_id}
    assert by_op["search"]["user_id"] == "ada"
    assert by_op["list_sessions"]["user_id"] == "ada"
    missing = found[0]  # the newest: a read of a session that does not exist
    assert missing["status"] == 404 and missing["session_id"] is None
    # Never the content, nor a query's text: not in the API's answer, the export or the rows.
    rows = await fetch(db, "SELECT row_to_json(a)::text FROM audit_events a WHERE tenant_id = :t", t=tenant)
    assert len(rows) == 7
    assert SECRET not in "".join(r[0] for r in rows)
    r = await admin.get(f"/v1/admin/tenants/{tenant}/audit/export")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    lines = [orjson.loads(line) for line in r.text.splitlines()]
    assert [e["operation"] for e in lines] == ops  # oldest first
    assert SECRET not in r.text


async def _at_least(admin: httpx.AsyncClient, tenant: str, n: int) -> list[dict[str, Any]] | None:
    found = await events(admin, tenant)
    return found if len(found) >= n else None


async def test_filters_and_pages(app: FastAPI, admin: httpx.AsyncClient) -> None:
    tenant, key_id, key = await audited_tenant(app, admin)
    await traffic(app, key)
    everything = await until(lambda: _at_least(admin, tenant, 7))
    assert [e["operation"] for e in await events(admin, tenant, operation="get_memory")] == ["get_memory"] * 2
    assert len(await events(admin, tenant, session_id="s1")) == 4  # created, appended, read twice
    assert len(await events(admin, tenant, key_id=key_id)) == 7
    assert await events(admin, tenant, key_id=str(uuid.uuid4())) == []
    assert await events(admin, tenant, since="2999-01-01T00:00:00Z") == []
    walked: list[int] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 3, **({"cursor": cursor} if cursor else {})}
        r = await admin.get(f"/v1/admin/tenants/{tenant}/audit/events", params=params)
        assert r.status_code == 200, r.text
        walked += [e["id"] for e in r.json()["items"]]
        cursor = r.json()["next_cursor"]
        if cursor is None:
            break
    assert walked == [e["id"] for e in everything]
    r = await admin.get(f"/v1/admin/tenants/{tenant}/audit/events", params={"cursor": "garbage"})
    assert r.status_code == 400
    # Admin only: a tenant's own key cannot read it.
    async with client_for(app, {"Authorization": f"Bearer {key}"}) as api:
        assert (await api.get(f"/v1/admin/tenants/{tenant}/audit/events")).status_code in (401, 403)


async def test_off_by_default_records_nothing(
    app: FastAPI, admin: httpx.AsyncClient, db: AsyncEngine
) -> None:
    tenant, _, key = await audited_tenant(app, admin, on=False)
    await traffic(app, key)
    r = await admin.get(f"/v1/admin/tenants/{tenant}/audit")
    assert r.json()["enabled"] is False
    await asyncio.sleep(1.0)  # five flush intervals
    assert await fetch(db, "SELECT id FROM audit_events WHERE tenant_id = :t", t=tenant) == []
    assert (await admin.get("/v1/admin/tenants/nobody-here/audit")).status_code == 404
    assert (await admin.get("/v1/admin/tenants/nobody-here/audit/export")).status_code == 404


async def test_append_only(app: FastAPI, admin: httpx.AsyncClient, db: AsyncEngine) -> None:
    tenant, _, key = await audited_tenant(app, admin)
    await traffic(app, key)
    await until(lambda: _at_least(admin, tenant, 7))
    for sql in (
        "UPDATE audit_events SET operation = 'nothing' WHERE tenant_id = :t",
        "DELETE FROM audit_events WHERE tenant_id = :t",
        "TRUNCATE audit_events",
    ):
        with pytest.raises(DBAPIError, match="append-only"):
            async with db.begin() as conn:
                await conn.execute(text(sql), {"t": tenant})
    assert len(await fetch(db, "SELECT id FROM audit_events WHERE tenant_id = :t", t=tenant)) == 7


async def test_a_purge_removes_the_users_events_and_is_recorded_without_them(
    app: FastAPI, admin: httpx.AsyncClient, db: AsyncEngine
) -> None:
    tenant, _, key = await audited_tenant(app, admin)
    await traffic(app, key)
    async with client_for(app, {"Authorization": f"Bearer {key}"}) as api:
        assert (await api.post("/v1/sessions", json={"user_id": "bo"})).status_code == 201
        assert (await api.delete("/v1/users/ada")).status_code == 204

    async def purged() -> list[dict[str, Any]] | None:
        found = await events(admin, tenant)
        return found if found and found[0]["operation"] == "delete_user" else None

    found = await until(purged)
    assert found[0]["status"] == 204 and found[0]["user_id"] is None
    ada = await fetch(
        db,
        "SELECT id FROM audit_events WHERE tenant_id = :t AND (user_id = 'ada' OR session_id = 's1')",
        t=tenant,
    )
    assert ada == []
    # Events written after the purge are kept without the purged ids; others keep theirs.
    assert "bo" in [e["user_id"] for e in found if e["operation"] == "create_session"]


async def test_retention_and_tenant_deletion(app: FastAPI, admin: httpx.AsyncClient, db: AsyncEngine) -> None:
    short, _, _ = await audited_tenant(app, admin)
    long, _, _ = await audited_tenant(app, admin)
    r = await admin.put(f"/v1/admin/tenants/{short}/audit", json={"enabled": True, "retention_days": 1})
    assert r.json()["retention_days"] == 1
    async with db.begin() as conn:
        for tenant in (short, long):
            for age in (timedelta(days=3), timedelta(hours=1)):
                await conn.execute(
                    text(
                        "INSERT INTO audit_events (tenant_id, at, method, operation, status) "
                        "VALUES (:t, now() - CAST(:age AS interval), 'GET', 'get_memory', 200)"
                    ),
                    {"t": tenant, "age": age},
                )
    assert await expire(db, default_days=2) >= 2
    left = await fetch(
        db,
        "SELECT tenant_id, count(*) FROM audit_events WHERE tenant_id IN (:a, :b) GROUP BY 1",
        a=short,
        b=long,
    )
    assert dict(left) == {short: 1, long: 1}  # both kept the hour-old one; 3 days > 1 and > 2
    # A tenant's deletion takes its audit trail along (the trigger lets the cascade through).
    async with db.begin() as conn:
        await conn.execute(text("DELETE FROM tenants WHERE tenant_id = :t"), {"t": short})
    assert await fetch(db, "SELECT id FROM audit_events WHERE tenant_id = :t", t=short) == []

"""DELETE /v1/users/{id} purges: zero rows of that user remain in any table that has a user_id or
session_id column (found from information_schema, so a new table is checked without editing this
test), and nobody else's rows are touched."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.support.app import client_for

CORE_TABLES = {"users", "sessions", "messages", "idempotency_keys"}


@dataclass
class Table:
    name: str
    has_user_id: bool
    has_session_id: bool


@dataclass
class Owner:
    """One user of one tenant, and the sessions they had."""

    tenant_id: str
    user_id: str
    session_ids: list[str]


async def scoped_tables(db: AsyncEngine) -> list[Table]:
    async with db.connect() as conn:
        rows = (
            await conn.execute(
                text(
                    "SELECT c.table_name, array_agg(c.column_name::text) AS cols "
                    "FROM information_schema.columns c JOIN information_schema.tables t "
                    "  ON t.table_schema = c.table_schema AND t.table_name = c.table_name "
                    "WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' "
                    "GROUP BY c.table_name "
                    "HAVING bool_or(c.column_name IN ('user_id', 'session_id')) "
                    "ORDER BY c.table_name"
                )
            )
        ).all()
    tables = []
    for name, cols in rows:
        assert "tenant_id" in cols, f"table {name} holds user data without a tenant_id column"
        tables.append(Table(name, "user_id" in cols, "session_id" in cols))
    return tables


async def count_rows(db: AsyncEngine, table: Table, owner: Owner) -> int:
    """Rows of `owner` in `table`: by user_id where the table has it, else by the user's sessions."""
    params: dict[str, Any] = {"t": owner.tenant_id, "u": owner.user_id, "sids": owner.session_ids}
    where = "user_id = :u" if table.has_user_id else "session_id = ANY(:sids)"
    async with db.connect() as conn:
        n = await conn.scalar(
            text(f'SELECT count(*) FROM "{table.name}" WHERE tenant_id = :t AND {where}'),
            params,
        )
    return int(n or 0)


async def census(db: AsyncEngine, tables: list[Table], owner: Owner) -> dict[str, int]:
    return {t.name: await count_rows(db, t, owner) for t in tables}


async def tenant_client(app: FastAPI, admin: httpx.AsyncClient) -> tuple[str, httpx.AsyncClient]:
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    r = await admin.post("/v1/admin/keys", json={"tenant_id": tenant})
    assert r.status_code == 201, r.text
    return tenant, client_for(app, {"Authorization": f"Bearer {r.json()['key']}"})


async def populate(api: httpx.AsyncClient, tenant: str, user_id: str, prefix: str) -> Owner:
    """A user with metadata, two sessions (one ended), messages and idempotency keys."""
    assert (await api.put(f"/v1/users/{user_id}", json={"metadata": {"who": user_id}})).status_code == 201
    sids = [f"{prefix}-1", f"{prefix}-2"]
    for i, sid in enumerate(sids):
        r = await api.post("/v1/sessions", json={"session_id": sid, "user_id": user_id, "metadata": {"i": i}})
        assert r.status_code == 201, r.text
        for key in ("k1", "k2"):
            body = {
                "messages": [
                    {"role": "user", "content": f"{user_id} says {key}"},
                    {"role": "assistant", "content": "ok"},
                ]
            }
            r = await api.post(f"/v1/sessions/{sid}/messages", json=body, headers={"Idempotency-Key": key})
            assert r.status_code == 201, r.text
        r = await api.post(
            f"/v1/sessions/{sid}/messages", json={"messages": [{"role": "tool", "content": "no key"}]}
        )
        assert r.status_code == 201
    assert (await api.patch(f"/v1/sessions/{sids[1]}", json={"ended": True})).status_code == 200
    return Owner(tenant, user_id, sids)


async def test_purge_leaves_no_row_of_the_user_and_touches_nobody_else(
    app: FastAPI, admin: httpx.AsyncClient, db: AsyncEngine
) -> None:
    tables = await scoped_tables(db)
    assert {t.name for t in tables} >= CORE_TABLES

    tenant_a, a = await tenant_client(app, admin)
    tenant_b, b = await tenant_client(app, admin)
    async with a, b:
        victim = await populate(a, tenant_a, "victim", "v")
        neighbour = await populate(a, tenant_a, "neighbour", "n")
        # The same user id and session ids in another tenant: a purge must not cross over.
        twin = await populate(b, tenant_b, "victim", "v")

        # The worker runs in the app and legitimately works through the others' jobs (the summary
        # of an ended session, embeddings): it deletes a job when done and writes derived rows, so
        # their counts would move on their own. Hold the others' jobs locked across the purge: the
        # lock waits for a step in flight, then the worker skips them (SKIP LOCKED) and leaves their
        # sessions alone, so any change in their counts is the purge's doing. A purge that reached
        # into their jobs would wait on this lock, hence the timeout.
        async with db.connect() as hold:
            await hold.execute(
                text(
                    "SELECT 1 FROM jobs WHERE (tenant_id = :ta AND session_id = ANY(:na)) "
                    "OR (tenant_id = :tb AND session_id = ANY(:nb)) FOR UPDATE"
                ),
                {"ta": tenant_a, "na": neighbour.session_ids, "tb": tenant_b, "nb": twin.session_ids},
            )
            before = {o.tenant_id + o.user_id: await census(db, tables, o) for o in (victim, neighbour, twin)}
            for counts in before.values():
                assert all(counts[t] > 0 for t in CORE_TABLES), counts
            mids = [m["message_id"] for m in (await a.get("/v1/sessions/v-1/messages")).json()["items"]]

            try:
                r = await asyncio.wait_for(a.delete("/v1/users/victim"), timeout=60)
            except TimeoutError:
                pytest.fail("the purge waited on another user's jobs")
            assert r.status_code == 204, r.text

            leftovers = {name: n for name, n in (await census(db, tables, victim)).items() if n}
            assert not leftovers, f"rows of the purged user remain: {leftovers}"
            assert await census(db, tables, neighbour) == before[tenant_a + "neighbour"]
            assert await census(db, tables, twin) == before[tenant_b + "victim"]
            await hold.rollback()

        # Through the API too: nothing of the user answers any more.
        assert (await a.get("/v1/users/victim")).status_code == 404
        assert (await a.get("/v1/sessions", params={"user_id": "victim"})).status_code == 404
        for sid in victim.session_ids:
            assert (await a.get(f"/v1/sessions/{sid}")).status_code == 404
            assert (await a.get(f"/v1/sessions/{sid}/messages")).status_code == 404
        for mid in mids:
            assert (await a.get(f"/v1/sessions/v-1/messages/{mid}")).status_code == 404
        assert [u["user_id"] for u in (await a.get("/v1/users")).json()["items"]] == ["neighbour"]
        assert (await a.delete("/v1/users/victim")).status_code == 404

        # The other tenant's twin still reads the same.
        assert (await b.get("/v1/users/victim")).json()["metadata"] == {"who": "victim"}
        assert len((await b.get("/v1/sessions/v-1/messages")).json()["items"]) == 5

        # The ids are free: a new user with the old ids starts empty, and old keys do not replay.
        assert (await a.put("/v1/users/victim", json={})).status_code == 201
        assert (await a.get("/v1/sessions", params={"user_id": "victim"})).json()["items"] == []
        assert (
            await a.post("/v1/sessions", json={"session_id": "v-1", "user_id": "victim"})
        ).status_code == 201
        body = {
            "messages": [
                {"role": "user", "content": "victim says k1"},
                {"role": "assistant", "content": "ok"},
            ]
        }
        r = await a.post("/v1/sessions/v-1/messages", json=body, headers={"Idempotency-Key": "k1"})
        assert r.status_code == 201
        assert "Idempotent-Replayed" not in r.headers
        assert [m["seq"] for m in r.json()["messages"]] == [1, 2]


async def test_purge_of_a_user_without_sessions(api: httpx.AsyncClient) -> None:
    assert (await api.put("/v1/users/solo", json={"metadata": {"x": 1}})).status_code == 201
    assert (await api.delete("/v1/users/solo")).status_code == 204
    assert (await api.get("/v1/users/solo")).status_code == 404


async def test_purge_of_an_unknown_user_is_404_and_deletes_nothing(api: httpx.AsyncClient) -> None:
    assert (await api.post("/v1/sessions", json={"session_id": "s", "user_id": "real"})).status_code == 201
    r = await api.delete("/v1/users/unknown")
    assert r.status_code == 404
    assert r.headers["content-type"] == "application/problem+json"
    assert (await api.get("/v1/sessions/s")).status_code == 200

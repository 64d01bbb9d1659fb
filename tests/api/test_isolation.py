"""Tenant isolation for every /v1 operation of the OpenAPI spec, and who may call what.

Tenant B, holding tenant A's real ids, must get exactly what it gets for ids that never existed (a
404 that tells nothing), must never see A's rows in a list, and must leave A's data unchanged. PUT
/v1/users/{id} and POST /v1/sessions with A's ids create B's own rows. The table below has one case
per operation; a new operation without a case fails `test_every_v1_operation_has_an_isolation_case`.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from mcp import Client
from mcp.types import CallToolResult

from app.main import create_app
from tests.support.app import ADMIN_TOKEN, client_for, make_settings, new_tenant_client
from tests.support.mcp_client import asgi_mcp_client
from tests.support.mcp_client import ok as mcp_ok
from tests.support.mcp_client import problem as mcp_problem

PROBLEM = "application/problem+json"
METHODS = ("get", "put", "post", "patch", "delete")
GHOST_USER, GHOST_SESSION = "ghost-user", "ghost-session"


@dataclass
class World:
    a: httpx.AsyncClient  # the owner
    b: httpx.AsyncClient  # the intruder
    user_id: str
    session_id: str
    message_id: str
    idempotency_key: str
    b_session_id: str
    fact_id: str


async def build_world(a: httpx.AsyncClient, b: httpx.AsyncClient) -> World:
    async def ok(r: Awaitable[httpx.Response]) -> dict[str, Any]:
        resp = await r
        assert resp.status_code in (200, 201), resp.text
        out: dict[str, Any] = resp.json()
        return out

    await ok(a.put("/v1/users/alice", json={"metadata": {"owner": "A"}}))
    await ok(
        a.post("/v1/sessions", json={"session_id": "a-sess", "user_id": "alice", "metadata": {"o": "A"}})
    )
    await ok(a.post("/v1/sessions", json={"session_id": "a-sess-2", "user_id": "alice"}))
    batch = {"messages": [{"role": "user", "content": "A's secret", "metadata": {"o": "A"}}]}
    stored = await ok(
        a.post("/v1/sessions/a-sess/messages", json=batch, headers={"Idempotency-Key": "a-key"})
    )
    await ok(
        a.post("/v1/sessions/a-sess/messages", json={"messages": [{"role": "assistant", "content": "ok"}]})
    )

    fact = await ok(
        a.post("/v1/users/alice/facts", json={"content": "A's fact: lives in Lisbon.", "subject": "home"})
    )

    await ok(b.post("/v1/sessions", json={"session_id": "b-sess", "user_id": "bob"}))
    await ok(b.post("/v1/sessions/b-sess/messages", json={"messages": [{"role": "user", "content": "B's"}]}))
    return World(
        a=a,
        b=b,
        user_id="alice",
        session_id="a-sess",
        message_id=stored["messages"][0]["message_id"],
        idempotency_key="a-key",
        b_session_id="b-sess",
        fact_id=fact["fact_id"],
    )


async def snapshot(w: World) -> dict[str, Any]:
    """Everything A can read, to compare before and after B's attempts."""
    a = w.a
    msgs = (await a.get(f"/v1/sessions/{w.session_id}/messages")).json()
    return {
        "users": (await a.get("/v1/users")).json(),
        "user": (await a.get(f"/v1/users/{w.user_id}")).json(),
        "sessions": (await a.get("/v1/sessions", params={"user_id": w.user_id})).json(),
        "session": (await a.get(f"/v1/sessions/{w.session_id}")).json(),
        "messages": msgs,
        "message": (await a.get(f"/v1/sessions/{w.session_id}/messages/{w.message_id}")).json(),
        "facts": _without_volatile((await a.get(f"/v1/users/{w.user_id}/facts")).json()),
        "fact_history": (await a.get(f"/v1/facts/{w.fact_id}/history")).json(),
        "replay": (
            await a.post(
                f"/v1/sessions/{w.session_id}/messages",
                json={"messages": [{"role": "user", "content": "A's secret", "metadata": {"o": "A"}}]},
                headers={"Idempotency-Key": w.idempotency_key},
            )
        ).json(),
    }


def _without_volatile(page: dict[str, Any]) -> dict[str, Any]:
    """A fact's faded importance moves with the clock; the rest must not move."""
    for item in page.get("items", []):
        item.pop("current_importance", None)
    return page


async def assert_hidden(real: httpx.Response, ghost: httpx.Response, real_id: str, ghost_id: str) -> None:
    """A's real id answers exactly like an id that never existed."""
    assert real.status_code == 404, real.text
    assert real.headers["content-type"] == PROBLEM
    assert real.json()["type"] == "urn:engram:problem:not-found"
    assert ghost.status_code == 404, ghost.text
    r, g = real.json(), ghost.json()
    assert r["type"] == g["type"] and r["title"] == g["title"]
    assert r["detail"].replace(real_id, "<id>") == g["detail"].replace(ghost_id, "<id>")
    assert "A's" not in real.text


# --- one case per operation -----------------------------------------------------------------------


async def list_users(w: World) -> None:
    r = await w.b.get("/v1/users")
    assert r.status_code == 200
    assert [u["user_id"] for u in r.json()["items"]] == ["bob"]
    # A's cursor only moves B through B's own users.
    cursor = (await w.a.get("/v1/users", params={"limit": 1})).json()["next_cursor"]
    if cursor is not None:
        r = await w.b.get("/v1/users", params={"cursor": cursor})
        assert all(u["user_id"] != w.user_id for u in r.json()["items"])


async def put_user(w: World) -> None:
    r = await w.b.put(f"/v1/users/{w.user_id}", json={"metadata": {"owner": "B"}})
    assert r.status_code == 201, "B was told the user already exists"
    assert r.json()["metadata"] == {"owner": "B"}
    assert (await w.b.get(f"/v1/users/{w.user_id}")).json()["metadata"] == {"owner": "B"}
    # B's new user has none of A's sessions.
    r = await w.b.get("/v1/sessions", params={"user_id": w.user_id})
    assert r.status_code == 200
    assert r.json()["items"] == []


async def get_user(w: World) -> None:
    real = await w.b.get(f"/v1/users/{w.user_id}")
    await assert_hidden(real, await w.b.get(f"/v1/users/{GHOST_USER}"), w.user_id, GHOST_USER)


async def delete_user(w: World) -> None:
    real = await w.b.delete(f"/v1/users/{w.user_id}")
    await assert_hidden(real, await w.b.delete(f"/v1/users/{GHOST_USER}"), w.user_id, GHOST_USER)


async def create_session(w: World) -> None:
    body = {"session_id": w.session_id, "user_id": w.user_id, "metadata": {"o": "B"}}
    r = await w.b.post("/v1/sessions", json=body)
    assert r.status_code == 201, "B was told the session id is taken"
    assert r.json()["metadata"] == {"o": "B"}
    assert r.json()["last_seq"] == 0
    assert (await w.b.get(f"/v1/sessions/{w.session_id}/messages")).json()["items"] == []
    r = await w.b.post(
        f"/v1/sessions/{w.session_id}/messages",
        json={"messages": [{"role": "user", "content": "B's own"}]},
        headers={"Idempotency-Key": w.idempotency_key},
    )
    assert r.status_code == 201
    assert "Idempotent-Replayed" not in r.headers
    assert [m["seq"] for m in r.json()["messages"]] == [1]
    assert (await w.b.get(f"/v1/users/{w.user_id}")).json()["metadata"] == {}


async def list_sessions(w: World) -> None:
    r = await w.b.get("/v1/sessions")
    assert r.status_code == 200
    assert [s["session_id"] for s in r.json()["items"]] == [w.b_session_id]
    real = await w.b.get("/v1/sessions", params={"user_id": w.user_id})
    await assert_hidden(
        real, await w.b.get("/v1/sessions", params={"user_id": GHOST_USER}), w.user_id, GHOST_USER
    )


async def get_session(w: World) -> None:
    real = await w.b.get(f"/v1/sessions/{w.session_id}")
    await assert_hidden(real, await w.b.get(f"/v1/sessions/{GHOST_SESSION}"), w.session_id, GHOST_SESSION)


async def patch_session(w: World) -> None:
    for body in ({"metadata": {"o": "B"}}, {"ended": True}):
        real = await w.b.patch(f"/v1/sessions/{w.session_id}", json=body)
        ghost = await w.b.patch(f"/v1/sessions/{GHOST_SESSION}", json=body)
        await assert_hidden(real, ghost, w.session_id, GHOST_SESSION)


async def delete_session(w: World) -> None:
    real = await w.b.delete(f"/v1/sessions/{w.session_id}")
    await assert_hidden(real, await w.b.delete(f"/v1/sessions/{GHOST_SESSION}"), w.session_id, GHOST_SESSION)


async def append_messages(w: World) -> None:
    same_body = {"messages": [{"role": "user", "content": "A's secret", "metadata": {"o": "A"}}]}
    for headers in ({}, {"Idempotency-Key": w.idempotency_key}, {"Idempotency-Key": "fresh"}):
        real = await w.b.post(f"/v1/sessions/{w.session_id}/messages", json=same_body, headers=headers)
        ghost = await w.b.post(f"/v1/sessions/{GHOST_SESSION}/messages", json=same_body, headers=headers)
        await assert_hidden(real, ghost, w.session_id, GHOST_SESSION)


async def list_messages(w: World) -> None:
    real = await w.b.get(f"/v1/sessions/{w.session_id}/messages")
    await assert_hidden(
        real, await w.b.get(f"/v1/sessions/{GHOST_SESSION}/messages"), w.session_id, GHOST_SESSION
    )
    cursor = (await w.a.get(f"/v1/sessions/{w.session_id}/messages", params={"limit": 1})).json()[
        "next_cursor"
    ]
    real = await w.b.get(f"/v1/sessions/{w.session_id}/messages", params={"cursor": cursor})
    assert real.status_code == 404
    # A's cursor in B's own session pages B's messages only.
    r = await w.b.get(f"/v1/sessions/{w.b_session_id}/messages", params={"cursor": cursor, "order": "asc"})
    assert all("A's" not in m["content"] for m in r.json().get("items", []))


def message_paths(w: World) -> list[tuple[str, str, str, str]]:
    """(real path, ghost path, real id, ghost id): A's message via A's session and via B's own session."""
    ghost_mid = str(uuid.uuid4())
    return [
        (
            f"/v1/sessions/{w.session_id}/messages/{w.message_id}",
            f"/v1/sessions/{GHOST_SESSION}/messages/{w.message_id}",
            w.session_id,
            GHOST_SESSION,
        ),
        (
            f"/v1/sessions/{w.b_session_id}/messages/{w.message_id}",
            f"/v1/sessions/{w.b_session_id}/messages/{ghost_mid}",
            w.message_id,
            ghost_mid,
        ),
    ]


async def get_message(w: World) -> None:
    for real, ghost, rid, gid in message_paths(w):
        await assert_hidden(await w.b.get(real), await w.b.get(ghost), rid, gid)


async def patch_message(w: World) -> None:
    body = {"content": "B was here", "metadata": {"o": "B"}}
    for real, ghost, rid, gid in message_paths(w):
        await assert_hidden(await w.b.patch(real, json=body), await w.b.patch(ghost, json=body), rid, gid)


async def delete_message(w: World) -> None:
    for real, ghost, rid, gid in message_paths(w):
        await assert_hidden(await w.b.delete(real), await w.b.delete(ghost), rid, gid)


async def search(w: World) -> None:
    for mode in ("hybrid", "semantic", "keyword"):
        for scope in (
            {},
            {"user_id": w.user_id},
            {"session_id": w.session_id},
            {"filters": {"session_ids": [w.session_id]}},
        ):
            body = {"query": "A's secret", "mode": mode, "limit": 100, "wait_for_indexing_ms": 5000, **scope}
            r = await w.b.post("/v1/search", json=body)
            assert r.status_code == 200, r.text
            assert all(h["session_id"] == w.b_session_id for h in r.json()["results"])
            assert "A's" not in r.text


async def indexing_status(w: World) -> None:
    real = await w.b.get("/v1/indexing", params={"session_id": w.session_id})
    ghost = await w.b.get("/v1/indexing", params={"session_id": GHOST_SESSION})
    await assert_hidden(real, ghost, w.session_id, GHOST_SESSION)
    real = await w.b.get("/v1/indexing", params={"user_id": w.user_id})
    ghost = await w.b.get("/v1/indexing", params={"user_id": GHOST_USER})
    await assert_hidden(real, ghost, w.user_id, GHOST_USER)
    mine = (await w.b.get("/v1/indexing")).json()
    assert mine["pending"] + mine["failed"] <= 1  # B's one message, never A's two


async def list_failed(w: World) -> None:
    for params in ({}, {"user_id": w.user_id}, {"session_id": w.session_id}):
        r = await w.b.get("/v1/indexing/failed", params=params)
        assert r.status_code == 200
        assert r.json()["items"] == []


async def retry_failed(w: World) -> None:
    for body in ({}, {"user_id": w.user_id}, {"session_id": w.session_id}, {"message_ids": [w.message_id]}):
        r = await w.b.post("/v1/indexing/retry", json=body)
        assert r.status_code == 200
        assert r.json() == {"retried": 0}


async def list_facts(w: World) -> None:
    real = await w.b.get(f"/v1/users/{w.user_id}/facts")
    await assert_hidden(real, await w.b.get(f"/v1/users/{GHOST_USER}/facts"), w.user_id, GHOST_USER)
    for params in ({"include_invalid": "true"}, {"as_of": "2100-01-01T00:00:00Z"}):
        r = await w.b.get(f"/v1/users/{w.user_id}/facts", params=params)
        assert r.status_code == 404 and "A's" not in r.text


async def add_fact(w: World) -> None:
    # B's "alice" is B's own user: B's fact lands there, and A's facts are untouched (snapshot).
    r = await w.b.post(f"/v1/users/{w.user_id}/facts", json={"content": "A's fact: lives in Lisbon."})
    assert r.status_code == 201, "B was told the fact already exists"
    items = (await w.b.get(f"/v1/users/{w.user_id}/facts")).json()["items"]
    assert [f["fact_id"] for f in items] == [r.json()["fact_id"]] != [w.fact_id]
    # An exclusive fact of B's does not end A's fact with the same subject.
    r = await w.b.post(
        f"/v1/users/{w.user_id}/facts",
        json={"content": "Lives in Oslo.", "subject": "home", "exclusive": True},
    )
    assert r.status_code == 201


def _fact_op(
    method: str, suffix: str = "", body: dict[str, Any] | None = None
) -> Callable[[World], Awaitable[None]]:
    async def case(w: World) -> None:
        ghost = str(uuid.uuid4())
        kw: dict[str, Any] = {"json": body} if body is not None else {}
        real = await w.b.request(method, f"/v1/facts/{w.fact_id}{suffix}", **kw)
        fake = await w.b.request(method, f"/v1/facts/{ghost}{suffix}", **kw)
        await assert_hidden(real, fake, w.fact_id, ghost)

    return case


get_fact = _fact_op("GET")
patch_fact = _fact_op("PATCH", body={"content": "B was here."})
delete_fact = _fact_op("DELETE")
fact_history = _fact_op("GET", "/history")


def _session_read(suffix: str, method: str = "get") -> Callable[[World], Awaitable[None]]:
    """A read of one session's derived view: A's real session id must look like a ghost's."""

    async def case(w: World) -> None:
        call = getattr(w.b, method)
        real = await call(f"/v1/sessions/{w.session_id}/{suffix}")
        ghost = await call(f"/v1/sessions/{GHOST_SESSION}/{suffix}")
        await assert_hidden(real, ghost, w.session_id, GHOST_SESSION)
        # B's own session answers normally, with nothing of A's.
        own = await call(f"/v1/sessions/{w.b_session_id}/{suffix}")
        assert own.status_code in (200, 202), own.text
        assert "A's" not in own.text

    return case


get_memory = _session_read("memory")
get_summary = _session_read("summary")
list_summaries = _session_read("summaries")
session_stats = _session_read("stats")
summarize = _session_read("summarize", method="post")
get_extraction = _session_read("extraction")
extract = _session_read("extract", method="post")


async def export_user(w: World) -> None:
    real = await w.b.get(f"/v1/users/{w.user_id}/export")
    await assert_hidden(real, await w.b.get(f"/v1/users/{GHOST_USER}/export"), w.user_id, GHOST_USER)


async def import_user(w: World) -> None:
    """B imports A's own export: it lands in B's user of that id, on ids of B's own (A holds the
    originals), and B's answer is the one it gets for the same file with ids no one holds."""
    ndjson = {"Content-Type": "application/x-ndjson"}
    file = (await w.a.get(f"/v1/users/{w.user_id}/export")).content
    real = await w.b.post(f"/v1/users/{w.user_id}/import", content=file, headers=ndjson)
    assert real.status_code == 200, real.text
    text = file.decode()
    for old in {*re.findall(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", text)}:
        text = text.replace(old, str(uuid.uuid4()))
    text = text.replace(f'"{w.session_id}', '"g-sess')  # B's own sessions have A's ids now
    ghost = await w.b.post(f"/v1/users/{GHOST_USER}/import", content=text.encode(), headers=ndjson)
    assert ghost.status_code == 200, ghost.text
    assert {**real.json(), "user_id": GHOST_USER} == ghost.json()
    copy = (await w.b.get(f"/v1/users/{w.user_id}/export")).text
    assert "A's secret" in copy  # B's own copy of what A gave it
    assert w.message_id not in copy and w.fact_id not in copy
    real = await w.b.get(f"/v1/sessions/{w.session_id}/messages/{w.message_id}")
    assert real.status_code == 404


Case = Callable[[World], Awaitable[None]]
CASES: dict[tuple[str, str], Case] = {
    ("GET", "/v1/users"): list_users,
    ("PUT", "/v1/users/{user_id}"): put_user,
    ("GET", "/v1/users/{user_id}"): get_user,
    ("DELETE", "/v1/users/{user_id}"): delete_user,
    ("POST", "/v1/sessions"): create_session,
    ("GET", "/v1/sessions"): list_sessions,
    ("GET", "/v1/sessions/{session_id}"): get_session,
    ("PATCH", "/v1/sessions/{session_id}"): patch_session,
    ("DELETE", "/v1/sessions/{session_id}"): delete_session,
    ("POST", "/v1/sessions/{session_id}/messages"): append_messages,
    ("GET", "/v1/sessions/{session_id}/messages"): list_messages,
    ("GET", "/v1/sessions/{session_id}/messages/{message_id}"): get_message,
    ("PATCH", "/v1/sessions/{session_id}/messages/{message_id}"): patch_message,
    ("DELETE", "/v1/sessions/{session_id}/messages/{message_id}"): delete_message,
    ("GET", "/v1/sessions/{session_id}/memory"): get_memory,
    ("GET", "/v1/sessions/{session_id}/summary"): get_summary,
    ("GET", "/v1/sessions/{session_id}/summaries"): list_summaries,
    ("GET", "/v1/sessions/{session_id}/stats"): session_stats,
    ("POST", "/v1/sessions/{session_id}/summarize"): summarize,
    ("GET", "/v1/users/{user_id}/facts"): list_facts,
    ("POST", "/v1/users/{user_id}/facts"): add_fact,
    ("GET", "/v1/facts/{fact_id}"): get_fact,
    ("PATCH", "/v1/facts/{fact_id}"): patch_fact,
    ("DELETE", "/v1/facts/{fact_id}"): delete_fact,
    ("GET", "/v1/facts/{fact_id}/history"): fact_history,
    ("GET", "/v1/sessions/{session_id}/extraction"): get_extraction,
    ("POST", "/v1/sessions/{session_id}/extract"): extract,
    ("POST", "/v1/search"): search,
    ("GET", "/v1/indexing"): indexing_status,
    ("GET", "/v1/indexing/failed"): list_failed,
    ("POST", "/v1/indexing/retry"): retry_failed,
    ("GET", "/v1/users/{user_id}/export"): export_user,
    ("POST", "/v1/users/{user_id}/import"): import_user,
}


# --- the spec and the table agree -----------------------------------------------------------------


def spec_operations(database_url: str) -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """(METHOD, path, operation, spec) for every operation the app serves."""
    spec = create_app(make_settings(database_url)).openapi()
    return [
        (method.upper(), path, op, spec)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if method in METHODS
    ]


def tenant_operations(database_url: str) -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    return [
        o
        for o in spec_operations(database_url)
        if o[1].startswith("/v1/") and not o[1].startswith("/v1/admin")
    ]


def admin_operations(database_url: str) -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    return [o for o in spec_operations(database_url) if o[1].startswith("/v1/admin/")]


def test_every_v1_operation_has_an_isolation_case(database_url: str) -> None:
    served = {(m, p) for m, p, _, _ in tenant_operations(database_url)}
    missing = served - set(CASES)
    assert not missing, f"operations without a tenant-isolation case: {sorted(missing)}"
    stale = set(CASES) - served
    assert not stale, f"cases for operations the app no longer serves: {sorted(stale)}"
    assert len(served) >= 14


@pytest.mark.parametrize("operation", sorted(CASES), ids=lambda op: f"{op[0]} {op[1]}")
async def test_tenant_cannot_reach_another_tenants_data(
    api: httpx.AsyncClient, other_api: httpx.AsyncClient, operation: tuple[str, str]
) -> None:
    world = await build_world(api, other_api)
    before = await snapshot(world)
    await CASES[operation](world)
    assert await snapshot(world) == before, "tenant A's data changed"


# --- credentials ----------------------------------------------------------------------------------


def concrete(path: str) -> str:
    fill = {
        "user_id": "u-1",
        "session_id": "s-1",
        "message_id": str(uuid.uuid4()),
        "key_id": str(uuid.uuid4()),
        "fact_id": str(uuid.uuid4()),
        "tenant_id": "acme",
        "endpoint_id": str(uuid.uuid4()),
        "delivery_id": "1",
    }
    for name, value in fill.items():
        path = path.replace("{" + name + "}", value)
    assert "{" not in path, f"no sample value for a parameter of {path}"
    return path


def example_body(op: dict[str, Any], spec: dict[str, Any]) -> Any:
    """The operation's documented request example: a valid body, so only the credential is wrong."""
    schema = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return None
    name = schema["$ref"].rsplit("/", 1)[1]
    return spec["components"]["schemas"][name]["examples"][0]


async def call(
    client: httpx.AsyncClient, method: str, path: str, op: dict[str, Any], spec: dict[str, Any]
) -> httpx.Response:
    body = example_body(op, spec)
    if body is None:
        return await client.request(method, concrete(path))
    return await client.request(method, concrete(path), json=body)


def assert_401(r: httpx.Response) -> None:
    assert r.status_code == 401, r.text
    assert r.headers["content-type"] == PROBLEM
    assert r.json()["type"] == "urn:engram:problem:unauthorized"
    assert r.headers["www-authenticate"].lower().startswith("bearer")


async def test_every_v1_operation_refuses_a_missing_or_wrong_credential(
    app: FastAPI, database_url: str
) -> None:
    ops = tenant_operations(database_url)
    bad_headers: list[dict[str, str]] = [
        {},
        {"Authorization": "Bearer "},
        {"Authorization": "Basic dXNlcjpwYXNz"},
        {"Authorization": "Bearer egm_not-a-real-key"},
        {"Authorization": f"Bearer {ADMIN_TOKEN}"},  # the admin token is no tenant key
    ]
    for headers in bad_headers:
        async with client_for(app, headers) as c:
            for method, path, op, spec in ops:
                r = await call(c, method, path, op, spec)
                assert_401(r)


async def test_a_revoked_key_stops_working_on_every_operation(
    app: FastAPI, admin: httpx.AsyncClient, database_url: str
) -> None:
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    created = (await admin.post("/v1/admin/keys", json={"tenant_id": tenant})).json()
    async with client_for(app, {"Authorization": f"Bearer {created['key']}"}) as c:
        assert (await c.get("/v1/users")).status_code == 200  # the key is now cached
        assert (await admin.delete(f"/v1/admin/keys/{created['key_id']}")).status_code == 204
        for method, path, op, spec in tenant_operations(database_url):
            assert_401(await call(c, method, path, op, spec))


async def test_tenant_keys_are_refused_by_admin_operations(
    app: FastAPI, api: httpx.AsyncClient, admin: httpx.AsyncClient, database_url: str
) -> None:
    ops = admin_operations(database_url)
    assert {m for m, _, _, _ in ops} >= {"GET", "POST", "DELETE"}
    for method, path, op, spec in ops:
        r = await call(api, method, path, op, spec)
        assert r.status_code == 403, r.text
        assert r.headers["content-type"] == PROBLEM
        assert r.json()["type"] == "urn:engram:problem:forbidden"
    async with client_for(app) as anonymous:
        for method, path, op, spec in ops:
            assert_401(await call(anonymous, method, path, op, spec))
    # The refused POST created nothing.
    acme = (await admin.get("/v1/admin/keys", params={"tenant_id": "acme"})).json()["items"]
    assert acme == []


async def test_keys_of_one_tenant_share_its_data(app: FastAPI, admin: httpx.AsyncClient) -> None:
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    k1 = (await admin.post("/v1/admin/keys", json={"tenant_id": tenant, "name": "one"})).json()["key"]
    k2 = (await admin.post("/v1/admin/keys", json={"tenant_id": tenant, "name": "two"})).json()["key"]
    async with (
        client_for(app, {"Authorization": f"Bearer {k1}"}) as one,
        client_for(app, {"Authorization": f"Bearer {k2}"}) as two,
        await new_tenant_client(app, admin) as stranger,
    ):
        assert (await one.put("/v1/users/shared", json={"metadata": {"by": "one"}})).status_code == 201
        assert (await two.get("/v1/users/shared")).json()["metadata"] == {"by": "one"}
        assert (await stranger.get("/v1/users/shared")).status_code == 404


# --- the MCP half: every tool, through the SDK's client session at /mcp ---------------------------
# Tenant B's MCP session gets, for A's real ids, exactly the tool error it gets for ids that never
# existed, never A's data, and changes nothing of A's (the same snapshot as above). A tool without a
# case fails `test_every_mcp_tool_has_an_isolation_case`.


def _key(client: httpx.AsyncClient) -> str:
    return client.headers["authorization"].removeprefix("Bearer ")


def mcp_hidden(real: CallToolResult, ghost: CallToolResult, real_id: str, ghost_id: str) -> None:
    r, g = mcp_problem(real), mcp_problem(ghost)
    assert r["type"] == g["type"] == "urn:engram:problem:not-found"
    assert r["detail"].replace(real_id, "<id>") == g["detail"].replace(ghost_id, "<id>")
    assert "A's" not in str(real.content)


async def mcp_get_context(w: World, b: Client) -> None:
    for query in ({}, {"query": "A's secret"}):
        real = await b.call_tool("get_context", {"session_id": w.session_id, **query})
        ghost = await b.call_tool("get_context", {"session_id": GHOST_SESSION, **query})
        mcp_hidden(real, ghost, w.session_id, GHOST_SESSION)
    own = mcp_ok(await b.call_tool("get_context", {"session_id": w.b_session_id, "query": "A's secret"}))
    assert "A's" not in str(own)


async def mcp_remember(w: World, b: Client) -> None:
    same = [{"role": "user", "content": "A's secret", "metadata": {"o": "A"}}]
    real = await b.call_tool("remember", {"session_id": w.session_id, "messages": same})
    ghost = await b.call_tool("remember", {"session_id": GHOST_SESSION, "messages": same})
    mcp_hidden(real, ghost, w.session_id, GHOST_SESSION)
    # With a user, A's session id becomes B's own new session (as POST /v1/sessions does).
    mine = mcp_ok(
        await b.call_tool("remember", {"session_id": w.session_id, "user_id": w.user_id, "messages": same})
    )
    assert (mine["session_created"], mine["replayed"]) == (True, False)
    assert [m["seq"] for m in mine["messages"]] == [1]


async def mcp_search(w: World, b: Client) -> None:
    for scope in ({}, {"user_id": w.user_id}, {"session_id": w.session_id}):
        for kinds in (["messages"], ["facts"], ["messages", "facts", "summaries"]):
            args = {
                "query": "A's secret",
                "kinds": kinds,
                "limit": 100,
                "wait_for_indexing_ms": 5000,
                **scope,
            }
            found = mcp_ok(await b.call_tool("search", args))
            assert all(h["session_id"] in (w.b_session_id, None) for h in found["results"])
            assert "A's" not in str(found)


async def mcp_list_facts(w: World, b: Client) -> None:
    for extra in ({}, {"include_invalid": True}, {"as_of": "2100-01-01T00:00:00Z"}):
        real = await b.call_tool("list_facts", {"user_id": w.user_id, **extra})
        ghost = await b.call_tool("list_facts", {"user_id": GHOST_USER, **extra})
        mcp_hidden(real, ghost, w.user_id, GHOST_USER)


async def mcp_add_fact(w: World, b: Client) -> None:
    added = mcp_ok(
        await b.call_tool("add_fact", {"user_id": w.user_id, "content": "A's fact: lives in Lisbon."})
    )
    assert added["created"] is True and added["fact_id"] != w.fact_id
    exclusive = {"user_id": w.user_id, "content": "Lives in Oslo.", "subject": "home", "exclusive": True}
    assert mcp_ok(await b.call_tool("add_fact", exclusive))["created"] is True
    mine = mcp_ok(await b.call_tool("list_facts", {"user_id": w.user_id}))
    assert w.fact_id not in {f["fact_id"] for f in mine["items"]}


async def mcp_forget_fact(w: World, b: Client) -> None:
    ghost = str(uuid.uuid4())
    for redact in (False, True):
        real = await b.call_tool("forget_fact", {"fact_id": w.fact_id, "redact": redact})
        fake = await b.call_tool("forget_fact", {"fact_id": ghost, "redact": redact})
        mcp_hidden(real, fake, w.fact_id, ghost)


async def mcp_fact_history(w: World, b: Client) -> None:
    ghost = str(uuid.uuid4())
    real = await b.call_tool("fact_history", {"fact_id": w.fact_id})
    mcp_hidden(real, await b.call_tool("fact_history", {"fact_id": ghost}), w.fact_id, ghost)


McpCase = Callable[[World, Client], Awaitable[None]]
MCP_CASES: dict[str, McpCase] = {
    "get_context": mcp_get_context,
    "remember": mcp_remember,
    "search": mcp_search,
    "list_facts": mcp_list_facts,
    "add_fact": mcp_add_fact,
    "forget_fact": mcp_forget_fact,
    "fact_history": mcp_fact_history,
}


async def test_every_mcp_tool_has_an_isolation_case(app: FastAPI, api: httpx.AsyncClient) -> None:
    async with asgi_mcp_client(app, _key(api)) as client:
        served = {t.name for t in (await client.list_tools()).tools}
    assert served == set(MCP_CASES), f"tools without a case: {served - set(MCP_CASES)}"
    assert len(served) >= 7


@pytest.mark.parametrize("tool", sorted(MCP_CASES))
async def test_tenant_cannot_reach_another_tenants_data_over_mcp(
    app: FastAPI, api: httpx.AsyncClient, other_api: httpx.AsyncClient, tool: str
) -> None:
    world = await build_world(api, other_api)
    before = await snapshot(world)
    async with asgi_mcp_client(app, _key(other_api)) as b:
        await MCP_CASES[tool](world, b)
    assert await snapshot(world) == before, "tenant A's data changed"

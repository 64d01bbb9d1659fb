"""Every class of bad input gets an RFC 9457 problem with the right status and `type`, and stores
nothing. Most cases run against an app with small limits, so each limit is easy to cross; a 500
would surface here as an exception (the ASGI transport re-raises it), failing the test.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from fastapi import FastAPI

from tests.support.app import ADMIN_TOKEN, STARTUP, client_for, make_app, make_settings, new_tenant_client
from tests.support.problems import PROBLEM, assert_problem

SMALL = {
    "max_body_bytes": 2048,
    "max_content_bytes": 100,
    "max_batch_messages": 5,
    "max_metadata_bytes": 200,
    "max_metadata_depth": 3,
    "max_id_length": 16,
    "max_name_length": 20,
}
M = "/v1/sessions/s1/messages"
ONE = "/v1/sessions/s1/messages/{mid}"
JSON = {"Content-Type": "application/json"}


def msg(**fields: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": "x", **fields}]}


def forge(kind: str, key: list[Any], backward: Any = False) -> str:
    raw = json.dumps({"k": kind, "v": key, "b": backward}).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def nested(depth: int) -> dict[str, Any]:
    """An object `depth` levels deep: {"k": {"k": ... {"k": 1}}}."""
    node: dict[str, Any] = {"k": 1}
    for _ in range(depth - 1):
        node = {"k": node}
    return node


@dataclass
class Target:
    """A tenant of the small app with a user u1, a session s1 and one message in it."""

    api: httpx.AsyncClient
    message_id: str
    baseline: dict[str, Any] = field(default_factory=dict)

    async def state(self) -> dict[str, Any]:
        return {
            "user": (await self.api.get("/v1/users/u1")).json(),
            "session": (await self.api.get("/v1/sessions/s1")).json(),
            "messages": (await self.api.get(M)).json()["items"],
            "sessions": [s["session_id"] for s in (await self.api.get("/v1/sessions")).json()["items"]],
        }


@pytest.fixture(scope="module")
async def small_app(database_url: str) -> AsyncIterator[FastAPI]:
    app = make_app(make_settings(database_url, **SMALL))
    async with LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as manager:
        yield manager.app  # type: ignore[misc]


@pytest.fixture(scope="module")
async def target(small_app: FastAPI) -> AsyncIterator[Target]:
    async with client_for(small_app, {"Authorization": f"Bearer {ADMIN_TOKEN}"}) as admin:
        api = await new_tenant_client(small_app, admin)
    async with api:
        assert (await api.post("/v1/sessions", json={"session_id": "s1", "user_id": "u1"})).status_code == 201
        r = await api.post(M, json={"messages": [{"role": "user", "content": "hello", "metadata": {"a": 1}}]})
        assert r.status_code == 201
        t = Target(api, r.json()["messages"][0]["message_id"])
        t.baseline = await t.state()
        yield t


@dataclass
class Case:
    id: str
    call: str  # "METHOD /path"
    body: Any = None  # a JSON value; bytes are sent as they are (as JSON unless `headers` says)
    loc: list[Any] | None = None  # the expected errors[0].loc, when the problem names a field
    params: dict[str, Any] | None = None
    headers: dict[str, str] | None = None
    status: int = 0
    slug: str = ""


def expect(status: int, slug: str, *cases: Case) -> list[Case]:
    return [replace(c, status=status, slug=slug) for c in cases]


def cursor(value: str, path: str = M) -> Case:
    return Case(f"cursor {value[:12]}", f"GET {path}", params={"cursor": value})


def limit(value: Any, path: str) -> Case:
    return Case(f"limit {value} on {path}", f"GET {path}", params={"limit": value}, loc=["query", "limit"])


MC = ["messages", 0, "content"]
U1, S1 = "/v1/users/u1", "/v1/sessions/s1"
MANY_KEYS = {f"k{i}": i for i in range(40)}  # 300+ bytes of JSON in small values
LONG_STR = {"k": "v" * 250}

CASES = [
    *expect(
        413,
        "payload-too-large",
        Case("body over max_body_bytes", f"POST {M}", msg(content="x" * 3000)),
        Case("body over max_body_bytes on PUT", f"PUT {U1}", {"metadata": {"k": "v" * 3000}}),
        Case("content", f"POST {M}", msg(content="x" * 101), MC),
        Case("content counted in bytes", f"POST {M}", msg(content="€" * 34), MC),
        Case("patched content", f"PATCH {ONE}", {"content": "x" * 101}, ["content"]),
        Case("name", f"POST {M}", msg(name="n" * 21), ["messages", 0, "name"]),
        Case("batch", f"POST {M}", {"messages": [{"role": "user", "content": "x"}] * 6}, ["messages"]),
        Case("message metadata", f"POST {M}", msg(metadata=MANY_KEYS), ["messages", 0, "metadata"]),
        Case("metadata string", f"POST {M}", msg(metadata=LONG_STR), ["messages", 0, "metadata", "k"]),
        Case("user metadata", f"PUT {U1}", {"metadata": MANY_KEYS}, ["metadata"]),
        Case("session metadata", "POST /v1/sessions", {"user_id": "u1", "metadata": MANY_KEYS}, ["metadata"]),
        Case("session patch metadata", f"PATCH {S1}", {"metadata": MANY_KEYS}, ["metadata"]),
        Case("message patch metadata", f"PATCH {ONE}", {"metadata": LONG_STR}, ["metadata", "k"]),
    ),
    *expect(
        422,
        "validation-error",
        # shapes and types
        Case("empty batch", f"POST {M}", {"messages": []}, ["messages"]),
        Case("no messages field", f"POST {M}", {}, ["messages"]),
        Case("content not a string", f"POST {M}", msg(content=5), MC),
        Case("content null", f"POST {M}", msg(content=None), MC),
        Case("messages not a list", f"POST {M}", {"messages": {"role": "user", "content": "x"}}),
        Case("body is an array", f"POST {M}", [{"role": "user", "content": "x"}]),
        Case("body is null", f"PUT {U1}", b"null"),
        Case("metadata not an object", f"POST {M}", msg(metadata=[1, 2]), ["messages", 0, "metadata"]),
        Case("user metadata not an object", f"PUT {U1}", {"metadata": "plan=pro"}, ["metadata"]),
        Case("role not a string", f"POST {M}", msg(role=1), ["messages", 0, "role"]),
        Case("unknown role", f"POST {M}", msg(role="robot"), ["messages", 0, "role"]),
        Case("role in the wrong case", f"POST {M}", msg(role="User"), ["messages", 0, "role"]),
        Case("created_at not a time", f"POST {M}", msg(created_at="soon"), ["messages", 0, "created_at"]),
        Case("created_at after 9999 in UTC", f"POST {M}", msg(created_at="9999-12-31T23:59:59-10:00")),
        Case("created_at before year 1 in UTC", f"POST {M}", msg(created_at="0001-01-01T00:00:00+10:00")),
        # Found by tests/api/test_fuzz.py: asyncpg stores these two as -infinity / infinity and reads
        # them back without a zone (a zoneless created_at in the answer, a 500 in the cache write).
        Case("created_at at the first instant", f"POST {M}", msg(created_at="0001-01-01T00:00:00Z")),
        Case("created_at at the last instant", f"POST {M}", msg(created_at="9999-12-31T23:59:59.999999Z")),
        Case("user_id not a string", "POST /v1/sessions", {"user_id": 5}, ["user_id"]),
        Case("ended not a boolean", f"PATCH {S1}", {"ended": "maybe"}, ["ended"]),
        # unknown fields
        Case("unknown message field", f"POST {M}", msg(colour="red"), ["messages", 0, "colour"]),
        Case("unknown top-level field", f"POST {M}", {**msg(), "session_id": "s1"}, ["session_id"]),
        Case("unknown user field", f"PUT {U1}", {"meta": {}}, ["meta"]),
        Case(
            "unknown session field", "POST /v1/sessions", {"user_id": "u1", "sessionid": "x"}, ["sessionid"]
        ),
        Case("unknown session patch field", f"PATCH {S1}", {"user_id": "u2"}, ["user_id"]),
        Case("role cannot be patched", f"PATCH {ONE}", {"role": "assistant"}, ["role"]),
        # metadata depth (limit 3) and numbers JSON cannot carry
        Case("too deep", f"POST {M}", msg(metadata=nested(4)), ["messages", 0, "metadata", "k", "k", "k"]),
        Case("too deep via arrays", f"PUT {U1}", {"metadata": {"a": [[[1]]]}}, ["metadata", "a", 0, 0]),
        Case("session metadata too deep", "POST /v1/sessions", {"user_id": "u1", "metadata": nested(4)}),
        Case("patch metadata too deep", f"PATCH {S1}", {"metadata": nested(4)}),
        Case("NaN", f"PUT {U1}", b'{"metadata": {"x": NaN}}', ["metadata", "x"]),
        Case(
            "Infinity",
            "POST /v1/sessions",
            b'{"user_id": "u1", "metadata": {"x": -Infinity}}',
            ["metadata", "x"],
        ),
        Case(
            "NaN in a message",
            f"POST {M}",
            b'{"messages": [{"role": "user", "content": "x", "metadata": {"x": [NaN]}}]}',
            ["messages", 0, "metadata", "x", 0],
        ),
        Case("int over 64 bits", f"POST {M}", msg(metadata={"n": 2**64}), ["messages", 0, "metadata", "n"]),
        Case("int under 64 bits", f"PUT {U1}", {"metadata": {"n": -(2**70)}}, ["metadata", "n"]),
        # NUL bytes, named by their field
        Case("NUL in content", f"POST {M}", msg(content="a\x00b"), MC),
        Case("NUL in name", f"POST {M}", msg(name="Ada\x00"), ["messages", 0, "name"]),
        Case(
            "NUL in metadata key",
            f"POST {M}",
            msg(metadata={"k\x00": 1}),
            ["messages", 0, "metadata", "k\x00"],
        ),
        Case(
            "NUL in metadata value",
            f"POST {M}",
            msg(metadata={"a": {"b": ["ok", "y\x00"]}}),
            ["messages", 0, "metadata", "a", "b", 1],
        ),
        Case("NUL in user metadata", f"PUT {U1}", {"metadata": {"k": "\x00"}}, ["metadata", "k"]),
        Case(
            "NUL in session metadata",
            "POST /v1/sessions",
            {"user_id": "u", "metadata": {"\x00": 1}},
            ["metadata", "\x00"],
        ),
        Case("NUL in session patch", f"PATCH {S1}", {"metadata": {"k": "\x00"}}, ["metadata", "k"]),
        Case("NUL in patched content", f"PATCH {ONE}", {"content": "\x00"}, ["content"]),
        Case("NUL in patched name", f"PATCH {ONE}", {"name": "\x00"}, ["name"]),
        # lone surrogates: valid JSON escapes, but not text
        Case(
            "surrogate in content",
            f"POST {M}",
            b'{"messages": [{"role": "user", "content": "a\\ud800"}]}',
            MC,
        ),
        Case(
            "surrogate in name",
            f"POST {M}",
            b'{"messages": [{"role": "user", "content": "a", "name": "\\udfff"}]}',
            ["messages", 0, "name"],
        ),
        Case(
            "surrogate in metadata value",
            f"POST {M}",
            b'{"messages": [{"role": "user", "content": "a", "metadata": {"k": "\\ud800"}}]}',
            ["messages", 0, "metadata", "k"],
        ),
        Case(
            "surrogate in metadata key", f"PUT {U1}", b'{"metadata": {"\\ud800": 1}}', ["metadata", "\\ud800"]
        ),
        Case("surrogate in patched content", f"PATCH {ONE}", b'{"content": "\\ud800"}', ["content"]),
        # ids: charset and length (limit 16), in paths, bodies and queries
        Case("user id with a space", "GET /v1/users/a%20b", loc=["path", "user_id"]),
        Case("user id too long", "GET /v1/users/" + "u" * 17, loc=["path", "user_id"]),
        Case("user id not ASCII", "PUT /v1/users/%C3%A9", {}, ["path", "user_id"]),
        Case("user id with a NUL", "DELETE /v1/users/a%00b", loc=["path", "user_id"]),
        Case("session id with a dollar", "GET /v1/sessions/a$b", loc=["path", "session_id"]),
        Case(
            "session id too long", "PATCH /v1/sessions/" + "s" * 17, {"ended": True}, ["path", "session_id"]
        ),
        Case("session id with a backslash", "DELETE /v1/sessions/a%5Cb", loc=["path", "session_id"]),
        Case("session id on append", "POST /v1/sessions/a%20b/messages", msg(), ["path", "session_id"]),
        Case("session id on list", "GET /v1/sessions/" + "s" * 17 + "/messages", loc=["path", "session_id"]),
        Case("body session_id", "POST /v1/sessions", {"session_id": "a b", "user_id": "u1"}, ["session_id"]),
        Case(
            "body session_id empty", "POST /v1/sessions", {"session_id": "", "user_id": "u1"}, ["session_id"]
        ),
        Case("body user_id too long", "POST /v1/sessions", {"user_id": "u" * 17}, ["user_id"]),
        Case("query user_id", "GET /v1/sessions", params={"user_id": "a/b"}, loc=["query", "user_id"]),
        Case("message id not a UUID", f"GET {M}/123", loc=["path", "message_id"]),
        Case("message id not a UUID on patch", f"PATCH {M}/zzz", {"content": "x"}, ["path", "message_id"]),
        Case("message id not a UUID on delete", f"DELETE {M}/{'f' * 40}", loc=["path", "message_id"]),
        # query parameters
        *(limit(v, path) for path in ("/v1/users", "/v1/sessions", M) for v in (0, 10**6)),
        limit(-1, M),
        limit("ten", M),
        Case("unknown order", f"GET {M}", params={"order": "sideways"}, loc=["query", "order"]),
        Case("unknown role filter", f"GET {M}", params={"role": ["user", "robot"]}),
        Case("created_after not a time", f"GET {M}", params={"created_after": "soon"}),
        Case(
            "created_before out of range", f"GET {M}", params={"created_before": "9999-12-31T23:59:59-10:00"}
        ),
    ),
    *expect(
        400,
        "malformed-json",
        Case("truncated JSON", f"POST {M}", b'{"messages": ['),
        Case("trailing comma", f"PUT {U1}", b'{"metadata": {},}'),
        Case("single quotes", "POST /v1/sessions", b"{'user_id': 'u1'}"),
        Case("invalid UTF-8 bytes", f"POST {M}", b'{"messages": [{"role": "user", "content": "\xff\xfe"}]}'),
    ),
    *expect(
        415,
        "unsupported-media-type",
        Case("text/plain", f"POST {M}", b"hello", headers={"Content-Type": "text/plain"}),
        Case(
            "form", f"PUT {U1}", b"metadata=x", headers={"Content-Type": "application/x-www-form-urlencoded"}
        ),
        Case(
            "JSON declared as text",
            "POST /v1/sessions",
            b'{"user_id": "u1"}',
            headers={"Content-Type": "text/json"},
        ),
        Case("no content type", f"PATCH {S1}", b'{"ended": true}', headers={}),
    ),
    *expect(
        400,
        "invalid-cursor",
        cursor("not a cursor!"),
        cursor("aGVsbG8", "/v1/users"),  # base64 of a non-JSON text
        cursor(forge("users", ["u1"])),  # another list's
        cursor(forge("messages", ["1"])),
        cursor(forge("messages", [1.5])),
        cursor(forge("messages", [2**63])),
        cursor(forge("messages", [1], backward="yes")),
        cursor(forge("users", ["a\x00"]), "/v1/users"),
        cursor(forge("sessions", ["2024-01-01T00:00:00+00:00", "\x00"]), "/v1/sessions"),
        cursor(forge("sessions", ["2024-01-01T00:00:00", "s"]), "/v1/sessions"),  # naive
        cursor(forge("sessions", ["0001-01-01T00:00:00+05:00", "s"]), "/v1/sessions"),  # out of range
        cursor(forge("sessions", ["2024-01-01T00:00:00+00:00"]), "/v1/sessions"),  # one key short
    ),
    *expect(
        404,
        "not-found",
        Case("unknown route", "GET /v1/nope"),
        Case("unknown version", "GET /v2/users"),
        Case("below a message", f"GET {M}/{uuid.UUID(int=1)}/x"),
    ),
    *expect(
        405,
        "method-not-allowed",
        Case("PUT on the session list", "PUT /v1/sessions", {}),
        Case("POST on the user list", "POST /v1/users", {}),
        Case("PATCH on a user", f"PATCH {U1}", {}),
        Case("DELETE on the message list", f"DELETE {M}"),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c.status} {c.id}" for c in CASES])
async def test_bad_input_gets_its_problem_and_stores_nothing(target: Target, case: Case) -> None:
    method, path = case.call.split(" ", 1)
    kwargs: dict[str, Any] = {"params": case.params, "headers": case.headers}
    if isinstance(case.body, bytes):
        kwargs["content"] = case.body
        kwargs["headers"] = JSON if case.headers is None else case.headers
    elif case.body is not None:
        kwargs["json"] = case.body
    r = await target.api.request(method, path.replace("{mid}", target.message_id), **kwargs)

    body = assert_problem(r, case.status, case.slug)
    if case.loc is not None:
        assert body["errors"][0]["loc"] == case.loc, body
    if case.status == 405:
        assert r.headers.get("allow")
    assert await target.state() == target.baseline, "a refused request changed something"


async def test_limits_are_inclusive(target: Target) -> None:
    """Exactly at each limit is accepted (then undone, for the other tests)."""
    api = target.api
    r = await api.post(
        "/v1/sessions", json={"session_id": "s" * 16, "user_id": "u" * 16, "metadata": nested(3)}
    )
    assert r.status_code == 201, r.text
    batch = {"messages": [{"role": "user", "content": "€" * 33 + "x", "name": "n" * 20}] * 5}
    assert len(batch["messages"][0]["content"].encode()) == 100
    r = await api.post(f"/v1/sessions/{'s' * 16}/messages", json=batch)
    assert r.status_code == 201, r.text
    meta = {"k": "v" * 192}
    assert len(json.dumps(meta, separators=(",", ":"))) == 200
    assert (await api.patch(f"/v1/sessions/{'s' * 16}", json={"metadata": meta})).status_code == 200
    r = await api.put("/v1/users/" + "u" * 16, json={"metadata": {"a": [[1]]}})
    assert r.status_code == 200, r.text
    assert (await api.delete("/v1/users/" + "u" * 16)).status_code == 204
    assert await target.state() == target.baseline


async def test_chunked_bodies_are_checked_too(target: Target) -> None:
    async def chunks(*parts: bytes) -> AsyncIterator[bytes]:
        for part in parts:
            yield part

    big = chunks(b'{"messages": [{"role": "user", "content": "', b"x" * 1500, b"x" * 1500, b'"}]}')
    r = await target.api.post(M, content=big, headers=JSON)
    assert "content-length" not in r.request.headers
    assert_problem(r, 413, "payload-too-large")

    r = await target.api.post(M, content=chunks(b"hello"), headers={"Content-Type": "text/plain"})
    assert_problem(r, 415, "unsupported-media-type")

    assert (
        await target.api.post("/v1/sessions", json={"session_id": "chunky", "user_id": "u2"})
    ).status_code == 201
    ok = chunks(b'{"messages": [{"role": "user", ', b'"content": "chunked"}]}')
    r = await target.api.post("/v1/sessions/chunky/messages", content=ok, headers=JSON)
    assert r.status_code == 201, r.text
    assert r.json()["messages"][0]["content"] == "chunked"
    assert (await target.api.delete("/v1/users/u2")).status_code == 204
    assert await target.state() == target.baseline


async def test_json_too_deep_for_the_parser_is_a_client_error(target: Target) -> None:
    deep = b'{"metadata": ' + b"[" * 1000 + b"]" * 1000 + b"}"
    r = await target.api.put("/v1/users/u1", content=deep, headers=JSON)
    assert r.status_code in (400, 422), r.text
    assert r.headers["content-type"] == PROBLEM
    assert await target.state() == target.baseline


async def test_default_limits_apply(api: httpx.AsyncClient) -> None:
    """The shared app runs with the default settings: the same classes of input, at their sizes."""
    assert (await api.post("/v1/sessions", json={"session_id": "s", "user_id": "u"})).status_code == 201
    path = "/v1/sessions/s/messages"
    assert_problem(await api.post(path, json=msg(content="x" * 100_001)), 413, "payload-too-large")
    assert (await api.post(path, json=msg(content="x" * 100_000))).status_code == 201
    assert_problem(await api.post(path, json=msg(metadata={"k": "v" * 16_400})), 413, "payload-too-large")
    assert_problem(
        await api.post(path, json={"messages": [{"role": "user", "content": "x"}] * 1001}),
        413,
        "payload-too-large",
    )
    assert_problem(await api.post(path, json=msg(metadata=nested(9))), 422, "validation-error")
    assert (await api.post(path, json=msg(metadata=nested(8)))).status_code == 201
    assert_problem(await api.get("/v1/users/" + "u" * 129), 422, "validation-error")
    assert (await api.put("/v1/users/" + "u" * 128, json={})).status_code == 201
    huge = b'{"messages": [{"role": "user", "content": "' + b"x" * (8 * 1024 * 1024) + b'"}]}'
    assert_problem(await api.post(path, content=huge, headers=JSON), 413, "payload-too-large")
    assert (await api.get("/v1/sessions/s")).json()["last_seq"] == 2

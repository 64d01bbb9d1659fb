"""The lean endpoints (app/lean.py: POST …/messages, GET …/memory, POST /search) answer as their
FastAPI forms do. Each odd request goes once to the FastAPI form (the lean routes taken out of the
route table) and once to the lean endpoint; status, headers that matter and body must agree."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from starlette.routing import Match

from app.main import create_app
from app.memory.router import lean_routes as memory_routes
from app.messages.router import KEY
from app.messages.router import lean_routes as append_routes
from app.search.router import lean_routes as search_routes

LEAN = [*append_routes, *memory_routes, *search_routes]

JSON = {"content-type": "application/json"}
SESSION = "lean-s1"
APPEND = f"/v1/sessions/{SESSION}/messages"
MEMORY = f"/v1/sessions/{SESSION}/memory"
ONE = b'{"messages": [{"role": "user", "content": "I moved to Lisbon."}]}'

# (method, path, body, extra headers)
ODD: list[tuple[str, str, bytes | None, dict[str, str]]] = [
    ("POST", APPEND, None, {}),
    ("POST", APPEND, b"{", JSON),
    ("POST", APPEND, b"\xff\xfe{}", JSON),
    ("POST", APPEND, b"[]", JSON),
    ("POST", APPEND, b"null", JSON),
    ("POST", "/v1/search", b"null", JSON),
    ("POST", APPEND, b'{"messages": []}', JSON),
    ("POST", APPEND, b'{"messages": [{"role": "robot", "content": 5}]}', JSON),
    ("POST", APPEND, ONE, {**JSON, "Idempotency-Key": "has space"}),
    ("POST", APPEND, b'{"messages": 1}', {**JSON, "Idempotency-Key": "k" * 256}),
    ("POST", "/v1/sessions/no%20such/messages", ONE, JSON),
    ("POST", "/v1/sessions/" + "x" * 300 + "/messages", ONE, JSON),
    ("POST", "/v1/sessions/nobody-here/messages", ONE, JSON),
    ("POST", APPEND, b'{"messages": [{"role": "user", "content": "x", "metadata": {"a": NaN}}]}', JSON),
    ("POST", "/v1/search", None, {}),
    ("POST", "/v1/search", b"{", JSON),
    ("POST", "/v1/search", b'{"query": ""}', JSON),
    ("POST", "/v1/search", b'{"query": "   "}', JSON),
    ("POST", "/v1/search", b'{"query": "x", "limit": 0, "mode": "fuzzy"}', JSON),
    ("POST", "/v1/search", b'{"query": "x", "user_id": "' + b"u" * 300 + b'"}', JSON),
    ("POST", "/v1/search", b'{"query": "Lisbon", "mode": "keyword", "user_id": "lean-ada"}', JSON),
    ("GET", MEMORY + "?max_tokens=-1", None, {}),
    ("GET", MEMORY + "?max_tokens=5000000", None, {}),
    ("GET", "/v1/sessions/nobody-here/memory", None, {}),
]


def _seen(r: httpx.Response) -> tuple[int, str | None, str | None, Any]:
    body: Any = r.json() if r.content else None
    if r.status_code == 201:  # a stored append: its ids and seq differ between the two
        body = [sorted(m) for m in body["messages"]]
    return r.status_code, r.headers.get("content-type"), r.headers.get("idempotent-replayed"), body


def _fastapi_only(m: pytest.MonkeyPatch) -> None:
    """The lean routes match nothing: their FastAPI forms, further down the table, answer."""
    for route in LEAN:
        m.setattr(route, "matches", lambda scope: (Match.NONE, {}))


async def _both(
    api: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch, method: str, path: str, **kw: Any
) -> tuple[httpx.Response, httpx.Response]:
    lean = await api.request(method, path, **kw)
    with monkeypatch.context() as m:
        _fastapi_only(m)
        classic = await api.request(method, path, **kw)
    return classic, lean


def test_the_lean_routes_are_first_and_named_like_their_spec_operations() -> None:
    app = create_app()
    assert app.router.routes[: len(LEAN)] == LEAN
    spec = app.openapi()["paths"]
    for route in LEAN:
        assert all(m.lower() in spec[route.path] for m in route.methods - {"HEAD"}), route.path
        assert route.name in {op["operationId"] for op in spec[route.path].values()}


def test_the_idempotency_key_is_read_with_the_bounds_the_spec_declares() -> None:
    spec = create_app().openapi()["paths"]["/v1/sessions/{session_id}/messages"]["post"]
    (declared,) = [p for p in spec["parameters"] if p["name"] == "Idempotency-Key"]
    ours = KEY.json_schema()
    schema = next(s for s in declared["schema"]["anyOf"] if s.get("type") == "string")
    for bound in ("minLength", "maxLength", "pattern"):
        assert schema[bound] == ours[bound], bound


async def test_odd_requests_get_the_same_answers(
    api: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert (
        await api.post("/v1/sessions", json={"user_id": "lean-ada", "session_id": SESSION})
    ).status_code == 201
    assert (await api.post(APPEND, content=ONE, headers=JSON)).status_code == 201
    # A search answers with the indexing in progress: the worker done first, both forms see the same.
    waited = await api.post(
        "/v1/search",
        json={"query": "Lisbon", "mode": "keyword", "user_id": "lean-ada", "wait_for_indexing_ms": 10_000},
    )
    assert waited.json()["indexing"]["complete"], waited.text
    for method, path, content, headers in ODD:
        classic, lean = await _both(api, monkeypatch, method, path, content=content, headers=headers)
        assert _seen(lean) == _seen(classic), (method, path, content)


async def test_an_append_and_its_replay_answer_alike(
    api: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert (
        await api.post("/v1/sessions", json={"user_id": "lean-bo", "session_id": "lean-s2"})
    ).status_code == 201
    path = "/v1/sessions/lean-s2/messages"
    lean = await api.post(path, content=ONE, headers={**JSON, "Idempotency-Key": "lean-1"})
    with monkeypatch.context() as m:
        _fastapi_only(m)
        replayed = await api.post(path, content=ONE, headers={**JSON, "Idempotency-Key": "lean-1"})
        classic = await api.post(path, content=ONE, headers=JSON)
    again = await api.post(path, content=ONE, headers={**JSON, "Idempotency-Key": "lean-1"})
    assert lean.status_code == classic.status_code == replayed.status_code == again.status_code == 201
    assert lean.json() == replayed.json() == again.json()
    assert replayed.headers["idempotent-replayed"] == again.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in lean.headers
    first, second = lean.json()["messages"][0], classic.json()["messages"][0]
    assert set(first) == set(second) and (first["seq"], second["seq"]) == (1, 2)
    memory = (await api.get("/v1/sessions/lean-s2/memory")).json()
    assert [m["seq"] for m in memory["messages"]] == [1, 2]  # the lean append's write-through too

"""MCP: every tool, the resources and the prompt through the SDK's own client session against a live
`engram serve` (Streamable HTTP at /mcp and `engram mcp` over stdio), auth as for REST, and auth off."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from app.db.embedded import EmbeddedPostgres
from app.main import create_app
from app.mcp.tools import TOOLS
from app.search.schemas import SearchRequest, SearchResponse
from tests.support.app import ADMIN_TOKEN, REDIS_URL, STARTUP, make_settings
from tests.support.db import create_database
from tests.support.mcp_client import asgi_mcp_client, mcp_client, ok, problem
from tests.support.procs import ENGRAM, MODEL_CACHE, Server, engram_env

TOOL_NAMES = {"get_context", "remember", "search", "list_facts", "add_fact", "forget_fact", "fact_history"}
PROBLEM = "application/problem+json"


class Live:
    def __init__(self, url: str) -> None:
        self.url = url
        self.admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}

    def new_key(self) -> tuple[str, str]:
        """(key, key_id) of a brand-new tenant."""
        r = httpx.post(
            f"{self.url}/v1/admin/keys",
            json={"tenant_id": f"t-{uuid.uuid4().hex[:12]}", "name": "mcp"},
            headers=self.admin,
        )
        assert r.status_code == 201, r.text
        return str(r.json()["key"]), str(r.json()["key_id"])


@pytest.fixture(scope="module")
async def live(pg: EmbeddedPostgres) -> AsyncIterator[Live]:
    """`engram serve` with auth on, its embedded worker and a database of its own."""
    server = Server(
        ENGRAM_DATABASE_URL=await create_database(pg),
        ENGRAM_REDIS_URL=REDIS_URL,
        ENGRAM_AUTH="on",
        ENGRAM_ADMIN_TOKEN=ADMIN_TOKEN,
        ENGRAM_MODEL_CACHE_DIR=str(MODEL_CACHE),
    )
    try:
        await asyncio.to_thread(server.wait_ready, 120)
        yield Live(server.url)
    finally:
        assert await asyncio.to_thread(server.stop) == 0


def _rest(live: Live, key: str) -> httpx.Client:
    return httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {key}"})


async def test_tools_are_listed_with_the_apis_schemas(live: Live) -> None:
    key, _ = live.new_key()
    async with mcp_client(live.url, key) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
    assert set(listed) == TOOL_NAMES == {t.name for t in TOOLS}
    search = listed["search"]
    assert search.input_schema == SearchRequest.model_json_schema()
    assert search.output_schema == SearchResponse.model_json_schema(mode="serialization")
    for tool in listed.values():
        assert tool.description and len(tool.description) > 80
        assert tool.input_schema["type"] == "object" and tool.input_schema["properties"]
        assert tool.output_schema is not None and tool.annotations is not None
        assert "tenant" not in str(tool.input_schema).lower()  # the key decides, never an argument
    assert listed["forget_fact"].annotations.destructive_hint is True  # type: ignore[union-attr]
    assert listed["get_context"].annotations.read_only_hint is True  # type: ignore[union-attr]


async def test_every_tool_end_to_end(live: Live) -> None:
    key, _ = live.new_key()
    run = uuid.uuid4().hex[:8]
    user, session = f"u-{run}", f"s-{run}"
    turns = [
        {"role": "user", "content": "My cat Miso only eats salmon flavoured kibble.", "metadata": {"t": 1}},
        {"role": "assistant", "content": "Noted: Miso is a salmon fan."},
    ]
    async with mcp_client(live.url, key) as client:
        # remember: an unknown session without a user is the API's 404, with one it is created.
        missing = problem(await client.call_tool("remember", {"session_id": session, "messages": turns}))
        assert (missing["type"], missing["status"]) == ("urn:engram:problem:not-found", 404)
        first = ok(
            await client.call_tool("remember", {"session_id": session, "user_id": user, "messages": turns})
        )
        assert [m["seq"] for m in first["messages"]] == [1, 2]
        assert (first["replayed"], first["session_created"]) == (False, True)
        # A client's retry of the same call stores nothing twice.
        again = ok(
            await client.call_tool("remember", {"session_id": session, "user_id": user, "messages": turns})
        )
        assert again["replayed"] is True
        assert [m["message_id"] for m in again["messages"]] == [m["message_id"] for m in first["messages"]]
        # A different turn_id is a new turn, even with the same words.
        repeat = [{"role": "user", "content": "Thanks!"}]
        one = ok(
            await client.call_tool("remember", {"session_id": session, "messages": repeat, "turn_id": "a"})
        )
        two = ok(
            await client.call_tool("remember", {"session_id": session, "messages": repeat, "turn_id": "b"})
        )
        assert [one["messages"][0]["seq"], two["messages"][0]["seq"]] == [3, 4]
        with _rest(live, key) as rest:
            stored = rest.get(f"/v1/sessions/{session}/messages").json()["items"]
        assert [m["seq"] for m in stored] == [1, 2, 3, 4]
        assert stored[0]["metadata"] == {"t": 1}

        # get_context: the memory endpoint's context within the budget.
        memory = ok(
            await client.call_tool(
                "get_context", {"session_id": session, "query": "cat food", "max_tokens": 300}
            )
        )
        assert "salmon flavoured kibble" in memory["context"]
        assert 0 < memory["token_count"] <= 300
        assert [m["seq"] for m in memory["messages"]] == [1, 2, 3, 4]

        # search: the API's request and answer.
        found = ok(
            await client.call_tool(
                "search",
                {
                    "query": "what does the cat eat?",
                    "user_id": user,
                    "wait_for_indexing_ms": 10_000,
                    "limit": 3,
                },
            )
        )
        assert found["indexing"]["complete"] is True
        assert "salmon" in found["results"][0]["content"]
        assert found["results"][0]["scores"]["semantic"] > 0

        # add_fact, list_facts (now and as_of), fact_history, forget_fact with redaction.
        old = ok(
            await client.call_tool(
                "add_fact",
                {
                    "user_id": user,
                    "content": "Lives in Lisbon.",
                    "kind": "location",
                    "subject": "home",
                    "exclusive": True,
                    "valid_from": "2020-01-01T00:00:00Z",
                },
            )
        )
        assert old["created"] is True
        same = ok(await client.call_tool("add_fact", {"user_id": user, "content": "Lives in Lisbon."}))
        assert (same["created"], same["fact_id"]) == (False, old["fact_id"])
        new = ok(
            await client.call_tool(
                "add_fact",
                {
                    "user_id": user,
                    "content": "Lives in Porto.",
                    "kind": "location",
                    "subject": "home",
                    "exclusive": True,
                },
            )
        )
        # (The worker may have read "Has a cat named Miso" from the turns meanwhile: only homes here.)
        home = {"user_id": user, "kinds": ["location"]}
        now = ok(await client.call_tool("list_facts", home))
        assert [f["content"] for f in now["items"]] == ["Lives in Porto."]
        then = ok(await client.call_tool("list_facts", {**home, "as_of": "2021-06-01T00:00:00Z"}))
        assert [f["content"] for f in then["items"]] == ["Lives in Lisbon."]
        every = ok(await client.call_tool("list_facts", {**home, "include_invalid": True, "limit": 1}))
        assert len(every["items"]) == 1 and every["next_cursor"]
        rest_page = ok(
            await client.call_tool(
                "list_facts", {**home, "include_invalid": True, "cursor": every["next_cursor"]}
            )
        )
        assert {f["fact_id"] for f in every["items"] + rest_page["items"]} == {old["fact_id"], new["fact_id"]}

        history = ok(await client.call_tool("fact_history", {"fact_id": old["fact_id"]}))
        assert [e["event"] for e in history["items"]][:1] == ["ADD"]
        assert any(e["related_fact_id"] == new["fact_id"] for e in history["items"])  # superseded by Porto

        gone = ok(await client.call_tool("forget_fact", {"fact_id": new["fact_id"], "redact": True}))
        assert gone == {"fact_id": new["fact_id"], "deleted": True, "redacted": True}
        events = ok(await client.call_tool("fact_history", {"fact_id": new["fact_id"]}))["items"]
        assert events[-1]["event"] == "DELETE"
        assert "Porto" not in str(events)  # redacted from every event
        assert new["fact_id"] not in {
            f["fact_id"] for f in ok(await client.call_tool("list_facts", {"user_id": user}))["items"]
        }
        again_gone = problem(await client.call_tool("forget_fact", {"fact_id": new["fact_id"]}))
        assert again_gone["status"] == 404

        # Errors are tool errors carrying the problem's type and detail: the tool's own checks and the API's.
        bad = problem(await client.call_tool("get_context", {"session_id": session, "max_tokens": -1}))
        assert (bad["type"], bad["status"]) == ("urn:engram:problem:validation-error", 422)
        assert bad["detail"].startswith("max_tokens:")
        over = problem(await client.call_tool("get_context", {"session_id": session, "max_tokens": 10**9}))
        assert (over["type"], over["instance"]) == (
            "urn:engram:problem:validation-error",
            f"/v1/sessions/{session}/memory",
        )
        unknown = problem(await client.call_tool("search", {"query": "x", "tenant_id": "other"}))
        assert unknown["type"] == "urn:engram:problem:validation-error" and "tenant_id" in unknown["detail"]
        with pytest.raises(MCPError):
            await client.call_tool("no_such_tool", {})


async def test_the_2026_protocol_serves_the_same_tools(live: Live) -> None:
    key, _ = live.new_key()
    run = uuid.uuid4().hex[:8]
    async with mcp_client(live.url, key, mode="auto") as client:
        stored = ok(
            await client.call_tool(
                "remember",
                {
                    "session_id": f"s-{run}",
                    "user_id": f"u-{run}",
                    "messages": [{"role": "user", "content": "hi"}],
                },
            )
        )
        assert stored["messages"][0]["seq"] == 1
        assert (
            problem(await client.call_tool("fact_history", {"fact_id": str(uuid.uuid4())}))["status"] == 404
        )


async def test_resources_and_prompt(live: Live) -> None:
    key, _ = live.new_key()
    run = uuid.uuid4().hex[:8]
    user, session = f"u-{run}", f"s-{run}"
    async with mcp_client(live.url, key) as client:
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert templates == {"engram://sessions/{session_id}/memory", "engram://users/{user_id}/facts"}
        ok(
            await client.call_tool(
                "remember",
                {
                    "session_id": session,
                    "user_id": user,
                    "messages": [{"role": "user", "content": "I play the oboe."}],
                },
            )
        )
        ok(await client.call_tool("add_fact", {"user_id": user, "content": "Plays the oboe."}))
        memory = await client.read_resource(f"engram://sessions/{session}/memory")
        assert "I play the oboe." in memory.contents[0].text  # type: ignore[union-attr]
        facts = await client.read_resource(f"engram://users/{user}/facts")
        assert "Plays the oboe." in facts.contents[0].text  # type: ignore[union-attr]
        with pytest.raises(MCPError):
            await client.read_resource("engram://sessions/ghost/memory")

        prompt = await client.get_prompt("with_memory", {"session_id": session, "message": "What do I play?"})
        assert "I play the oboe." in prompt.messages[0].content.text  # type: ignore[union-attr]
        assert prompt.messages[-1].content.text == "What do I play?"  # type: ignore[union-attr]


def _assert_401(r: httpx.Response) -> None:
    assert r.status_code == 401, r.text
    assert r.headers["content-type"] == PROBLEM
    assert r.json()["type"] == "urn:engram:problem:unauthorized"
    assert r.headers["www-authenticate"].lower().startswith("bearer")


def _refused(exc: BaseException) -> bool:
    """The SDK's client failed on an HTTP error answer (it says no more than that, in exception
    groups; the raw requests in the test check that the answer is the 401 problem)."""
    if isinstance(exc, MCPError):
        return exc.message == "Server returned an error response"
    return any(_refused(e) for e in getattr(exc, "exceptions", ()))


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def test_auth_is_the_rest_apis(live: Live) -> None:
    def post(auth: dict[str, str]) -> httpx.Response:
        return httpx.post(f"{live.url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **auth})

    for bad in ({}, {"Authorization": "Bearer egm_not-a-key"}, {"Authorization": f"Bearer {ADMIN_TOKEN}"}):
        _assert_401(post(bad))
    for wrong in (None, "egm_not-a-key"):
        with pytest.raises(BaseException) as refused:
            async with mcp_client(live.url, wrong) as client:
                await client.list_tools()
        assert _refused(refused.value)

    key, key_id = live.new_key()
    assert post({"Authorization": f"Bearer {key}"}).status_code == 200
    async with mcp_client(live.url, key) as client:
        assert (await client.list_tools()).tools
        r = await asyncio.to_thread(httpx.delete, f"{live.url}/v1/admin/keys/{key_id}", headers=live.admin)
        assert r.status_code == 204
        # The revoked key stops working at once, within an open session too.
        with pytest.raises(BaseException) as refused:
            await client.call_tool("list_facts", {"user_id": "u"})
        assert _refused(refused.value)
    _assert_401(post({"Authorization": f"Bearer {key}"}))


async def test_stdio_launcher(live: Live) -> None:
    key, _ = live.new_key()
    run = uuid.uuid4().hex[:8]
    params = StdioServerParameters(
        command=ENGRAM, args=["mcp", "--url", live.url, "--key", key], env=engram_env()
    )
    async with Client(params) as client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOL_NAMES
        stored = ok(
            await client.call_tool(
                "remember",
                {
                    "session_id": f"s-{run}",
                    "user_id": f"u-{run}",
                    "messages": [{"role": "user", "content": "Hello from stdio."}],
                },
            )
        )
        assert stored["messages"][0]["seq"] == 1
        memory = ok(await client.call_tool("get_context", {"session_id": f"s-{run}"}))
        assert "Hello from stdio." in memory["context"]
        assert problem(await client.call_tool("get_context", {"session_id": "ghost"}))["status"] == 404
    # It spoke to the server, as this key's tenant.
    with _rest(live, key) as rest:
        assert rest.get(f"/v1/sessions/s-{run}/messages").json()["items"][0]["content"] == "Hello from stdio."

    # The key from the environment (a desktop client's config), and a wrong one is the API's 401.
    params = StdioServerParameters(
        command=ENGRAM, args=["mcp", "--url", live.url], env=engram_env(ENGRAM_API_KEY="egm_not-a-key")
    )
    async with Client(params) as client:
        refused = problem(await client.call_tool("get_context", {"session_id": f"s-{run}"}))
        assert (refused["status"], refused["type"]) == (401, "urn:engram:problem:unauthorized")


async def test_auth_off_is_the_default_tenant(database_url: str) -> None:
    settings = make_settings(database_url, auth="off", run_worker=False)
    app = create_app(settings)
    run = uuid.uuid4().hex[:8]
    async with LifespanManager(app, startup_timeout=STARTUP) as manager:
        async with asgi_mcp_client(manager.app, None) as client:
            ok(
                await client.call_tool(
                    "remember",
                    {
                        "session_id": f"s-{run}",
                        "user_id": f"u-{run}",
                        "messages": [{"role": "user", "content": "hey"}],
                    },
                )
            )
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as rest:
            r = await rest.get(f"/v1/sessions/s-{run}")
            assert r.status_code == 200 and r.json()["user_id"] == f"u-{run}"
            # Without keys, only loopback hosts and origins reach /mcp (no DNS rebinding from a page).
            body: dict[str, Any] = INITIALIZE
            evil = await rest.post(
                "/mcp", json=body, headers={**MCP_HEADERS, "Origin": "http://evil.example"}
            )
            assert evil.status_code == 403
            renamed = await rest.post("/mcp", json=body, headers={**MCP_HEADERS, "Host": "evil.example"})
            assert renamed.status_code == 421
            assert (await rest.post("/mcp", json=body, headers=MCP_HEADERS)).status_code == 200


async def test_a_tool_call_is_one_request_for_the_tenants_limits(database_url: str) -> None:
    """The tool's REST call inside the /mcp request is not admitted again: with a cap of one
    request in flight per tenant, a tool call still goes through."""
    app = create_app(make_settings(database_url, tenant_max_concurrent=1, run_worker=False))
    async with LifespanManager(app, startup_timeout=STARTUP) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as rest:
            made = await rest.post(
                "/v1/admin/keys", json={"tenant_id": f"t-{uuid.uuid4().hex[:8]}"}, headers=admin
            )
            key = made.json()["key"]
        async with asgi_mcp_client(manager.app, key) as client:
            found = ok(await client.call_tool("search", {"query": "anything", "mode": "keyword"}))
            assert found["results"] == []

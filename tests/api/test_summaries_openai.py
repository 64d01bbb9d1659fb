"""The summary job with ENGRAM_LLM=openai, against a local server speaking the OpenAI wire format:
good answers become summaries; output that stays malformed leaves the job failed with its error
(visible over the API, never a crash), and forcing a summary retries it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager

from app.db.embedded import EmbeddedPostgres
from tests.support.app import STARTUP, client_for, make_app, make_settings
from tests.support.chat_stub import ChatScript, Reply, json_reply, serve
from tests.support.db import create_database


@pytest.fixture
def script() -> Iterator[tuple[ChatScript, str]]:
    s = ChatScript()
    with serve(s) as base_url:
        yield s, base_url


@pytest.fixture
async def client(pg: EmbeddedPostgres, script: tuple[ChatScript, str]) -> AsyncIterator[httpx.AsyncClient]:
    # A database of its own: the suite's shared app runs a worker with the local summariser, which
    # would otherwise claim these jobs first.
    settings = make_settings(
        await create_database(pg),
        auth="off",
        redis_url=None,
        llm="openai",
        facts_enabled=False,  # fact extraction would take the scripted answers meant for summaries
        openai_base_url=script[1],
        openai_timeout_seconds=2.0,
        openai_max_attempts=2,
        openai_backoff_seconds=0.01,  # the retries, not the production waits
        worker_max_attempts=2,
        worker_backoff_seconds=0.05,
        worker_poll_seconds=0.05,
    )
    app = make_app(settings)
    async with (
        LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as manager,
        client_for(manager.app) as c,  # type: ignore[arg-type]
    ):
        yield c


async def _session_with_turns(client: httpx.AsyncClient, user: str) -> str:
    r = await client.post("/v1/sessions", json={"user_id": user})
    sid = str(r.json()["session_id"])
    msgs = [
        {"role": "user", "content": "I moved to Lisbon yesterday.", "created_at": "2026-11-20T10:00:00Z"},
        {"role": "assistant", "content": "Welcome to Lisbon!", "created_at": "2026-11-20T10:00:05Z"},
    ]
    r = await client.post(f"/v1/sessions/{sid}/messages", json={"messages": msgs})
    assert r.status_code == 201, r.text
    return sid


async def _state_until(client: httpx.AsyncClient, sid: str, done: Any, within: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + within
    while True:
        state: dict[str, Any] = (await client.get(f"/v1/sessions/{sid}/summary")).json()
        if done(state):
            return state
        assert time.monotonic() < deadline, state
        await asyncio.sleep(0.05)


async def test_openai_summary_is_stored(client: httpx.AsyncClient, script: tuple[ChatScript, str]) -> None:
    stub, _ = script
    stub.default = json_reply({"summary": "Ada moved to Lisbon on 2026-11-19."})
    sid = await _session_with_turns(client, "oa-good")
    r = await client.post(f"/v1/sessions/{sid}/summarize", params={"wait_seconds": 30})
    body = r.json()
    assert body["done"], body
    assert body["summary"]["content"] == "Ada moved to Lisbon on 2026-11-19."
    assert body["summary"]["provider"].startswith("openai/")
    prompt = stub.prompts()[-1]
    assert "I moved to Lisbon yesterday (2026-11-19)." in prompt, "relative dates resolved before sending"


async def test_malformed_output_fails_the_job_visibly_and_a_force_retries_it(
    client: httpx.AsyncClient, script: tuple[ChatScript, str]
) -> None:
    stub, _ = script
    stub.default = Reply(content="this is not json")
    sid = await _session_with_turns(client, "oa-bad")
    await client.post(f"/v1/sessions/{sid}/summarize")
    state = await _state_until(client, sid, lambda s: s["job"] and s["job"]["status"] == "failed")
    assert state["job"]["attempts"] == 2
    assert "SummarizerOutputInvalid" in state["job"]["error"]
    assert state["summary"] is None and state["summarized_seq"] == 0
    # The API keeps serving memory meanwhile.
    mem = await client.get(f"/v1/sessions/{sid}/memory")
    assert mem.status_code == 200 and len(mem.json()["messages"]) == 2

    stub.default = Reply(status=429)
    stub.replies = [Reply(status=429), json_reply({"summary": "Ada lives in Lisbon."})]
    r = await client.post(f"/v1/sessions/{sid}/summarize", params={"wait_seconds": 30})
    assert r.json()["done"], r.json()
    assert r.json()["summary"]["content"] == "Ada lives in Lisbon."
    assert r.json()["job"] is None

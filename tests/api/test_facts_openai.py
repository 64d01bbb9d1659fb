"""Fact extraction with ENGRAM_LLM=openai, end to end, against a local server speaking the OpenAI
wire format: a scripted "model" answers from the prompt, so reconciliation (updates, negations)
runs on its output through the worker and the database; malformed answers leave the job failed
with its error over the API, and forcing it retries; slow answers are retried."""

from __future__ import annotations

import asyncio
import json
import re
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

_LINE = re.compile(r"^#(\d+) \[[^\]]+\] user: (.*)$", re.M)
# What the scripted model "knows": a phrase in a user turn -> the fact it reports.
_KNOWS = {
    "Lisbon": {"content": "Lives in Lisbon.", "kind": "location", "subject": "home", "exclusive": True},
    "Porto": {"content": "Lives in Porto.", "kind": "location", "subject": "home", "exclusive": True},
    "Acme": {"content": "Works at Acme.", "kind": "occupation", "subject": "employer", "exclusive": True},
}


def model(body: dict[str, Any]) -> Reply:
    prompt = body["messages"][-1]["content"]
    facts = []
    for seq, line in _LINE.findall(prompt):
        for phrase, fact in _KNOWS.items():
            if phrase in line:
                negated = "quit" in line
                facts.append(
                    {
                        **fact,
                        "negated": negated,
                        "importance": 0.8,
                        "topics": [],
                        "valid_from": None,
                        "source_seqs": [int(seq)],
                    }
                )
    return json_reply({"facts": facts})


@pytest.fixture
def script() -> Iterator[tuple[ChatScript, str]]:
    s = ChatScript(default=model)
    with serve(s) as base_url:
        yield s, base_url


@pytest.fixture
async def client(pg: EmbeddedPostgres, script: tuple[ChatScript, str]) -> AsyncIterator[httpx.AsyncClient]:
    # A database of its own: the suite's shared app runs a worker with the local extractor.
    settings = make_settings(
        await create_database(pg),
        auth="off",
        redis_url=None,
        llm="openai",
        openai_base_url=script[1],
        openai_timeout_seconds=1.0,
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


async def _say(client: httpx.AsyncClient, sid: str, content: str, at: str) -> dict[str, Any]:
    r = await client.post(
        f"/v1/sessions/{sid}/messages",
        json={"messages": [{"role": "user", "content": content, "created_at": at}]},
    )
    assert r.status_code == 201, r.text
    r = await client.post(f"/v1/sessions/{sid}/extract", params={"wait_seconds": 30})
    out: dict[str, Any] = r.json()
    return out


async def test_model_facts_are_reconciled_into_a_history(
    client: httpx.AsyncClient, script: tuple[ChatScript, str]
) -> None:
    await client.post("/v1/sessions", json={"session_id": "s", "user_id": "ada"})
    assert (await _say(client, "s", "I live in Lisbon and work at Acme.", "2026-01-01T09:00:00Z"))["done"]
    assert (await _say(client, "s", "We moved to Porto!", "2026-05-01T09:00:00Z"))["done"]
    assert (await _say(client, "s", "I quit Acme today.", "2026-06-01T09:00:00Z"))["done"]
    now = (await client.get("/v1/users/ada/facts")).json()["items"]
    assert [f["content"] for f in now] == ["Lives in Porto."]
    every = {
        f["content"]: f
        for f in (await client.get("/v1/users/ada/facts", params={"include_invalid": "true"})).json()["items"]
    }
    assert every["Lives in Lisbon."]["superseded_by"] == every["Lives in Porto."]["fact_id"]
    assert every["Works at Acme."]["invalid_at"] == "2026-06-01T09:00:00Z"
    # The prompt carried the subjects already known, so the model can reuse them.
    assert "employer" in script[0].prompts()[-1] and "home" in script[0].prompts()[-1]


async def test_malformed_output_fails_the_job_visibly_then_a_force_retries_it(
    client: httpx.AsyncClient, script: tuple[ChatScript, str]
) -> None:
    stub, _ = script
    stub.default = Reply(content="not json at all")
    await client.post("/v1/sessions", json={"session_id": "bad", "user_id": "bo"})
    r = await client.post(
        "/v1/sessions/bad/messages", json={"messages": [{"role": "user", "content": "I live in Lisbon."}]}
    )
    assert r.status_code == 201
    deadline = time.monotonic() + 30
    while True:
        state = (await client.get("/v1/sessions/bad/extraction")).json()
        if state["job"] and state["job"]["status"] == "failed":
            break
        assert time.monotonic() < deadline, state
        await asyncio.sleep(0.05)
    assert "ExtractorOutputInvalid" in state["job"]["error"] and state["extracted_seq"] == 0
    # The API keeps answering meanwhile.
    assert (await client.get("/v1/sessions/bad/memory")).status_code == 200

    stub.default = model
    stub.replies = [Reply(stall_seconds=3.0)]  # one answer slower than the timeout: retried
    r = await client.post("/v1/sessions/bad/extract", params={"wait_seconds": 30})
    assert r.json()["done"], r.json()
    assert [f["content"] for f in (await client.get("/v1/users/bo/facts")).json()["items"]] == [
        "Lives in Lisbon."
    ]


def test_the_scripted_model_reads_numbered_user_lines() -> None:
    body = {"messages": [{"role": "user", "content": "#3 [2026-01-01T00:00:00+00:00] user: in Lisbon"}]}
    content = model(body).content
    assert content is not None and json.loads(content)["facts"][0]["source_seqs"] == [3]

"""The generated clients (openapi/clients/) are current and work against a live `engram serve`,
and so does the example agent loop (examples/agent_loop.py) with a chat model in front of it."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from engram_client import AuthenticatedClient
from engram_client.api.export_and_import import export_user, import_user
from engram_client.api.facts import add_fact, list_facts
from engram_client.api.memory import get_memory
from engram_client.api.messages import append_messages, list_messages
from engram_client.api.search import search
from engram_client.api.sessions import create_session, get_session
from engram_client.api.users import upsert_user
from engram_client.models import (
    AppendRequest,
    FactIn,
    ImportResult,
    MessageIn,
    MessageInMetadata,
    Problem,
    SearchRequest,
    SearchResponse,
    SessionCreate,
    UserUpsert,
    UserUpsertMetadata,
)
from engram_client.types import File

from app.db.embedded import EmbeddedPostgres
from tests.support.app import ADMIN_TOKEN, REDIS_URL
from tests.support.chat_stub import ChatScript, Reply
from tests.support.chat_stub import serve as serve_chat
from tests.support.db import create_database
from tests.support.procs import MODEL_CACHE, Server

ROOT = Path(__file__).resolve().parents[2]
TS_DIR = ROOT / "openapi" / "clients" / "typescript"
INDEXED_WITHIN = 90.0  # seconds; the worker usually needs well under one


@dataclass
class Live:
    url: str

    def new_key(self) -> str:
        """An API key of a brand-new tenant."""
        r = httpx.post(
            f"{self.url}/v1/admin/keys",
            json={"tenant_id": f"t-{uuid.uuid4().hex[:12]}", "name": "clients"},
            headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        )
        assert r.status_code == 201, r.text
        return str(r.json()["key"])


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


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{' '.join(cmd)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def node_client() -> Path:
    """The TypeScript client with its dependencies, type-checked and compiled."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node is not installed")
    if not (TS_DIR / "node_modules").exists():
        _run(["npm", "ci", "--no-audit", "--no-fund"], TS_DIR)
    _run(["npm", "run", "typecheck"], TS_DIR)
    _run(["npm", "run", "build"], TS_DIR)
    return TS_DIR


def test_committed_clients_are_what_the_spec_generates(node_client: Path) -> None:
    out = _run([sys.executable, "scripts/gen_clients.py", "--check"], ROOT)
    assert "clients are current" in out


def _searched(engram: AuthenticatedClient, body: SearchRequest) -> SearchResponse:
    """Search once the scope is fully indexed (semantic hits need the worker's embeddings)."""
    deadline = time.monotonic() + INDEXED_WITHIN
    while True:
        found = search.sync(client=engram, body=body)
        assert isinstance(found, SearchResponse), found
        if found.indexing.complete or time.monotonic() > deadline:
            return found


def test_python_client_end_to_end(live: Live) -> None:
    engram = AuthenticatedClient(base_url=live.url, token=live.new_key(), raise_on_unexpected_status=True)
    run = uuid.uuid4().hex[:8]
    user_id, session_id = f"py-user-{run}", f"py-sess-{run}"

    user = upsert_user.sync_detailed(
        user_id, client=engram, body=UserUpsert(metadata=UserUpsertMetadata.from_dict({"plan": "pro"}))
    )
    assert user.status_code == 201
    session = create_session.sync(client=engram, body=SessionCreate(user_id=user_id, session_id=session_id))
    assert not isinstance(session, Problem) and session is not None
    assert session.session_id == session_id

    body = AppendRequest(
        messages=[
            MessageIn(
                role="user",
                content="My cat Miso only eats salmon flavoured kibble.",
                name="Ada",
                metadata=MessageInMetadata.from_dict({"turn": 1}),
            ),
            MessageIn(role="assistant", content="Noted: Miso is a salmon fan."),
        ]
    )
    first = append_messages.sync(session_id, client=engram, body=body, idempotency_key=f"append-{run}")
    again = append_messages.sync(session_id, client=engram, body=body, idempotency_key=f"append-{run}")
    assert not isinstance(first, Problem) and first is not None
    assert not isinstance(again, Problem) and again is not None
    assert [m.seq for m in first.messages] == [1, 2]
    assert [m.message_id for m in again.messages] == [m.message_id for m in first.messages]

    memory = get_memory.sync(session_id, client=engram, max_tokens=500, query="cat food")
    assert not isinstance(memory, Problem) and memory is not None
    assert [m.content for m in memory.messages] == [m.content for m in body.messages]
    assert memory.messages[0].metadata.to_dict() == {"turn": 1}
    assert "salmon flavoured kibble" in memory.context
    assert 0 < memory.token_count <= 500

    found = _searched(
        engram, SearchRequest(query="what does the cat eat?", user_id=user_id, wait_for_indexing_ms=5000)
    )
    assert found.indexing.complete
    assert "salmon" in found.results[0].content
    semantic = found.results[0].scores.semantic
    assert isinstance(semantic, float) and semantic > 0

    fact = add_fact.sync(
        user_id, client=engram, body=FactIn(content="Has a cat called Miso.", kind="relationship")
    )
    assert not isinstance(fact, Problem) and fact is not None
    facts = list_facts.sync(user_id, client=engram)
    assert not isinstance(facts, Problem) and facts is not None
    assert fact.fact_id in [f.fact_id for f in facts.items]

    # A user's memory moves to another tenant as one JSON Lines file, bytes both ways.
    exported = export_user.sync(user_id, client=engram)
    assert isinstance(exported, File), exported
    elsewhere = AuthenticatedClient(base_url=live.url, token=live.new_key())
    imported = import_user.sync(user_id, client=elsewhere, body=exported)
    assert isinstance(imported, ImportResult), imported
    assert imported.created.messages == 2
    moved = list_facts.sync(user_id, client=elsewhere)
    assert not isinstance(moved, Problem) and moved is not None
    assert "Has a cat called Miso." in [f.content for f in moved.items]

    missing = get_session.sync(f"ghost-{run}", client=engram)
    assert isinstance(missing, Problem)
    assert (missing.status, missing.type_) == (404, "urn:engram:problem:not-found")
    stranger = AuthenticatedClient(base_url=live.url, token="egm_not-a-key")
    assert isinstance(get_session.sync(session_id, client=stranger), Problem)


def test_typescript_client_end_to_end(live: Live, node_client: Path) -> None:
    key, run = live.new_key(), uuid.uuid4().hex[:8]
    env = {
        **os.environ,
        "ENGRAM_URL": live.url,
        "ENGRAM_API_KEY": key,
        "ENGRAM_OTHER_API_KEY": live.new_key(),
        "ENGRAM_RUN": run,
    }
    seen = json.loads(_run(["node", "build/test/e2e.js"], node_client, env).strip().splitlines()[-1])
    assert seen["seqs"] == [1, 2]
    assert seen["facts"] >= 1

    # What the TypeScript client wrote is really there, read back without it.
    r = httpx.get(
        f"{live.url}/v1/sessions/{seen['session_id']}/messages", headers={"Authorization": f"Bearer {key}"}
    )
    assert [m["content"] for m in r.json()["items"]] == [
        "My cat Miso only eats salmon flavoured kibble.",
        "Noted: Miso is a salmon fan.",
    ]


def test_example_agent_loop_remembers_across_turns(live: Live) -> None:
    key, run = live.new_key(), uuid.uuid4().hex[:8]
    user_id, session_id = f"agent-user-{run}", f"agent-sess-{run}"
    engram = AuthenticatedClient(base_url=live.url, token=key)
    assert not isinstance(
        add_fact.sync(user_id, client=engram, body=FactIn(content="Is vegetarian.")), Problem
    )

    def answer(request: dict[str, Any]) -> Reply:
        return Reply(content=f"reply to: {request['messages'][-1]['content']}")

    script = ChatScript(default=answer)
    with serve_chat(script) as chat_url:
        env = {
            **os.environ,
            "ENGRAM_URL": live.url,
            "ENGRAM_API_KEY": key,
            "OPENAI_BASE_URL": chat_url,
            "OPENAI_API_KEY": "stub-key",
            "OPENAI_MODEL": "stub-model",
        }
        cmd = [sys.executable, "examples/agent_loop.py", "--user", user_id, "--session", session_id]
        done = subprocess.run(
            cmd,
            cwd=ROOT,
            env=env,
            input="What should I cook tonight?\nAnd for dessert?\n",
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "assistant> reply to: What should I cook tonight?",
        "assistant> reply to: And for dessert?",
    ]

    assert len(script.requests) == 2
    assert {r["body"]["model"] for r in script.requests} == {"stub-model"}
    assert {r["auth"] for r in script.requests} == {"Bearer stub-key"}
    first, second = (r["body"]["messages"][0]["content"] for r in script.requests)
    assert "## Facts about the user\n- Is vegetarian." in first  # the user's facts reach the model
    # The second turn's prompt carries the first turn and the model's reply, read back from Engram.
    assert "What should I cook tonight?" in second and "reply to: What should I cook tonight?" in second

    stored = list_messages.sync(session_id, client=engram)
    assert not isinstance(stored, Problem) and stored is not None
    assert [(m.role, m.content) for m in stored.items] == [
        ("user", "What should I cook tonight?"),
        ("assistant", "reply to: What should I cook tonight?"),
        ("user", "And for dessert?"),
        ("assistant", "reply to: And for dessert?"),
    ]

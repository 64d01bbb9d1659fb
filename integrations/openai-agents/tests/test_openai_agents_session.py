"""`EngramSession` against a live `engram serve`: the SDK's own session checks, every protocol
method, items other than chat messages, the memory variant, and a `Runner` turn with a model of
the SDK's own kind that answers without an LLM."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import httpx
from agents import Agent, Runner
from agents.memory import Session
from engram_client import AuthenticatedClient
from engram_openai_agents import EngramSession

from integrations.conftest import Live


def _session(live: Live, key: str, **kw: Any) -> EngramSession:
    run = uuid.uuid4().hex[:8]
    client = AuthenticatedClient(base_url=live.url, token=key)
    return EngramSession(f"sess-{run}", user_id=f"user-{run}", client=client, **kw)


async def test_session_protocol(engram_live: Live) -> None:
    key = engram_live.new_key()
    session = _session(engram_live, key)
    assert isinstance(session, Session)  # the SDK's runtime-checkable protocol
    assert await session.get_items() == []
    assert await session.pop_item() is None

    call = {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": '{"city": "Porto"}'}
    output = {"type": "function_call_output", "call_id": "c1", "output": "sunny, 24 C"}
    reply = {
        "type": "message",
        "role": "assistant",
        "id": "msg_1",
        "status": "completed",
        "content": [{"type": "output_text", "text": "It is sunny in Porto.", "annotations": []}],
    }
    items: list[Any] = [{"role": "user", "content": "Weather in Porto?"}, call, output, reply]
    await session.add_items(items)
    assert await session.get_items() == items
    assert await session.get_items(limit=2) == items[2:]

    # Stored as Engram messages, readable by anything else that speaks to Engram.
    rest = (
        await asyncio.to_thread(
            httpx.get,
            f"{engram_live.url}/v1/sessions/{session.session_id}/messages",
            headers={"Authorization": f"Bearer {key}"},
        )
    ).json()["items"]
    assert [(m["role"], m["content"]) for m in rest] == [
        ("user", "Weather in Porto?"),
        ("assistant", 'weather({"city": "Porto"})'),
        ("tool", "sunny, 24 C"),
        ("assistant", "It is sunny in Porto."),
    ]

    assert await session.pop_item() == reply
    assert await session.get_items() == items[:3]
    await session.clear_session()
    assert await session.get_items() == []
    await session.add_items([{"role": "user", "content": "again"}])  # a cleared session starts afresh
    assert await session.get_items() == [{"role": "user", "content": "again"}]


async def test_memory_variant_prepends_engrams_memory(engram_live: Live) -> None:
    key = engram_live.new_key()
    session = _session(engram_live, key, with_memory=True)
    plain = EngramSession(session.session_id, user_id=session.user_id, client=session.client)
    assert await session.get_items() == []
    await session.add_items([{"role": "user", "content": "I am allergic to peanuts."}])
    facts = await asyncio.to_thread(
        httpx.post,
        f"{engram_live.url}/v1/users/{session.user_id}/facts",
        json={"content": "Is allergic to peanuts."},
        headers={"Authorization": f"Bearer {key}"},
    )
    assert facts.status_code in (200, 201)
    deadline = time.monotonic() + 60
    while True:  # the fact is ranked once the worker has embedded it
        items = await session.get_items()
        if items[0]["role"] == "system" or time.monotonic() > deadline:
            break
    assert items[0]["role"] == "system"
    assert "What you know about the user:" in items[0]["content"]
    assert "- Is allergic to peanuts." in items[0]["content"]
    assert items[1:] == await plain.get_items() == [{"role": "user", "content": "I am allergic to peanuts."}]


async def test_a_runner_turn_keeps_its_history_in_engram(engram_live: Live) -> None:
    """A real `Runner.run` with the session: the history the runner reads and writes is Engram's.
    No LLM: the agent's model (the SDK's `Model` interface) answers from the input it is given."""
    from agents.models.interface import Model

    key = engram_live.new_key()
    session = _session(engram_live, key)

    class Echo(Model):
        def __init__(self) -> None:
            self.inputs: list[Any] = []

        async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kw: Any) -> Any:
            from agents.items import ModelResponse
            from agents.usage import Usage
            from openai.types.responses import ResponseOutputMessage, ResponseOutputText

            self.inputs.append(input)
            said = [i["content"] for i in input if isinstance(i, dict) and i.get("role") == "user"]
            text = ResponseOutputText(type="output_text", text=f"you said {len(said)} things", annotations=[])
            out = ResponseOutputMessage(
                id=f"msg_{len(self.inputs)}",
                type="message",
                role="assistant",
                status="completed",
                content=[text],
            )
            return ModelResponse(output=[out], usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kw: Any) -> Any:
            raise NotImplementedError

    model = Echo()
    agent = Agent(name="echo", model=model)
    first = await Runner.run(agent, "hello", session=session)
    second = await Runner.run(agent, "and again", session=session)
    assert (first.final_output, second.final_output) == ("you said 1 things", "you said 2 things")
    stored = await session.get_items()
    assert [i.get("role") for i in stored] == ["user", "assistant", "user", "assistant"]
    assert stored[0]["content"] == "hello" and stored[2]["content"] == "and again"

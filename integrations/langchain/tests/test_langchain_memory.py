"""`EngramChatMessageHistory` and `engram_tools` against a live `engram serve`: every message type
round-trips (sync and async), `RunnableWithMessageHistory` keeps a conversation in Engram, and the
tools search, list, remember and forget for one user only."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx
from engram_client import AuthenticatedClient
from engram_langchain import EngramChatMessageHistory, engram_tools
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory

from integrations.conftest import Live


def _ids() -> tuple[str, str]:
    run = uuid.uuid4().hex[:8]
    return f"sess-{run}", f"user-{run}"


def test_history_round_trips_every_message_type(engram_live: Live) -> None:
    key = engram_live.new_key()
    client = AuthenticatedClient(base_url=engram_live.url, token=key)
    session_id, user_id = _ids()
    history = EngramChatMessageHistory(session_id, user_id=user_id, client=client)
    assert isinstance(history, BaseChatMessageHistory)
    assert history.messages == []
    sent = [
        SystemMessage("You are terse."),
        HumanMessage("Weather in Porto?", id="h1"),
        AIMessage("", tool_calls=[{"name": "weather", "args": {"city": "Porto"}, "id": "call_1"}]),
        ToolMessage("sunny, 24 C", tool_call_id="call_1"),
        AIMessage("Sunny, 24 C.", name="bot"),
    ]
    history.add_messages(sent)
    got = history.messages
    assert [type(m) for m in got] == [type(m) for m in sent]
    assert [m.content for m in got] == [m.content for m in sent]
    assert got[1].id == "h1" and got[4].name == "bot"
    assert got[2].tool_calls == sent[2].tool_calls  # type: ignore[attr-defined]
    assert got[3].tool_call_id == "call_1"  # type: ignore[attr-defined]
    rest = httpx.get(
        f"{engram_live.url}/v1/sessions/{session_id}/messages", headers={"Authorization": f"Bearer {key}"}
    ).json()["items"]
    assert [m["role"] for m in rest] == ["system", "user", "assistant", "tool", "assistant"]
    history.clear()
    assert history.messages == []


async def test_async_history_and_runnable_with_message_history(engram_live: Live) -> None:
    client = AuthenticatedClient(base_url=engram_live.url, token=engram_live.new_key())
    session_id, user_id = _ids()

    def reply(messages: list[Any]) -> AIMessage:  # a model without an LLM: counts what it was given
        return AIMessage(f"seen {len(messages)} messages")

    chain = RunnableWithMessageHistory(
        RunnableLambda(reply),
        lambda sid: EngramChatMessageHistory(sid, user_id=user_id, client=client),
    )
    config: Any = {"configurable": {"session_id": session_id}}
    first = await chain.ainvoke([HumanMessage("hello")], config=config)
    second = await chain.ainvoke([HumanMessage("again")], config=config)
    assert (first.content, second.content) == ("seen 1 messages", "seen 3 messages")
    history = EngramChatMessageHistory(session_id, user_id=user_id, client=client)
    assert [m.content for m in await history.aget_messages()] == [
        "hello",
        "seen 1 messages",
        "again",
        "seen 3 messages",
    ]
    await history.aclear()
    assert await history.aget_messages() == []


async def test_memory_tools_for_one_user(engram_live: Live) -> None:
    key = engram_live.new_key()
    client = AuthenticatedClient(base_url=engram_live.url, token=key)
    session_id, user_id = _ids()
    tools = {t.name: t for t in engram_tools(client, user_id=user_id)}
    assert set(tools) == {"search_memory", "list_facts", "remember_fact", "forget_fact"}
    assert await tools["list_facts"].ainvoke({}) == []

    history = EngramChatMessageHistory(session_id, user_id=user_id, client=client)
    await history.aadd_messages([HumanMessage("My sister Ines is getting married in June.")])
    fact = await tools["remember_fact"].ainvoke({"content": "Has a sister called Ines."})
    assert fact in tools["list_facts"].invoke({})  # (with what the worker may have read from the message)

    deadline = time.monotonic() + 60
    while True:  # semantic hits need the worker's embeddings
        found = await tools["search_memory"].ainvoke({"query": "wedding of my sibling"})
        if {h["kind"] for h in found} >= {"messages", "facts"} or time.monotonic() > deadline:
            break
    assert "My sister Ines is getting married in June." in [h["content"] for h in found]
    # The remembered fact, or the worker's reading of the message that reconciled with it (the
    # same statement, whichever came last: the order is the worker's).
    assert {"Has a sister called Ines.", "Has a sister named Ines."} & {h["content"] for h in found}

    # Another user's tools see none of it.
    others = {t.name: t for t in engram_tools(client, user_id="someone-else")}
    assert await others["list_facts"].ainvoke({}) == []
    assert await others["search_memory"].ainvoke({"query": "wedding of my sibling"}) == []

    assert await tools["forget_fact"].ainvoke({"fact_id": fact["fact_id"]}) == "forgotten"
    assert fact not in await tools["list_facts"].ainvoke({})

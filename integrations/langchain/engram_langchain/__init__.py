"""Engram for LangChain and LangGraph, over Engram's REST API through the generated client
`engram_client`:

- `EngramChatMessageHistory`: a `BaseChatMessageHistory` (for `RunnableWithMessageHistory`, or a
  LangGraph node that loads and saves a thread's messages) kept as an Engram session;
- `engram_tools(client, user_id=...)`: long-term memory as tools an agent calls (LangGraph's
  `create_react_agent`, `ToolNode`, `bind_tools`): `search_memory`, `list_facts`, `remember_fact`,
  `forget_fact`.

    from engram_client import AuthenticatedClient
    from engram_langchain import EngramChatMessageHistory, engram_tools

    engram = AuthenticatedClient(base_url="http://127.0.0.1:8000", token="egm_...")
    history = EngramChatMessageHistory("sess-42", user_id="ada", client=engram)
    tools = engram_tools(engram, user_id="ada")
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from engram_client import AuthenticatedClient
from engram_client.api.facts import add_fact, delete_fact, list_facts
from engram_client.api.messages import append_messages, list_messages
from engram_client.api.search import search
from engram_client.api.sessions import create_session, delete_session
from engram_client.models import (
    AppendRequest,
    FactIn,
    PageFactOut,
    PageMessageOut,
    Problem,
    SearchRequest,
    SearchResponse,
    SessionCreate,
)
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage, message_to_dict, messages_from_dict
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

__all__ = ["EngramChatMessageHistory", "EngramError", "engram_tools"]

MESSAGE_KEY = "langchain"  # metadata key: the message's type and fields other than its content
_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "function": "tool"}


class EngramError(Exception):
    """Engram answered with an RFC 9457 problem."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(f"{problem.title}: {problem.detail} ({problem.type_})")
        self.problem = problem


def _ok(value: Any) -> Any:
    if isinstance(value, Problem):
        raise EngramError(value)
    if value is None:
        raise RuntimeError("Engram gave an unexpected answer")
    return value


def _to_engram(message: BaseMessage) -> dict[str, Any]:
    stored = message_to_dict(message)
    data = {k: v for k, v in stored["data"].items() if k != "content" and v not in (None, {}, [], "")}
    content = message.content if isinstance(message.content, str) else message.text
    out: dict[str, Any] = {
        "role": _ROLES.get(message.type, "user"),
        "content": content,
        "metadata": {MESSAGE_KEY: {"type": stored["type"], "data": data}},
    }
    if message.name:
        out["name"] = message.name
    if not isinstance(message.content, str):  # content blocks: kept whole
        out["metadata"][MESSAGE_KEY]["data"]["content"] = message.content
    return out


def _from_engram(message: Any) -> BaseMessage:
    meta = message.metadata.to_dict().get(MESSAGE_KEY)
    if meta is None:  # written by something else than this adapter
        kind = {"user": "human", "assistant": "ai", "system": "system", "tool": "tool"}[message.role]
        data: dict[str, Any] = {"content": message.content}
        if kind == "tool":
            data["tool_call_id"] = ""
        meta = {"type": kind, "data": data}
    else:
        meta = {"type": meta["type"], "data": {"content": message.content, **meta["data"]}}
    return messages_from_dict([meta])[0]


class EngramChatMessageHistory(BaseChatMessageHistory):
    """A chat history kept as the Engram session `session_id` of `user_id` (created on the first
    message). Every message type round-trips, with tool calls and ids; other Engram clients read
    the same session as plain messages."""

    def __init__(self, session_id: str, *, user_id: str, client: AuthenticatedClient) -> None:
        self.session_id = session_id
        self.user_id = user_id
        self.client = client

    # -- sync --------------------------------------------------------------------------------
    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        out: list[BaseMessage] = []
        cursor: str | None = None
        while True:
            resp = list_messages.sync_detailed(
                self.session_id, client=self.client, limit=1000, cursor=cursor or None
            )
            if resp.status_code == 404:
                return []
            page: PageMessageOut = _ok(resp.parsed)
            out.extend(_from_engram(m) for m in page.items)
            cursor = page.next_cursor if isinstance(page.next_cursor, str) else None
            if cursor is None:
                return out

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        if not messages:
            return
        body = AppendRequest.from_dict({"messages": [_to_engram(m) for m in messages]})
        resp = append_messages.sync_detailed(self.session_id, client=self.client, body=body)
        if resp.status_code == 404:
            made = create_session.sync_detailed(
                client=self.client, body=SessionCreate(user_id=self.user_id, session_id=self.session_id)
            )
            if made.status_code not in (201, 409):
                _ok(made.parsed)
            resp = append_messages.sync_detailed(self.session_id, client=self.client, body=body)
        _ok(resp.parsed)

    def clear(self) -> None:
        resp = delete_session.sync_detailed(self.session_id, client=self.client)
        if resp.status_code not in (204, 404):
            _ok(resp.parsed)

    # -- async -------------------------------------------------------------------------------
    async def aget_messages(self) -> list[BaseMessage]:
        out: list[BaseMessage] = []
        cursor: str | None = None
        while True:
            resp = await list_messages.asyncio_detailed(
                self.session_id, client=self.client, limit=1000, cursor=cursor or None
            )
            if resp.status_code == 404:
                return []
            page: PageMessageOut = _ok(resp.parsed)
            out.extend(_from_engram(m) for m in page.items)
            cursor = page.next_cursor if isinstance(page.next_cursor, str) else None
            if cursor is None:
                return out

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        if not messages:
            return
        body = AppendRequest.from_dict({"messages": [_to_engram(m) for m in messages]})
        resp = await append_messages.asyncio_detailed(self.session_id, client=self.client, body=body)
        if resp.status_code == 404:
            made = await create_session.asyncio_detailed(
                client=self.client, body=SessionCreate(user_id=self.user_id, session_id=self.session_id)
            )
            if made.status_code not in (201, 409):
                _ok(made.parsed)
            resp = await append_messages.asyncio_detailed(self.session_id, client=self.client, body=body)
        _ok(resp.parsed)

    async def aclear(self) -> None:
        resp = await delete_session.asyncio_detailed(self.session_id, client=self.client)
        if resp.status_code not in (204, 404):
            _ok(resp.parsed)


# -- long-term memory as tools ------------------------------------------------------------------


class _SearchArgs(BaseModel):
    query: str = Field(description="What to look for, in natural language.")
    limit: int = Field(5, ge=1, le=50, description="At most this many results.")


class _NoArgs(BaseModel):
    pass


class _FactArgs(BaseModel):
    content: str = Field(description="A short statement about the user, e.g. 'Lives in Porto.'")


class _ForgetArgs(BaseModel):
    fact_id: str = Field(description="The id of the fact, from list_facts.")


def engram_tools(
    client: AuthenticatedClient, *, user_id: str, session_id: str | None = None
) -> list[BaseTool]:
    """Tools over one user's memory (and, with `session_id`, searches limited to that session).
    The user is fixed here, not chosen by the model."""

    def _search(query: str, limit: int = 5) -> list[dict[str, Any]]:
        body = SearchRequest.from_dict(
            {
                "query": query,
                "user_id": user_id,
                "limit": limit,
                "kinds": ["messages", "facts", "summaries"],
                **({"session_id": session_id} if session_id else {}),
            }
        )
        found: SearchResponse = _ok(search.sync(client=client, body=body))
        return [{"kind": h.kind, "content": h.content, "score": round(h.score, 3)} for h in found.results]

    async def _asearch(query: str, limit: int = 5) -> list[dict[str, Any]]:
        body = SearchRequest.from_dict(
            {
                "query": query,
                "user_id": user_id,
                "limit": limit,
                "kinds": ["messages", "facts", "summaries"],
                **({"session_id": session_id} if session_id else {}),
            }
        )
        found: SearchResponse = _ok(await search.asyncio(client=client, body=body))
        return [{"kind": h.kind, "content": h.content, "score": round(h.score, 3)} for h in found.results]

    def _facts() -> list[dict[str, str]]:
        resp = list_facts.sync_detailed(user_id, client=client)
        if resp.status_code == 404:  # no user yet: no facts
            return []
        page: PageFactOut = _ok(resp.parsed)
        return [{"fact_id": str(f.fact_id), "content": f.content} for f in page.items]

    async def _afacts() -> list[dict[str, str]]:
        resp = await list_facts.asyncio_detailed(user_id, client=client)
        if resp.status_code == 404:  # no user yet: no facts
            return []
        page: PageFactOut = _ok(resp.parsed)
        return [{"fact_id": str(f.fact_id), "content": f.content} for f in page.items]

    def _remember(content: str) -> dict[str, str]:
        fact = _ok(add_fact.sync(user_id, client=client, body=FactIn(content=content)))
        return {"fact_id": str(fact.fact_id), "content": fact.content}

    async def _aremember(content: str) -> dict[str, str]:
        fact = _ok(await add_fact.asyncio(user_id, client=client, body=FactIn(content=content)))
        return {"fact_id": str(fact.fact_id), "content": fact.content}

    def _forget(fact_id: str) -> str:
        resp = delete_fact.sync_detailed(uuid.UUID(fact_id), client=client, redact=True)
        if resp.status_code != 204:
            _ok(resp.parsed)
        return "forgotten"

    async def _aforget(fact_id: str) -> str:
        resp = await delete_fact.asyncio_detailed(uuid.UUID(fact_id), client=client, redact=True)
        if resp.status_code != 204:
            _ok(resp.parsed)
        return "forgotten"

    return [
        StructuredTool.from_function(
            func=_search,
            coroutine=_asearch,
            name="search_memory",
            description="Search what the user said in past conversations, their summaries and the facts "
            "known about the user, by meaning and words. Returns the best matches.",
            args_schema=_SearchArgs,
        ),
        StructuredTool.from_function(
            func=_facts,
            coroutine=_afacts,
            name="list_facts",
            description="List the facts known about the user that are true now, with their ids.",
            args_schema=_NoArgs,
        ),
        StructuredTool.from_function(
            func=_remember,
            coroutine=_aremember,
            name="remember_fact",
            description="Remember a lasting fact about the user (a short statement, e.g. 'Is vegetarian.').",
            args_schema=_FactArgs,
        ),
        StructuredTool.from_function(
            func=_forget,
            coroutine=_aforget,
            name="forget_fact",
            description="Forget a fact about the user for good (its text is erased from its history too).",
            args_schema=_ForgetArgs,
        ),
    ]

"""Engram as the memory of the OpenAI Agents SDK: its `Session` protocol over Engram's REST API,
through the generated client `engram_client`.

    from agents import Agent, Runner
    from engram_client import AuthenticatedClient
    from engram_openai_agents import EngramSession

    engram = AuthenticatedClient(base_url="http://127.0.0.1:8000", token="egm_...")
    session = EngramSession("sess-42", user_id="ada", client=engram)
    await Runner.run(agent, "Where do I live?", session=session)

Each item is one Engram message: a chat message keeps its role (`developer` is `system`) and text;
any other item (a function call, its output, reasoning) is stored with the role that fits, its text
as content and the item itself in the message's metadata, so `get_items` gives back exactly what was
added. The session is created (for `user_id`) on the first `add_items`. With
`with_memory=True`, `get_items` starts with a system message carrying Engram's memory: the session's
summary of older turns and the user's facts relevant to the newest user message, followed by the
items the summary does not cover.
"""

from __future__ import annotations

import json
from typing import Any

from agents.memory import SessionSettings
from engram_client import AuthenticatedClient
from engram_client.api.memory import get_memory
from engram_client.api.messages import append_messages, delete_message, list_messages
from engram_client.api.sessions import create_session, delete_session
from engram_client.models import AppendRequest, MemoryOut, PageMessageOut, Problem, SessionCreate

__all__ = ["EngramError", "EngramSession"]

ITEM_KEY = "openai_agents_item"  # metadata key holding an item that is not a plain chat message
_ROLES = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system"}
_TOOL_ITEMS = {
    "function_call_output",
    "computer_call_output",
    "local_shell_call_output",
    "custom_tool_call_output",
}


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


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") or p.get("refusal") or "" for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if p)
    return "" if content is None else json.dumps(content)


def to_message(item: dict[str, Any]) -> dict[str, Any]:
    """An item as an Engram message (the `messages` entry of an append)."""
    role = item.get("role")
    kind = item.get("type", "message")
    if (
        kind == "message"
        and role in _ROLES
        and isinstance(item.get("content"), str)
        and set(item)
        <= {
            "role",
            "content",
            "type",
        }
    ):
        return {"role": _ROLES[role], "content": item["content"]}
    if kind == "message" and role in _ROLES:
        text = _text(item.get("content"))
        engram_role = _ROLES[role]
    elif kind in _TOOL_ITEMS:
        text, engram_role = _text(item.get("output")), "tool"
    elif kind == "function_call":
        text, engram_role = f"{item.get('name')}({item.get('arguments', '')})", "assistant"
    else:  # reasoning, tool calls of other kinds, ...: kept as they are
        text, engram_role = _text(item.get("summary") or item.get("content")) or kind, "assistant"
    return {"role": engram_role, "content": text or kind, "metadata": {ITEM_KEY: item}}


def to_item(message: Any) -> dict[str, Any]:
    """An Engram message (`MessageOut`) back as the item it was added as."""
    meta = message.metadata.to_dict()
    if ITEM_KEY in meta:
        item: dict[str, Any] = meta[ITEM_KEY]
        return item
    return {"role": message.role, "content": message.content}


class EngramSession:
    """An OpenAI Agents SDK `Session` kept in Engram (see the module's documentation)."""

    session_settings: SessionSettings | None = None

    def __init__(
        self,
        session_id: str,
        *,
        user_id: str,
        client: AuthenticatedClient,
        with_memory: bool = False,
        memory_tokens: int = 1000,
    ) -> None:
        self.session_id = session_id
        self.user_id = user_id
        self.client = client
        self.with_memory = with_memory
        self.memory_tokens = memory_tokens

    async def _messages(self, limit: int | None, after_seq: int = 0) -> list[Any]:
        """The newest `limit` messages (all when None) after `after_seq`, oldest first."""
        out: list[Any] = []
        cursor: str | None = None
        while limit is None or len(out) < limit:
            size = 1000 if limit is None else min(1000, limit - len(out))
            resp = await list_messages.asyncio_detailed(
                self.session_id, client=self.client, limit=size, order="desc", cursor=cursor or None
            )
            if resp.status_code == 404:
                return []
            page: PageMessageOut = _ok(resp.parsed)
            fresh = [m for m in page.items if m.seq > after_seq]
            out.extend(fresh)
            cursor = page.next_cursor if isinstance(page.next_cursor, str) else None
            if cursor is None or len(fresh) < len(page.items):
                break
        return list(reversed(out))

    async def get_items(self, limit: int | None = None) -> list[Any]:
        if not self.with_memory:
            return [to_item(m) for m in await self._messages(limit)]
        return await self._with_memory(limit)

    async def _with_memory(self, limit: int | None) -> list[Any]:
        newest_user = await list_messages.asyncio_detailed(
            self.session_id, client=self.client, limit=1, order="desc", role=["user"]
        )
        if newest_user.status_code == 404:
            return []
        users = _ok(newest_user.parsed).items
        query = users[0].content[:2000] if users else None
        memory: MemoryOut = _ok(
            await get_memory.asyncio(
                self.session_id,
                client=self.client,
                max_tokens=self.memory_tokens,
                query=query or None,
                last_n=1,
            )
        )
        lines: list[str] = []
        covered = 0
        if memory.summary is not None:
            covered = memory.summary.to_seq
            lines += ["Summary of the conversation so far:", memory.summary.content, ""]
        if memory.facts:
            lines += ["What you know about the user:", *(f"- {f.content}" for f in memory.facts)]
        items = [to_item(m) for m in await self._messages(limit, after_seq=covered)]
        if not lines:
            return items
        return [{"role": "system", "content": "\n".join(lines).strip()}, *items]

    async def add_items(self, items: list[Any]) -> None:
        if not items:
            return
        body = AppendRequest.from_dict({"messages": [to_message(dict(i)) for i in items]})
        resp = await append_messages.asyncio_detailed(self.session_id, client=self.client, body=body)
        if resp.status_code == 404:  # the first items of a new session
            made = await create_session.asyncio_detailed(
                client=self.client, body=SessionCreate(user_id=self.user_id, session_id=self.session_id)
            )
            if made.status_code not in (201, 409):
                _ok(made.parsed)
            resp = await append_messages.asyncio_detailed(self.session_id, client=self.client, body=body)
        _ok(resp.parsed)

    async def pop_item(self) -> Any | None:
        newest = await self._messages(1)
        if not newest:
            return None
        message = newest[0]
        resp = await delete_message.asyncio_detailed(self.session_id, message.message_id, client=self.client)
        if resp.status_code not in (204, 404):  # 404: popped by someone else meanwhile
            _ok(resp.parsed)
        return to_item(message)

    async def clear_session(self) -> None:
        resp = await delete_session.asyncio_detailed(self.session_id, client=self.client)
        if resp.status_code not in (204, 404):
            _ok(resp.parsed)

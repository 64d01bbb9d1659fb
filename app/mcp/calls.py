"""The REST operations the MCP tools use, through the generated Python client (`engram_client`).

One implementation for both transports: `engram serve` hands the client an in-process ASGI
transport to its own app (app.mcp.http), `engram mcp` an HTTP connection to a remote Engram
(app.mcp.stdio). Either way a tool is exactly a REST call: the route's validation, limits,
idempotency, cache write-through and problem types apply, and no rule is written twice.
Answers are the REST JSON as sent; an error answer raises `ToolProblem` with the problem body.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from types import ModuleType
from typing import Any

import httpx
from engram_client import AuthenticatedClient
from engram_client.api.facts import add_fact, delete_fact, fact_history, list_facts
from engram_client.api.memory import get_memory
from engram_client.api.messages import append_messages
from engram_client.api.search import search
from engram_client.api.sessions import create_session
from engram_client.models import AppendRequest, FactIn, SearchRequest, SessionCreate
from engram_client.types import UNSET

from app.errors import problem_type
from app.jsonutil import loads

Json = dict[str, Any]


class ToolProblem(Exception):
    """An RFC 9457 problem answered by Engram (or found before calling it)."""

    def __init__(self, problem: Json) -> None:
        super().__init__(str(problem.get("detail", "")))
        self.problem = problem

    @property
    def type(self) -> str:
        return str(self.problem.get("type", ""))


def problem(status: int, slug: str, title: str, detail: str, **extra: Any) -> ToolProblem:
    """A problem in the API's shape for what the tool layer itself refuses (bad arguments)."""
    return ToolProblem(
        {"type": problem_type(slug), "title": title, "status": status, "detail": detail, **extra}
    )


def _body(resp: httpx.Response) -> Json:
    """The answer's JSON, or the problem it carries raised as `ToolProblem`."""
    if resp.status_code >= 400:
        try:
            found = loads(resp.content)
        except ValueError:
            found = None
        if not isinstance(found, dict) or "type" not in found:
            code = int(resp.status_code)
            text = resp.content.decode(errors="replace")[:500]
            found = {"type": "about:blank", "title": "HTTP error", "status": code, "detail": text}
        raise ToolProblem(found)
    if not resp.content:
        return {}
    out = loads(resp.content)
    assert isinstance(out, dict)
    return out


def _opt(value: Any) -> Any:
    return UNSET if value is None else value


class EngramCalls:
    """`headers` go with every call (in-process: the caller's credential and request id)."""

    def __init__(self, client: AuthenticatedClient, headers: dict[str, str] | None = None) -> None:
        self.client = client
        self.headers = headers or {}

    async def _call(self, operation: ModuleType, *args: Any, **kwargs: Any) -> httpx.Response:
        """The generated operation's request, sent without parsing the answer into the client's
        models (the tools pass the JSON on as it is; parsing it cost a tenth of a tool call)."""
        request = operation._get_kwargs(*args, **kwargs)
        if self.headers:
            request["headers"] = {**request.get("headers", {}), **self.headers}
        return await self.client.get_async_httpx_client().request(**request)

    async def memory(self, *, session_id: str, max_tokens: int, query: str | None) -> Json:
        return _body(await self._call(get_memory, session_id, max_tokens=max_tokens, query=_opt(query)))

    async def append(
        self, *, session_id: str, messages: list[Json], idempotency_key: str
    ) -> tuple[Json, bool]:
        """The stored messages, and whether this was a replay of an earlier call with this key."""
        resp = await self._call(
            append_messages,
            session_id,
            body=AppendRequest.from_dict({"messages": messages}),
            idempotency_key=idempotency_key,
        )
        return _body(resp), resp.headers.get("idempotent-replayed") == "true"

    async def create_session(self, *, session_id: str, user_id: str) -> Json:
        body = SessionCreate.from_dict({"session_id": session_id, "user_id": user_id})
        return _body(await self._call(create_session, body=body))

    async def search(self, *, body: Json) -> Json:
        return _body(await self._call(search, body=SearchRequest.from_dict(body)))

    async def list_facts(
        self,
        *,
        user_id: str,
        as_of: datetime | None,
        include_invalid: bool,
        kinds: list[str] | None,
        limit: int,
        cursor: str | None,
    ) -> Json:
        resp = await self._call(
            list_facts,
            user_id,
            as_of=_opt(as_of),
            include_invalid=include_invalid,
            kind=_opt(kinds),
            limit=limit,
            cursor=_opt(cursor),
        )
        return _body(resp)

    async def add_fact(self, *, user_id: str, body: Json) -> tuple[Json, bool]:
        """The fact, and whether it is new (False: the same statement was already valid)."""
        resp = await self._call(add_fact, user_id, body=FactIn.from_dict(body))
        return _body(resp), resp.status_code == 201

    async def delete_fact(self, *, fact_id: uuid.UUID, redact: bool) -> None:
        _body(await self._call(delete_fact, fact_id, redact=redact))

    async def fact_history(self, *, fact_id: uuid.UUID, limit: int, cursor: str | None) -> Json:
        return _body(await self._call(fact_history, fact_id, limit=limit, cursor=_opt(cursor)))

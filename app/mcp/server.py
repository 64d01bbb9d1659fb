"""The MCP server (the official SDK's low-level `Server`): tools, a resource template per memory
view and one prompt, over whatever `EngramCalls` the transport provides.

The low-level server, not the SDK's decorator-based `MCPServer`: the tools' schemas come from the
API's pydantic models (app.mcp.tools) rather than from function signatures, and a tool's error is
answered with the API's problem body.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from app import __version__
from app.jsonutil import dumps, loads
from app.mcp.calls import EngramCalls, Json, ToolProblem, problem
from app.mcp.tools import BY_NAME, TOOLS, ToolSpec

CallsFor = Callable[[ServerRequestContext[Any, Any]], AbstractAsyncContextManager[EngramCalls]]

INSTRUCTIONS = """\
Engram is this user's long-term memory. At the start of a turn call `get_context` for the session
(with the user's message as `query`) and use its `context`; after the turn call `remember` with the
new user and assistant messages. Use `search` to look further back, `list_facts` / `add_fact` /
`forget_fact` / `fact_history` for what is known about the user.
"""

_MEMORY_URI = "engram://sessions/{session_id}/memory"
_FACTS_URI = "engram://users/{user_id}/facts"
_MEMORY_RE = re.compile(r"^engram://sessions/(?P<id>[^/]+)/memory$")
_FACTS_RE = re.compile(r"^engram://users/(?P<id>[^/]+)/facts$")


def _text(value: Json) -> list[types.ContentBlock]:
    return [types.TextContent(type="text", text=dumps(value).decode())]


def _error(found: ToolProblem) -> types.CallToolResult:
    """The problem as the tool's error: JSON text (what a model reads), and structured."""
    return types.CallToolResult(content=_text(found.problem), structured_content=found.problem, is_error=True)


def _validation_problem(exc: ValidationError) -> ToolProblem:
    errors = [
        {"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]}
        for e in exc.errors(include_url=False, include_input=False)
    ]
    first = errors[0]
    where = ".".join(str(p) for p in first["loc"])
    return problem(
        422,
        "validation-error",
        "Request validation failed",
        f"{where}: {first['msg']}" if where else str(first["msg"]),
        errors=errors,
    )


def _tool(t: ToolSpec) -> types.Tool:
    return types.Tool(
        name=t.name,
        title=t.title,
        description=t.description,
        input_schema=t.input_schema(),
        output_schema=t.output_schema(),
        annotations=types.ToolAnnotations(
            title=t.title,
            read_only_hint=t.read_only,
            destructive_hint=t.destructive,
            idempotent_hint=t.idempotent,
            open_world_hint=False,
        ),
    )


def build_server(calls_for: CallsFor) -> Server[Any]:
    # Built once: a schema is rendered from pydantic models, and the SDK looks up a tool's input
    # schema on every call of the 2026 protocol.
    listed = types.ListToolsResult(tools=[_tool(t) for t in TOOLS])
    input_schemas = {t.name: t.input_schema for t in listed.tools}

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listed

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = BY_NAME.get(params.name)
        if tool is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        raw = params.arguments or {}
        try:
            args = tool.args.model_validate(raw)
        except ValidationError as exc:
            return _error(_validation_problem(exc))
        try:
            async with calls_for(ctx) as calls:
                out = await tool.run(calls, args, raw)
        except ToolProblem as found:
            return _error(found)
        return types.CallToolResult(content=_text(out), structured_content=out)

    async def list_templates(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=_MEMORY_URI,
                    name="session-memory",
                    title="A session's memory",
                    description="The session's memory context for a prompt (get_context, default budget).",
                    mime_type="text/plain",
                ),
                types.ResourceTemplate(
                    uri_template=_FACTS_URI,
                    name="user-facts",
                    title="Facts about a user",
                    description="The user's facts valid now (list_facts, first page), as JSON.",
                    mime_type="application/json",
                ),
            ]
        )

    async def read_resource(
        ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        memory, facts = _MEMORY_RE.match(uri), _FACTS_RE.match(uri)
        try:
            async with calls_for(ctx) as calls:
                if memory is not None:
                    found = await calls.memory(session_id=memory["id"], max_tokens=2000, query=None)
                    text, mime = str(found["context"]), "text/plain"
                elif facts is not None:
                    page = await calls.list_facts(
                        user_id=facts["id"],
                        as_of=None,
                        include_invalid=False,
                        kinds=None,
                        limit=100,
                        cursor=None,
                    )
                    text, mime = dumps(page).decode(), "application/json"
                else:
                    raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown resource: {uri}")
        except ToolProblem as exc:
            raise MCPError(code=types.INVALID_PARAMS, message=str(exc), data=exc.problem) from None
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)]
        )

    async def list_resources(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[])  # each is per session or user: the templates

    async def list_prompts(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name="with_memory",
                    title="Answer with the session's memory",
                    description="A system message carrying the session's memory context, then the "
                    "user's message: what to send a model for the next turn.",
                    arguments=[
                        types.PromptArgument(
                            name="session_id", description="The session's id.", required=True
                        ),
                        types.PromptArgument(
                            name="message", description="The user's new message.", required=True
                        ),
                        types.PromptArgument(
                            name="max_tokens", description="Budget of the memory (2000).", required=False
                        ),
                    ],
                )
            ]
        )

    async def get_prompt(
        ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        if params.name != "with_memory":
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown prompt: {params.name}")
        given = params.arguments or {}
        try:
            args = BY_NAME["get_context"].args.model_validate(
                {
                    "session_id": given.get("session_id"),
                    "query": given.get("message") or None,
                    **({"max_tokens": loads(given["max_tokens"])} if given.get("max_tokens") else {}),
                }
            )
            async with calls_for(ctx) as calls:
                found = await calls.memory(
                    session_id=args.session_id,  # type: ignore[attr-defined]
                    max_tokens=args.max_tokens,  # type: ignore[attr-defined]
                    query=args.query,  # type: ignore[attr-defined]
                )
        except (ValidationError, ValueError) as exc:
            raise MCPError(code=types.INVALID_PARAMS, message=str(exc)) from None
        except ToolProblem as exc:
            raise MCPError(code=types.INVALID_PARAMS, message=str(exc), data=exc.problem) from None
        system = "What you remember of this conversation and this user:\n\n" + str(found["context"])
        return types.GetPromptResult(
            description="The session's memory, then the user's message.",
            messages=[
                types.PromptMessage(role="user", content=types.TextContent(type="text", text=system)),
                types.PromptMessage(
                    role="user", content=types.TextContent(type="text", text=str(given.get("message", "")))
                ),
            ],
        )

    return Server(
        "engram",
        version=__version__,
        title="Engram",
        description="Memory for AI agents: sessions, summaries, facts about users and search.",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=input_schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )

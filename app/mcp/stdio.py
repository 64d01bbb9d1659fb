"""`engram mcp`: the same MCP tools over stdio, for desktop MCP clients, speaking to a remote
Engram over HTTP through the generated Python client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from engram_client import AuthenticatedClient
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

from app.mcp.calls import EngramCalls
from app.mcp.server import build_server


async def serve_stdio(url: str, key: str | None, http_timeout: float = 60.0) -> None:
    """Serve MCP on stdin/stdout until the client closes it. Without a key (a server with auth
    off) no Authorization header is sent."""
    base = url.rstrip("/")
    client = AuthenticatedClient(base_url=base, token=key or "", timeout=httpx.Timeout(http_timeout))
    if not key:
        client.set_async_httpx_client(httpx.AsyncClient(base_url=base, timeout=http_timeout))
    calls = EngramCalls(client)

    @asynccontextmanager
    async def remote(ctx: ServerRequestContext[Any, Any]) -> AsyncIterator[EngramCalls]:
        yield calls

    server = build_server(remote)
    async with client.get_async_httpx_client(), stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

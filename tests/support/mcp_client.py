"""MCP clients for the tests: the SDK's own `Client` over Streamable HTTP, to a live server or to
the in-process app."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult
from starlette.types import ASGIApp


def _headers(key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"} if key else {}


@asynccontextmanager
async def mcp_client(url: str, key: str | None, *, mode: str = "legacy") -> AsyncIterator[Client]:
    """A session with the MCP endpoint of a live server at `url` (`mode`: the SDK's protocol
    negotiation; `legacy` is the initialize handshake desktop clients use)."""
    async with (
        httpx2.AsyncClient(headers=_headers(key), timeout=60) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode) as client,
    ):
        yield client


@asynccontextmanager
async def asgi_mcp_client(app: ASGIApp, key: str | None, *, mode: str = "legacy") -> AsyncIterator[Client]:
    """The same against an in-process app (its lifespan already running)."""
    transport = httpx2.ASGITransport(app=app)
    async with (
        httpx2.AsyncClient(transport=transport, headers=_headers(key), timeout=60) as http,
        Client(streamable_http_client("http://127.0.0.1:8000/mcp", http_client=http), mode=mode) as client,
    ):
        yield client


def ok(result: CallToolResult) -> dict[str, Any]:
    """A tool's structured answer; fails on a tool error."""
    assert not result.is_error, result.content
    out = result.structured_content
    assert isinstance(out, dict), result
    return out


def problem(result: CallToolResult) -> dict[str, Any]:
    """A tool error's problem body (RFC 9457), checked to be the same in its text and structure."""
    assert result.is_error, result.structured_content
    found = result.structured_content
    assert isinstance(found, dict) and found["type"].startswith("urn:engram:problem:"), found
    text = result.content[0]
    assert getattr(text, "text", None) is not None and found["detail"] in text.text  # type: ignore[union-attr]
    return found

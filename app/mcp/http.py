"""MCP over Streamable HTTP at /mcp, in the API's process.

- Auth: the Bearer key of the REST API, checked before any MCP work (a missing, unknown or revoked
  key is the REST API's 401 problem); with auth off, the default tenant. A tool never takes a tenant.
- Stateless, JSON answers: no MCP session lives in one process, so any API replica (or uvicorn
  worker) can answer any request.
- Tools call the REST routes of this same app in-process (an ASGI transport, no socket), with the
  caller's own credential and request id, so every rule and middleware applies exactly as for REST.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import httpx
from engram_client import AuthenticatedClient
from fastapi import FastAPI
from mcp.server.context import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.auth import authenticate
from app.config import Settings
from app.errors import AppError, problem_response
from app.mcp.calls import EngramCalls
from app.mcp.server import build_server

PATH = "/mcp"
_INTERNAL = "http://engram.internal"

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[Any]]


class _WithState:
    """The app, called with the outer request's lifespan state (ASGITransport sends none)."""

    def __init__(self, app: ASGIApp, state: dict[str, Any]) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["state"] = dict(self.state)
        await self.app(scope, receive, send)


@asynccontextmanager
async def _in_process(ctx: ServerRequestContext[Any, Any]) -> AsyncIterator[EngramCalls]:
    request = ctx.request
    assert isinstance(request, Request), "the HTTP transport attaches the request"
    headers = {"X-Request-ID": str(request.state.request_id)}
    if "authorization" in request.headers:
        headers["Authorization"] = request.headers["authorization"]
    transport = httpx.ASGITransport(app=_WithState(request.scope["app"], dict(request.scope["state"])))
    client = AuthenticatedClient(base_url=_INTERNAL, token="")
    async with httpx.AsyncClient(transport=transport, base_url=_INTERNAL, headers=headers) as http:
        client.set_async_httpx_client(http)
        yield EngramCalls(client)


class McpEndpoint:
    """The ASGI app at /mcp: auth first, then the SDK's Streamable HTTP session manager."""

    def __init__(self, settings: Settings) -> None:
        self.manager = StreamableHTTPSessionManager(
            app=build_server(_in_process),
            stateless=True,
            json_response=True,
            max_request_body_size=settings.max_body_bytes,
            # Without keys, a page in a browser could reach a local server through DNS rebinding:
            # then only loopback Host and Origin headers are accepted.
            security_settings=None if settings.auth_on else _loopback_only(),
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        try:
            await authenticate(request)
        except AppError as exc:
            response = problem_response(
                status=exc.status,
                slug=exc.slug,
                title=exc.title,
                detail=exc.detail,
                instance=scope["path"],
                headers=exc.headers,
            )
            await response(scope, receive, send)
            return
        await self.manager.handle_request(scope, receive, send)

    def around(self, lifespan: Lifespan) -> Lifespan:
        """The app's lifespan with the session manager running inside it."""

        @asynccontextmanager
        async def both(app: FastAPI) -> AsyncIterator[Any]:
            async with lifespan(app) as state, self.manager.run():
                yield state

        return both


def _loopback_only() -> TransportSecuritySettings:
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )

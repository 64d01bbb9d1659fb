"""MCP over Streamable HTTP at /mcp, in the API's process (the SDK's side; app/mcp/endpoint.py
checks auth first and loads this module on the first /mcp request).

- Auth: the Bearer key of the REST API, checked before any MCP work (a missing, unknown or revoked
  key is the REST API's 401 problem); with auth off, the default tenant. A tool never takes a tenant.
- Stateless, JSON answers: no MCP session lives in one process, so any API replica (or uvicorn
  worker) can answer any request.
- Tools call the REST routes of this same app in-process (an ASGI transport, no socket), as the
  caller the gate admitted for /mcp and under the request's id, so every rule of the routes applies
  exactly as for REST. The gate does not admit such a call a second time (`IN_PROCESS`): one tool
  call is one request against the tenant's rate limit and concurrency cap.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import httpx
from engram_client import AuthenticatedClient
from mcp.server.context import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import Settings
from app.mcp.calls import EngramCalls
from app.mcp.route import IN_PROCESS
from app.mcp.server import build_server

_INTERNAL = "http://engram.internal"


class _InProcess:
    """The app, called with the lifespan state and the admitted caller (ASGITransport sends no
    state), marked as a tool's call."""

    def __init__(self, app: ASGIApp, state: dict[str, Any]) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["state"] = dict(self.state)
        scope[IN_PROCESS] = True
        await self.app(scope, receive, send)


class McpHandler:
    """The SDK's Streamable HTTP session manager, its tools calling this app in-process."""

    def __init__(self, settings: Settings, app: ASGIApp, state: dict[str, Any]) -> None:
        self.app, self.state = app, state
        self.manager = StreamableHTTPSessionManager(
            app=build_server(self._in_process),
            stateless=True,
            json_response=True,
            max_request_body_size=settings.max_body_bytes,
            # Without keys, a page in a browser could reach a local server through DNS rebinding:
            # then only loopback Host and Origin headers are accepted.
            security_settings=None if settings.auth_on else _loopback_only(),
        )

    def running(self) -> AbstractAsyncContextManager[None]:
        return self.manager.run()

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.manager.handle_request(scope, receive, send)

    @asynccontextmanager
    async def _in_process(self, ctx: ServerRequestContext[Any, Any]) -> AsyncIterator[EngramCalls]:
        """REST calls to this app as the MCP request's caller, under its request id."""
        request = ctx.request
        assert isinstance(request, Request), "an HTTP request"
        state = {**self.state, "caller": request.state.caller}
        transport = httpx.ASGITransport(app=_InProcess(self.app, state))
        headers = {"X-Request-ID": str(request.state.request_id)}
        async with httpx.AsyncClient(transport=transport, base_url=_INTERNAL, headers=headers) as http:
            client = AuthenticatedClient(base_url=_INTERNAL, token="")
            client.set_async_httpx_client(http)
            yield EngramCalls(client)


def _loopback_only() -> TransportSecuritySettings:
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )

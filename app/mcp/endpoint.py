"""The ASGI app at /mcp: auth first (the REST API's Bearer key), then the MCP SDK's Streamable HTTP
handler (app/mcp/http.py), which is imported and started on the first /mcp request only.

The SDK and the generated client take ~5 s to import on a warm start; a deployment that never
calls /mcp never pays it, and `engram serve` binds its port without waiting for it. The handler's
session manager runs in a task of its own, started on first use and stopped with the app.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from app.auth import authenticate
from app.config import Settings
from app.errors import AppError
from app.problems import problem_response

if TYPE_CHECKING:
    from app.mcp.http import McpHandler

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[Any]]


class McpEndpoint:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._app: FastAPI | None = None
        self._state: dict[str, Any] = {}
        self._handler: McpHandler | None = None
        self._starting = asyncio.Lock()
        self._stop = asyncio.Event()
        self._runner: asyncio.Task[None] | None = None

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
        handler = await self._started()
        await handler.handle(scope, receive, send)

    async def _started(self) -> McpHandler:
        """The SDK's handler, imported and its session manager running (first call only)."""
        async with self._starting:
            if self._handler is None:
                assert self._app is not None, "an /mcp request within the app's lifespan"
                from app.mcp.http import McpHandler

                handler = McpHandler(self.settings, self._app, self._state)
                ready = asyncio.Event()
                self._runner = asyncio.create_task(self._run(handler, ready))
                await ready.wait()
                self._handler = handler
            return self._handler

    async def _run(self, handler: McpHandler, ready: asyncio.Event) -> None:
        # Entered and left in this one task: the SDK's task group must not span two tasks.
        async with handler.running():
            ready.set()
            await self._stop.wait()

    def around(self, lifespan: Lifespan) -> Lifespan:
        """The app's lifespan; the MCP handler, once started, stops before it ends."""

        @asynccontextmanager
        async def both(app: FastAPI) -> AsyncIterator[Any]:
            async with lifespan(app) as state:
                self._app, self._state = app, dict(state or {})
                try:
                    yield state
                finally:
                    self._stop.set()
                    if self._runner is not None:
                        with contextlib.suppress(Exception):
                            await self._runner
                    self._app, self._state, self._handler, self._runner = None, {}, None, None

        return both

"""The app class when tracing is on: each request meets the edge's head sampling
(app/telemetry/otel.Edge) before FastAPI's telemetry wrapper does.

Its own module so that only an API process imports FastAPI for it: `engram worker` runs
app/telemetry/otel.py without FastAPI (docs/benchmarks.md, footprint session 12)."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

from fastapi import FastAPI
from starlette.types import Receive, Scope, Send


class EdgeFirst(FastAPI):
    """FastAPI whose requests meet the edge (app/telemetry/otel.Edge) before FastAPI's telemetry
    wrapper does. One without a span (sampled out, or an excluded path) is then passed on as
    FastAPI passes a request that an enclosing FastAPI app already traced (`fastapi.telemetry` in
    its scope): straight to the app, without the wrapper's per-request walk of the middleware stack
    (`_legacy_otel`), its exclude hook's context changes and its own call, about half of what
    tracing cost a sampled-out memory read in process (docs/observability.md, "Cost")."""

    def __init__(self, edge: Callable[[MutableMapping[str, Any]], bool], **options: Any) -> None:
        super().__init__(**options)
        self._no_span = edge  # app/telemetry/otel.Edge: whether a request gets no span

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        traced_here = scope["type"] in ("http", "websocket") and "fastapi.telemetry" not in scope
        if traced_here and self._no_span(scope):
            scope["fastapi.telemetry"] = None
            try:
                await super().__call__(scope, receive, send)
            finally:
                scope.pop("fastapi.telemetry", None)
            return
        await super().__call__(scope, receive, send)

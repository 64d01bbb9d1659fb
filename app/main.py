"""The app, as a table of contents: lifespan, middleware, error handlers, routes."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.routing import APIRoute

from app import __version__
from app.ai.embedder import Embedder
from app.api import root
from app.audit.middleware import AuditMiddleware
from app.config import Settings
from app.crypto.envelope import Keyring
from app.crypto.middleware import KeyringMiddleware
from app.gate import GateMiddleware
from app.lifespan import make_lifespan
from app.logging import configure_logging
from app.mcp.endpoint import McpEndpoint
from app.mcp.route import PATH as MCP_PATH
from app.memory.router import lean_routes as memory_lean_routes
from app.messages.router import lean_routes as append_lean_routes
from app.metrics import Metrics
from app.middleware import RequestContextMiddleware, RequestGuardMiddleware, RouteTemplates
from app.openapi_errors import install_openapi
from app.problems import install_error_handlers
from app.search.router import lean_routes as search_lean_routes
from app.telemetry.factory import make_tracing
from app.telemetry.tracing import Tracing
from app.transfer.router import import_body
from app.ui.router import UI_PATHS, make_ui_router

DESCRIPTION = """\
Engram keeps what an AI agent's conversations need: the messages of each session, a
token-budgeted recent window, summaries, durable facts about each user, and search over all of it.

Errors are RFC 9457 `application/problem+json`. Every list is cursor-paginated. Send
`Authorization: Bearer <api key>` when auth is on, and `X-Request-ID` to trace a call.
"""


def _operation_id(route: APIRoute) -> str:
    return route.name


def create_app(
    settings: Settings | None = None,
    *,
    tracing: Tracing | None = None,
    freeze_heap: bool = False,
    model: Embedder | None = None,
) -> FastAPI:
    """`model`: an embedder the caller has loaded and lends to the app, which uses it in place of
    loading the configured one and leaves it open at shutdown. The tests build ~50 apps per
    process: one shared model spares each its own load (~0.2 s of CPU, and the wait for it)."""
    settings = settings or Settings()
    metrics = Metrics()
    tracing = tracing or make_tracing(settings)  # a no-op unless ENGRAM_OTEL=on
    mcp = McpEndpoint(settings)
    lifespan = make_lifespan(settings, metrics, tracing, freeze_heap=freeze_heap, lent_model=model)
    # FastAPI with HTTP server spans when tracing is on (its own OpenTelemetry support: outermost,
    # so a request's span covers every middleware); nothing at all when it is off.
    app = tracing.make_app(
        title="Engram",
        version=__version__,
        description=DESCRIPTION,
        lifespan=mcp.around(lifespan),
        # Operation ids are the handlers' names (`append_messages`), not FastAPI's path-derived
        # `append_messages_v1_sessions__session_id__messages_post`: they name the generated
        # clients' calls. Handler names are unique (tests/unit/test_openapi.py).
        generate_unique_id_function=_operation_id,
    )
    install_error_handlers(app)
    app.include_router(root)
    # MCP (Streamable HTTP) beside the REST routes, under the same middleware; not in the spec.
    app.add_route(MCP_PATH, mcp, methods=["GET", "POST", "DELETE"], include_in_schema=False)  # type: ignore[arg-type]
    app.router.routes.insert(0, app.router.routes.pop())  # matched first, not after every /v1 route
    # The hottest routes without FastAPI's layers (app/lean.py); their FastAPI forms give the spec.
    app.router.routes[0:0] = [*append_lean_routes, *memory_lean_routes, *search_lean_routes]
    app.include_router(make_ui_router())  # the memory inspector (docs/ui.md)
    install_openapi(app)
    # Added last = outermost: the request id and metrics cover the guard's 413/415 too.
    app.add_middleware(
        RequestGuardMiddleware,
        max_body_bytes=settings.max_body_bytes,
        streamed=[import_body(settings)],
        body_timeout=settings.body_timeout_seconds,
    )
    # Inside the gate (which finds the caller): every request of an audited tenant is noted.
    app.add_middleware(AuditMiddleware)
    # Outside the guard: a caller is admitted from its headers before any body is read.
    app.add_middleware(GateMiddleware)
    routes = RouteTemplates(lambda: [*app.openapi()["paths"], MCP_PATH, *UI_PATHS])
    app.add_middleware(RequestContextMiddleware, metrics=metrics, routes=routes)
    if settings.encryption_keys is not None:  # off: not even a pass through it
        ring = Keyring(settings.encryption_keys.get_secret_value(), keep_keywords=settings.keeps_keywords)
        app.add_middleware(KeyringMiddleware, ring=ring)
    tracing.instrument_app(app)  # outermost of the middleware, inside the request's span
    return app


def app_factory() -> FastAPI:
    """Entry point for uvicorn (`--factory`): settings from the environment."""
    settings = Settings()
    configure_logging(settings.log_level, settings.log_json)
    return create_app(settings, freeze_heap=True)  # the process's only app (app/heap.py)

"""Tracing on: the OpenTelemetry SDK, FastAPI's own OpenTelemetry support for the HTTP server
spans, and the instrumentation packages of the `otel` extra for SQL and Redis.

Imported only by `app.telemetry.factory.make_tracing` when ENGRAM_OTEL=on. Configured by the
standard variables: OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_EXPORTER (`otlp`,
the default, `console` or `none`), OTEL_EXPORTER_OTLP_ENDPOINT / _HEADERS (OTLP over HTTP),
OTEL_TRACES_SAMPLER(_ARG) and OTEL_BSP_* (batching).

What a request costs is what decided the shape (bench/otel.py, docs/observability.md "Cost"):
- HTTP: FastAPI's native telemetry (FastAPI >= 0.142), not opentelemetry-instrumentation-fastapi.
  The instrumentor found each request's route by matching it against every route of the app,
  wrapped the stack in three more middlewares and traced every background task; FastAPI names the
  span when its router picks the route and adds nothing else with `operation_spans` off.
- A request without a propagated trace context (no `traceparent`) is head-sampled before FastAPI
  starts a span (`Edge`, at the app's door: app/telemetry/edge_app.py): one sampled out makes no
  span at all and passes FastAPI without its telemetry wrapper, one kept gets its span with the
  same decision (`_Decided`), so the ratio is not applied twice. A request with a `traceparent` is
  FastAPI's as before (its parent's flag decides).
- A request or worker step whose span is not recording (sampled out, or excluded) runs with the
  instrumentation suppressed: its SQL and Redis calls return at the instrumentations' first check
  instead of building attributes and non-recording spans that nobody keeps.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import threading
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.context import _SUPPRESS_INSTRUMENTATION_KEY
from opentelemetry.instrumentation.redis import RedisInstrumentor
from opentelemetry.instrumentation.sqlalchemy.engine import EngineTracer
from opentelemetry.instrumentation.sqlalchemy.version import __version__ as sqlalchemy_instrumentation_version
from opentelemetry.instrumentation.utils import is_instrumentation_enabled, suppress_instrumentation
from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.sdk.resources import SERVICE_NAME, SERVICE_VERSION, Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.id_generator import IdGenerator, RandomIdGenerator
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult, _get_from_env_or_default
from opentelemetry.trace import Link, NonRecordingSpan, SpanContext, SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes as OtelAttributes
from sqlalchemy import event

from app import __version__
from app.config import Settings
from app.telemetry.tracing import Attributes, StepSpan

if TYPE_CHECKING:
    from fastapi import FastAPI
    from fastapi.telemetry import TelemetryConfig
    from redis.asyncio import Redis
    from sqlalchemy.ext.asyncio import AsyncEngine
    from starlette.types import ASGIApp, Receive, Scope, Send

_W3C = TraceContextTextMapPropagator()
# At shutdown, what is buffered gets this long to reach the collector: a collector that is down
# would otherwise hold the exit for the exporter's whole retry deadline (OTEL_EXPORTER_OTLP_TIMEOUT,
# 10 s by default), past the 3 s a stop may take.
SHUTDOWN_FLUSH_MS = 1000
# Engram's own metrics are Prometheus (/metrics); the instrumentations' meters record nothing.
_NO_METERS = NoOpMeterProvider()


def _exporter() -> SpanExporter | None:
    name = os.environ.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower()
    if name == "none":
        return None
    if name == "console":
        return ConsoleSpanExporter()
    if name != "otlp":
        raise ValueError(f"OTEL_TRACES_EXPORTER={name}: Engram knows otlp, console and none")
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


def _excluded(patterns: str) -> Callable[[str], bool]:
    """Whether a request path is never traced: any of the comma-separated patterns matches it (a
    regular-expression search, as OTEL_PYTHON_FASTAPI_EXCLUDED_URLS reads them)."""
    names = [p.strip() for p in patterns.split(",") if p.strip()]
    if not names:
        return lambda path: False
    found = re.compile("|".join(names)).search
    return lambda path: found(path) is not None


# The scope key under which `Edge` leaves the trace id of a request it sampled out.
_SAMPLED_OUT = "engram.trace_sampled_out"
_ROOT = otel_context.Context()  # no parent: what the sampler sees for a trace that starts here


class _Decided(Sampler):
    """The provider's sampler: the configured one (OTEL_TRACES_SAMPLER), except for the server span
    of a request `Edge` already sampled, which gets the edge's own result. Asking the configured
    sampler again would apply a ratio twice (0.1 x 0.1) to a new trace id."""

    def __init__(self, configured: Sampler) -> None:
        self.configured = configured
        # Set by `Edge` and taken by the next span's sampling in the same task: FastAPI starts the
        # server span when the app's door lets the request through, with no await in between.
        self.decided: contextvars.ContextVar[SamplingResult | None] = contextvars.ContextVar(
            "engram_edge_sampling", default=None
        )

    def should_sample(
        self,
        parent_context: otel_context.Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: OtelAttributes = None,
        links: Sequence[Link] | None = None,
        trace_state: TraceState | None = None,
    ) -> SamplingResult:
        decided = self.decided.get()
        if decided is not None and kind is SpanKind.SERVER:
            self.decided.set(None)
            return decided
        return self.configured.should_sample(
            parent_context, trace_id, name, kind, attributes, links, trace_state
        )

    def get_description(self) -> str:
        return self.configured.get_description()


class Edge:
    """The app's door (app/telemetry/edge_app.py), before FastAPI's telemetry wrapper: whether a
    request gets no span, and so passes FastAPI without that wrapper.

    An excluded path (ENGRAM_OTEL_EXCLUDED_URLS) never has one. A request that carries no trace
    context (none of the propagator's headers) starts a trace here, so it is head-sampled here,
    before FastAPI's wrapper does any of its work: sampled out, it gets no span either, its trace id
    left in the scope for `_QuietUnlessRecorded`; kept, the server span gets this decision
    (`_Decided`). A request with a trace context is left to FastAPI and the configured sampler
    (parent-based by default: the caller's flag decides)."""

    def __init__(self, patterns: str, sampler: _Decided, ids: IdGenerator) -> None:
        self._excluded = _excluded(patterns)
        self._sampler = sampler
        self._ids = ids
        self._fields = frozenset(f.lower().encode("latin-1") for f in propagate.get_global_textmap().fields)

    def __call__(self, scope: MutableMapping[str, Any]) -> bool:
        if self._excluded(scope["path"]):
            return True
        fields = self._fields
        for name, _ in scope["headers"]:
            if name in fields:
                return False
        trace_id = self._ids.generate_trace_id()
        result = self._sampler.configured.should_sample(
            _ROOT, trace_id, scope.get("method", "WS"), SpanKind.SERVER
        )
        if result.decision is Decision.DROP:
            scope[_SAMPLED_OUT] = trace_id
            return True
        self._sampler.decided.set(result)
        return False


class _QuietUnlessRecorded:
    """Inside the request's server span: when that span records nothing (sampled out, or no span
    for an excluded path), the SQL and Redis instrumentation is suppressed for the whole request.
    Their wrappers then return at their first check; otherwise each statement and command would
    still format its attributes and start a span only to drop it, a fixed cost on every request
    that sampling was meant to save.

    A request `Edge` sampled out also gets, as its current span, a non-recording one of the trace
    id it was judged by: what a sampled-out server span was, so anything started inside (the MCP
    SDK's spans) is dropped with it and the `traceparent` stored with its derived work says "not
    sampled" (the worker's steps are dropped too, not sampled anew).

    The next app is `_app`, not `app`: FastAPI walks the middleware stack by `.app` on every request
    to find opentelemetry-instrumentation-asgi's middleware (`_legacy_otel`), which Engram never
    adds; the walk stops here instead of going through every middleware."""

    def __init__(self, app: ASGIApp, ids: IdGenerator) -> None:
        self._app = app
        self._ids = ids

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Not the lifespan's scope: the worker it starts would inherit the suppression.
        if scope["type"] not in ("http", "websocket"):
            await self._app(scope, receive, send)
            return
        sampled_out: int | None = scope.get(_SAMPLED_OUT)
        if sampled_out is None and trace.get_current_span().is_recording():
            await self._app(scope, receive, send)
            return
        # What `suppress_instrumentation()` attaches, without its two generator-based managers.
        quiet = otel_context.set_value(_SUPPRESS_INSTRUMENTATION_KEY, True)
        if sampled_out is not None:
            span = SpanContext(sampled_out, self._ids.generate_span_id(), is_remote=False)
            quiet = trace.set_span_in_context(NonRecordingSpan(span), quiet)
        token = otel_context.attach(quiet)
        try:
            await self._app(scope, receive, send)
        finally:
            otel_context.detach(token)


class _Resource(Resource):
    """The process's resource, hashed once. The OTLP encoder groups every exported span by its
    resource, and `Resource.__hash__` serialises the attributes to JSON each time: a fixed cost on
    every span for a value that never changes (a resource is immutable)."""

    def __init__(self, resource: Resource) -> None:
        super().__init__(resource.attributes, resource.schema_url)
        self._hash = super().__hash__()

    def __hash__(self) -> int:
        return self._hash


class _Span:
    def __init__(self, span: trace.Span) -> None:
        self._span = span

    def set(self, key: str, value: str | int | float | bool) -> None:
        self._span.set_attribute(key, value)

    def error(self, message: str) -> None:
        self._span.set_status(Status(StatusCode.ERROR, message[:500]))


class OtelTracing:
    enabled = True

    def __init__(
        self,
        settings: Settings,
        processor: SpanProcessor | None,
        sampler: Sampler | None = None,
        *,
        exporter: SpanExporter | None = None,
    ) -> None:
        self.settings = settings
        self._exporter = exporter  # the batch processor's, stopped at shutdown (SHUTDOWN_FLUSH_MS)
        service = os.environ.get("OTEL_SERVICE_NAME") or "engram"
        # Without `sampler`, OTEL_TRACES_SAMPLER's (default: parent-based, always on), read as the
        # SDK's TracerProvider reads it.
        self.sampler = _Decided(sampler if sampler is not None else _get_from_env_or_default())
        self.ids = RandomIdGenerator()
        self.provider = TracerProvider(
            sampler=self.sampler,
            id_generator=self.ids,
            resource=_Resource(Resource.create({SERVICE_NAME: service, SERVICE_VERSION: __version__})),
        )
        if processor is not None:
            self.provider.add_span_processor(processor)
        self.tracer = self.provider.get_tracer("engram", __version__)
        self.edge = Edge(settings.otel_excluded_urls, self.sampler, self.ids)
        self._redis: list[tuple[Redis, Callable[..., Any]]] = []

    @classmethod
    def from_settings(cls, settings: Settings) -> OtelTracing:
        exporter = _exporter()
        tracing = cls.batched(settings, exporter) if exporter is not None else cls(settings, None)
        # Also the provider of libraries that use the global one (the MCP SDK's spans), unless the
        # host process set its own.
        if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
            trace.set_tracer_provider(tracing.provider)
        return tracing

    @classmethod
    def batched(cls, settings: Settings, exporter: SpanExporter) -> OtelTracing:
        """Spans handed to `exporter` in batches, from the processor's thread."""
        once = _StopsOnce(exporter)
        return cls(settings, BatchSpanProcessor(once), exporter=once)

    @classmethod
    def for_tests(
        cls, settings: Settings, exporter: SpanExporter, sampler: Sampler | None = None
    ) -> OtelTracing:
        """Spans handed to `exporter` as each ends (an InMemorySpanExporter in the tests)."""
        return cls(settings, SimpleSpanProcessor(exporter), sampler)

    def _fastapi_telemetry(self) -> TelemetryConfig:
        return {
            "tracer_provider": self.provider,
            "tracing": True,
            # Engram's metrics are Prometheus (/metrics) and its errors its own log lines.
            "metrics": False,
            "logs": False,
            # One server span per request: no span per dependency, endpoint call, serialization
            # or background task.
            "operation_spans": False,
            "auto_configure": False,  # the exporter is Engram's (OTEL_TRACES_EXPORTER above)
            # No `exclude` hook: the app's door (`make_app`) judged every request before FastAPI's
            # wrapper, and one it passes on gets its span.
        }

    def make_app(self, **options: Any) -> FastAPI:
        from app.telemetry.edge_app import EdgeFirst  # FastAPI: an API process's import only

        return EdgeFirst(self.edge, **options, telemetry=self._fastapi_telemetry())

    def instrument_app(self, app: FastAPI) -> None:
        app.add_middleware(_QuietUnlessRecorded, ids=self.ids)

    def instrument_engine(self, engine: AsyncEngine) -> None:
        # Per engine and per provider (the instrumentor's `instrument(engine=)` is once per process
        # and also patches `create_engine` for everyone); the listeners go with the engine.
        tracer = trace.get_tracer(
            "opentelemetry.instrumentation.sqlalchemy", sqlalchemy_instrumentation_version, self.provider
        )
        usage = _NO_METERS.get_meter("engram").create_up_down_counter("db.client.connections.usage")
        traced = EngineTracer(tracer, engine.sync_engine, usage)  # type: ignore[no-untyped-call]
        # Its pool listeners only count connections for that meter, which records nothing here:
        # four calls and two attribute dicts per checkout and checkin, on every request.
        for name, listener in (
            ("connect", traced._pool_connect),
            ("close", traced._pool_close),
            ("checkin", traced._pool_checkin),
            ("checkout", traced._pool_checkout),
        ):
            event.remove(engine.sync_engine, name, listener)

    def instrument_redis(self, client: Redis | None) -> None:
        if client is None:
            return
        RedisInstrumentor.instrument_client(client, tracer_provider=self.provider)
        # The package wraps each new pipeline's `execute` (two wrapt wrappers: 10-15 us a pipeline,
        # against ~1.5 us plain) as the pipeline is made, before its wrapper checks for suppression:
        # a sampled-out memory read paid that for a span it never starts. Suppressed, it is plain.
        traced = client.pipeline
        plain = traced.__wrapped__  # type: ignore[attr-defined]

        def pipeline(*args: Any, **kwargs: Any) -> Any:
            return traced(*args, **kwargs) if is_instrumentation_enabled() else plain(*args, **kwargs)

        client.pipeline = pipeline  # type: ignore[method-assign]
        self._redis.append((client, traced))

    def quiet(self) -> contextlib.AbstractContextManager[None]:
        return suppress_instrumentation()

    @contextlib.contextmanager
    def step(self, kind: str, causes: Sequence[str | None], attributes: Attributes) -> Iterator[StepSpan]:
        parents = [
            ctx
            for tp in dict.fromkeys(c for c in causes if c)
            if (ctx := trace.get_current_span(_W3C.extract({"traceparent": tp})).get_span_context()).is_valid
        ]
        # One cause: the step is part of its trace. Several (a batch of many appends): a trace of its
        # own that links to each (the OpenTelemetry messaging conventions for batch processing).
        parent = (
            trace.set_span_in_context(trace.NonRecordingSpan(parents[0]))
            if len(parents) == 1
            else otel_context.Context()
        )
        with (
            self.tracer.start_as_current_span(
                f"worker {kind}",
                context=parent,
                kind=SpanKind.CONSUMER,
                links=[Link(p) for p in parents],
                attributes={"engram.step": kind, **attributes},
            ) as span,
            contextlib.ExitStack() as quiet,
        ):
            if not span.is_recording():  # sampled out (as its cause was): no SQL or Redis spans either
                quiet.enter_context(suppress_instrumentation())
            yield _Span(span)

    def shutdown(self) -> None:
        for client, traced in self._redis:
            client.pipeline = traced  # type: ignore[method-assign]  # what the package unwraps
            RedisInstrumentor.uninstrument_client(client)
        self._redis.clear()
        if self._exporter is None:
            self.provider.shutdown()
            return
        # The provider's shutdown exports what the batch processor holds, waiting as long as the
        # exporter retries (the SDK's flush takes no timeout); stopping the exporter ends a retry.
        deadline = threading.Timer(SHUTDOWN_FLUSH_MS / 1000, self._exporter.shutdown)
        deadline.start()
        try:
            self.provider.shutdown()
        finally:
            deadline.cancel()


class _StopsOnce(SpanExporter):
    """An exporter whose shutdown may be called twice (by `OtelTracing.shutdown`, then by the batch
    processor's), the second time quietly: the OTLP exporter logs a warning for it."""

    def __init__(self, inner: SpanExporter) -> None:
        self.inner = inner
        self.stopped = False

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if self.stopped:
            return SpanExportResult.FAILURE
        return self.inner.export(spans)

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)

    def shutdown(self) -> None:
        if not self.stopped:
            self.stopped = True
            self.inner.shutdown()

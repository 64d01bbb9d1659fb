"""Tracing on: the OpenTelemetry SDK and the instrumentation packages of the `otel` extra.

Imported only by `app.telemetry.factory.make_tracing` when ENGRAM_OTEL=on. Configured by the
standard variables: OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_EXPORTER (`otlp`,
the default, `console` or `none`), OTEL_EXPORTER_OTLP_ENDPOINT / _HEADERS (OTLP over HTTP),
OTEL_TRACES_SAMPLER(_ARG) and OTEL_BSP_* (batching).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
from opentelemetry.instrumentation.redis import RedisInstrumentor
from opentelemetry.instrumentation.sqlalchemy.engine import EngineTracer
from opentelemetry.instrumentation.sqlalchemy.version import __version__ as sqlalchemy_instrumentation_version
from opentelemetry.instrumentation.utils import suppress_instrumentation
from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.sdk.resources import SERVICE_NAME, SERVICE_VERSION, Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SimpleSpanProcessor,
    SpanExporter,
)
from opentelemetry.trace import Link, SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from app import __version__
from app.config import Settings
from app.telemetry.tracing import Attributes, StepSpan

if TYPE_CHECKING:
    from fastapi import FastAPI
    from redis.asyncio import Redis
    from sqlalchemy.ext.asyncio import AsyncEngine

_W3C = TraceContextTextMapPropagator()
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


class _Span:
    def __init__(self, span: trace.Span) -> None:
        self._span = span

    def set(self, key: str, value: str | int | float | bool) -> None:
        self._span.set_attribute(key, value)

    def error(self, message: str) -> None:
        self._span.set_status(Status(StatusCode.ERROR, message[:500]))


class OtelTracing:
    enabled = True

    def __init__(self, settings: Settings, processor: SpanProcessor | None) -> None:
        self.settings = settings
        service = os.environ.get("OTEL_SERVICE_NAME") or "engram"
        # The sampler comes from OTEL_TRACES_SAMPLER (default: parent-based, always on).
        self.provider = TracerProvider(
            resource=Resource.create({SERVICE_NAME: service, SERVICE_VERSION: __version__})
        )
        if processor is not None:
            self.provider.add_span_processor(processor)
        self.tracer = self.provider.get_tracer("engram", __version__)
        self._redis: list[Redis] = []

    @classmethod
    def from_settings(cls, settings: Settings) -> OtelTracing:
        exporter = _exporter()
        tracing = cls(settings, BatchSpanProcessor(exporter) if exporter is not None else None)
        # Also the provider of libraries that use the global one (the MCP SDK's spans), unless the
        # host process set its own.
        if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
            trace.set_tracer_provider(tracing.provider)
        return tracing

    @classmethod
    def for_tests(cls, settings: Settings, exporter: SpanExporter) -> OtelTracing:
        """Spans handed to `exporter` as each ends (an InMemorySpanExporter in the tests)."""
        return cls(settings, SimpleSpanProcessor(exporter))

    def instrument_app(self, app: FastAPI) -> None:
        FastAPIInstrumentor.instrument_app(
            app,
            tracer_provider=self.provider,
            meter_provider=_NO_METERS,
            excluded_urls=self.settings.otel_excluded_urls,
            # One span per request, not one more per ASGI message of its body.
            exclude_spans=["receive", "send"],
        )

    def instrument_engine(self, engine: AsyncEngine) -> None:
        # Per engine and per provider (the instrumentor's `instrument(engine=)` is once per process
        # and also patches `create_engine` for everyone); the listeners go with the engine.
        tracer = trace.get_tracer(
            "opentelemetry.instrumentation.sqlalchemy", sqlalchemy_instrumentation_version, self.provider
        )
        usage = _NO_METERS.get_meter("engram").create_up_down_counter("db.client.connections.usage")
        EngineTracer(tracer, engine.sync_engine, usage)  # type: ignore[no-untyped-call]

    def instrument_redis(self, client: Redis | None) -> None:
        if client is None:
            return
        RedisInstrumentor.instrument_client(client, tracer_provider=self.provider)
        self._redis.append(client)

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
        with self.tracer.start_as_current_span(
            f"worker {kind}",
            context=parent,
            kind=SpanKind.CONSUMER,
            links=[Link(p) for p in parents],
            attributes={"engram.step": kind, **attributes},
        ) as span:
            yield _Span(span)

    def shutdown(self) -> None:
        for client in self._redis:
            RedisInstrumentor.uninstrument_client(client)
        self._redis.clear()
        self.provider.shutdown()  # exports what the batch processor holds

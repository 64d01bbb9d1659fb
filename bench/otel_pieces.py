"""What each piece of a kept trace costs, in one process (CPU per call or span, min and median of
interleaved segments): a request through Engram's tracing (FastAPI's telemetry wrapper, the server
span and Engram's edge sampling and suppression, behind five pass-through middlewares as in the
app) with tracing off, every trace dropped and every trace kept, a Redis `EVALSHA` and
a 4-command pipeline with and without the Redis instrumentation (against the local Redis), a span
through the `BatchSpanProcessor`, and the OTLP protobuf encoding of each kind of span (what the
export thread does on the API's interpreter lock). bench/otel.py measures the whole request.

    .venv/bin/python -m bench.otel_pieces [--segments 7]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence

import redis.asyncio as aredis
from fastapi import FastAPI
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.instrumentation.redis import RedisInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, ParentBased
from opentelemetry.trace import SpanKind
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import Settings
from app.telemetry.otel import OtelTracing, _Resource
from app.telemetry.tracing import NoTracing, Tracing
from bench.wrk_rounds import REDIS


class Kept(SpanProcessor):
    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def on_end(self, span: ReadableSpan) -> None:
        self.spans.append(span)


class Nowhere(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


def provider(processor: SpanProcessor | None) -> TracerProvider:
    made = TracerProvider(resource=_Resource(Resource.create({"service.name": "engram"})))
    if processor is not None:
        made.add_span_processor(processor)
    return made


class PassThrough:
    """One of Engram's own middlewares, as far as the telemetry wrapper is concerned."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)


def app(tracing: Tracing) -> FastAPI:
    """An append-shaped route answering at once, with Engram's telemetry settings and middleware."""
    made = tracing.make_app()

    @made.post("/v1/sessions/{session_id}/messages")
    async def append(session_id: str) -> Response:
        return Response(b"{}", status_code=201)

    for _ in range(5):
        made.add_middleware(PassThrough)
    tracing.instrument_app(made)
    return made


async def request(target: FastAPI) -> None:
    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        pass

    path = "/v1/sessions/s1/messages"
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json")],
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 5555),
    }
    await target(scope, receive, send)


async def per_call(call: Callable[[], Awaitable[object]], n: int) -> float:
    started = time.process_time()
    for _ in range(n):
        await call()
    return (time.process_time() - started) / n * 1e6


def encoding(spans: list[ReadableSpan]) -> float:
    started = time.process_time()
    for i in range(0, len(spans), 512):  # the BatchSpanProcessor's default batch
        encode_spans(spans[i : i + 512]).SerializeToString()
    return (time.process_time() - started) / len(spans) * 1e6


async def main(segments: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    kept = Kept()
    traced = provider(kept)
    settings = Settings(database_url="postgresql://bench/unused", otel="on")
    dropped = OtelTracing(settings, None, ParentBased(ALWAYS_OFF))
    on = OtelTracing(settings, kept, ParentBased(ALWAYS_ON))
    apps = {
        "request, tracing off": app(NoTracing()),
        "request, every trace dropped": app(dropped),
        "request, every trace kept": app(on),
    }
    plain, instrumented = aredis.from_url(REDIS), aredis.from_url(REDIS)
    RedisInstrumentor.instrument_client(instrumented, tracer_provider=traced)
    scripts = {c: c.register_script("return 1") for c in (plain, instrumented)}

    def evalsha(client: aredis.Redis) -> Callable[[], Awaitable[object]]:
        return lambda: scripts[client](keys=["a", "b"], args=[1, 2, 3, 4, 5, 6])

    def pipeline(client: aredis.Redis) -> Callable[[], Awaitable[object]]:
        async def run() -> object:
            p = client.pipeline(transaction=False)
            p.get("a")
            p.lrange("b", 0, -1)
            p.get("c")
            p.llen("d")
            return await p.execute()

        return run

    def through(target: FastAPI) -> Callable[[], Awaitable[object]]:
        return lambda: request(target)

    calls: dict[str, tuple[Callable[[], Awaitable[object]], int]] = {
        **{name: (through(a), 3000) for name, a in apps.items()},
        "EVALSHA, plain": (evalsha(plain), 1500),
        "EVALSHA, instrumented": (evalsha(instrumented), 1500),
        "pipeline of 4, plain": (pipeline(plain), 1500),
        "pipeline of 4, instrumented": (pipeline(instrumented), 1500),
    }
    for call, _ in calls.values():  # warm: connections, scripts loaded, code paths
        for _ in range(50):
            await call()
    with traced.get_tracer("bench").start_as_current_span("root"):  # the Redis spans' parent
        for _ in range(segments):
            for name, (call, n) in calls.items():
                out.setdefault(name, []).append(await per_call(call, n))
    await plain.aclose()
    await instrumented.aclose()
    by_kind = {
        "encode a server span": [s for s in kept.spans if s.kind is SpanKind.SERVER][:2048],
        "encode an EVALSHA span": [s for s in kept.spans if s.name == "EVALSHA"][:2048],
        "encode a pipeline span": [s for s in kept.spans if s.name.startswith("GET ")][:2048],
    }
    for _ in range(segments):
        for name, spans in by_kind.items():
            out.setdefault(name, []).append(encoding(spans))
    attributes = dict(by_kind["encode an EVALSHA span"][0].attributes or {})
    for name, processor in (
        ("a span, no processor", None),
        ("a span, BatchSpanProcessor", BatchSpanProcessor(Nowhere())),
    ):
        tracer_provider = provider(processor)
        tracer = tracer_provider.get_tracer("bench")
        for _ in range(segments):
            started = time.process_time()
            for _ in range(5000):
                with tracer.start_as_current_span("EVALSHA", kind=SpanKind.CLIENT, attributes=attributes):
                    pass
            tracer_provider.force_flush()
            out.setdefault(name, []).append((time.process_time() - started) / 5000 * 1e6)
        tracer_provider.shutdown()
    traced.shutdown()
    dropped.shutdown()
    on.shutdown()
    return out


def cli() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--segments", type=int, default=7)
    args = parser.parse_args()
    out = asyncio.run(main(args.segments))
    load = os.getloadavg()
    print(f"bench/otel_pieces.py: {args.segments} segments; load average {load[0]:.1f} / {load[1]:.1f}")
    print(f"{'piece':<34}{'min us':>9}{'median us':>11}")
    for name, values in out.items():
        print(f"{name:<34}{min(values):>9.1f}{statistics.median(values):>11.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(cli())

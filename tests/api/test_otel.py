"""OpenTelemetry (ENGRAM_OTEL=on, the `otel` extra): HTTP, SQL and Redis spans, a span per worker
step, and the trace context stored with the derived work, so an append and the embedding, summary
and facts it causes are one trace. Spans are read from the SDK's InMemorySpanExporter. A trace
sampled out starts no SQL or Redis span at all. Off (the default), Engram imports no OpenTelemetry
SDK or instrumentation, and stores no trace context."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence

import fastapi.applications
import httpx
import pytest
import redis.asyncio as aredis
from asgi_lifespan import LifespanManager
from fastapi import FastAPI
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import (
    ALWAYS_OFF,
    ALWAYS_ON,
    Decision,
    ParentBased,
    Sampler,
    SamplingResult,
)
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from app.db.embedded import EmbeddedPostgres
from app.telemetry.otel import SHUTDOWN_FLUSH_MS, OtelTracing
from tests.support.app import REDIS_URL, STARTUP, client_for, make_app, make_settings
from tests.support.db import create_database, engine_for, fetch, until
from tests.support.fresh_imports import fresh_modules

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_PARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


class Asked(Sampler):
    """The default sampler (parent-based, always on; a test may swap `inner`) that notes each span
    it is asked about: a span the instrumentation never starts is never asked about."""

    def __init__(self) -> None:
        self.inner: Sampler = ParentBased(ALWAYS_ON)
        self.asked: list[tuple[int, str, SpanKind | None]] = []
        # (tracer, span) of every span started, recording or not (`note_starts`).
        self.started: list[tuple[str, str]] = []

    def should_sample(
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: TraceState | None = None,
    ) -> SamplingResult:
        self.asked.append((trace_id, name, kind))
        return self.inner.should_sample(parent_context, trace_id, name, kind, attributes, links, trace_state)

    def get_description(self) -> str:
        return "Asked"


class EveryOther(Sampler):
    """Keeps the first root it is asked about, drops the next, and so on: a ratio of one half that
    shows how often it was applied."""

    def __init__(self) -> None:
        self.keep = False

    def should_sample(
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: TraceState | None = None,
    ) -> SamplingResult:
        self.keep = not self.keep
        return SamplingResult(Decision.RECORD_AND_SAMPLE if self.keep else Decision.DROP)

    def get_description(self) -> str:
        return "EveryOther"


def note_starts(provider: TracerProvider, started: list[tuple[str, str]]) -> None:
    """Every span the provider's tracers start goes into `started`, recording or not (a span
    processor sees only the recording ones)."""
    get_tracer = provider.get_tracer

    def noting(name: str, *args: object, **kwargs: object) -> object:
        tracer = get_tracer(name, *args, **kwargs)  # type: ignore[arg-type]
        start_span = tracer.start_span

        def start(*a: object, **k: object) -> object:
            started.append((name, str(a[0] if a else k["name"])))
            return start_span(*a, **k)  # type: ignore[arg-type]

        tracer.start_span = start  # type: ignore[method-assign,assignment]
        return tracer

    provider.get_tracer = noting  # type: ignore[method-assign,assignment]


Traced = tuple[FastAPI, InMemorySpanExporter, str, Asked]


@pytest.fixture(scope="module")
async def traced(pg: EmbeddedPostgres) -> AsyncIterator[Traced]:
    """An app of its own (its own database: no other test's worker takes its work), tracing on."""
    url = await create_database(pg)
    settings = make_settings(url, auth="off", otel="on", summary_trigger_messages=2, summary_keep_recent=0)
    exporter = InMemorySpanExporter()
    sampler = Asked()
    tracing = OtelTracing.for_tests(settings, exporter, sampler)
    note_starts(tracing.provider, sampler.started)
    app = make_app(settings, tracing=tracing)
    async with LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as manager:
        yield manager.app, exporter, url, sampler  # type: ignore[misc]


@pytest.fixture
def wrapped(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The requests FastAPI's telemetry wrapper took: it looks for a legacy OpenTelemetry
    middleware in the stack (`_legacy_otel`) once for each, whether it then traces it or not."""
    seen: list[object] = []
    legacy = fastapi.applications._legacy_otel

    def noting(stack: object) -> bool:
        seen.append(stack)
        return legacy(stack)

    monkeypatch.setattr(fastapi.applications, "_legacy_otel", noting)
    return seen


def in_trace(exporter: InMemorySpanExporter, trace_id: str) -> list[ReadableSpan]:
    return [
        s for s in exporter.get_finished_spans() if s.context and f"{s.context.trace_id:032x}" == trace_id
    ]


def named(spans: list[ReadableSpan], name: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name == name]


async def test_an_append_and_the_work_it_causes_are_one_trace(traced: Traced) -> None:
    app, exporter, url, _ = traced
    async with client_for(app) as api:
        r = await api.post("/v1/sessions", json={"session_id": "trip", "user_id": "ada"})
        assert r.status_code == 201, r.text
        r = await api.post(
            "/v1/sessions/trip/messages",
            headers={"traceparent": CLIENT_PARENT},  # the agent's own trace goes on in Engram
            json={
                "messages": [
                    {"role": "user", "content": "I moved to Lisbon last week."},
                    {"role": "assistant", "content": "Congratulations on the move!"},
                ]
            },
        )
        assert r.status_code == 201, r.text

    async def caused() -> dict[str, ReadableSpan] | None:
        spans = in_trace(exporter, TRACE_ID)
        steps = {s.name: s for s in spans if s.name.startswith("worker ")}
        wanted = ("worker embed", "worker summarize", "worker extract")
        return steps if all(w in steps for w in wanted) else None

    steps = await until(caused, within=120)
    spans = in_trace(exporter, TRACE_ID)
    (server,) = [s for s in spans if s.kind is SpanKind.SERVER]
    assert server.name == "POST /v1/sessions/{session_id}/messages"
    assert server.parent is not None and f"{server.parent.span_id:016x}" == "00f067aa0ba902b7"
    # FastAPI's own server span, in the stable HTTP semantic conventions.
    attributes = server.attributes or {}
    assert attributes["http.request.method"] == "POST"
    assert attributes["http.route"] == "/v1/sessions/{session_id}/messages"
    assert attributes["http.response.status_code"] == 201
    assert attributes["url.path"] == "/v1/sessions/trip/messages"
    # One span for the request: none per dependency, endpoint call, serialization or background task.
    assert not [s.name for s in spans if s.name.startswith(("fastapi.", "BackgroundTask"))]
    # The append's Redis cache write is a span of the request. (Its one SQL statement goes to
    # asyncpg directly, past SQLAlchemy and so past its instrumentation: the worker's SQL below is
    # traced, the append's is not yet.)
    assert any((s.attributes or {}).get("db.system") == "redis" for s in spans)
    # What the request's trace holds: its server span and the Redis commands of the request itself
    # (the cache write), nothing for the worker's wake-up PUBLISH (plumbing: the steps join the
    # trace through the stored traceparent, above, not through it).
    children = [s for s in spans if s.parent is not None and s.parent.span_id == server.context.span_id]
    assert {s.name for s in children if s.kind is SpanKind.CLIENT} == {"EVALSHA"}
    assert not [s for s in spans if s.name == "PUBLISH"]
    # Each step is a child of the request span whose rows it took (the stored traceparent).
    for step in steps.values():
        assert step.kind is SpanKind.CONSUMER
        assert step.parent is not None and step.parent.span_id == server.context.span_id
        assert (step.attributes or {}).get("engram.items", 0) >= 1
        # The step's own SQL (store, commit) is in the trace, under the step.
        assert any(s.parent is not None and s.parent.span_id == step.context.span_id for s in spans)
    embed = steps["worker embed"].attributes or {}
    assert embed["gen_ai.operation.name"] == "embeddings"
    assert embed["gen_ai.embeddings.dimension.count"] == 384
    assert embed["engram.step"] == "embed"
    # The trace context was stored with the work; the facts the extraction step wrote are there.
    db = engine_for(url)
    try:
        rows = await fetch(db, "SELECT DISTINCT trace_parent FROM messages WHERE session_id = 'trip'")
        assert [r[0].split("-")[1] for r in rows] == [TRACE_ID]
        facts = await fetch(db, "SELECT content FROM facts WHERE user_id = 'ada'")
        assert facts, "the extraction step wrote no fact"
    finally:
        await db.dispose()


async def test_a_trace_sampled_out_starts_no_sql_or_redis_span(traced: Traced) -> None:
    """Sampling keeps a fraction of the traces; the others must not pay for spans nobody keeps.
    Under a span that records nothing, the request's Redis commands and the SQL of the worker step
    it causes start no span: the instrumentation is suppressed, not merely sampled."""
    app, exporter, url, sampler = traced
    trace_id = "5ca1ab1e" * 4
    dropped = {"traceparent": f"00-{trace_id}-00f067aa0ba902b7-00"}  # the caller's trace: not sampled
    async with client_for(app) as api:
        r = await api.post("/v1/sessions", json={"session_id": "unsampled", "user_id": "cy"})
        assert r.status_code == 201, r.text
        r = await api.post(
            "/v1/sessions/unsampled/messages",
            headers=dropped,
            json={"messages": [{"role": "user", "content": "I keep bees in Porto."}]},
        )
        assert r.status_code == 201, r.text
        r = await api.get("/v1/sessions/unsampled/memory", headers=dropped)  # Redis: the window
        assert r.status_code == 200, r.text
    db = engine_for(url)
    try:

        async def embedded() -> bool:
            rows = await fetch(db, "SELECT embed_status FROM messages WHERE session_id = 'unsampled'")
            return bool(rows) and all(r[0] == "done" for r in rows)

        await until(embedded, within=120)  # the step, its SQL and its commit are over
    finally:
        await db.dispose()
    asked = [(name, kind) for t, name, kind in sampler.asked if t == int(trace_id, 16)]
    assert ("POST", SpanKind.SERVER) in asked and ("GET", SpanKind.SERVER) in asked
    assert ("worker embed", SpanKind.CONSUMER) in asked
    assert [a for a in asked if a[1] is SpanKind.CLIENT] == []
    assert in_trace(exporter, trace_id) == []


async def test_a_request_without_trace_context_is_sampled_once_before_any_span(
    traced: Traced, wrapped: list[object]
) -> None:
    """A request that starts a trace is head-sampled before FastAPI's wrapper: sampled out, it
    does not go through that wrapper, no span is started for it at all (not even a non-recording
    one), its Redis commands and the SQL of the work it causes start none either, and the trace
    context stored with that work says "not sampled", so the worker's step is dropped with it
    instead of being sampled anew."""
    app, exporter, url, sampler = traced
    async with client_for(app) as api:
        r = await api.post("/v1/sessions", json={"session_id": "edge", "user_id": "di"})
        assert r.status_code == 201, r.text
    sampler.inner = ParentBased(ALWAYS_OFF)  # every trace that starts here is dropped
    sampler.asked.clear()
    sampler.started.clear()
    try:
        async with client_for(app) as api:
            r = await api.post(
                "/v1/sessions/edge/messages", json={"messages": [{"role": "user", "content": "I fly kites."}]}
            )
            assert r.status_code == 201, r.text
            r = await api.get("/v1/sessions/edge/memory")
            assert r.status_code == 200, r.text
        requests = [a for a in sampler.asked if a[2] is SpanKind.SERVER]
        assert [name for _, name, _ in requests] == ["POST", "GET"]  # asked once per request
        assert len(wrapped) == 1  # the session's creation, kept; neither dropped request
        assert [s for s in sampler.started if s[0] == "fastapi"] == []  # and no server span started
        db = engine_for(url)
        try:
            rows = await fetch(db, "SELECT trace_parent FROM messages WHERE session_id = 'edge'")
            ((stored,),) = rows
            assert stored.endswith("-00") and int(stored.split("-")[1], 16) == requests[0][0]

            async def embedded() -> bool:
                rows = await fetch(db, "SELECT embed_status FROM messages WHERE session_id = 'edge'")
                return all(r[0] == "done" for r in rows)

            await until(embedded, within=120)
        finally:
            await db.dispose()
        dropped = [a for a in sampler.asked if a[0] == requests[0][0]]
        assert ("worker embed", SpanKind.CONSUMER) in [(name, kind) for _, name, kind in dropped]
        assert [a for a in dropped if a[2] is SpanKind.CLIENT] == []
        assert in_trace(exporter, stored.split("-")[1]) == []
    finally:
        sampler.inner = ParentBased(ALWAYS_ON)


async def test_a_kept_request_is_not_sampled_twice(traced: Traced, wrapped: list[object]) -> None:
    """The request kept by the head sample gets its server span without a second draw: with one
    trace in two kept, four requests make two traces (a ratio applied twice would keep one in four),
    and only those two go through FastAPI's telemetry wrapper."""
    app, exporter, _, sampler = traced
    async with client_for(app) as api:
        r = await api.post("/v1/sessions", json={"session_id": "halves", "user_id": "ed"})
        assert r.status_code == 201, r.text
        exporter.clear()
        wrapped.clear()
        sampler.inner = ParentBased(EveryOther())
        try:
            for _ in range(4):
                r = await api.get("/v1/sessions/halves/memory")
                assert r.status_code == 200, r.text
        finally:
            sampler.inner = ParentBased(ALWAYS_ON)
    servers = [s for s in exporter.get_finished_spans() if s.kind is SpanKind.SERVER]
    assert [s.name for s in servers] == ["GET /v1/sessions/{session_id}/memory"] * 2
    assert len(wrapped) == 2
    assert len({s.context.trace_id for s in servers if s.context}) == 2


async def test_a_pipeline_made_while_suppressed_is_plain_and_a_traced_one_a_span() -> None:
    """The Redis instrumentation wraps every new pipeline's `execute` as it is made; under a span
    that records nothing (instrumentation suppressed) the pipeline is made plain, not wrapped only
    for the wrapper to return at its first check. Made while traced, it is still a span."""
    exporter = InMemorySpanExporter()
    tracing = OtelTracing.for_tests(make_settings("postgresql://x/y", otel="on"), exporter)
    client = aredis.from_url(REDIS_URL)
    tracing.instrument_redis(client)
    try:
        with tracing.quiet():
            quiet = client.pipeline(transaction=False)
        assert not hasattr(quiet.execute, "__wrapped__")  # no wrapt wrapper
        quiet.get("engram-test:otel:a")
        await quiet.execute()
        assert exporter.get_finished_spans() == ()
        traced = client.pipeline(transaction=False)
        assert hasattr(traced.execute, "__wrapped__")
        traced.get("engram-test:otel:a")
        traced.llen("engram-test:otel:b")
        await traced.execute()
        (span,) = exporter.get_finished_spans()
        assert span.name == "GET LLEN" and span.kind is SpanKind.CLIENT
    finally:
        tracing.shutdown()
        await client.aclose()
    assert not hasattr(client.pipeline, "__wrapped__")  # uninstrumented: redis-py's own again


def test_a_collector_that_is_down_holds_the_shutdown_no_longer_than_the_flush() -> None:
    """What is buffered is exported at shutdown; a collector that is down (its port refuses) gets
    SHUTDOWN_FLUSH_MS, not the exporter's 10 s of retries, so a stop stays under 3 s."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    settings = make_settings("postgresql://x/y", otel="on")
    kept = InMemorySpanExporter()
    up = OtelTracing.batched(settings, kept)
    with up.tracer.start_as_current_span("buffered"):
        pass
    up.shutdown()
    assert [s.name for s in kept.get_finished_spans()] == ["buffered"]

    down = OtelTracing.batched(settings, OTLPSpanExporter(endpoint="http://127.0.0.1:9/v1/traces"))
    with down.tracer.start_as_current_span("lost"):
        pass
    started = time.monotonic()
    down.shutdown()
    assert time.monotonic() - started < SHUTDOWN_FLUSH_MS / 1000 + 1


async def test_idle_polls_make_no_spans_and_a_batch_of_many_causes_links_them(traced: Traced) -> None:
    app, exporter, _, _ = traced
    exporter.clear()
    async with client_for(app) as api:
        assert (await api.get("/healthz")).status_code == 200  # excluded: probes are not traced
    # The worker polls every 0.25 s: a second of idling is several empty claims, none traced.
    await asyncio.sleep(1.0)
    assert exporter.get_finished_spans() == ()

    # Two appends, embedded in one step: the step has a trace of its own, linked to both.
    tracing = OtelTracing.for_tests(make_settings("postgresql://x/y", otel="on"), exporter)
    parents = [f"00-{i:032x}-{i:016x}-01" for i in (1, 2)]
    with tracing.step("embed", [*parents, parents[0], None], {"gen_ai.operation.name": "embeddings"}):
        pass
    (span,) = named(list(exporter.get_finished_spans()), "worker embed")
    assert span.parent is None
    assert sorted(link.context.trace_id for link in span.links) == [1, 2]
    tracing.shutdown()


async def test_off_by_default_stores_no_trace_context(api: httpx.AsyncClient, database_url: str) -> None:
    r = await api.post("/v1/sessions", json={"user_id": "bo"})
    sid = r.json()["session_id"]
    r = await api.post(
        f"/v1/sessions/{sid}/messages",
        headers={"traceparent": CLIENT_PARENT},
        json={"messages": [{"role": "user", "content": "hello"}]},
    )
    assert r.status_code == 201
    db = engine_for(database_url)
    try:
        rows = await fetch(db, "SELECT trace_parent FROM messages WHERE session_id = :s", s=sid)
        assert [r[0] for r in rows] == [None]
    finally:
        await db.dispose()


def test_off_imports_no_tracing_sdk_or_instrumentation() -> None:
    """The API and the worker with tracing off: Engram imports nothing of the extra (no tracer
    provider, exporter or instrumentation). Two dependencies import OpenTelemetry on their own
    whether Engram traces or not: the MCP SDK the API, and redis-py (8.x) the SDK's metrics when
    it is installed, for its own opt-in metrics."""
    loaded = fresh_modules()["start"]
    assert "app.telemetry.otel" not in loaded
    extra = ("opentelemetry.sdk.trace", "opentelemetry.instrumentation", "opentelemetry.exporter")
    assert not [m for m in loaded if m.startswith(extra)]

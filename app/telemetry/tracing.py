"""What the app and the worker ask of tracing; `NoTracing` when it is off (the default).

Built once per process by `make_tracing` (app/telemetry/factory.py; create_app, `engram worker`),
started and shut down by the lifespan. Only `make_tracing` imports the OpenTelemetry side, and
only when ENGRAM_OTEL=on.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from fastapi import FastAPI
    from fastapi.telemetry import TelemetryConfig
    from redis.asyncio import Redis
    from sqlalchemy.ext.asyncio import AsyncEngine

Attributes = Mapping[str, str | int | float | bool]


class StepSpan(Protocol):
    def set(self, key: str, value: str | int | float | bool) -> None: ...

    def error(self, message: str) -> None: ...


class Tracing(Protocol):
    enabled: bool

    def make_app(self, **options: Any) -> FastAPI:
        """The app, `FastAPI(**options)` with FastAPI's own OpenTelemetry settings (the HTTP server
        span of each request, covering every middleware), of the class tracing needs."""
        ...

    def instrument_app(self, app: FastAPI) -> None:
        """What a traced request needs around the app's middleware (before the app starts)."""

    def instrument_engine(self, engine: AsyncEngine) -> None:
        """A span per SQL statement on `engine`."""

    def instrument_redis(self, client: Redis | None) -> None:
        """A span per Redis command of `client`."""

    def quiet(self) -> contextlib.AbstractContextManager[None]:
        """No spans inside (the worker's idle polls and sweeps would each be a trace of their own)."""
        ...

    def step(
        self, kind: str, causes: Sequence[str | None], attributes: Attributes
    ) -> contextlib.AbstractContextManager[StepSpan]:
        """A span for one worker step, child of its cause's trace when the items share one
        (`traceparent`s stored with the work), linked to every cause otherwise."""
        ...

    def shutdown(self) -> None:
        """Export what is buffered; remove the instrumentation."""


class _NoSpan:
    def set(self, key: str, value: str | int | float | bool) -> None:
        pass

    def error(self, message: str) -> None:
        pass


_NO_SPAN = _NoSpan()


class NoTracing:
    """Tracing off: every call returns at once."""

    enabled = False

    def make_app(self, **options: Any) -> FastAPI:
        from fastapi import FastAPI  # not at import: the worker imports this module, not FastAPI

        # Off is off: FastAPI traces nothing either, even in a process whose host set up global
        # OpenTelemetry providers (FastAPI would otherwise use them).
        off: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False, "auto_configure": False}
        return FastAPI(**options, telemetry=off)

    def instrument_app(self, app: FastAPI) -> None:
        pass

    def instrument_engine(self, engine: AsyncEngine) -> None:
        pass

    def instrument_redis(self, client: Redis | None) -> None:
        pass

    def quiet(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def step(self, kind: str, causes: Sequence[str | None], attributes: Attributes) -> Iterator[StepSpan]:
        yield _NO_SPAN

    def shutdown(self) -> None:
        pass

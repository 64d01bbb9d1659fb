"""Runs derived-work steps (app.jobs.step): one transaction per claim, the model shared by lock,
failures isolated and retried, metrics counted.

Claim, model call and store happen in one transaction holding the items' row locks: two workers
never take the same item, and a worker that dies mid-step rolls back, so the items are claimed
again and done exactly once. Lanes running side by side share the model by turns
(app/jobs/shared_model.py), so the next claim overlaps the model call of the one before but the
model never runs two calls at once.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping
from typing import TypeVar

import structlog
from sqlalchemy.ext.asyncio import AsyncEngine

from app.ai.embedder import EmbedderUnavailable
from app.ai.fact_extractor import ExtractorUnavailable
from app.ai.summarizer import SummarizerUnavailable
from app.jobs.cpu import CpuUnavailable
from app.jobs.retry import RetryPolicy
from app.jobs.step import Step, StepResult
from app.metrics import Metrics
from app.telemetry.tracing import Attributes, NoTracing, Tracing

_log = structlog.get_logger("engram.jobs")
ItemT = TypeVar("ItemT")
OutT = TypeVar("OutT")
# The service is down, refusing or too slow: every item of the call waits, nothing is bisected.
OUTAGES: tuple[type[Exception], ...] = (
    EmbedderUnavailable,
    SummarizerUnavailable,
    ExtractorUnavailable,
    CpuUnavailable,
)
ERROR_CHARS = 2000


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:ERROR_CHARS]


def is_outage(error: str) -> bool:
    """Whether an error `describe`d and passed to a step's `fail` was an outage (the whole call
    failed on the service) rather than an input the model rejects."""
    return error.startswith(tuple(f"{kind.__name__}: " for kind in OUTAGES))


def cause(item: object) -> str | None:
    """The W3C traceparent an item was written under (`trace_parent`, stored with the work), if any."""
    found = getattr(item, "trace_parent", None)
    return found if isinstance(found, str) else None


class StepRunner:
    def __init__(
        self,
        *,
        engine: AsyncEngine,
        retry: RetryPolicy,
        metrics: Metrics | None = None,
        tracing: Tracing | None = None,
        span_attributes: Mapping[str, Attributes] | None = None,
    ) -> None:
        self.engine = engine
        self.retry = retry
        self.metrics = metrics
        self.tracing = tracing or NoTracing()
        self.span_attributes = span_attributes or {}

    async def run(self, step: Step[ItemT, OutT]) -> StepResult:
        """Claim, call and store one batch of `step`; `claimed == 0` means nothing is due now.
        Raises only when the database does (the worker's loop retries soon)."""
        started = time.perf_counter()
        with contextlib.ExitStack() as spans:
            async with self.engine.begin() as conn:
                with self.tracing.quiet():  # the claims of an idle worker are no spans
                    items = list(await step.claim(conn))
                if not items:
                    return StepResult(step.kind)
                # The span (in the trace of the items' cause) covers call, store and commit.
                attributes = self.span_attributes.get(step.kind, {})
                causes = [cause(i) for i in items]
                span = spans.enter_context(self.tracing.step(step.kind, causes, attributes))
                span.set("engram.items", len(items))
                done, failures = await self._call(step, items)
                if done:
                    await step.store(conn, done)
                for error, failed in failures.items():
                    await step.fail(conn, failed, error, self.retry)
                span.set("engram.items.failed", sum(len(f) for f in failures.values()))
                if failures:
                    span.error(next(iter(failures)))
        result = StepResult(
            step.kind,
            claimed=len(items),
            done=len(done),
            failed=sum(len(f) for f in failures.values()),
            seconds=time.perf_counter() - started,
            more=len(items) >= step.limit,
        )
        if self.metrics is not None:
            self.metrics.worker_items.labels(step.kind, "done").inc(result.done)
            self.metrics.worker_items.labels(step.kind, "retry_or_failed").inc(result.failed)
            self.metrics.worker_batch.labels(step.kind).observe(result.seconds)
        return result

    async def _call(
        self, step: Step[ItemT, OutT], items: list[ItemT]
    ) -> tuple[list[tuple[ItemT, OutT]], dict[str, list[ItemT]]]:
        """The step's model call; if it fails, bisect so one bad item cannot fail the others.
        Returns what was done and the failed items grouped by error."""
        try:
            outputs = await step.call(items)
            return list(zip(items, outputs, strict=True)), {}
        except OUTAGES as exc:
            error = describe(exc)
            _log.warning("model unavailable", kind=step.kind, items=len(items), error=error)
            return [], {error: items}
        except Exception as exc:  # a failure tied to the input: recorded on the item, never raised
            if len(items) == 1:
                error = describe(exc)
                _log.warning("derived work failed", kind=step.kind, error=error)
                return [], {error: items}
        mid = len(items) // 2
        left_done, left_failed = await self._call(step, items[:mid])
        right_done, right_failed = await self._call(step, items[mid:])
        for error, failed in right_failed.items():
            left_failed.setdefault(error, []).extend(failed)
        return left_done + right_done, left_failed

"""Prometheus metrics, in a registry owned by the app (no process-global collectors)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy.ext.asyncio import AsyncEngine

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)


class _PoolCollector(Collector):
    """Reads a pool (SQLAlchemy's, or the lane's) at scrape time, so the gauges are never stale."""

    def __init__(self, read: Callable[[], dict[str, int]], prefix: str, what: str) -> None:
        self._read = read
        self._prefix = prefix
        self._what = what

    def collect(self) -> Iterator[Metric]:
        stats = self._read()
        for name, value in stats.items():
            g = GaugeMetricFamily(f"{self._prefix}{name}", f"{self._what}: {name}.")
            g.add_metric([], value)
            yield g


def pool_stats(engine: AsyncEngine) -> dict[str, int]:
    """A QueuePool's figures. Its `overflow()` counts from -size up (connections opened beyond
    the pool's size, negative while the pool is not yet full): the gauge shows the overflow in use."""
    pool = engine.pool
    stats = {}
    for name in ("size", "checkedout", "overflow", "checkedin"):
        read = getattr(pool, name, None)
        if callable(read):
            stats[name] = int(read())
    if "overflow" in stats:
        stats["overflow"] = max(0, stats["overflow"])
    return stats


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "engram_http_requests",
            "HTTP requests by method, route template and status.",
            ["method", "route", "status"],
            registry=self.registry,
        )
        # Each request's labelled children, once per label set: `labels()` per request (locks,
        # tuples) was a visible part of a cached memory read's CPU.
        self._http: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}
        self.latency = Histogram(
            "engram_http_request_duration_seconds",
            "HTTP request latency by method and route template.",
            ["method", "route"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )

        self.worker_items = Counter(
            "engram_worker_items",
            "Derived-work items processed, by kind and outcome.",
            ["kind", "outcome"],
            registry=self.registry,
        )
        self.worker_batch = Histogram(
            "engram_worker_batch_seconds",
            "Time of one worker batch (claim, model call, write).",
            ["kind"],
            buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
            registry=self.registry,
        )
        self.worker_backlog = Gauge(
            "engram_worker_backlog", "Items waiting to be derived.", ["kind"], registry=self.registry
        )
        self.worker_failed = Gauge(
            "engram_worker_failed", "Items in the failed state.", ["kind"], registry=self.registry
        )
        self.worker_lag = Gauge(
            "engram_worker_lag_seconds",
            "How long the oldest due item has waited (since it became due).",
            ["kind"],
            registry=self.registry,
        )

        # Webhooks (their backlog, failed count and lag are engram_worker_*{kind="webhook"}).
        self.webhook_deliveries = Counter(
            "engram_webhook_deliveries",
            "Webhook delivery tries by outcome: delivered, retry (failed, will be tried again), "
            "failed (the last try failed).",
            ["outcome"],
            registry=self.registry,
        )
        self.webhook_seconds = Histogram(
            "engram_webhook_request_seconds",
            "Time of one webhook try (connect, send, the receiver's answer).",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.webhook_lag = Histogram(
            "engram_webhook_delivery_lag_seconds",
            "From the event's transaction to its successful delivery (retries included).",
            buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 10800),
            registry=self.registry,
        )

        self.cache_lookups = Counter(
            "engram_cache_lookups",
            "Session window cache lookups by result (hit, miss, stale, error, bypass; answer: a whole "
            "answer kept by the API process, the window not read).",
            ["result"],
            registry=self.registry,
        )
        self.cache_up = Gauge(
            "engram_cache_up",
            "1 while Redis answers; 0 while the service is degraded to PostgreSQL only.",
            registry=self.registry,
        )

        self.audit_events = Counter(
            "engram_audit_events",
            "Audit events by result: written, or dropped (the database refused them too long).",
            ["result"],
            registry=self.registry,
        )

    def watch_pool(self, read: Callable[[], dict[str, int]]) -> None:
        self.registry.register(_PoolCollector(read, "engram_db_pool_", "Database pool connections"))

    def watch_lane(self, read: Callable[[], dict[str, int]]) -> None:
        """The hot statements' connections (app/db/lane.py)."""
        self.registry.register(_PoolCollector(read, "engram_db_lane_", "Database lane"))

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        key = (method, route, status)
        children = self._http.get(key)
        if children is None:  # bounded: methods x route templates x statuses
            children = self._http[key] = (
                self.requests.labels(method, route, str(status)),
                self.latency.labels(method, route),
            )
        children[0].inc()
        children[1].observe(seconds)

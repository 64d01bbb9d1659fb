"""The delivery step: claim the next due delivery of an (endpoint, user) queue, send it signed,
record the attempt, and mark it delivered or schedule its retry (app.jobs.retry's backoff).

Claim, send and record happen in one transaction holding the delivery's row lock (the runner's),
so a worker killed mid-send rolls back and the delivery is sent again, with the same event id:
at least once, never lost. Only the head of a queue is due: a delivery waits while an older one
of the same user and endpoint is pending (in flight, or waiting for its retry), so one user's
events reach an endpoint one at a time, in order.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.jobs.retry import RetryPolicy, next_try
from app.metrics import Metrics
from app.webhooks import signing
from app.webhooks.sender import Outcome, Sender

KIND = "webhook"

_CLAIM = text(
    "SELECT d.id, d.event_id, d.created_at, CAST(d.payload AS text) AS body, e.url, e.secret, "
    "  CASE WHEN e.previous_expires_at > now() THEN e.previous_secret END AS previous_secret "
    "FROM webhook_deliveries d JOIN webhook_endpoints e USING (endpoint_id) "
    "WHERE d.status = 'pending' AND d.run_after <= now() "
    "  AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id "
    "    AND p.user_id = d.user_id AND p.status = 'pending' AND p.id < d.id) "
    "ORDER BY d.run_after, d.id LIMIT :n FOR UPDATE OF d SKIP LOCKED"
)
_ATTEMPTS = text(
    "INSERT INTO webhook_attempts (delivery_id, status_code, error, seconds) "
    "SELECT * FROM unnest(CAST(:ids AS bigint[]), CAST(:codes AS int[]), CAST(:errors AS text[]), "
    "  CAST(:secs AS float8[]))"
)
_DELIVERED = text(
    "UPDATE webhook_deliveries d SET status = 'delivered', attempts = d.attempts + 1, "
    "last_status = v.code, last_error = NULL, delivered_at = now(), updated_at = now() "
    "FROM unnest(CAST(:ids AS bigint[]), CAST(:codes AS int[])) AS v(id, code) WHERE d.id = v.id"
)
_RETRY = text(
    "UPDATE webhook_deliveries d SET attempts = d.attempts + 1, last_status = v.code, "
    "last_error = v.err, updated_at = now(), "
    "status = CASE WHEN d.attempts + 1 >= :max THEN 'failed' ELSE 'pending' END, "
    f"run_after = {next_try('d.attempts')} "
    "FROM unnest(CAST(:ids AS bigint[]), CAST(:codes AS int[]), CAST(:errors AS text[])) "
    "AS v(id, code, err) WHERE d.id = v.id RETURNING d.status"
)


@dataclass(frozen=True)
class Due:
    delivery_id: int
    event_id: uuid.UUID
    created_at: datetime
    url: str
    body: str
    secrets: tuple[str, ...]


class Deliver:
    kind = KIND

    def __init__(self, *, sender: Sender, retry: RetryPolicy, metrics: Metrics, limit: int = 1) -> None:
        self.sender = sender
        self.retry = retry
        self.metrics = metrics
        self.limit = limit

    async def claim(self, conn: AsyncConnection) -> list[Due]:
        rows = (await conn.execute(_CLAIM, {"n": self.limit})).all()
        return [
            Due(
                delivery_id=r.id,
                event_id=r.event_id,
                created_at=r.created_at,
                url=r.url,
                body=r.body,
                secrets=(r.secret,) if r.previous_secret is None else (r.secret, r.previous_secret),
            )
            for r in rows
        ]

    async def call(self, items: Sequence[Due]) -> list[Outcome]:
        return list(await asyncio.gather(*(self._send(d) for d in items)))

    async def _send(self, due: Due) -> Outcome:
        # Signed now, not when written: the timestamp a receiver checks is that of this try.
        headers = signing.headers(
            event_id=str(due.event_id), body=due.body, at=datetime.now(UTC), secrets_=due.secrets
        )
        return await self.sender.send(url=due.url, headers=headers, body=due.body)

    async def store(self, conn: AsyncConnection, done: Sequence[tuple[Due, Outcome]]) -> None:
        await record(conn, done, retry=self.retry, metrics=self.metrics)

    async def fail(
        self, conn: AsyncConnection, failed: Sequence[Due], error: str, retry: RetryPolicy
    ) -> None:
        """An error of ours (not the receiver's): recorded as a failed try, retried likewise."""
        tries = [(d, Outcome(status=None, error=error, seconds=0.0)) for d in failed]
        await record(conn, tries, retry=self.retry, metrics=self.metrics)


async def record(
    conn: AsyncConnection, tries: Sequence[tuple[Due, Outcome]], *, retry: RetryPolicy, metrics: Metrics
) -> None:
    """Log each try as an attempt; mark the delivered, schedule (or fail) the others."""
    if not tries:
        return
    await conn.execute(
        _ATTEMPTS,
        {
            "ids": [d.delivery_id for d, _ in tries],
            "codes": [o.status for _, o in tries],
            "errors": [o.error for _, o in tries],
            "secs": [o.seconds for _, o in tries],
        },
    )
    ok = [(d, o) for d, o in tries if o.ok]
    bad = [(d, o) for d, o in tries if not o.ok]
    now = datetime.now(UTC)
    for _, outcome in tries:
        metrics.webhook_seconds.observe(outcome.seconds)
    if ok:
        await conn.execute(
            _DELIVERED, {"ids": [d.delivery_id for d, _ in ok], "codes": [o.status for _, o in ok]}
        )
        metrics.webhook_deliveries.labels("delivered").inc(len(ok))
        for due, _ in ok:
            metrics.webhook_lag.observe(max(0.0, (now - due.created_at).total_seconds()))
    if bad:
        states = (
            await conn.execute(
                _RETRY,
                {
                    "ids": [d.delivery_id for d, _ in bad],
                    "codes": [o.status for _, o in bad],
                    "errors": [o.error for _, o in bad],
                    **retry.params(),
                },
            )
        ).scalars()
        for state in states:
            metrics.webhook_deliveries.labels("failed" if state == "failed" else "retry").inc()


async def backlog(conn: AsyncConnection) -> tuple[int, int, float]:
    """(pending, failed, seconds the oldest due delivery has waited) for the worker's gauges."""
    row = (
        await conn.execute(
            text(
                "SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS pending, "
                "(SELECT count(*) FROM webhook_deliveries WHERE status = 'failed') AS failed, "
                "(SELECT coalesce(extract(epoch FROM now() - min(run_after)), 0) FROM webhook_deliveries "
                "  WHERE status = 'pending' AND run_after <= now()) AS lag"
            )
        )
    ).one()
    return int(row.pending), int(row.failed), float(row.lag)


async def forget_old(conn: AsyncConnection, *, days: float) -> int:
    """Drop deliveries that are done (delivered or failed) and older than `days`, with their attempts."""
    removed = (
        await conn.execute(
            text(
                "DELETE FROM webhook_deliveries WHERE created_at < now() - make_interval(secs => :secs) "
                "AND status <> 'pending'"
            ),
            {"secs": days * 86400.0},
        )
    ).rowcount
    return int(removed or 0)

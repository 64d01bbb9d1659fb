"""The jobs table as a queue: one row per (tenant, kind, session), written in the transaction that
makes the work due, claimed with `FOR UPDATE SKIP LOCKED` and held for the whole step, so two
workers never run the same session and a worker that dies mid-step rolls back (the step is redone).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import structlog
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.jobs.fair import Rotation
from app.jobs.retry import RetryPolicy, next_try
from app.jobs.schemas import JobState
from app.telemetry.context import current_traceparent

_log = structlog.get_logger("engram.jobs")
POLL_SECONDS = 0.05
T = TypeVar("T")
_COLS = "status, attempts, error, run_after, force_to_seq"

# The claim also takes KEY SHARE locks on the job's session and user rows. A step holds its job
# and later updates the session row (and inserts rows referencing both); a session delete or user
# purge locks those rows first and reaches the job by cascade, the other way round. With the key
# share taken at claim time, a delete waits for a running step to commit instead of deadlocking
# with it, and a job whose session is being deleted right now is skipped. Appends are not held up:
# KEY SHARE does not conflict with their UPDATE of the session row.
_CLAIM = (
    "SELECT j.tenant_id, j.session_id, j.attempts, j.force_to_seq, j.trace_parent, "
    "s.user_id, s.last_seq, s.summarized_seq, s.extracted_seq "
    "FROM jobs j JOIN sessions s USING (tenant_id, session_id) "
    "JOIN users u ON u.tenant_id = s.tenant_id AND u.user_id = s.user_id "
    "WHERE j.kind = :k AND j.status = 'pending' AND j.run_after <= now() {after} "
    "ORDER BY j.tenant_id, j.run_after LIMIT 1 "
    "FOR UPDATE OF j SKIP LOCKED FOR KEY SHARE OF s, u SKIP LOCKED"
)
# Fair: the next tenant's oldest due job after the last tenant served (ix_jobs_fair), then from the
# first tenant again, so one tenant's thousand due sessions do not hold up another's one.
_CLAIM_AFTER = text(_CLAIM.format(after="AND j.tenant_id > :after"))
_CLAIM_FIRST = text(_CLAIM.format(after=""))
# Fairer still: the next tenant with due work (two probes of ix_jobs_fair), and in it the next user
# after the last one served there, so one user's backlog does not hold up the other users of the
# same tenant either. Only the chosen tenant's due jobs are sorted. None when they are all locked
# by other lanes: then _CLAIM_AFTER / _CLAIM_FIRST take any tenant's.
_DUE = "FROM jobs x WHERE x.kind = :k AND x.status = 'pending' AND x.run_after <= now()"
_CLAIM_ROTATING = text(
    "SELECT j.tenant_id, j.session_id, j.attempts, j.force_to_seq, j.trace_parent, "
    "s.user_id, s.last_seq, s.summarized_seq, s.extracted_seq "
    "FROM jobs j JOIN sessions s USING (tenant_id, session_id) "
    "JOIN users u ON u.tenant_id = s.tenant_id AND u.user_id = s.user_id "
    "WHERE j.kind = :k AND j.status = 'pending' AND j.run_after <= now() AND j.tenant_id = coalesce("
    f"  (SELECT x.tenant_id {_DUE} AND x.tenant_id > :after ORDER BY x.tenant_id LIMIT 1),"
    f"  (SELECT x.tenant_id {_DUE} ORDER BY x.tenant_id LIMIT 1)) "
    "ORDER BY s.user_id <= coalesce((SELECT c.u FROM unnest(CAST(:ct AS text[]), CAST(:cu AS text[])) "
    "  AS c(t, u) WHERE c.t = j.tenant_id), ''), s.user_id, j.run_after LIMIT 1 "
    "FOR UPDATE OF j SKIP LOCKED FOR KEY SHARE OF s, u SKIP LOCKED"
)


async def claim(conn: AsyncConnection, kind: str, rotation: Rotation | None = None) -> Any:
    """The next due job of `kind` with its session's user_id, last_seq and watermarks, locked
    until the transaction ends; None if there is none. With `rotation`, tenants take turns, and
    the users of each tenant."""
    job = None
    if rotation is not None:
        cursors = {
            "k": kind,
            "after": rotation.tenant,
            "ct": list(rotation.users),
            "cu": list(rotation.users.values()),
        }
        job = (await conn.execute(_CLAIM_ROTATING, cursors)).first()
    if job is None and rotation is not None and rotation.tenant:
        job = (await conn.execute(_CLAIM_AFTER, {"k": kind, "after": rotation.tenant})).first()
    if job is None:
        job = (await conn.execute(_CLAIM_FIRST, {"k": kind})).first()
    if job is not None and rotation is not None:
        rotation.served(job.tenant_id, job.user_id)
    return job


async def keep(conn: AsyncConnection, *, kind: str, tenant_id: str, session_id: str) -> None:
    """More is due: run again at once, with a clean slate of attempts."""
    await conn.execute(
        text(
            "UPDATE jobs SET run_after = now(), attempts = 0, error = NULL, updated_at = now() "
            "WHERE tenant_id = :t AND kind = :k AND session_id = :s"
        ),
        {"t": tenant_id, "s": session_id, "k": kind},
    )


async def done(conn: AsyncConnection, *, kind: str, tenant_id: str, session_id: str) -> None:
    await conn.execute(
        text("DELETE FROM jobs WHERE tenant_id = :t AND kind = :k AND session_id = :s"),
        {"t": tenant_id, "s": session_id, "k": kind},
    )


async def fail(
    conn: AsyncConnection, *, kind: str, jobs: Sequence[Any], error: str, retry: RetryPolicy
) -> None:
    """Record the error on claimed jobs (rows from `claim`) and retry with exponential backoff;
    after the last attempt a job stays `failed` (visible over the API) until forced again."""
    for job in jobs:
        _log.warning(
            f"{kind} failed",
            tenant_id=job.tenant_id,
            session_id=job.session_id,
            attempt=job.attempts + 1,
            error=error,
        )
    await conn.execute(
        text(
            "UPDATE jobs SET attempts = attempts + 1, error = :err, updated_at = now(), "
            "status = CASE WHEN attempts + 1 >= :max THEN 'failed' ELSE 'pending' END, "
            f"run_after = {next_try('attempts')} "
            "WHERE kind = :k AND (tenant_id, session_id) IN "
            "(SELECT * FROM unnest(CAST(:t AS text[]), CAST(:s AS text[])))"
        ),
        {
            "t": [j.tenant_id for j in jobs],
            "s": [j.session_id for j in jobs],
            "k": kind,
            "err": error,
            **retry.params(),
        },
    )


async def force(
    conn: AsyncConnection, *, kind: str, tenant_id: str, session_id: str, to_seq: int
) -> JobState:
    """Queue a run covering up to `to_seq` now, whatever the policy says (a failed job revives)."""
    row = (
        (
            await conn.execute(
                text(
                    "INSERT INTO jobs (tenant_id, kind, session_id, force_to_seq, trace_parent) "
                    "VALUES (:t, :k, :s, :to, :tp) "
                    "ON CONFLICT (tenant_id, kind, session_id) DO UPDATE SET "
                    "  force_to_seq = greatest(jobs.force_to_seq, excluded.force_to_seq), "
                    # The forcing request is the cause now (traced: its trace shows the run).
                    "  trace_parent = coalesce(excluded.trace_parent, jobs.trace_parent), "
                    "  status = 'pending', attempts = 0, error = NULL, run_after = now(), updated_at = now() "
                    f"RETURNING {_COLS}"
                ),
                {"t": tenant_id, "s": session_id, "k": kind, "to": to_seq, "tp": current_traceparent()},
            )
        )
        .mappings()
        .one()
    )
    return JobState(**row)


async def state(conn: AsyncConnection, *, kind: str, tenant_id: str, session_id: str) -> JobState | None:
    row = (
        (
            await conn.execute(
                text(f"SELECT {_COLS} FROM jobs WHERE tenant_id = :t AND kind = :k AND session_id = :s"),
                {"t": tenant_id, "s": session_id, "k": kind},
            )
        )
        .mappings()
        .first()
    )
    return JobState(**row) if row is not None else None


async def wait_until(probe: Callable[[], Awaitable[T]], settled: Callable[[T], bool], seconds: float) -> T:
    """Probe (bounded by `seconds`) until `settled` says the forced work is done or has failed;
    returns the last probe. What clients get from a `wait_seconds` parameter."""
    deadline = time.monotonic() + seconds
    while True:
        state = await probe()
        if settled(state) or time.monotonic() >= deadline:
            return state
        await asyncio.sleep(POLL_SECONDS)

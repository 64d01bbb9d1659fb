"""Fair derived work: a claim's slots are shared across tenants, then users, in rotation, so one
tenant's (or user's) backlog delays another's new work by a batch or two, not its whole length."""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.ai.local_embedder import LocalEmbedder
from app.config import Settings
from app.db.embedded import EmbeddedPostgres
from app.indexing.tasks import EmbedMessages
from app.jobs import queue
from app.jobs.fair import Rotation
from tests.support.db import create_database, engine_for


def test_shares_split_across_tenants_then_users_and_rotate() -> None:
    rotation = Rotation()
    owners = [("a", "u1"), ("b", "u1"), ("b", "u2"), ("b", "u3")]
    assert rotation.shares(owners, 8) == [4, 2, 1, 1]
    assert (rotation.tenant, rotation.users) == ("b", {"a": "u1", "b": "u3"})
    # More owners than slots: the first in rotation order are served, the cursors stop there.
    rotation = Rotation()
    assert rotation.shares(owners, 2) == [1, 1, 0, 0]
    assert (rotation.tenant, rotation.users) == ("b", {"a": "u1", "b": "u1"})
    # A tenant with no due work any more is forgotten.
    assert rotation.shares([("b", "u2")], 2) == [2]
    assert rotation.users == {"b": "u2"}


@pytest.fixture
async def db(pg: EmbeddedPostgres) -> AsyncEngine:
    return engine_for(await create_database(pg))


async def _backlog(db: AsyncEngine, tenant: str, user: str, n: int, *, age_seconds: float = 60) -> None:
    """`n` pending messages of one user, the oldest `age_seconds` old (older than any new one)."""
    async with db.begin() as conn:
        await conn.execute(
            text("INSERT INTO tenants (tenant_id) VALUES (:t) ON CONFLICT DO NOTHING"), {"t": tenant}
        )
        await conn.execute(
            text("INSERT INTO users (tenant_id, user_id) VALUES (:t, :u) ON CONFLICT DO NOTHING"),
            {"t": tenant, "u": user},
        )
        await conn.execute(
            text(
                "INSERT INTO sessions (tenant_id, session_id, user_id, last_seq) VALUES (:t, :u, :u, :n) "
                "ON CONFLICT DO NOTHING"
            ),
            {"t": tenant, "u": user, "n": n},
        )
        await conn.execute(
            text(
                "INSERT INTO messages (message_id, tenant_id, session_id, user_id, seq, role, content, "
                "token_count, embed_after) "
                "SELECT gen_random_uuid(), :t, :u, :u, g, 'user', :t || ' ' || :u || ' ' || g, 3, "
                "now() - make_interval(secs => :age) + g * interval '1 ms' FROM generate_series(1, :n) g"
            ),
            {"t": tenant, "u": user, "n": n, "age": age_seconds},
        )


async def _claims(db: AsyncEngine, step: EmbedMessages, rounds: int) -> list[Counter[tuple[str, str]]]:
    """Who each of `rounds` claims served; each claim is committed as done, like a worker's batch."""
    out = []
    for _ in range(rounds):
        async with db.begin() as conn:
            items = await step.claim(conn)
            owners = (
                await conn.execute(
                    text(
                        "UPDATE messages SET embed_status = 'done' "
                        "WHERE message_id = ANY(CAST(:ids AS uuid[])) RETURNING tenant_id, user_id"
                    ),
                    {"ids": [i.message_id for i in items]},
                )
            ).all()
        out.append(Counter((o.tenant_id, o.user_id) for o in owners))
    return out


async def test_a_new_message_is_claimed_in_the_first_batch_behind_another_tenants_backlog(
    db: AsyncEngine,
) -> None:
    await _backlog(db, "big", "u1", 2000)
    await _backlog(db, "small", "u1", 1, age_seconds=0)  # newest of all: FIFO would take it last
    step = EmbedMessages(embedder=LocalEmbedder(Settings()), batch_size=64)
    first, second = await _claims(db, step, 2)
    assert first == {("small", "u1"): 1, ("big", "u1"): 63}, "shares unused by one tenant go to the others"
    assert second == {("big", "u1"): 64}
    await db.dispose()


async def test_users_of_one_tenant_take_turns_and_many_tenants_all_get_a_turn(db: AsyncEngine) -> None:
    await _backlog(db, "t", "heavy", 500)
    await _backlog(db, "t", "light", 3, age_seconds=0)
    for i in range(40):  # more tenants than one claim serves (TENANTS_PER_CLAIM = 32)
        await _backlog(db, f"other{i:02d}", "u", 2, age_seconds=0)
    step = EmbedMessages(embedder=LocalEmbedder(Settings()), batch_size=64)
    first, second = await _claims(db, step, 2)
    both = first + second
    assert both[("t", "light")] == 3, "a light user is not stuck behind a heavy one of its tenant"
    served = {t for t, _ in both}
    assert served == {"t"} | {f"other{i:02d}" for i in range(40)}, "every tenant within two batches"
    await db.dispose()


async def test_session_jobs_rotate_across_tenants(db: AsyncEngine) -> None:
    await _backlog(db, "big", "u1", 1)
    await _backlog(db, "small", "u1", 1)
    async with db.begin() as conn:
        await conn.execute(
            text(
                "INSERT INTO sessions (tenant_id, session_id, user_id) "
                "SELECT 'big', 'x' || g, 'u1' FROM generate_series(1, 50) g"
            )
        )
        await conn.execute(
            text(
                "INSERT INTO jobs (tenant_id, kind, session_id, run_after) "
                "SELECT 'big', 'summarize', 'x' || g, now() - interval '1 hour' "
                "FROM generate_series(1, 50) g "
                "UNION ALL SELECT 'small', 'summarize', 'u1', now()"
            )
        )
    rotation = Rotation()
    tenants = []
    for _ in range(3):
        async with db.begin() as conn:
            job = await queue.claim(conn, "summarize", rotation)
            assert job is not None
            tenants.append(job.tenant_id)
            await queue.done(conn, kind="summarize", tenant_id=job.tenant_id, session_id=job.session_id)
    assert tenants == ["big", "small", "big"]
    await db.dispose()


async def test_session_jobs_rotate_across_the_users_of_a_tenant(db: AsyncEngine) -> None:
    """One user's 30 due sessions (an hour old) do not hold up another user's one of the same
    tenant: the users take turns, and the tenants before them."""
    for user in ("heavy", "light"):
        await _backlog(db, "t", user, 1)
    await _backlog(db, "u", "solo", 1)
    async with db.begin() as conn:
        await conn.execute(
            text(
                "INSERT INTO sessions (tenant_id, session_id, user_id) "
                "SELECT 't', 'h' || g, 'heavy' FROM generate_series(1, 30) g"
            )
        )
        await conn.execute(
            text(
                "INSERT INTO jobs (tenant_id, kind, session_id, run_after) "
                "SELECT 't', 'extract', 'h' || g, now() - interval '1 hour' FROM generate_series(1, 30) g "
                "UNION ALL SELECT 't', 'extract', 'light', now() "
                "UNION ALL SELECT 'u', 'extract', 'solo', now()"
            )
        )
    rotation = Rotation()
    served = []
    for _ in range(5):
        async with db.begin() as conn:
            job = await queue.claim(conn, "extract", rotation)
            assert job is not None
            served.append((job.tenant_id, job.user_id))
            await queue.done(conn, kind="extract", tenant_id=job.tenant_id, session_id=job.session_id)
    assert served == [("t", "heavy"), ("u", "solo"), ("t", "light"), ("t", "heavy"), ("t", "heavy")]
    await db.dispose()

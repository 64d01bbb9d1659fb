"""A worker SIGKILLed while webhook deliveries are in flight: a second worker delivers every
event, none is lost, and a duplicate is only an in-flight delivery sent again with the same event
id, right after itself (each user's events still arrive in order)."""

from __future__ import annotations

import signal
from collections import defaultdict

from app.db.embedded import EmbeddedPostgres
from app.tenants.service import ensure_tenant
from app.webhooks import outbox, service
from app.webhooks.schemas import EndpointCreate
from tests.support.db import create_database, engine_for, fetch, until
from tests.support.procs import start_worker
from tests.support.webhook_receiver import Receiver

USERS = 10
EACH = 20  # events per user
LANES = 4
FAST = {
    "ENGRAM_WEBHOOK_CONCURRENCY": str(LANES),
    "ENGRAM_WORKER_POLL_SECONDS": "0.05",
    "ENGRAM_WEBHOOK_BACKOFF_SECONDS": "0.2",
    "ENGRAM_LOG_LEVEL": "warning",
}


async def test_no_event_is_lost_when_the_worker_is_killed_mid_delivery(pg: EmbeddedPostgres) -> None:
    url = await create_database(pg)
    engine = engine_for(url)
    receiver = Receiver(delay=0.03)  # each try takes a moment: some are always in flight
    await receiver.start()
    workers = []
    try:
        async with engine.begin() as conn:
            await ensure_tenant(conn, tenant_id="acme")
            await service.create_endpoint(
                conn,
                tenant_id="acme",
                body=EndpointCreate(url=receiver.url),
                max_endpoints=10,
                block_private=False,
            )
        for n in range(EACH):
            for u in range(USERS):
                async with engine.begin() as conn:
                    data = {"user_id": f"u{u}", "n": n}
                    await outbox.emit(conn, tenant_id="acme", type_="user.purged", data=data, user_id=f"u{u}")
        sent = {str(r[0]) for r in await fetch(engine, "SELECT event_id FROM webhook_deliveries")}
        assert len(sent) == USERS * EACH

        first = start_worker(url, **FAST)
        workers.append(first)
        await receiver.wait_for(lambda rs: len(rs) >= USERS * EACH // 3, within=120)
        first.send_signal(signal.SIGKILL)  # mid-delivery: up to LANES tries are in flight
        assert first.wait(timeout=30) == -signal.SIGKILL
        at_kill = len(receiver.received)
        assert at_kill < USERS * EACH, "everything was delivered before the kill: nothing was tested"

        second = start_worker(url, **FAST)
        workers.append(second)

        async def all_delivered() -> bool:
            rows = await fetch(engine, "SELECT count(*) FROM webhook_deliveries WHERE status <> 'delivered'")
            return rows[0][0] == 0

        await until(all_delivered, within=120)
        received = receiver.ids()
        assert set(received) == sent, "an event was lost"
        duplicates = len(received) - len(set(received))
        assert duplicates <= LANES, f"{duplicates} duplicates: more than the tries in flight at the kill"

        # Per user: the receipts, with a resend collapsed into the try before it, are 0..EACH-1.
        by_user: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for got in receiver.received:
            by_user[got.json["data"]["user_id"]].append((got.event_id, got.json["data"]["n"]))
        for user, seen in by_user.items():
            collapsed = [s for i, s in enumerate(seen) if i == 0 or seen[i - 1] != s]
            assert [n for _, n in collapsed] == list(range(EACH)), (user, seen)

        second.send_signal(signal.SIGTERM)
        assert second.wait(timeout=60) == 0
    finally:
        for proc in workers:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        await receiver.stop()
        await engine.dispose()

"""Webhooks against a real local HTTP receiver: the admin API (create, list, rotate, delete, ping,
deliveries), each event type from the change that causes it, signatures that verify with the
Standard Webhooks library, retries with backoff while the receiver is down, slow or answering 500,
one user's events in order, nothing for a rolled-back change, and the metrics.

The app here has a database of its own, so only its in-process worker delivers (with short
backoffs and timeouts), and no other test's worker takes its deliveries.
"""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from app.db.embedded import EmbeddedPostgres
from app.errors import ValidationFailed
from app.main import create_app
from app.webhooks import outbox
from app.webhooks.addresses import Refused, public_addresses
from app.webhooks.sender import Sender
from app.webhooks.service import check_public
from tests.support.app import ADMIN_TOKEN, STARTUP, client_for, make_settings
from tests.support.db import create_database, engine_for, fetch, until
from tests.support.webhook_receiver import Receiver

TIMEOUT = 1.0  # ENGRAM_WEBHOOK_TIMEOUT_SECONDS here
ATTEMPTS = 3


@pytest.fixture(scope="module")
async def hooks_db(pg: EmbeddedPostgres) -> str:
    return await create_database(pg)


@pytest.fixture(scope="module")
async def hooks_app(hooks_db: str) -> AsyncIterator[FastAPI]:
    settings = make_settings(
        hooks_db,
        webhook_timeout_seconds=TIMEOUT,
        webhook_max_attempts=ATTEMPTS,
        webhook_backoff_seconds=0.2,
        webhook_backoff_max_seconds=0.4,
        worker_poll_seconds=0.05,
    )
    async with LifespanManager(create_app(settings), startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m:
        yield m.app  # type: ignore[misc]


@pytest.fixture
async def db(hooks_db: str) -> AsyncIterator[AsyncEngine]:
    engine = engine_for(hooks_db)
    yield engine
    await engine.dispose()


@pytest.fixture
async def admin(hooks_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(hooks_app, {"Authorization": f"Bearer {ADMIN_TOKEN}"}) as c:
        yield c


class Tenant:
    def __init__(self, tenant_id: str, api: httpx.AsyncClient, admin: httpx.AsyncClient) -> None:
        self.tenant_id, self.api, self.admin = tenant_id, api, admin
        self.base = f"/v1/admin/tenants/{tenant_id}/webhooks"

    async def endpoint(self, url: str, **body: Any) -> dict[str, Any]:
        r = await self.admin.post(self.base, json={"url": url, **body})
        assert r.status_code == 201, r.text
        out: dict[str, Any] = r.json()
        return out

    async def deliveries(self, endpoint_id: str, **params: Any) -> list[dict[str, Any]]:
        r = await self.admin.get(f"{self.base}/{endpoint_id}/deliveries", params=params)
        assert r.status_code == 200, r.text
        items: list[dict[str, Any]] = r.json()["items"]
        return items


@pytest.fixture
async def tenant(hooks_app: FastAPI, admin: httpx.AsyncClient) -> AsyncIterator[Tenant]:
    tenant_id = f"t-{uuid.uuid4().hex[:12]}"
    r = await admin.post("/v1/admin/keys", json={"tenant_id": tenant_id, "name": "hooks"})
    assert r.status_code == 201, r.text
    async with client_for(hooks_app, {"Authorization": f"Bearer {r.json()['key']}"}) as api:
        yield Tenant(tenant_id, api, admin)


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    rx = Receiver()
    await rx.start()
    yield rx
    await rx.stop()


def verify(secret: str, got: Any) -> Any:
    return Webhook(secret).verify(got.body, got.headers)


# --- the admin API ---------------------------------------------------------------------------------


async def test_endpoints_are_created_listed_rotated_and_deleted(tenant: Tenant, receiver: Receiver) -> None:
    created = await tenant.endpoint(receiver.url, events=["user.purged", "facts.changed"], description="crm")
    assert created["secret"].startswith("whsec_")
    assert created["events"] == ["facts.changed", "user.purged"]
    assert created["tenant_id"] == tenant.tenant_id and created["description"] == "crm"
    eid = created["endpoint_id"]

    listed = (await tenant.admin.get(tenant.base)).json()
    assert [e["endpoint_id"] for e in listed["items"]] == [eid]
    assert "secret" not in listed["items"][0] and created["secret"] not in str(listed)
    one = (await tenant.admin.get(f"{tenant.base}/{eid}")).json()
    assert one == {k: v for k, v in created.items() if k != "secret"}

    rotated = (
        await tenant.admin.post(f"{tenant.base}/{eid}/rotate-secret", params={"grace_seconds": 60})
    ).json()
    assert rotated["secret"] != created["secret"] and rotated["previous_secret_expires_at"] is not None

    assert (await tenant.admin.delete(f"{tenant.base}/{eid}")).status_code == 204
    r = await tenant.admin.get(f"{tenant.base}/{eid}")
    assert r.status_code == 404 and r.headers["content-type"] == "application/problem+json"
    assert (await tenant.admin.delete(f"{tenant.base}/{eid}")).status_code == 404


async def test_bad_endpoints_are_refused(tenant: Tenant, receiver: Receiver) -> None:
    for body in (
        {"url": "ftp://example.com/x"},
        {"url": "not a url"},
        {"url": "http:///nohost"},
        {"url": receiver.url, "events": ["no.such.event"]},
        {"url": receiver.url, "extra": 1},
        {"url": "http://example.com/" + "x" * 3000},
    ):
        r = await tenant.admin.post(tenant.base, json=body)
        assert r.status_code == 422, (body, r.text)
        assert r.headers["content-type"] == "application/problem+json"
    r = await tenant.admin.post("/v1/admin/tenants/no-such-tenant/webhooks", json={"url": receiver.url})
    assert r.status_code == 404
    # Only the admin token opens these endpoints: a tenant's own key does not.
    r = await tenant.api.post(tenant.base, json={"url": receiver.url})
    assert r.status_code == 403


async def test_another_tenants_endpoint_is_not_found(
    tenant: Tenant, admin: httpx.AsyncClient, hooks_app: FastAPI, receiver: Receiver
) -> None:
    eid = (await tenant.endpoint(receiver.url))["endpoint_id"]
    other = f"t-{uuid.uuid4().hex[:12]}"
    assert (await admin.post("/v1/admin/keys", json={"tenant_id": other})).status_code == 201
    base = f"/v1/admin/tenants/{other}/webhooks/{eid}"
    assert (await admin.get(base)).status_code == 404
    assert (await admin.delete(base)).status_code == 404
    assert (await admin.post(f"{base}/ping")).status_code == 404
    assert (await admin.get(f"{base}/deliveries")).status_code == 404
    assert (await admin.get(f"/v1/admin/tenants/{other}/webhooks")).json()["items"] == []


# --- the ping, signatures, rotation ---------------------------------------------------------------


async def test_ping_is_signed_and_verifies(tenant: Tenant, receiver: Receiver) -> None:
    created = await tenant.endpoint(receiver.url)
    eid = created["endpoint_id"]
    r = await tenant.admin.post(f"{tenant.base}/{eid}/ping", params={"wait_seconds": 10})
    assert r.status_code == 202, r.text
    out = r.json()
    assert out["status"] == "delivered" and out["attempts"] == 1 and out["type"] == "webhook.ping"
    assert [a["status_code"] for a in out["attempt_log"]] == [200]
    (got,) = receiver.received
    assert got.headers["webhook-id"] == out["event_id"]
    body = verify(created["secret"], got)
    assert body["type"] == "webhook.ping" and body["id"] == out["event_id"]
    assert body["tenant_id"] == tenant.tenant_id and body["data"] == {"endpoint_id": eid}
    # Tampered body, wrong secret, or a replay with an old timestamp: refused.
    with pytest.raises(WebhookVerificationError):
        Webhook(created["secret"]).verify(got.body + b" ", got.headers)
    other = (await tenant.endpoint(receiver.url))["secret"]
    with pytest.raises(WebhookVerificationError):
        verify(other, got)
    with pytest.raises(WebhookVerificationError):
        old = int(got.headers["webhook-timestamp"]) - 600
        Webhook(created["secret"]).verify(got.body, {**got.headers, "webhook-timestamp": str(old)})


async def test_a_rotated_secret_signs_with_both_during_the_grace(tenant: Tenant, receiver: Receiver) -> None:
    created = await tenant.endpoint(receiver.url)
    eid = created["endpoint_id"]
    new = (
        await tenant.admin.post(f"{tenant.base}/{eid}/rotate-secret", params={"grace_seconds": 300})
    ).json()
    await tenant.admin.post(f"{tenant.base}/{eid}/ping", params={"wait_seconds": 10})
    got = receiver.received[-1]
    assert len(got.headers["webhook-signature"].split(" ")) == 2
    verify(created["secret"], got)
    verify(new["secret"], got)
    # Without a grace, the old secret stops at once.
    newest = (
        await tenant.admin.post(f"{tenant.base}/{eid}/rotate-secret", params={"grace_seconds": 0})
    ).json()
    assert newest["previous_secret_expires_at"] is None
    await tenant.admin.post(f"{tenant.base}/{eid}/ping", params={"wait_seconds": 10})
    got = receiver.received[-1]
    verify(newest["secret"], got)
    with pytest.raises(WebhookVerificationError):
        verify(new["secret"], got)


# --- the events, from the changes that cause them ---------------------------------------------------


async def test_each_event_comes_from_its_change(tenant: Tenant, receiver: Receiver) -> None:
    created = await tenant.endpoint(receiver.url)
    api = tenant.api
    assert (await api.post("/v1/sessions", json={"session_id": "s1", "user_id": "ada"})).status_code == 201

    # facts.changed: ADD / UPDATE / INVALIDATE / DELETE over the API, with the history's event ids.
    r = await api.post("/v1/users/ada/facts", json={"content": "Likes green tea.", "kind": "preference"})
    assert r.status_code == 201, r.text
    fact = r.json()["fact_id"]
    assert (await api.patch(f"/v1/facts/{fact}", json={"content": "Likes jasmine tea."})).status_code == 200
    assert (
        await api.patch(f"/v1/facts/{fact}", json={"invalid_at": datetime.now(UTC).isoformat()})
    ).status_code == 200
    assert (await api.delete(f"/v1/facts/{fact}")).status_code == 204
    await receiver.wait_for(lambda _: len(receiver.of_type("facts.changed")) >= 4)
    changes = [c for r in receiver.of_type("facts.changed") for c in r.json["data"]["changes"]]
    assert [c["op"] for c in changes] == ["ADD", "UPDATE", "INVALIDATE", "DELETE"]
    assert {c["fact_id"] for c in changes} == {fact}
    history = (await api.get(f"/v1/facts/{fact}/history")).json()
    events = history["items"] if isinstance(history, dict) else history
    assert [c["event_id"] for c in changes] == [e["id"] for e in events]

    # extraction.completed (and the facts it found), summary.created: from the worker's steps.
    text_ = "I moved to Lisbon last week. My sister Maria is a nurse."
    r = await api.post("/v1/sessions/s1/messages", json={"messages": [{"role": "user", "content": text_}]})
    assert r.status_code == 201
    assert (await api.post("/v1/sessions/s1/extract", params={"wait_seconds": 30})).status_code == 202
    assert (await api.post("/v1/sessions/s1/summarize", params={"wait_seconds": 30})).status_code == 202
    await receiver.wait_for(
        lambda rs: {"extraction.completed", "summary.created"} <= {r.json["type"] for r in rs}
    )
    (done,) = receiver.of_type("extraction.completed")  # once: a forced run that reads nothing is silent
    assert done.json["data"] == {"user_id": "ada", "session_id": "s1", "extracted_seq": 1}
    (summary,) = receiver.of_type("summary.created")
    latest = (await api.get("/v1/sessions/s1/summaries")).json()["items"][0]
    assert summary.json["data"]["summary_id"] == latest["summary_id"]
    assert summary.json["data"]["session_id"] == "s1" and summary.json["data"]["to_seq"] == 1
    system = [
        c
        for r in receiver.of_type("facts.changed")
        for c in r.json["data"]["changes"]
        if c["actor"] == "system"
    ]
    assert system and all(c["op"] == "ADD" for c in system)

    # Thin events: no memory content in any body.
    for got in receiver.received:
        verify(created["secret"], got)
        for secret_text in ("Lisbon", "nurse", "jasmine", "green tea"):
            assert secret_text not in got.body.decode()

    # user.purged: and the user's earlier deliveries go with them.
    assert (await api.delete("/v1/users/ada")).status_code == 204
    await receiver.wait_for(lambda rs: any(r.json["type"] == "user.purged" for r in rs))
    (purged,) = receiver.of_type("user.purged")
    assert purged.json["data"] == {"user_id": "ada"}
    kept = await tenant.deliveries(created["endpoint_id"])
    assert [d["type"] for d in kept] == ["user.purged"]


async def test_a_subscription_filters_and_tenants_stay_apart(
    tenant: Tenant, receiver: Receiver, hooks_app: FastAPI, admin: httpx.AsyncClient
) -> None:
    await tenant.endpoint(receiver.url, events=["user.purged"])
    other_rx = Receiver()
    await other_rx.start()
    try:
        other_id = f"t-{uuid.uuid4().hex[:12]}"
        key = (await admin.post("/v1/admin/keys", json={"tenant_id": other_id})).json()["key"]
        other = Tenant(other_id, client_for(hooks_app, {"Authorization": f"Bearer {key}"}), admin)
        await other.endpoint(other_rx.url)
        for t in (tenant, other):
            assert (await t.api.put("/v1/users/bob", json={})).status_code == 201
            r = await t.api.post("/v1/users/bob/facts", json={"content": "Plays chess."})
            assert r.status_code == 201
        # Delivered before the purge: a purge deletes the user's undelivered events.
        await other_rx.wait_for(lambda rs: len(rs) >= 1)
        for t in (tenant, other):
            assert (await t.api.delete("/v1/users/bob")).status_code == 204
        await receiver.wait_for(lambda rs: len(rs) >= 1)
        await other_rx.wait_for(lambda rs: len(rs) >= 2)
        await asyncio.sleep(0.5)
        assert [r.json["type"] for r in receiver.events()] == ["user.purged"]  # no facts.changed
        assert {r.json["tenant_id"] for r in receiver.received} == {tenant.tenant_id}
        assert [r.json["type"] for r in other_rx.events()] == ["facts.changed", "user.purged"]
        assert {r.json["tenant_id"] for r in other_rx.received} == {other_id}
        await other.api.aclose()
    finally:
        await other_rx.stop()


async def test_a_rolled_back_change_sends_nothing(
    tenant: Tenant, receiver: Receiver, db: AsyncEngine
) -> None:
    created = await tenant.endpoint(receiver.url)
    with pytest.raises(RuntimeError):
        async with db.begin() as conn:
            await outbox.emit(
                conn, tenant_id=tenant.tenant_id, type_="user.purged", data={"user_id": "x"}, user_id="x"
            )
            raise RuntimeError("the change fails after its event was written")
    async with db.begin() as conn:
        await outbox.emit(
            conn, tenant_id=tenant.tenant_id, type_="user.purged", data={"user_id": "y"}, user_id="y"
        )
    await receiver.wait_for(lambda rs: len(rs) >= 1)
    await asyncio.sleep(0.5)
    assert [r.json["data"]["user_id"] for r in receiver.received] == ["y"]
    assert len(await tenant.deliveries(created["endpoint_id"])) == 1


# --- the receiver in trouble: 500, down, slow ------------------------------------------------------


async def test_a_receiver_answering_500_is_retried_then_failed_and_can_be_resent(
    tenant: Tenant, receiver: Receiver, hooks_app: FastAPI
) -> None:
    receiver.status = 500
    eid = (await tenant.endpoint(receiver.url))["endpoint_id"]
    out = (await tenant.admin.post(f"{tenant.base}/{eid}/ping")).json()
    await receiver.wait_for(lambda rs: len(rs) >= ATTEMPTS)

    async def failed() -> list[dict[str, Any]]:
        return await tenant.deliveries(eid, status="failed")

    (gone,) = await until(failed, within=10)
    assert (
        gone["attempts"] == ATTEMPTS
        and gone["last_status"] == 500
        and gone["last_error"].startswith("HTTP 500")
    )
    detail = (await tenant.admin.get(f"{tenant.base}/{eid}/deliveries/{gone['delivery_id']}")).json()
    assert [a["status_code"] for a in detail["attempt_log"]] == [500] * ATTEMPTS
    # Backoff: the tries are spaced 0.2 s, then 0.4 s. Read on the database's clock, not on the
    # receiver's arrivals: each try is logged at its transaction's start and the next is due that
    # long after it, so these bounds are exact, while arrival gaps also carry each send's own delay
    # (a loaded CI once saw arrivals 0.07 s apart for tries that were claimed 0.2 s apart).
    at = [datetime.fromisoformat(a["attempted_at"]) for a in detail["attempt_log"]]
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(at)]
    assert gaps[0] >= 0.2 and gaps[1] >= 0.4, gaps
    assert set(receiver.ids()) == {out["event_id"]}  # every retry carries the same event id

    metrics = (await client_for(hooks_app).get("/metrics")).text
    assert 'engram_webhook_deliveries_total{outcome="failed"}' in metrics
    assert 'engram_webhook_deliveries_total{outcome="retry"}' in metrics

    receiver.status = 200
    r = await tenant.admin.post(f"{tenant.base}/{eid}/deliveries/{gone['delivery_id']}/retry")
    assert r.status_code == 200 and r.json()["status"] == "pending"
    await receiver.wait_for(lambda rs: rs[-1].status == 200)
    assert receiver.received[-1].event_id == out["event_id"]


async def test_a_receiver_that_is_down_gets_the_event_when_it_is_back(
    tenant: Tenant, receiver: Receiver
) -> None:
    eid = (await tenant.endpoint(receiver.url))["endpoint_id"]
    await receiver.stop()
    out = (await tenant.admin.post(f"{tenant.base}/{eid}/ping", params={"wait_seconds": 5})).json()
    assert out["status"] == "pending" and out["attempts"] >= 1
    assert "ConnectError" in out["attempt_log"][0]["error"] and out["attempt_log"][0]["status_code"] is None
    await receiver.start()
    await receiver.wait_for(lambda rs: len(rs) >= 1)
    assert receiver.ids() == [out["event_id"]]


async def test_a_slow_receiver_times_out_and_is_retried(tenant: Tenant, receiver: Receiver) -> None:
    receiver.delay = TIMEOUT + 0.5
    eid = (await tenant.endpoint(receiver.url))["endpoint_id"]
    out = (await tenant.admin.post(f"{tenant.base}/{eid}/ping", params={"wait_seconds": 5})).json()
    assert out["attempt_log"][0]["error"] == f"no answer within {TIMEOUT:g} s"
    assert TIMEOUT <= out["attempt_log"][0]["seconds"] < TIMEOUT + 0.5
    receiver.delay = 0
    delivered = await until(lambda: tenant.deliveries(eid, status="delivered"), within=10)
    assert delivered[0]["event_id"] == out["event_id"]
    # At least once: the receiver may have had it more than once, always under the same id.
    assert set(receiver.ids()) == {out["event_id"]} and len(receiver.ids()) >= 2


async def test_one_users_events_arrive_in_order_while_others_pass(
    tenant: Tenant, receiver: Receiver, db: AsyncEngine
) -> None:
    """The first event of user `slow` fails twice; that user's later events wait behind it,
    while user `fast`'s events are delivered meanwhile."""
    failures = {"n": 0}

    def decide(got: Any) -> int:
        body = got.json
        if body["data"]["user_id"] == "slow" and body["data"]["n"] == 0 and failures["n"] < 2:
            failures["n"] += 1
            return 500
        return 200

    receiver.decide = decide
    await tenant.endpoint(receiver.url)
    for n in range(5):
        for user in ("slow", "fast"):
            async with db.begin() as conn:
                await outbox.emit(
                    conn,
                    tenant_id=tenant.tenant_id,
                    type_="user.purged",
                    data={"user_id": user, "n": n},
                    user_id=user,
                )

    def accepted() -> list[dict[str, Any]]:  # each event at its first 200 (delivery is at least once)
        firsts = {r.event_id: r for r in reversed(receiver.received) if r.status == 200}
        return [r.json["data"] for r in sorted(firsts.values(), key=lambda r: r.at)]

    await receiver.wait_for(lambda _: len(accepted()) >= 10, within=20)
    ok = accepted()
    assert [d["n"] for d in ok if d["user_id"] == "slow"] == [0, 1, 2, 3, 4]
    assert [d["n"] for d in ok if d["user_id"] == "fast"] == [0, 1, 2, 3, 4]
    # `fast` did not wait for `slow`: its last event came before `slow`'s first success.
    first_slow = next(i for i, d in enumerate(ok) if d["user_id"] == "slow")
    assert first_slow > 0 and [d["user_id"] for d in ok[:first_slow]] == ["fast"] * first_slow


# --- addresses that are not public (ENGRAM_WEBHOOK_BLOCK_PRIVATE) --------------------------------


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1", "localhost", "10.1.2.3", "192.168.0.1", "169.254.169.254", "::1", "::ffff:127.0.0.1"],
)
async def test_private_addresses_are_refused_when_blocked(host: str) -> None:
    with pytest.raises(Refused):
        await public_addresses(host, 80)


async def test_a_public_address_passes_the_check() -> None:
    # Only the check: nothing is sent to it.
    assert await public_addresses("93.184.215.14", 443) == ["93.184.215.14"]


async def test_the_sender_refuses_a_private_receiver_and_creation_says_422(receiver: Receiver) -> None:
    sender = Sender(timeout=1.0, block_private=True)
    try:
        out = await sender.send(url=receiver.url, headers={}, body="{}")
    finally:
        await sender.aclose()
    assert not out.ok and out.status is None and out.error is not None and out.error.startswith("refused:")
    assert receiver.received == []
    with pytest.raises(ValidationFailed):
        await check_public(receiver.url)
    # Off (the default), a loopback receiver is called.
    sender = Sender(timeout=1.0, block_private=False)
    try:
        assert (await sender.send(url=receiver.url, headers={}, body="{}")).ok
    finally:
        await sender.aclose()


async def test_delivered_rows_are_forgotten_after_the_retention(
    tenant: Tenant, receiver: Receiver, db: AsyncEngine
) -> None:
    from app.webhooks.tasks import forget_old

    eid = (await tenant.endpoint(receiver.url))["endpoint_id"]
    await tenant.admin.post(f"{tenant.base}/{eid}/ping", params={"wait_seconds": 5})
    async with db.begin() as conn:
        await conn.execute(
            text(
                "UPDATE webhook_deliveries SET created_at = now() - interval '8 days' WHERE endpoint_id = :e"
            ),
            {"e": uuid.UUID(eid)},
        )
        assert await forget_old(conn, days=7) >= 1
    assert await fetch(db, "SELECT 1 FROM webhook_deliveries WHERE endpoint_id = :e", e=uuid.UUID(eid)) == []

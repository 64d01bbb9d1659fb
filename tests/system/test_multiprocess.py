"""Several processes on one PostgreSQL and one Redis, as deployed: `engram serve --workers 2` (two
API processes, no embedded worker) and two `engram worker` processes, with concurrent clients.

Every request opens a new connection, so the kernel hands each to either API process: a memory
read right after an acknowledged append may be served by the other process than the append.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import signal
import subprocess
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.db.embedded import EmbeddedPostgres
from tests.support.app import ADMIN_TOKEN, REDIS_URL
from tests.support.db import create_database, engine_for, fetch, wait_until
from tests.support.procs import MODEL_CACHE, Server, free_port, start_worker

USERS = 4
SESSIONS = 16
CLIENTS = 8  # each owns SESSIONS / CLIENTS sessions
ROUNDS = 10  # appends (then reads) per session
APPEND = "/v1/sessions/{session_id}/messages"
MEMORY = "/v1/sessions/{session_id}/memory"
CITIES = ["Lisbon", "Osaka", "Nairobi", "Porto", "Zurich", "Montreal"]
SETTINGS = {
    "ENGRAM_REDIS_URL": REDIS_URL,
    # Small triggers, so summaries roll forward several times while the clients write.
    "ENGRAM_SUMMARY_TRIGGER_MESSAGES": "6",
    "ENGRAM_SUMMARY_KEEP_RECENT": "2",
}


@dataclass
class Deployment:
    server: Server
    workers: list[subprocess.Popen[bytes]]
    worker_metrics: list[str]
    db_url: str


@pytest.fixture
async def db_url(pg: EmbeddedPostgres) -> str:
    return await create_database(pg, migrate=False)  # `engram serve` migrates it, as in production


@pytest.fixture
def deployment(db_url: str) -> Iterator[Deployment]:
    server = Server(
        args=("--workers", "2"),
        ENGRAM_DATABASE_URL=db_url,
        ENGRAM_RUN_WORKER="false",
        ENGRAM_AUTH="on",
        ENGRAM_ADMIN_TOKEN=ADMIN_TOKEN,
        ENGRAM_MODEL_CACHE_DIR=str(MODEL_CACHE),
        **SETTINGS,
    )
    workers: list[subprocess.Popen[bytes]] = []
    try:
        server.wait_ready(timeout=120)
        ports = [free_port() for _ in range(2)]
        workers = [
            start_worker(db_url, ENGRAM_WORKER_METRICS_PORT=str(p), ENGRAM_WORKER_BATCH_SIZE="32", **SETTINGS)
            for p in ports
        ]
        yield Deployment(server, workers, [f"http://127.0.0.1:{p}/metrics" for p in ports], db_url)
    finally:
        for w in workers:
            if w.poll() is None:
                w.send_signal(signal.SIGTERM)
        codes = [w.wait(timeout=40) for w in workers]
        assert server.stop() == 0
        assert codes == [0] * len(workers), [w.stderr.read().decode()[-2000:] for w in workers]  # type: ignore[union-attr]


def _fresh(base_url: str, key: str | None = None) -> httpx.AsyncClient:
    """A client that opens a new connection per request (no keep-alive): either process may answer."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.AsyncClient(
        base_url=base_url, headers=headers, timeout=60, limits=httpx.Limits(max_keepalive_connections=0)
    )


@pytest.fixture
async def tenant_key(deployment: Deployment) -> str:
    async with _fresh(deployment.server.url, ADMIN_TOKEN) as admin:
        r = await admin.post("/v1/admin/keys", json={"tenant_id": f"t-{uuid.uuid4().hex[:8]}", "name": "mp"})
        assert r.status_code == 201, r.text
        return str(r.json()["key"])


@pytest.fixture
async def api(deployment: Deployment, tenant_key: str) -> AsyncIterator[httpx.AsyncClient]:
    async with _fresh(deployment.server.url, tenant_key) as c:
        yield c


# --------------------------------------------------------------------------- metrics


def _samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def _value(samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def _api_processes(base_url: str, rounds: int = 40) -> dict[tuple[float, float], dict[str, float]]:
    """The two API processes' own counters, told apart by what each served of the appends (their
    count and summed latency are fixed once the load is over). Each round asks /readyz and
    /metrics on new connections, several at once, so both processes answer some."""
    seen: dict[tuple[float, float], dict[str, float]] = {}

    async def one(c: httpx.AsyncClient) -> None:
        ready = await c.get("/readyz")
        assert ready.status_code == 200 and ready.json()["status"] == "ready", ready.text
        r = await c.get("/metrics")
        assert r.status_code == 200
        s = _samples(r.text)
        ident = (
            _value(s, "engram_http_requests_total", method="POST", route=APPEND, status="201"),
            _value(s, "engram_http_request_duration_seconds_sum", method="POST", route=APPEND),
        )
        counts = {
            "appends": ident[0],
            "memory": _value(s, "engram_http_requests_total", method="GET", route=MEMORY, status="200"),
            "readyz": _value(s, "engram_http_requests_total", method="GET", route="/readyz", status="200"),
            # /readyz answers 503 by design while a process still loads its model, and the start-up
            # wait polls it: those are not errors. Any other 5xx is.
            "errors": sum(
                v
                for (name, labels), v in s.items()
                if name == "engram_http_requests_total"
                and dict(labels)["status"].startswith("5")
                and dict(labels)["route"] != "/readyz"
            ),
        }
        seen[ident] = {k: max(v, seen.get(ident, {}).get(k, 0.0)) for k, v in counts.items()}

    async with _fresh(base_url) as c:
        for _ in range(rounds):
            await asyncio.gather(*(one(c) for _ in range(4)))
            if len(seen) >= 2 and all(v["readyz"] > 0 for v in seen.values()):
                break
    return seen


async def _worker_samples(url: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    async with httpx.AsyncClient(timeout=10) as c:
        r = await c.get(url)
        assert r.status_code == 200
        return _samples(r.text)


# --------------------------------------------------------------------------- the load


async def _client(api: httpx.AsyncClient, sessions: list[str], seed: int) -> list[str]:
    """Appends to its sessions in turn; each acknowledged append must be in the very next memory
    read, whichever process serves it. Returns the contents it wrote."""
    rng = random.Random(seed)
    written: list[str] = []
    for rnd in range(ROUNDS):
        for sid in sessions:
            batch = [
                {"role": "user", "content": f"I live in {rng.choice(CITIES)} now. note {sid}-{rnd}-{i}"}
                for i in range(rng.randint(1, 3))
            ] + [{"role": "assistant", "content": f"Noted, {sid} round {rnd}."}]
            r = await api.post(f"/v1/sessions/{sid}/messages", json={"messages": batch})
            assert r.status_code == 201, r.text
            acked = [m["message_id"] for m in r.json()["messages"]]
            newest = r.json()["messages"][-1]["seq"]
            written += [m["content"] for m in batch]
            r = await api.get(f"/v1/sessions/{sid}/memory", params={"max_tokens": 4000})
            assert r.status_code == 200, r.text
            memory = r.json()
            in_memory = {m["message_id"] for m in memory["messages"]}
            assert set(acked) <= in_memory, f"{sid} round {rnd}: an acknowledged append is missing"
            assert memory["last_seq"] >= newest
    return written


async def test_two_api_processes_and_two_workers_share_one_database(
    deployment: Deployment, api: httpx.AsyncClient
) -> None:
    sids = [f"mp-{i:02d}-{uuid.uuid4().hex[:6]}" for i in range(SESSIONS)]
    for i, sid in enumerate(sids):
        r = await api.post("/v1/sessions", json={"session_id": sid, "user_id": f"u{i % USERS}"})
        assert r.status_code == 201, r.text
    per = SESSIONS // CLIENTS
    clients = [_client(api, sids[k * per : (k + 1) * per], seed=k) for k in range(CLIENTS)]
    written = list(itertools.chain.from_iterable(await asyncio.gather(*clients)))

    # A search right after a write finds it, once indexing has caught up (the answer says so).
    planted = "My violin lesson moved to Thursdays."
    for sid in sids[:4]:
        r = await api.post(
            f"/v1/sessions/{sid}/messages", json={"messages": [{"role": "user", "content": planted}]}
        )
        assert r.status_code == 201, r.text
        written.append(planted)
        r = await api.post(
            "/v1/search",
            json={
                "query": "when is the music class",
                "session_id": sid,
                "mode": "semantic",
                "wait_for_indexing_ms": 10000,
            },
        )
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["indexing"]["complete"], body["indexing"]
        assert body["results"][0]["content"] == planted, body["results"][:3]

    # Summarise every session to its end: then the chain of summaries must cover each message once.
    for sid in sids:
        r = await api.post(f"/v1/sessions/{sid}/summarize", params={"wait_seconds": 60})
        assert r.status_code == 202 and r.json()["done"], r.text
    url = deployment.db_url
    await wait_until(
        "SELECT NOT EXISTS (SELECT 1 FROM jobs) "
        "AND NOT EXISTS (SELECT 1 FROM messages WHERE embed_status <> 'done') "
        "AND NOT EXISTS (SELECT 1 FROM sessions WHERE extracted_seq <> last_seq)",
        url,
        within=120,
    )

    engine = engine_for(url)
    try:
        messages = await fetch(engine, "SELECT content, embed_status, embed_attempts FROM messages")
        sessions = await fetch(engine, "SELECT session_id, last_seq, summarized_seq FROM sessions")
        summaries = await fetch(engine, "SELECT session_id, from_seq, to_seq FROM summaries ORDER BY to_seq")
        duplicate_facts = await fetch(
            engine,
            "SELECT user_id, content, count(*) FROM facts WHERE invalid_at IS NULL "
            "GROUP BY user_id, content HAVING count(*) > 1",
        )
        facts = (await fetch(engine, "SELECT count(*) FROM facts"))[0][0]
    finally:
        await engine.dispose()

    assert sorted(m[0] for m in messages) == sorted(written)
    assert {(m[1], m[2]) for m in messages} == {("done", 1)}, "a message was embedded more than once"
    assert len(sessions) == SESSIONS
    for sid, last_seq, summarized_seq in sessions:
        chain = [(f, t) for s, f, t in summaries if s == sid]
        assert summarized_seq == last_seq
        assert chain[0][0] == 1 and chain[-1][1] == last_seq, (sid, chain)
        assert all(b[0] == a[1] + 1 for a, b in itertools.pairwise(chain)), f"{sid}: gap or overlap {chain}"
    assert facts > 0, "no fact was extracted"
    assert duplicate_facts == [], "a fact was extracted twice"

    # The workers: between them, each message embedded once and nothing failed; both report.
    per_worker = [await _worker_samples(u) for u in deployment.worker_metrics]
    embedded = [_value(s, "engram_worker_items_total", kind="embed", outcome="done") for s in per_worker]
    assert sum(embedded) == len(messages), embedded
    for s in per_worker:
        failed = [
            k for k in s if k[0] == "engram_worker_items_total" and ("outcome", "retry_or_failed") in k[1]
        ]
        assert all(s[k] == 0 for k in failed), failed

    # The API processes: both served appends (together, every one of them) and answer /readyz.
    processes = await _api_processes(deployment.server.url)
    assert len(processes) == 2, f"expected 2 API processes to answer, saw {len(processes)}"
    appends = [p["appends"] for p in processes.values()]
    assert all(a > 0 for a in appends) and sum(appends) == SESSIONS * ROUNDS + 4, appends
    assert sum(p["memory"] for p in processes.values()) == SESSIONS * ROUNDS
    assert all(p["readyz"] > 0 and p["errors"] == 0 for p in processes.values()), processes

"""Fair derived work (issue 13 item 4): how long tenant A's new message takes to become searchable
while tenant B has a large backlog.

A fresh embedded PostgreSQL and `engram serve` with its embedded worker (as deployed by default),
auth on, two tenants. Each round: tenant B appends BACKLOG messages (batches of 500, as fast as
the API takes them), then tenant A appends one message; A's time-to-searchable is its row's
`embedded_at - created_at` (both database clock). The round ends when B's backlog is drained.

    .venv/bin/python -m bench.hostile.fairness                     # 5,000 messages, 3 rounds
    .venv/bin/python -m bench.hostile.fairness --backlog 2000 --rounds 1
    .venv/bin/python -m bench.hostile.fairness --app-dir /path/to/old/checkout/app   # before/after

Prints A's time-to-searchable per round and the median, with how many of B's messages were
embedded before A's and how long B's backlog took to drain.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from bench import indexing
from bench.chat_text import chat_messages
from tests.support.procs import free_port

ADMIN = "bench-admin-token"


async def _key(client: httpx.AsyncClient, tenant: str) -> str:
    r = await client.post(
        "/v1/admin/keys",
        json={"tenant_id": tenant, "name": "bench"},
        headers={"Authorization": f"Bearer {ADMIN}"},
    )
    r.raise_for_status()
    return str(r.json()["key"])


async def one_round(base_url: str, db_url: str, backlog: int, rnd: int) -> dict[str, Any]:
    msgs = [{"role": m["role"], "content": m["content"]} for m in chat_messages(backlog + 1, seed=rnd)]
    tag = uuid.uuid4().hex[:8]
    async with httpx.AsyncClient(base_url=base_url, timeout=120) as admin:
        key_a, key_b = await _key(admin, f"a-{tag}"), await _key(admin, f"b-{tag}")
    a = httpx.AsyncClient(base_url=base_url, timeout=120, headers={"Authorization": f"Bearer {key_a}"})
    b = httpx.AsyncClient(base_url=base_url, timeout=120, headers={"Authorization": f"Bearer {key_b}"})
    async with a, b:
        for client in (a, b):
            r = await client.post("/v1/sessions", json={"user_id": "u", "session_id": "s"})
            r.raise_for_status()
        started = time.monotonic()
        for i in range(0, backlog, 500):
            batch = msgs[i : min(i + 500, backlog)]
            (await b.post("/v1/sessions/s/messages", json={"messages": batch})).raise_for_status()
        r = await a.post("/v1/sessions/s/messages", json={"messages": msgs[-1:]})
        r.raise_for_status()
        conn = await asyncpg.connect(db_url)
        try:
            while True:
                row = await conn.fetchrow(
                    "SELECT "
                    "(SELECT extract(epoch FROM embedded_at - created_at) FROM messages "
                    "  WHERE tenant_id = $1 AND embed_status = 'done') AS a_lag, "
                    "(SELECT count(*) FROM messages WHERE tenant_id = $2 AND embed_status = 'done' "
                    "  AND embedded_at < (SELECT embedded_at FROM messages WHERE tenant_id = $1)) "
                    "  AS before_a, "
                    "(SELECT count(*) FILTER (WHERE embed_status <> 'done') FROM messages "
                    "  WHERE tenant_id = $2) AS b_left",
                    f"a-{tag}",
                    f"b-{tag}",
                )
                if row["a_lag"] is not None and row["b_left"] == 0:
                    break
                await asyncio.sleep(0.2)
        finally:
            await conn.close()
        drained = time.monotonic() - started
    return {"a_seconds": float(row["a_lag"]), "b_before_a": int(row["before_a"]), "b_drain_seconds": drained}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backlog", type=int, default=5000, help="tenant B's messages per round")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--app-dir", type=Path, help="run the server from another copy of the `app` package")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    indexing.APP_DIR = args.app_dir.resolve().parent if args.app_dir else None
    rounds: list[dict[str, Any]] = []
    with indexing.stack() as st:
        port = free_port()
        st.api(port, auth="on", admin_token=ADMIN, run_worker="true")
        for rnd in range(args.rounds):
            res = asyncio.run(one_round(f"http://127.0.0.1:{port}", st.url, args.backlog, rnd))
            rounds.append(res)
            indexing.say(f"round {rnd + 1}: {res}")
    a = [r["a_seconds"] for r in rounds]
    print(
        f"code: {args.app_dir or 'this checkout'}; tenant B backlog {args.backlog} messages; worker embedded"
    )
    print("| round | A's new message searchable after | B's messages embedded before it | B drained in |")
    print("| --- | --- | --- | --- |")
    for i, r in enumerate(rounds, 1):
        print(f"| {i} | {r['a_seconds']:.2f} s | {r['b_before_a']} | {r['b_drain_seconds']:.1f} s |")
    print(f"median time-to-searchable for tenant A: {statistics.median(a):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

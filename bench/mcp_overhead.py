"""Tool-call overhead of MCP (`/mcp`) over the same REST operation (issue 14; target <= 3 ms p50).

Set-up, fresh and stopped on exit: `engram serve` (auth off on loopback, no embedded worker) on an
embedded PostgreSQL in a temporary directory, or --url of a running server (--key if its auth is
on). One session of --messages chat messages (bench/chat_text.py) and a few facts are written.

Then, one request at a time over one keep-alive connection, each operation as REST and as the MCP
tool that makes the same call, alternating (REST, MCP, REST, MCP, ...) so drift on a shared
machine touches both alike:

    get_context   GET /v1/sessions/{id}/memory?max_tokens=2000&query=...   | tools/call get_context
    search        POST /v1/search (keyword, one user)                       | tools/call search
    list_facts    GET /v1/users/{id}/facts                                  | tools/call list_facts

MCP calls are plain JSON-RPC POSTs (the endpoint is stateless with JSON answers, so a call needs
no session), timed like the REST ones from the same client; the difference is what the server
spends on MCP: the SDK's JSON-RPC handling, argument validation, and the in-process REST call
through the generated client. Calls alternate in blocks of --block (REST block, MCP block, ...).

Printed per operation: wall-clock p50 / p95 / p99 and the p50 overhead, and the API process's CPU
time per call (psutil, per block; only for a server this script started). On a busy machine the
wall-clock figures carry other processes' noise; CPU per call does not, and on an idle machine the
two overheads agree (the API is one asyncio process, and MCP adds no I/O of its own).

    .venv/bin/python -m bench.mcp_overhead                    # 500 calls per operation and protocol
    .venv/bin/python -m bench.mcp_overhead --calls 100        # a quick check
    .venv/bin/python -m bench.mcp_overhead --url http://127.0.0.1:8000 --key egm_...
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil

from bench.chat_text import chat_messages
from tests.support.procs import free_port

ENGRAM = str(Path(sys.executable).with_name("engram"))
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}


@contextlib.contextmanager
def _server(redis_url: str | None) -> Iterator[tuple[str, int]]:
    home = Path(tempfile.mkdtemp(prefix="engram-mcp-bench-"))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env.update(ENGRAM_AUTH="off", ENGRAM_RUN_WORKER="false", ENGRAM_LOG_LEVEL="warning")
    if redis_url:
        env["ENGRAM_REDIS_URL"] = redis_url
    proc = subprocess.Popen(
        [ENGRAM, "serve", "--port", str(port), "--data-dir", str(home)], env=env, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"engram serve exited: {proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise SystemExit("engram serve did not become ready")
            time.sleep(0.3)
        yield url, proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        shutil.rmtree(home, ignore_errors=True)


def _seed(http: httpx.Client, messages: int, run: str) -> tuple[str, str]:
    user, session = f"bench-user-{run}", f"bench-sess-{run}"
    http.post("/v1/sessions", json={"session_id": session, "user_id": user}).raise_for_status()
    turns = chat_messages(messages, seed=7)
    for i in range(0, len(turns), 500):
        batch = turns[i : i + 500]
        http.post(f"/v1/sessions/{session}/messages", json={"messages": batch}).raise_for_status()
    for fact in ("Lives in Lisbon.", "Plays the oboe.", "Is allergic to peanuts.", "Works as a nurse."):
        http.post(f"/v1/users/{user}/facts", json={"content": fact}).raise_for_status()
    return user, session


def _rest_call(http: httpx.Client, method: str, path: str, **kw: Any) -> Callable[[], None]:
    def call() -> None:
        r = http.request(method, path, **kw)
        assert r.status_code == 200, r.text

    return call


def _mcp_call(http: httpx.Client, tool: str, arguments: dict[str, Any]) -> Callable[[], None]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }

    def call() -> None:
        r = http.post("/mcp", json=body, headers=MCP_HEADERS)
        assert r.status_code == 200, r.text
        result = r.json()["result"]
        assert not result.get("isError"), result

    return call


def _timed(call: Callable[[], None]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _cpu_ms(pid: int | None) -> float:
    if pid is None:
        return 0.0
    t = psutil.Process(pid).cpu_times()
    return float(t.user + t.system) * 1000


def run(url: str, key: str | None, calls: int, messages: int, block: int, pid: int | None) -> None:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    with httpx.Client(base_url=url, headers=headers, timeout=60) as http:
        user, session = _seed(http, messages, run=str(int(time.time())))
        query = "what instrument do I play?"
        ops = {
            "get_context": (
                _rest_call(
                    http, "GET", f"/v1/sessions/{session}/memory", params={"max_tokens": 2000, "query": query}
                ),
                _mcp_call(http, "get_context", {"session_id": session, "max_tokens": 2000, "query": query}),
            ),
            "search": (
                _rest_call(
                    http, "POST", "/v1/search", json={"query": query, "user_id": user, "mode": "keyword"}
                ),
                _mcp_call(http, "search", {"query": query, "user_id": user, "mode": "keyword"}),
            ),
            "list_facts": (
                _rest_call(http, "GET", f"/v1/users/{user}/facts"),
                _mcp_call(http, "list_facts", {"user_id": user}),
            ),
        }
        print(
            f"{calls} calls per operation and protocol, one at a time, in alternating blocks of {block}; ms\n"
        )
        print(
            "| operation | REST p50 | MCP p50 | overhead p50 | REST p95 | MCP p95 | REST p99 | MCP p99 "
            "| REST CPU/call | MCP CPU/call | CPU overhead |"
        )
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for name, (rest, mcp) in ops.items():
            for _ in range(max(20, calls // 10)):  # warm-up: caches, connection, first-call imports
                rest()
                mcp()
            wall: dict[str, list[float]] = {"rest": [], "mcp": []}
            cpu: dict[str, list[float]] = {"rest": [], "mcp": []}
            for _ in range(max(1, calls // block)):
                for kind, call in (("rest", rest), ("mcp", mcp)):
                    before = _cpu_ms(pid)
                    wall[kind].extend(_timed(call) for _ in range(block))
                    cpu[kind].append((_cpu_ms(pid) - before) / block)
            r_ms, m_ms = wall["rest"], wall["mcp"]
            r50, m50 = statistics.median(r_ms), statistics.median(m_ms)
            rc, mc = statistics.median(cpu["rest"]), statistics.median(cpu["mcp"])
            cpu_cells = f"{rc:.2f} | {mc:.2f} | **{mc - rc:+.2f}**" if pid else "- | - | -"
            print(
                f"| {name} | {r50:.2f} | {m50:.2f} | **{m50 - r50:+.2f}** | {_pct(r_ms, 0.95):.2f} | "
                f"{_pct(m_ms, 0.95):.2f} | {_pct(r_ms, 0.99):.2f} | {_pct(m_ms, 0.99):.2f} | {cpu_cells} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", help="A running Engram (default: start one with an embedded PostgreSQL).")
    parser.add_argument("--key", help="Its API key, when its auth is on.")
    parser.add_argument("--calls", type=int, default=500, help="Measured calls per operation and protocol.")
    parser.add_argument("--messages", type=int, default=200, help="Messages in the session.")
    parser.add_argument("--block", type=int, default=25, help="Calls per block (CPU is read per block).")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/14", help="For a started server.")
    args = parser.parse_args()
    if args.url:
        run(args.url, args.key, args.calls, args.messages, args.block, None)
        return
    with _server(args.redis_url) as (url, pid):
        run(url, None, args.calls, args.messages, args.block, pid)


if __name__ == "__main__":
    main()

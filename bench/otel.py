"""What tracing (ENGRAM_OTEL=on) and the audit trail cost the hot paths: append and memory-read
throughput, on vs off, in interleaved rounds.

Starts an embedded PostgreSQL, a sink for OTLP/HTTP (answers 200, counts bytes: the exporter's
work is real) and three `engram serve` processes (auth on, worker off): one with tracing off, one
with it on, one with it on and 10 % of traces sampled, exporting to the sink. Four configurations,
each measured with `wrk` (single-message appends, then memory reads of sessions with 20
messages): tracing off, on, on with sampling, and off for a tenant whose audit trail is on. Each
round runs them in a new random order; the table shows medians. On 2 shared cores the figures
move with the machine's load: the load average is printed.

    .venv/bin/python -m bench.otel [--rounds 5] [--seconds 5] [--connections 8]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from app.db.embedded import start_embedded
from app.db.migrate import upgrade
from tests.support.procs import free_port

ROOT = Path(__file__).resolve().parents[1]

ADMIN = "bench-admin-token"
REDIS = os.environ.get("ENGRAM_BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
SESSIONS = 16
BODY = '{"messages": [{"role": "user", "content": "I moved to Lisbon last week and I love the food there."}]}'


class Sink(BaseHTTPRequestHandler):
    received = 0

    def do_POST(self) -> None:
        n = int(self.headers.get("Content-Length", "0"))
        Sink.received += len(self.rfile.read(n))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def api(url: str, port: int, log: Path, **env: str) -> Iterator[str]:
    full = {
        **os.environ,
        "ENGRAM_DATABASE_URL": url,
        "ENGRAM_REDIS_URL": REDIS,
        "ENGRAM_PORT": str(port),
        "ENGRAM_AUTH": "on",
        "ENGRAM_ADMIN_TOKEN": ADMIN,
        "ENGRAM_RUN_WORKER": "false",
        "ENGRAM_MIGRATE_ON_START": "false",
        "ENGRAM_LOG_LEVEL": "warning",
        "ENGRAM_RATE_LIMIT_RPS": "0",
        "ENGRAM_TENANT_MAX_CONCURRENT": "0",
        **env,
    }
    engram = Path(sys.executable).with_name("engram")
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(engram), "serve"], env=full, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, log.read_text()[-3000:]
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, "the API did not start"
            time.sleep(0.2)
        yield base
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def tenant(base: str, name: str, audit: bool) -> tuple[str, list[str]]:
    """A key of a new tenant, and its sessions (20 messages each, for the memory reads)."""
    admin = {"Authorization": f"Bearer {ADMIN}"}
    key = httpx.post(f"{base}/v1/admin/keys", json={"tenant_id": name, "name": "bench"}, headers=admin)
    key.raise_for_status()
    r = httpx.put(f"{base}/v1/admin/tenants/{name}/audit", json={"enabled": audit}, headers=admin)
    r.raise_for_status()
    auth = {"Authorization": f"Bearer {key.json()['key']}"}
    sessions = []
    for i in range(SESSIONS):
        sid = f"{name}-s{i}"
        httpx.post(f"{base}/v1/sessions", json={"session_id": sid, "user_id": f"u{i}"}, headers=auth)
        msgs = [
            {"role": "user" if j % 2 == 0 else "assistant", "content": f"turn {j} about Lisbon"}
            for j in range(20)
        ]
        httpx.post(
            f"{base}/v1/sessions/{sid}/messages", json={"messages": msgs}, headers=auth
        ).raise_for_status()
        sessions.append(sid)
    return key.json()["key"], sessions


def lua(path: Path, method: str, paths: list[str], key: str) -> None:
    items = ", ".join(f'"{p}"' for p in paths)
    body = f"[[{BODY}]]" if method == "POST" else "nil"
    path.write_text(
        f"local paths = {{{items}}}\n"
        f'local headers = {{["Content-Type"] = "application/json", ["Authorization"] = "Bearer {key}"}}\n'
        f"request = function()\n"
        f'  return wrk.format("{method}", paths[math.random(#paths)], headers, {body})\n'
        f"end\n"
    )


def wrk(base: str, script: Path, seconds: float, connections: int) -> float:
    out = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{int(seconds)}s", "-s", str(script), base],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = re.search(r"Requests/sec:\s+([\d.]+)", out)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    assert found and not errors, out
    return float(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=8)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("bench/otel.py needs wrk (apt-get install wrk)")
    home = Path(tempfile.mkdtemp(prefix="engram-bench-otel-"))
    pg = start_embedded(home / "db")
    sink = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    try:
        import asyncio

        asyncio.run(upgrade(pg.url, 384))
        traced_env = {
            "ENGRAM_OTEL": "on",
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{sink.server_address[1]}",
            "OTEL_SERVICE_NAME": "engram-bench",
        }
        sampled_env = {
            **traced_env,
            "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
            "OTEL_TRACES_SAMPLER_ARG": "0.1",
        }
        with (
            api(pg.url, free_port(), home / "off.log") as off,
            api(pg.url, free_port(), home / "on.log", **traced_env) as on,
            api(pg.url, free_port(), home / "sampled.log", **sampled_env) as sampled,
        ):
            plain_key, plain = tenant(off, "plain", audit=False)
            audit_key, audited = tenant(off, "audited", audit=True)
            configs = {
                "tracing off": (off, plain_key, plain),
                "tracing on": (on, plain_key, plain),
                "on, 10% kept": (sampled, plain_key, plain),
                "audit on": (off, audit_key, audited),
            }
            results: dict[tuple[str, str], list[float]] = {}
            for n in range(args.rounds):
                order = list(configs)
                random.shuffle(order)
                for name in order:
                    base, key, sessions = configs[name]
                    for op, method, paths in (
                        ("append", "POST", [f"/v1/sessions/{s}/messages" for s in sessions]),
                        ("memory", "GET", [f"/v1/sessions/{s}/memory?max_tokens=2000" for s in sessions]),
                    ):
                        script = home / f"{op}.lua"
                        lua(script, method, paths, key)
                        rps = wrk(base, script, args.seconds, args.connections)
                        results.setdefault((name, op), []).append(rps)
                print(f"round {n + 1}/{args.rounds} done", file=sys.stderr)
        load = os.getloadavg()
        print(
            f"\nbench/otel.py: {args.rounds} interleaved rounds of {args.seconds:.0f} s, "
            f"wrk -c{args.connections}; "
            f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} cores"
        )
        print(f"OTLP bytes received by the sink: {Sink.received}")
        print(f"{'operation':<10}{'config':<14}{'median req/s':>14}{'vs off':>9}   rounds")
        for op in ("append", "memory"):
            base_rps = statistics.median(results[("tracing off", op)])
            for name in configs:
                values = results[(name, op)]
                med = statistics.median(values)
                rounds = " ".join(f"{v:.0f}" for v in values)
                print(f"{op:<10}{name:<14}{med:>14.0f}{(med / base_rps - 1) * 100:>8.1f}%   {rounds}")
    finally:
        sink.shutdown()
        pg.stop()
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

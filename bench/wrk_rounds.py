"""The harness of the on/off benches (bench/otel.py, bench/encryption.py): `engram serve`
processes in different configurations, each with a tenant of 16 sessions of 20 messages, driven by
`wrk` in interleaved rounds (`rounds`): single-message appends, then memory reads
(`max_tokens=2000`). Each round runs the configurations in a new random order; `print_table` shows
per configuration the median req/s, the median of the per-round ratios to the baseline, and the API
process's CPU per request (its own threads included: an exporter's too), which a loaded machine
moves less than req/s. On 2 shared cores the figures move with the load: compare within a round.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil

ADMIN = "bench-admin-token"
REDIS = os.environ.get("ENGRAM_BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
SESSIONS = 16
BODY = '{"messages": [{"role": "user", "content": "I moved to Lisbon last week and I love the food there."}]}'
OPERATIONS = ("append", "memory")


@contextlib.contextmanager
def api(url: str, port: int, log: Path, **env: str) -> Iterator[str]:
    """An `engram serve` on `url` (auth on, worker off, no rate limits), its base URL."""
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


def server_pid(base: str) -> int:
    """The pid of the process listening on `base`'s port (the API: worker off, one process)."""
    port = int(base.rsplit(":", 1)[1])
    for c in psutil.net_connections(kind="tcp"):
        if c.laddr and c.laddr.port == port and c.status == psutil.CONN_LISTEN and c.pid:
            return int(c.pid)
    raise RuntimeError(f"nothing listens on {base}")


def cpu_of(pid: int) -> float:
    t = psutil.Process(pid).cpu_times()
    return float(t.user + t.system)


@dataclass(frozen=True)
class Target:
    """One configuration: its server, the tenant's key and sessions, the API's pid."""

    base: str
    key: str
    sessions: list[str]
    pid: int

    @classmethod
    def start(cls, base: str, tenant_name: str, *, audit: bool = False) -> Target:
        key, sessions = tenant(base, tenant_name, audit)
        return cls(base, key, sessions, server_pid(base))


@dataclass(frozen=True)
class Sample:
    rps: float
    cpu_us: float  # the API process's CPU per request


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


def rounds(
    configs: Mapping[str, Target], *, count: int, seconds: float, connections: int, workdir: Path
) -> dict[tuple[str, str], list[Sample]]:
    """`count` rounds; in each, every configuration in a new random order, appends then memory
    reads. Per (configuration, operation): one sample a round."""
    results: dict[tuple[str, str], list[Sample]] = {}
    for n in range(count):
        order = list(configs)
        random.shuffle(order)
        for name in order:
            t = configs[name]
            for op, method, paths in (
                ("append", "POST", [f"/v1/sessions/{s}/messages" for s in t.sessions]),
                ("memory", "GET", [f"/v1/sessions/{s}/memory?max_tokens=2000" for s in t.sessions]),
            ):
                script = workdir / f"{op}.lua"
                lua(script, method, paths, t.key)
                before = cpu_of(t.pid)
                rps = wrk(t.base, script, seconds, connections)
                used = cpu_of(t.pid) - before
                results.setdefault((name, op), []).append(Sample(rps, used / (rps * seconds) * 1e6))
        print(f"round {n + 1}/{count} done", file=sys.stderr)
    return results


def print_table(
    title: str,
    results: Mapping[tuple[str, str], list[Sample]],
    configs: list[str],
    *,
    baseline: str,
    rounds_run: int,
    seconds: float,
    connections: int,
) -> None:
    load = os.getloadavg()
    print(
        f"\n{title}: {rounds_run} interleaved rounds of {seconds:.0f} s, wrk -c{connections}; "
        f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} cores"
    )
    width = max(len(c) for c in configs) + 2
    print(
        f"{'operation':<10}{'config':<{width}}{'median req/s':>13}{'vs base':>9}{'ratio/round':>12}"
        f"{'API CPU us/req':>15}{'vs base':>9}   rounds (req/s)"
    )
    for op in OPERATIONS:
        base = results[(baseline, op)]
        for name in configs:
            values = results[(name, op)]
            med = statistics.median(s.rps for s in values)
            change = (med / statistics.median(s.rps for s in base) - 1) * 100
            # Against the baseline within each round, then the median: the load moves less within one.
            ratio = statistics.median(v.rps / b.rps for v, b in zip(values, base, strict=True))
            us = statistics.median(s.cpu_us for s in values)
            us_ratio = statistics.median(v.cpu_us / b.cpu_us for v, b in zip(values, base, strict=True))
            listed = " ".join(f"{s.rps:.0f}" for s in values)
            print(
                f"{op:<10}{name:<{width}}{med:>13.0f}{change:>8.1f}%{ratio:>12.3f}"
                f"{us:>15.0f}{(us_ratio - 1) * 100:>8.1f}%   {listed}"
            )

"""`GET /v1/sessions/{id}/memory` throughput and latency (issue 4), with the Redis window and without.

Set-up, all of it fresh and stopped on exit (Ctrl-C included): an embedded PostgreSQL in a
temporary directory with the migrations applied, a redis-server of this script's own on a free
loopback port (or --redis-url: an existing server's database, FLUSHDB'd), and N sessions of M
realistic chat messages (bench/chat_text.py) appended through the API in batches of 1,000.

Then, for each number of API processes (--procs, `engram serve` with ENGRAM_WORKERS) and in
rounds (each round: every scenario x budget once, so drift on a shared machine touches all alike):

    redis  ENGRAM_REDIS_URL set: the version read in PostgreSQL, the window from Redis
    pg     no Redis: every request reads its window from PostgreSQL

`engram serve` (auth off on loopback, ENGRAM_RUN_WORKER=false: no embedding competes for the
CPU) is started afresh per scenario and round, Redis flushed before each `redis` start. Load:
`wrk` (`apt-get install wrk`) with a Lua script asking `GET /memory?max_tokens=B` of a random
session per request, -c64 -t2; a warm-up (which also fills the cache) then the measured window.
Per run: requests/s, latency p50/p90/p99 (wrk's own histogram), non-2xx and socket errors (must
be 0), CPU per process group (api, postgres, redis, wrk; `other` = the rest of the machine) and
the cache hit ratio from the API's /metrics (`engram_cache_lookups_total`, summed over the API
processes; a kept answer, `result="answer"`, is a hit). Tables show medians over the runs (each
figure its own median), with the spread.

    .venv/bin/python -m bench.memory                                  # 50 x 1000, 20 s, 3 rounds
    .venv/bin/python -m bench.memory --sessions 10 --seconds 5 --repeat 1     # a quick check
    .venv/bin/python -m bench.memory --procs 2 --budgets 2000 --scenarios redis
    .venv/bin/python -m bench.memory --app-dir /tmp/before/app        # A/B: another copy of `app`
    .venv/bin/python -m bench.memory --procs 1 --scenarios redis --pause-for-profiler  # py-spy it

Runs in which the API logged "database unavailable" (a pool timeout: a 503) are flagged with
`!!`. --db-pool / --db-overflow set the API's pool (ENGRAM_DB_POOL_SIZE / _MAX_OVERFLOW; the
embedded server's max_connections is raised to fit): e.g. to measure past a pool that the
default concurrency exhausts.

--app-dir DIR runs the API (and the migrations) on another copy of the `app` package, e.g. a
snapshot taken before a change: the working tree may change while a benchmark runs. Other
ENGRAM_* variables in the environment pass through to the API (ENGRAM_REDIS_URL excepted).
Results: Markdown tables on stdout, JSON in bench/results/memory-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import redis

from app.db.embedded import EmbeddedPostgres, start_embedded
from bench.append import (
    children_cpu,
    cpu_seconds,
    git_commit,
    machine_busy_seconds,
    machine_info,
    memory_mb,
    pg_version,
    postmaster_pid,
    run_wrk,
    sigterm_as_interrupt,
    tree,
)
from bench.chat_text import chat_messages
from bench.indexing import engram_env as indexing_env
from tests.support.procs import free_port, log_tail, stop, wait_ready

ROOT = Path(__file__).resolve().parents[1]

EMBEDDING_DIM = int(os.environ.get("ENGRAM_EMBEDDING_DIM", "384"))
ENGRAM = Path(sys.executable).parent / "engram"
MODEL_CACHE = ROOT / ".engram" / "models"  # exported ONNX files, shared by every API started
TARGET_RPS = 3_000.0
TARGET_P99_MS = 15.0
TARGET_BUDGET = 2000  # the target is read on the default budget
APPEND_BATCH = 1000
SCENARIOS = ("redis", "pg")
MEMORY_ROUTE = "/v1/sessions/{session_id}/memory"

Say = Callable[[str], None]
APP_DIR: Path | None = None  # --app-dir: the API imports `app` from here (the package's parent)
_LAUNCH = (
    "import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]; "
    "sys.path[:0] = [{app!r}, {root!r}]; "
)


def say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- processes


def engram_cmd(command: str) -> list[str]:
    """`engram COMMAND`, or the same on the --app-dir copy of `app` (as bench/indexing.py does)."""
    if APP_DIR is None:
        return [str(ENGRAM), command]
    code = _LAUNCH.format(app=str(APP_DIR), root=str(ROOT))
    return [
        sys.executable,
        "-c",
        code + f"sys.argv = ['engram', {command!r}]; from app.cli import app; app()",
    ]


POOL: dict[str, str] = {}  # --db-pool / --db-overflow: db_pool_size / db_max_overflow


def engram_env(db_url: str, **extra: str | None) -> dict[str, str]:
    """bench/indexing.py's environment, with the worker off and the --db-pool settings."""
    return indexing_env(db_url, **{"run_worker": "false", **POOL, **extra})


def spawn(args: list[str], env: dict[str, str], log: Path, cwd: Path = ROOT) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(
            args,
            env=env,
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C reaches this script only; it stops the children itself
        )


def migrate(db_url: str, log: Path) -> None:
    """`engram migrate` in a child, on the same `app` as the API (and its migrations/ if it has one)."""
    cwd = ROOT
    if APP_DIR is not None and (APP_DIR / "migrations" / "env.py").is_file():
        cwd = APP_DIR
    proc = spawn(engram_cmd("migrate"), engram_env(db_url), log, cwd=cwd)
    if proc.wait(timeout=300) != 0:
        raise RuntimeError(f"engram migrate failed ({proc.returncode}):\n{log.read_text()[-3000:]}")


@dataclass
class RedisServer:
    url: str
    pid: int | None  # None: a server we did not start and cannot see
    proc: subprocess.Popen[bytes] | None

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, socket_timeout=5.0)

    def flush(self) -> None:
        with contextlib.closing(self.client()) as r:
            r.flushdb()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


def start_redis(tmp: Path, url: str | None) -> RedisServer:
    """Our own redis-server on a free loopback port (no persistence), or the server at `url`."""
    if url is not None:
        server = RedisServer(url=url, pid=None, proc=None)
        with contextlib.closing(server.client()) as r:
            info = r.info("server")
            host = str(r.connection_pool.connection_kwargs.get("host", ""))
        if host in ("127.0.0.1", "localhost", "::1"):
            server.pid = int(info["process_id"])  # same machine: its CPU can be measured
        return server
    exe = shutil.which("redis-server")
    if exe is None:
        raise RuntimeError("redis-server is not on PATH (apt-get install redis-server) and no --redis-url")
    port = free_port()
    args = [exe, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"]
    args += ["--dir", str(tmp), "--daemonize", "no", "--loglevel", "warning"]
    log = tmp / "redis.log"
    proc = spawn(args, dict(os.environ), log, cwd=tmp)
    server = RedisServer(url=f"redis://127.0.0.1:{port}/0", pid=proc.pid, proc=proc)
    deadline = time.monotonic() + 20
    while True:
        with contextlib.suppress(redis.RedisError), contextlib.closing(server.client()) as r:
            if r.ping():
                return server
        if proc.poll() is not None or time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"redis-server did not start:\n{log.read_text()[-2000:]}")
        time.sleep(0.1)


def pool_per_process() -> int:
    """Connections one API process may open (pool + overflow), as its environment sets them."""
    from app.config import Settings

    env = engram_env("postgresql://unused")
    fields = Settings.model_fields
    size = int(env.get("ENGRAM_DB_POOL_SIZE", fields["db_pool_size"].default))
    overflow = int(env.get("ENGRAM_DB_MAX_OVERFLOW", fields["db_max_overflow"].default))
    return size + overflow


def start_postgres(tmp: Path, needed: int, say: Say) -> EmbeddedPostgres:
    """The embedded server, restarted with a larger max_connections if the pools need it."""
    pg = start_embedded(tmp)
    try:
        have = int(pg_setting(pg.url, "max_connections"))
        if have >= needed:
            return pg
        say(f"  max_connections {have} < {needed} (pools of the API processes): raising it")
        asyncio.run(pg_execute(pg.url, f"ALTER SYSTEM SET max_connections = {int(needed)}"))
        pg.stop()
        pg = start_embedded(tmp)
        return pg
    except BaseException:
        pg.stop()
        raise


def pg_setting(url: str, name: str) -> str:
    async def ask() -> str:
        conn = await asyncpg.connect(url)
        try:
            return str(await conn.fetchval(f"SHOW {name}"))
        finally:
            await conn.close()

    return asyncio.run(ask())


async def pg_execute(url: str, sql: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@dataclass
class Api:
    proc: subprocess.Popen[bytes]
    base_url: str
    procs: int
    scenario: str
    log: Path


def start_api(
    db_url: str, procs: int, redis_url: str | None, scenario: str, log: Path, **settings: str | None
) -> Api:
    """`settings`: more ENGRAM_* settings (lower-case names, as `engram_env`)."""
    port = free_port()
    env = engram_env(db_url, port=str(port), workers=str(procs), redis_url=redis_url, **settings)
    with log.open("ab") as out:
        out.write(f"\n=== engram serve: {scenario}, {procs} process(es), port {port}\n".encode())
    proc = spawn(engram_cmd("serve"), env, log)
    base_url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(base_url, proc, timeout=180, output=log_tail(log))
    except BaseException:
        stop(proc)
        raise
    if procs > 1:  # readyz answered from one process; give the others their start-up too
        deadline = time.monotonic() + 60
        while len(tree(proc.pid)) <= procs and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2.0)
    return Api(proc=proc, base_url=base_url, procs=procs, scenario=scenario, log=log)


# --------------------------------------------------------------------------- data


async def load_sessions(base_url: str, sessions: int, messages: int, say: Say) -> list[str]:
    """Create the sessions and append their messages through the API, batches of 1,000."""
    sids = [f"bench-mem-{i:04d}" for i in range(sessions)]
    t0 = time.perf_counter()
    done = 0
    async with httpx.AsyncClient(base_url=base_url, timeout=120.0) as client:
        queue = list(enumerate(sids))

        async def one() -> None:
            nonlocal done
            while queue:
                i, sid = queue.pop(0)
                r = await client.post(
                    "/v1/sessions", json={"session_id": sid, "user_id": f"bench-user-{i % 10}"}
                )
                r.raise_for_status()
                msgs = chat_messages(messages, seed=1000 + i)
                for k in range(0, len(msgs), APPEND_BATCH):
                    r = await client.post(
                        f"/v1/sessions/{sid}/messages", json={"messages": msgs[k : k + APPEND_BATCH]}
                    )
                    r.raise_for_status()
                done += 1
                if done % 10 == 0 or done == sessions:
                    say(f"  {done}/{sessions} sessions loaded ({time.perf_counter() - t0:.0f}s)")

        await asyncio.gather(*(one() for _ in range(2)))
    return sids


async def session_tokens(base_url: str, sid: str, budgets: Sequence[int]) -> dict[str, Any]:
    """What one memory answer holds per budget: messages, tokens, bytes (for the report)."""
    out: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=base_url, timeout=30.0) as client:
        for b in budgets:
            r = await client.get(f"/v1/sessions/{sid}/memory", params={"max_tokens": b})
            r.raise_for_status()
            body = r.json()
            out[str(b)] = {
                "messages": len(body["messages"]),
                "token_count": body["token_count"],
                "bytes": len(r.content),
            }
    return out


# --------------------------------------------------------------------------- metrics scrape

_SAMPLE = re.compile(r"^(engram_cache_lookups_total|engram_http_requests_total)\{(.*)\} (\S+)$")
_LABEL = re.compile(r'(\w+)="([^"]*)"')


def parse_metrics(text: str) -> dict[str, float]:
    """The counters that say what this process served (not /metrics itself, which changes as read)."""
    found: dict[str, float] = {}
    for line in text.splitlines():
        m = _SAMPLE.match(line)
        if m is None:
            continue
        labels = dict(_LABEL.findall(m.group(2)))
        if m.group(1) == "engram_cache_lookups_total":
            found[f"cache:{labels.get('result', '?')}"] = float(m.group(3))
        elif labels.get("route") == MEMORY_ROUTE:
            found[f"memory:{labels.get('status', '?')}"] = float(m.group(3))
    return found


async def scrape(base_url: str, procs: int) -> tuple[list[dict[str, float]], bool]:
    """Counters of every API process: each scrape on a new connection, which any process may
    accept; processes are told apart by their (frozen between runs) counters. Returns the
    distinct sets seen and whether there were as many as processes."""
    seen: dict[tuple[tuple[str, float], ...], dict[str, float]] = {}

    async def one() -> None:
        with contextlib.suppress(httpx.HTTPError):
            async with httpx.AsyncClient(base_url=base_url, timeout=10.0) as client:
                r = await client.get("/metrics")
                if r.status_code == 200:
                    counters = parse_metrics(r.text)
                    seen[tuple(sorted(counters.items()))] = counters

    for _ in range(15 if procs > 1 else 1):
        await asyncio.gather(*(one() for _ in range(4 * procs if procs > 1 else 1)))
        if len(seen) >= procs:
            break
    return list(seen.values()), len(seen) >= procs


def summed(sets: Sequence[dict[str, float]]) -> dict[str, float]:
    total: dict[str, float] = {}
    for counters in sets:
        for k, v in counters.items():
            total[k] = total.get(k, 0.0) + v
    return total


# --------------------------------------------------------------------------- load: wrk

_LUA = """
local paths = {%(paths)s}
local next_tid = 0
function setup(thread)
  thread:set("tid", next_tid)
  next_tid = next_tid + 1
end
local reqs = {}
function init(args)
  math.randomseed(%(seed)d + 7919 * tid)
  for i = 1, #paths do reqs[i] = wrk.format("GET", paths[i]) end
end
function request()
  return reqs[math.random(#reqs)]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCHJSON {"requests":%%d,"duration_us":%%d,"bytes":%%d,"connect":%%d,"read":%%d,"write":%%d,' ..
    '"status":%%d,"timeout":%%d,"p50":%%.1f,"p90":%%.1f,"p99":%%.1f,"p999":%%.1f,"max":%%.1f,' ..
    '"mean":%%.1f}\\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status,
    e.timeout, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max, latency.mean))
end
"""


def write_lua(path: Path, paths: Sequence[str], seed: int) -> None:
    path.write_text(_LUA % {"paths": ",".join(json.dumps(p) for p in paths), "seed": seed})


# --------------------------------------------------------------------------- one run


@dataclass
class Groups:
    """The process trees whose CPU is measured."""

    api: int
    pg: int
    redis: int | None

    def used(self) -> dict[str, float]:
        out = {
            "api": sum(cpu_seconds(tree(self.api)).values()),
            "pg": sum(cpu_seconds(tree(self.pg)).values()),
        }
        out["redis"] = sum(cpu_seconds(tree(self.redis)).values()) if self.redis else 0.0
        return out


@dataclass
class Run:
    procs: int
    scenario: str
    budget: int
    round: int
    seconds: float
    requests: int
    requests_per_s: float
    latency_ms: dict[str, float]
    non_2xx: int
    socket_errors: dict[str, int]
    bytes_per_response: float
    cpu_cores: dict[str, float]
    cpu_ms_per_request: dict[str, float]
    cache: dict[str, Any]
    memory_mb: dict[str, dict[str, float]]
    other_before: float
    # GET memory 200s per API process since it started (warm-ups included): how evenly they share
    memory_200_by_process: list[int] = field(default_factory=list)
    # "database unavailable" lines the API logged during warm-up and window (pool timeouts: 503s)
    db_unavailable_logged: int = 0


async def quiet(limit: float, max_wait: float) -> float:
    """Wait (bounded) until the machine is busy under `limit` cores; our processes idle by now."""
    deadline = time.monotonic() + max_wait
    while True:
        b0 = machine_busy_seconds()
        await asyncio.sleep(1.0)
        busy = machine_busy_seconds() - b0
        if busy < limit or time.monotonic() >= deadline:
            return round(busy, 2)


async def measure(
    args: argparse.Namespace,
    api: Api,
    groups: Groups,
    budget: int,
    sids: Sequence[str],
    rnd: int,
    workdir: Path,
) -> Run:
    paths = [f"/v1/sessions/{sid}/memory?max_tokens={budget}" for sid in sids]
    script = workdir / f"memory-{api.scenario}-{budget}-{rnd}.lua"
    write_lua(script, paths, seed=args.seed + rnd * 31 + budget)
    threads = min(args.threads, args.concurrency)
    log_from = api.log.stat().st_size
    if args.warmup > 0:
        await run_wrk(api.base_url, script, threads, args.concurrency, args.warmup, latency=True)
    other_before = await quiet(args.quiet_below, args.quiet_wait) if args.quiet_below > 0 else 0.0
    before, complete0 = await scrape(api.base_url, api.procs)
    cpu0 = groups.used()
    wrk0 = children_cpu()
    busy0 = machine_busy_seconds()
    t0 = time.perf_counter()
    res = await run_wrk(api.base_url, script, threads, args.concurrency, args.seconds, latency=True)
    elapsed = time.perf_counter() - t0
    busy = machine_busy_seconds() - busy0
    used = {k: v - cpu0[k] for k, v in groups.used().items()}
    used["wrk"] = children_cpu() - wrk0  # wrk has been reaped: its CPU is in RUSAGE_CHILDREN
    used["other"] = max(busy - sum(used.values()), 0.0)
    mem = {"api": memory_mb(tree(groups.api))}
    if groups.redis:
        mem["redis"] = memory_mb(tree(groups.redis))
    after, complete1 = await scrape(api.base_url, api.procs)
    script.unlink()
    with api.log.open("rb") as f:
        f.seek(log_from)
        unavailable = f.read().count(b'"database unavailable"')

    sa, sb = summed(after), summed(before)
    delta = {k: sa.get(k, 0.0) - sb.get(k, 0.0) for k in sa}
    lookups = {k.removeprefix("cache:"): int(v) for k, v in delta.items() if k.startswith("cache:")}
    total = sum(lookups.values())
    cache: dict[str, Any] = {
        "lookups": lookups,
        # `answer`: a kept answer (app/cache/answers.py), a hit without the window read.
        "hit_ratio": round((lookups.get("hit", 0) + lookups.get("answer", 0)) / total, 4) if total else None,
        "all_processes_seen": complete0 and complete1,
    }
    requests = int(res["requests"])
    per = max(requests, 1)
    seconds = res["duration_us"] / 1e6
    return Run(
        procs=api.procs,
        scenario=api.scenario,
        budget=budget,
        round=rnd,
        seconds=round(seconds, 3),
        requests=requests,
        requests_per_s=round(requests / seconds, 1) if seconds else 0.0,
        latency_ms={k: round(res[k] / 1000, 2) for k in ("p50", "p90", "p99", "p999", "max", "mean")},
        non_2xx=int(res["status"]),
        socket_errors={k: int(res[k]) for k in ("connect", "read", "write", "timeout")},
        bytes_per_response=round(res["bytes"] / per, 0),
        cpu_cores={k: round(v / elapsed, 3) for k, v in used.items()},
        cpu_ms_per_request={k: round(v * 1000 / per, 3) for k, v in used.items() if k != "other"},
        cache=cache,
        memory_mb=mem,
        other_before=other_before,
        memory_200_by_process=sorted(int(c.get("memory:200", 0)) for c in after),
        db_unavailable_logged=unavailable,
    )


# --------------------------------------------------------------------------- orchestration


def bench(args: argparse.Namespace) -> dict[str, Any]:
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="engram-mem-")))
        log = args.api_log or tmp / "api.log"
        say(f"starting embedded PostgreSQL in {tmp}")
        pool = pool_per_process()
        pg = start_postgres(tmp, pool * max(args.procs) + 20, say)
        stack.callback(pg.stop)
        migrate(pg.url, log)
        rs = start_redis(tmp, args.redis_url)
        stack.callback(rs.stop)
        rs.flush()
        say(f"Redis at {rs.url} (pid {rs.pid}); PostgreSQL pid {postmaster_pid(pg)}")

        say(f"loading {args.sessions} sessions x {args.messages} messages through the API")
        loader = start_api(pg.url, 1, None, "load", log)
        try:
            t0 = time.perf_counter()
            sids = asyncio.run(load_sessions(loader.base_url, args.sessions, args.messages, say))
            load_s = time.perf_counter() - t0
            shape = asyncio.run(session_tokens(loader.base_url, sids[0], args.budgets))
        finally:
            stop(loader.proc)
        asyncio.run(pg_execute(pg.url, "VACUUM ANALYZE"))  # settled tables and statistics
        say(f"  loaded in {load_s:.0f}s; one answer per budget: {shape}")

        runs: list[Run] = []
        for procs in args.procs:
            for rnd in range(args.repeat):
                for scenario in args.scenarios:
                    redis_url = rs.url if scenario == "redis" else None
                    if redis_url:
                        rs.flush()  # the warm-up fills the cache afresh
                    api = start_api(pg.url, procs, redis_url, scenario, log)
                    try:
                        groups = Groups(api=api.proc.pid, pg=postmaster_pid(pg), redis=rs.pid)
                        if args.pause_for_profiler:
                            pids = [p.pid for p in tree(api.proc.pid)]
                            say(
                                f"API ({scenario}, {procs} proc) pids {pids} on {api.base_url}: Enter to load"
                            )
                            input()
                        for budget in args.budgets:
                            run = asyncio.run(measure(args, api, groups, budget, sids, rnd, tmp))
                            runs.append(run)
                            say(progress_line(run, args.repeat))
                            time.sleep(args.pause)
                    finally:
                        stop(api.proc)
        return {
            "postgres": pg_version(pg.url),
            "redis": redis_version(rs),
            "load_seconds": round(load_s, 1),
            "answer_shape": shape,
            "runs": runs,
        }


def redis_version(rs: RedisServer) -> str:
    with contextlib.closing(rs.client()) as r:
        return str(r.info("server").get("redis_version"))


def progress_line(run: Run, repeat: int) -> str:
    lat, cpu = run.latency_ms, run.cpu_ms_per_request
    ratio = run.cache["hit_ratio"]
    hits = "-" if ratio is None else f"{ratio:.1%}"
    return (
        f"  round {run.round + 1}/{repeat} procs={run.procs} {run.scenario:<5} max_tokens={run.budget:<5}"
        f"{run.requests_per_s:8.0f} req/s  p50 {lat['p50']:.1f}  p90 {lat['p90']:.1f}  "
        f"p99 {lat['p99']:.1f} ms  non-2xx {run.non_2xx}  hits {hits}  "
        f"CPU ms/req api {cpu['api']:.2f} pg {cpu['pg']:.2f} redis {cpu['redis']:.3f} wrk {cpu['wrk']:.3f}  "
        f"other {run.cpu_cores['other']:.2f}"
        + (
            f"\n  !! the API logged {run.db_unavailable_logged} 'database unavailable' (pool timeouts: 503s)"
            if run.db_unavailable_logged
            else ""
        )
    )


# --------------------------------------------------------------------------- results


def med(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else float("nan")


def summarize(runs: Sequence[Run]) -> list[dict[str, Any]]:
    keys = sorted(
        {(r.procs, r.scenario, r.budget) for r in runs}, key=lambda k: (SCENARIOS.index(k[1]), k[0], k[2])
    )
    rows = []
    for procs, scenario, budget in keys:
        rs = [r for r in runs if (r.procs, r.scenario, r.budget) == (procs, scenario, budget)]
        ratios = [r.cache["hit_ratio"] for r in rs if r.cache["hit_ratio"] is not None]
        rows.append(
            {
                "procs": procs,
                "scenario": scenario,
                "max_tokens": budget,
                "runs": len(rs),
                "requests_per_s": round(med([r.requests_per_s for r in rs]), 1),
                "requests_per_s_runs": [r.requests_per_s for r in rs],
                "latency_ms": {
                    k: round(med([r.latency_ms[k] for r in rs]), 2) for k in ("p50", "p90", "p99")
                },
                "p99_ms_runs": [r.latency_ms["p99"] for r in rs],
                "non_2xx": sum(r.non_2xx for r in rs),
                "socket_errors": sum(sum(r.socket_errors.values()) for r in rs),
                "bytes_per_response": round(med([r.bytes_per_response for r in rs])),
                "cpu_ms_per_request": {
                    k: round(med([r.cpu_ms_per_request[k] for r in rs]), 3)
                    for k in ("api", "pg", "redis", "wrk")
                },
                "cpu_cores": {
                    k: round(med([r.cpu_cores[k] for r in rs]), 2)
                    for k in ("api", "pg", "redis", "wrk", "other")
                },
                "hit_ratio": round(med(ratios), 4) if ratios else None,
                "db_unavailable_logged": sum(r.db_unavailable_logged for r in rs),
            }
        )
    return rows


def scenario_table(rows: Sequence[dict[str, Any]], scenario: str) -> str:
    lines = [
        "| procs | max_tokens | req/s | p50 ms | p90 ms | p99 ms | non-2xx | hit ratio | KB/resp | "
        "CPU ms/req api / pg / redis / wrk | cores api / pg / redis / wrk / other | req/s runs |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for r in rows:
        if r["scenario"] != scenario:
            continue
        lat, ms, c = r["latency_ms"], r["cpu_ms_per_request"], r["cpu_cores"]
        hits = "-" if r["hit_ratio"] is None else f"{r['hit_ratio']:.1%}"
        errors = r["non_2xx"] + r["socket_errors"]
        lines.append(
            f"| {r['procs']} | {r['max_tokens']} | {r['requests_per_s']:,.0f} | {lat['p50']:.1f} | "
            f"{lat['p90']:.1f} | {lat['p99']:.1f} | {errors} | {hits} | "
            f"{r['bytes_per_response'] / 1024:.1f} | "
            f"{ms['api']:.2f} / {ms['pg']:.2f} / {ms['redis']:.3f} / {ms['wrk']:.3f} | "
            f"{c['api']:.2f} / {c['pg']:.2f} / {c['redis']:.2f} / {c['wrk']:.2f} / {c['other']:.2f} | "
            f"{', '.join(f'{x:,.0f}' for x in r['requests_per_s_runs'])} |"
        )
    return "\n".join(lines)


def ratios(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    by = {(r["procs"], r["scenario"], r["max_tokens"]): r for r in rows}
    for (procs, scenario, budget), red in sorted(by.items()):
        pg = by.get((procs, "pg", budget))
        if scenario != "redis" or pg is None:
            continue
        out.append(
            {
                "procs": procs,
                "max_tokens": budget,
                "redis_rps": red["requests_per_s"],
                "pg_rps": pg["requests_per_s"],
                "rps_ratio": round(red["requests_per_s"] / pg["requests_per_s"], 2)
                if pg["requests_per_s"]
                else None,
                "redis_p99_ms": red["latency_ms"]["p99"],
                "pg_p99_ms": pg["latency_ms"]["p99"],
                "api_cpu_ms_redis": red["cpu_ms_per_request"]["api"],
                "api_cpu_ms_pg": pg["cpu_ms_per_request"]["api"],
            }
        )
    return out


def ratio_table(found: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| procs | max_tokens | with Redis req/s | PostgreSQL only req/s | ratio | p99 ms with / without | "
        "API CPU ms/req with / without |",
        "|---:|---:|---:|---:|---:|---|---|",
    ]
    for x in found:
        ratio = "-" if x["rps_ratio"] is None else f"{x['rps_ratio']:.2f}x"
        lines.append(
            f"| {x['procs']} | {x['max_tokens']} | {x['redis_rps']:,.0f} | {x['pg_rps']:,.0f} | {ratio} | "
            f"{x['redis_p99_ms']:.1f} / {x['pg_p99_ms']:.1f} | "
            f"{x['api_cpu_ms_redis']:.2f} / {x['api_cpu_ms_pg']:.2f} |"
        )
    return "\n".join(lines)


def check_targets(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    checks = []
    for r in rows:
        if r["scenario"] != "redis":
            continue
        rps, p99 = r["requests_per_s"], r["latency_ms"]["p99"]
        checks.append(
            {
                "procs": r["procs"],
                "max_tokens": r["max_tokens"],
                "target": f">= {TARGET_RPS:,.0f} req/s and p99 < {TARGET_P99_MS:.0f} ms with Redis",
                "measured": f"{rps:,.0f} req/s, p99 {p99:.1f} ms",
                "met": rps >= TARGET_RPS and p99 < TARGET_P99_MS and r["non_2xx"] + r["socket_errors"] == 0,
            }
        )
    return checks


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add = p.add_argument
    add("--sessions", type=int, default=50, help="sessions (default 50)")
    add("--messages", type=int, default=1000, help="messages per session (default 1000)")
    add("--seconds", type=float, default=20.0, help="measured time per run (default 20)")
    add("--warmup", type=float, default=5.0, help="warm-up before each run; fills the cache (default 5)")
    add("--repeat", type=int, default=3, help="rounds; medians are reported (default 3)")
    add(
        "--procs",
        type=int,
        nargs="+",
        default=[1, 2],
        help="API processes, one set of runs each (default 1 2)",
    )
    add("--budgets", type=int, nargs="+", default=[2000, 8000], help="max_tokens values (default 2000 8000)")
    add("--scenarios", nargs="+", choices=SCENARIOS, default=list(SCENARIOS), help="redis, pg (default both)")
    add("--concurrency", type=int, default=64, help="wrk connections (default 64)")
    add("--threads", type=int, default=2, help="wrk threads (default 2)")
    add("--db-pool", type=int, default=None, help="ENGRAM_DB_POOL_SIZE of the API (default: the app's)")
    add(
        "--db-overflow", type=int, default=None, help="ENGRAM_DB_MAX_OVERFLOW of the API (default: the app's)"
    )
    add(
        "--redis-url",
        default=None,
        help="use this Redis (a dedicated db: it is FLUSHDB'd) instead of our own",
    )
    add("--app-dir", type=Path, default=None, help="run the API on this copy of the `app` package")
    add("--quiet-below", type=float, default=0.3, help="before a window, wait until the machine uses < this")
    add("--quiet-wait", type=float, default=20.0, help="longest wait for that, in seconds (default 20)")
    add("--pause", type=float, default=0.5, help="seconds of rest between runs")
    add("--seed", type=int, default=1, help="seed of the sessions' request order")
    add("--api-log", type=Path, default=None, help="keep the API's output in this file")
    add("--pause-for-profiler", action="store_true", help="wait for Enter once each API is up")
    add("--out", type=Path, default=None, help="JSON file (default bench/results/memory-<time>.json)")
    args = p.parse_args(argv)
    if shutil.which("wrk") is None:
        p.error("needs `wrk` on PATH (apt-get install wrk)")
    if args.app_dir is not None and not (args.app_dir / "__init__.py").is_file():
        p.error(f"--app-dir {args.app_dir}: not a copy of the `app` package (no __init__.py)")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    global APP_DIR
    APP_DIR = args.app_dir.resolve().parent if args.app_dir else None
    if args.db_pool is not None:
        POOL["db_pool_size"] = str(args.db_pool)
    if args.db_overflow is not None:
        POOL["db_max_overflow"] = str(args.db_overflow)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    report: dict[str, Any] = {
        "benchmark": "memory",
        "started_at": stamp,
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine_info(),
        "commit": git_commit(),
        "app_dir": str(APP_DIR) if APP_DIR else None,
        "env": {k: v for k, v in os.environ.items() if k.startswith("ENGRAM_")},
        "settings": {
            "sessions": args.sessions,
            "messages": args.messages,
            "seconds": args.seconds,
            "warmup": args.warmup,
            "repeat": args.repeat,
            "procs": args.procs,
            "budgets": args.budgets,
            "concurrency": args.concurrency,
            "wrk_threads": args.threads,
            "db_pool_per_process": pool_per_process(),
        },
    }
    try:
        with sigterm_as_interrupt():
            found = bench(args)
    except KeyboardInterrupt:
        say("interrupted: everything started was stopped")
        return 130
    runs: list[Run] = found.pop("runs")
    rows = summarize(runs)
    report.update(found)
    report["rows"] = rows
    report["ratios"] = ratios(rows)
    report["targets"] = check_targets(rows)
    report["runs"] = [vars(r) for r in runs]

    m = report["machine"]
    print(
        f"\nEngram `GET memory` benchmark - {m['cores']} cores ({m['cpu']}), {m['memory_gb']} GB, "
        f"PostgreSQL {report['postgres']}, Redis {report['redis']}\n"
        f"{args.sessions} sessions x {args.messages} messages; wrk -c{args.concurrency} -t{args.threads}, "
        f"random session per request; {args.seconds:g}s per run after {args.warmup:g}s warm-up; "
        f"median of {args.repeat} round(s); auth off, embedding worker off"
        + (f"; app from {APP_DIR}" if APP_DIR else "")
    )
    for scenario in args.scenarios:
        title = "with Redis (window cache)" if scenario == "redis" else "without Redis (PostgreSQL only)"
        print(f"\n### {title}\n")
        print(scenario_table(rows, scenario))
    if report["ratios"]:
        print("\n### With / without Redis\n")
        print(ratio_table(report["ratios"]))
    print()
    for t in report["targets"]:
        print(
            f"target {t['target']} (procs {t['procs']}, max_tokens {t['max_tokens']}): {t['measured']} -> "
            f"{'met' if t['met'] else 'NOT met'}"
        )
    failed = [r for r in rows if r["non_2xx"] + r["socket_errors"] or r["db_unavailable_logged"]]
    for r in failed:
        print(
            f"!! procs {r['procs']} {r['scenario']} max_tokens {r['max_tokens']}: {r['non_2xx']} non-2xx, "
            f"{r['socket_errors']} socket errors, {r['db_unavailable_logged']} 'database unavailable' in the "
            "API log (pool timeouts; see --db-pool and the report's notes)"
        )
    red = [r for r in rows if r["scenario"] == "redis" and r["max_tokens"] == TARGET_BUDGET]
    if len(red) > 1:
        best = max(red, key=lambda r: r["requests_per_s"])
        print(f"best with Redis at max_tokens {TARGET_BUDGET}: {best['procs']} API process(es)")
    out = args.out or ROOT / "bench" / "results" / f"memory-{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

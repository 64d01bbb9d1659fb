"""Append throughput of Engram (issue 2): the real API process over a fresh embedded PostgreSQL.

Starts an embedded PostgreSQL in a temporary directory, applies the migrations, starts
`engram serve` as a separate process (auth off, loopback, the embedding worker off unless
--with-worker), then drives `POST /v1/sessions/{id}/messages` with single messages and with
batches of 100 at several concurrencies, one session per client and one hot session. Each run is
warmed up then measured for a fixed time; runs are repeated (interleaved) and the table shows the
run with the median messages/s. Everything started here is stopped on exit, Ctrl-C included.

    .venv/bin/python -m bench.append                        # all scenarios, 1 API process
    .venv/bin/python -m bench.append --api-workers 1 2      # one fresh setup per value
    .venv/bin/python -m bench.append --only single --concurrency 16 --seconds 30

Load generator: `wrk` (C, driven by a generated Lua script; `apt-get install wrk`) when it is on
PATH, else an httpx.AsyncClient in this process (HTTP/1.1 keep-alive, a pool the size of the
concurrency); `--client` chooses. On 2 cores the client, the API and PostgreSQL share the CPU:
httpx spends about 1 ms of CPU per request, which caps what it can measure, wrk about 0.05 ms.
The `cores` columns say where the CPU went during the window (`other` = everything else on the
machine: a noisy neighbour shows there), `CPU ms/req` is the cost of one request in the API and
in PostgreSQL (its backends, including ones that exited).

Other ENGRAM_* variables in the environment (e.g. ENGRAM_DB_POOL_SIZE) pass through to the API.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import psutil

from app.db.embedded import EmbeddedPostgres, start_embedded
from app.db.migrate import upgrade
from tests.support.procs import free_port, log_tail, stop, wait_ready

ROOT = Path(__file__).resolve().parents[1]

EMBEDDING_DIM = int(os.environ.get("ENGRAM_EMBEDDING_DIM", "384"))
BATCH = 100
TARGET_BATCH_MPS = 15_000.0  # issue 16 (issue 2 asked for 10,000)
TARGET_SINGLE_RPS = 1_500.0
TARGET_SINGLE_P99_MS = 25.0


# --------------------------------------------------------------------------- scenarios


@dataclass(frozen=True)
class Scenario:
    name: str
    batch: int  # messages per request
    concurrency: int
    hot: bool  # every client writes to one session (else one session per client)

    @property
    def label(self) -> str:
        return f"{self.name}{'-hot' if self.hot else ''}"


def default_scenarios(concurrencies: Sequence[int]) -> list[Scenario]:
    found: list[Scenario] = []
    for name, batch in (("single", 1), (f"batch{BATCH}", BATCH)):
        found += [Scenario(name, batch, c, hot=False) for c in concurrencies]
        found.append(Scenario(name, batch, 16, hot=True))
    return found


# --------------------------------------------------------------------------- content

_WORDS = (  # noqa: SIM905 - a sentence is easier to edit than a list of 150 strings
    "the a an my your our their this that some every each any no more most less few many "
    "meeting project deadline flight hotel invoice report budget schedule doctor appointment "
    "recipe dinner birthday gift order package delivery account password server database "
    "deploy release bug ticket customer contract lease apartment move city train weather "
    "garden bike car insurance tax refund salary vacation weekend morning evening tomorrow "
    "yesterday week month year team manager friend sister brother mother father partner kids "
    "dog cat coffee tea book movie song concert museum trip beach mountain lake museum "
    "think want need prefer remember forget check book cancel move change update send call "
    "email write read plan try buy sell pay fix build test ship review approve reject start "
    "finish open close share ask tell explain compare choose like love hate usually often "
    "quickly later soon again still already maybe probably definitely really quite very"
).split()
_NAMES = ["Ada", "Bruno", "Chloé", "Dmitri", "Eun-ji", "Farah", "Gustavo", "Hiro", "Inès", "Jonas"]
_PLACES = ["Lisbon", "Porto", "Berlin", "Kraków", "São Paulo", "Osaka", "Nairobi", "Montréal", "Zürich"]
_EXTRAS = ["☕", "🙂", "🚀", "—", "€120", "v2.3.1", "#4471", "10:30", "2026-12-01", "ñ", "ü", "…"]
_OPENERS = [
    "Can you remind me",
    "I think",
    "Sure, here is",
    "Quick question:",
    "Note to self:",
    "Thanks!",
    "Actually",
    "By the way,",
    "Here's what I found:",
    "Let me check.",
]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(4, 14))]
    if rng.random() < 0.4:
        words.insert(rng.randrange(len(words)), rng.choice(_NAMES))
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words)), rng.choice(_PLACES))
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), rng.choice(_EXTRAS))
    if rng.random() < 0.3:
        words.insert(0, rng.choice(_OPENERS))
    text = " ".join(words)
    return text[0].upper() + text[1:] + rng.choice([".", ".", ".", "?", "!"])


def message_text(rng: random.Random, low: int = 50, high: int = 400) -> str:
    """Varied, chat-like text of `low`..`high` characters (cut at a word boundary)."""
    want = rng.randint(low, high)
    text = ""
    while len(text) < want:
        text = f"{text} {_sentence(rng)}".strip()
    if len(text) > want:
        cut = text.rfind(" ", low, want)
        text = text[: cut if cut > 0 else want]
    return text


def make_message(rng: random.Random, turn: int) -> dict[str, Any]:
    role = "user" if turn % 2 == 0 else "assistant"
    if rng.random() < 0.05:
        role = "tool"
    msg: dict[str, Any] = {"role": role, "content": message_text(rng)}
    if role == "tool":
        msg["name"] = rng.choice(["calendar", "search", "weather"])
    elif role == "user" and rng.random() < 0.3:
        msg["name"] = rng.choice(_NAMES)
    if rng.random() < 0.3:
        msg["metadata"] = {"client": "bench", "turn": turn, "lang": rng.choice(["en", "en", "pt", "de"])}
    return msg


def make_bodies(batch: int, count: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    bodies = []
    for _ in range(count):
        turn0 = rng.randrange(1000)
        msgs = [make_message(rng, turn0 + i) for i in range(batch)]
        bodies.append(json.dumps({"messages": msgs}, ensure_ascii=False, separators=(",", ":")).encode())
    return bodies


# --------------------------------------------------------------------------- processes


def postmaster_pid(pg: EmbeddedPostgres) -> int:
    return int((pg.data_dir / "pg" / "postmaster.pid").read_text().split("\n", 1)[0])


def start_api(
    engram: Path, url: str, port: int, workers: int, with_worker: bool, log: Path
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "ENGRAM_DATABASE_URL": url,
        "ENGRAM_HOST": "127.0.0.1",
        "ENGRAM_PORT": str(port),
        "ENGRAM_AUTH": "off",
        "ENGRAM_LOG_LEVEL": "warning",
        "ENGRAM_WORKERS": str(workers),
        "ENGRAM_MIGRATE_ON_START": "false",  # applied by this script already
        # The embedding worker runs inside `engram serve` by default; the append path is measured
        # without it unless asked (it shares the same cores; see --with-worker).
        "ENGRAM_RUN_WORKER": "true" if with_worker else "false",
    }
    with log.open("wb") as out:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(
            [str(engram), "serve"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C reaches this script only; it stops the API itself
        )


def tree(pid: int) -> list[psutil.Process]:
    with contextlib.suppress(psutil.Error):
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    return []


def cpu_seconds(procs: Sequence[psutil.Process]) -> dict[int, float]:
    """CPU seconds per process, with those of its exited children (PostgreSQL backends that closed)."""
    out: dict[int, float] = {}
    for p in procs:
        with contextlib.suppress(psutil.Error):
            t = p.cpu_times()
            out[p.pid] = t.user + t.system + t.children_user + t.children_system
    return out


def memory_mb(procs: Sequence[psutil.Process]) -> dict[str, float]:
    """Sum of RSS and of PSS (shared pages split between the processes that map them)."""
    rss = pss = 0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            info = p.memory_full_info()
            rss += info.rss
            pss += getattr(info, "pss", info.rss)
    return {"rss_mb": round(rss / 2**20, 1), "pss_mb": round(pss / 2**20, 1)}


def machine_busy_seconds() -> float:
    t = psutil.cpu_times()
    return float(sum(t) - t.idle - getattr(t, "iowait", 0.0))


@dataclass
class Targets:
    """The processes measured: the API (and its workers), PostgreSQL and the load generator."""

    api_pid: int
    pg_pid: int


_PG_STATS = (
    "SELECT sessions, xact_commit, xact_rollback, tup_inserted FROM pg_stat_database "
    "WHERE datname = current_database()"
)


@dataclass
class Window:
    """What the measured window cost: CPU in cores (1.0 = one core busy all along) per process
    group, and PostgreSQL's counters (connections opened, commits, rollbacks, rows inserted)."""

    targets: Targets
    db: Any  # an asyncpg connection of this script's own, for pg_stat_database
    started: float = 0.0
    api0: dict[int, float] = field(default_factory=dict)
    pg0: dict[int, float] = field(default_factory=dict)
    client0: float = 0.0
    busy0: float = 0.0
    stats0: dict[str, int] = field(default_factory=dict)
    memory: dict[str, dict[str, float]] = field(default_factory=dict)  # at the end of the window

    async def _stats(self) -> dict[str, int]:
        await self.db.execute("SELECT pg_stat_clear_snapshot()")
        row = await self.db.fetchrow(_PG_STATS)
        return {k: int(v) for k, v in dict(row).items()}

    async def start(self, client_cpu: float) -> None:
        self.stats0 = await self._stats()
        self.api0 = cpu_seconds(tree(self.targets.api_pid))
        self.pg0 = cpu_seconds(tree(self.targets.pg_pid))
        self.client0 = client_cpu
        self.busy0 = machine_busy_seconds()
        self.started = time.perf_counter()

    async def stop(self, client_cpu: float) -> tuple[dict[str, float], dict[str, int]]:
        elapsed = time.perf_counter() - self.started
        self.memory = {
            "api": memory_mb(tree(self.targets.api_pid)),
            "postgres": memory_mb(tree(self.targets.pg_pid)),
        }
        busy = machine_busy_seconds() - self.busy0

        def used(before: dict[int, float], after: dict[int, float]) -> float:
            return sum(v - before.get(pid, 0.0) for pid, v in after.items())

        api = used(self.api0, cpu_seconds(tree(self.targets.api_pid)))
        pg = used(self.pg0, cpu_seconds(tree(self.targets.pg_pid)))
        client = client_cpu - self.client0
        other = max(busy - api - pg - client, 0.0)
        cores = {"api": api, "pg": pg, "client": client, "other": other}
        # Backends report their counters about once a second: give the last ones time to land.
        await asyncio.sleep(1.2)
        stats = await self._stats()
        delta = {k: stats[k] - self.stats0[k] for k in stats}
        return {k: round(v / elapsed, 3) for k, v in cores.items()}, delta


async def wait_for_quiet(
    targets: Targets, limit: float, max_wait: float, say: Callable[[str], None]
) -> float:
    """Wait up to `max_wait` s until processes other than ours use under `limit` cores."""
    deadline = time.monotonic() + max_wait
    waited = False
    while True:
        ours0 = sum(cpu_seconds(tree(targets.api_pid) + tree(targets.pg_pid)).values()) + own_cpu()
        busy0 = machine_busy_seconds()
        await asyncio.sleep(1.0)
        ours = sum(cpu_seconds(tree(targets.api_pid) + tree(targets.pg_pid)).values()) + own_cpu() - ours0
        other = max(machine_busy_seconds() - busy0 - ours, 0.0)
        if other < limit or time.monotonic() >= deadline:
            if waited:
                say(f"  other load now {other:.2f} cores")
            return other
        if not waited:
            say(f"  waiting for other load ({other:.2f} cores) to drop under {limit:g} (max {max_wait:g}s)")
            waited = True


def own_cpu() -> float:
    t = os.times()
    return t.user + t.system


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# --------------------------------------------------------------------------- results


@dataclass
class Run:
    requests: int
    messages: int
    seconds: float
    errors: int
    latencies_ms: dict[str, float]
    cpu_cores: dict[str, float]
    db: dict[str, int]  # pg_stat_database deltas over the window
    memory: dict[str, dict[str, float]]  # MB, sampled as the window closed
    error_samples: list[str] = field(default_factory=list)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def mps(self) -> float:
        return self.messages / self.seconds if self.seconds else 0.0

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["requests_per_s"] = round(self.rps, 1)
        d["messages_per_s"] = round(self.mps, 1)
        per = max(self.requests, 1)
        d["per_request"] = {
            "api_cpu_ms": round(self.cpu_cores["api"] * self.seconds * 1000 / per, 3),
            "pg_cpu_ms": round(self.cpu_cores["pg"] * self.seconds * 1000 / per, 3),
            "commits": round(self.db.get("xact_commit", 0) / per, 2),
            "rollbacks": round(self.db.get("xact_rollback", 0) / per, 2),
            "connections_opened": round(self.db.get("sessions", 0) / per, 4),
        }
        return d


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0, "mean": 0.0}
    s = sorted(values)

    def rank(q: float) -> float:  # nearest rank
        return s[min(len(s) - 1, max(0, int(q * len(s) + 0.5) - 1))]

    return {
        "p50": round(rank(0.50), 2),
        "p95": round(rank(0.95), 2),
        "p99": round(rank(0.99), 2),
        "max": round(s[-1], 2),
        "mean": round(statistics.fmean(s), 2),
    }


# --------------------------------------------------------------------------- load: httpx


async def drive_httpx(
    base_url: str,
    paths: list[str],
    bodies: list[bytes],
    sc: Scenario,
    warmup: float,
    seconds: float,
    window: Window,
) -> Run:
    """`concurrency` clients in closed loop; only requests started and finished in the window count."""
    limits = httpx.Limits(max_connections=sc.concurrency, max_keepalive_connections=sc.concurrency)
    headers = {"content-type": "application/json"}
    latencies: list[float] = []
    errors: list[str] = []
    ok = 0
    t_start = time.perf_counter()
    win_from = t_start + warmup
    win_to = win_from + seconds

    async with httpx.AsyncClient(
        base_url=base_url, limits=limits, timeout=httpx.Timeout(30.0), headers=headers
    ) as client:

        async def one_client(i: int) -> None:
            nonlocal ok
            path = paths[i % len(paths)]
            k = i * 7919
            while True:
                t0 = time.perf_counter()
                if t0 >= win_to:
                    return
                k += 1
                err: str | None = None
                try:
                    r = await client.post(path, content=bodies[k % len(bodies)])
                    if r.status_code != 201:
                        err = f"HTTP {r.status_code}: {r.text[:200]}"
                except httpx.HTTPError as exc:
                    err = f"{type(exc).__name__}: {exc}"
                t1 = time.perf_counter()
                if t0 >= win_from and t1 <= win_to:
                    if err is None:
                        ok += 1
                        latencies.append((t1 - t0) * 1000)
                    else:
                        errors.append(err)

        async def meter() -> tuple[dict[str, float], dict[str, int]]:
            await asyncio.sleep(max(win_from - time.perf_counter(), 0))
            await window.start(own_cpu())
            await asyncio.sleep(max(win_to - time.perf_counter(), 0))
            return await window.stop(own_cpu())

        meter_task = asyncio.create_task(meter())
        await asyncio.gather(*(one_client(i) for i in range(sc.concurrency)))
        cpu, db = await meter_task
    return Run(
        requests=ok,
        messages=ok * sc.batch,
        seconds=seconds,
        errors=len(errors),
        latencies_ms=percentiles(latencies),
        cpu_cores=cpu,
        db=db,
        memory=window.memory,
        error_samples=sorted(set(errors))[:5],
    )


# --------------------------------------------------------------------------- load: wrk

_LUA = """
local paths = {%(paths)s}
local bodies = {%(bodies)s}
local headers = {["Content-Type"] = "application/json"}
local threads = %(threads)d
local next_tid = 0
function setup(thread)
  thread:set("tid", next_tid)
  next_tid = next_tid + 1
end
local mine = {}
local counter = 0
function init(args)
  -- this thread's share of the sessions: its connections write to these, round robin
  for i = 1, #paths do
    if (i - 1) %% threads == tid then mine[#mine + 1] = paths[i] end
  end
  if #mine == 0 then mine = paths end
  counter = tid * 7919
end
function request()
  counter = counter + 1
  return wrk.format("POST", mine[counter %% #mine + 1], headers, bodies[counter %% #bodies + 1])
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCHJSON {"requests":%%d,"duration_us":%%d,"connect":%%d,"read":%%d,"write":%%d,' ..
    '"status":%%d,"timeout":%%d,"p50":%%.1f,"p95":%%.1f,"p99":%%.1f,"max":%%.1f,"mean":%%.1f}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max, latency.mean))
end
"""


def _lua_long(s: str) -> str:
    level = 1
    while f"]{'=' * level}]" in s:
        level += 1
    return f"[{'=' * level}[{s}]{'=' * level}]"


def write_lua(path: Path, paths: list[str], bodies: list[bytes], threads: int) -> None:
    path.write_text(
        _LUA
        % {
            "paths": ",".join(_lua_long(p) for p in paths),
            "bodies": ",\n".join(_lua_long(b.decode()) for b in bodies),
            "threads": threads,
        }
    )


WRK_ERRORS = ("connect", "read", "write", "status", "timeout")  # the error counts of run_wrk's result


async def run_wrk(
    base_url: str, script: Path, threads: int, conns: int, seconds: float, *, latency: bool = False
) -> dict[str, float]:
    """Run wrk with a script that prints one `BENCHJSON {...}` line; returns that object."""
    proc = await asyncio.create_subprocess_exec(
        "wrk",
        f"-t{threads}",
        f"-c{conns}",
        f"-d{max(1, round(seconds))}s",
        *(["--latency"] if latency else []),
        "--timeout",
        "30s",
        "-s",
        str(script),
        base_url,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        out, _ = await proc.communicate()
    finally:
        if proc.returncode is None:  # cancelled (Ctrl-C): stop wrk before leaving
            proc.kill()
            await proc.wait()
    text = out.decode(errors="replace")
    for line in text.splitlines():
        if line.startswith("BENCHJSON "):
            parsed: dict[str, float] = json.loads(line.removeprefix("BENCHJSON "))
            return parsed
    raise RuntimeError(f"wrk failed ({proc.returncode}):\n{text[-2000:]}")


async def drive_wrk(
    base_url: str,
    paths: list[str],
    bodies: list[bytes],
    sc: Scenario,
    warmup: float,
    seconds: float,
    window: Window,
    workdir: Path,
) -> Run:
    threads = min(2, sc.concurrency)
    script = workdir / f"append-{uuid.uuid4().hex[:8]}.lua"
    write_lua(script, paths, bodies, threads)
    if warmup > 0:
        await run_wrk(base_url, script, threads, sc.concurrency, warmup)
    await window.start(children_cpu())
    res = await run_wrk(base_url, script, threads, sc.concurrency, seconds)
    cpu, db = await window.stop(children_cpu())  # wrk has been reaped: its CPU is in RUSAGE_CHILDREN
    script.unlink()
    errors = int(sum(res[k] for k in WRK_ERRORS))
    ok = int(res["requests"]) - int(res["status"])
    return Run(
        requests=ok,
        messages=ok * sc.batch,
        seconds=res["duration_us"] / 1e6,
        errors=errors,
        latencies_ms={k: round(res[k] / 1000, 2) for k in ("p50", "p95", "p99", "max", "mean")},
        cpu_cores=cpu,
        db=db,
        memory=window.memory,
        error_samples=[f"{k}: {int(res[k])}" for k in WRK_ERRORS if res[k]],
    )


# --------------------------------------------------------------------------- orchestration


async def make_sessions(base_url: str, prefix: str, count: int) -> list[str]:
    paths = []
    async with httpx.AsyncClient(base_url=base_url, timeout=30.0) as client:
        for i in range(count):
            sid = f"{prefix}-{i}"
            r = await client.post("/v1/sessions", json={"session_id": sid, "user_id": f"bench-user-{i % 8}"})
            r.raise_for_status()
            paths.append(f"/v1/sessions/{sid}/messages")
    return paths


async def run_all(
    args: argparse.Namespace,
    base_url: str,
    db_url: str,
    scenarios: list[Scenario],
    targets: Targets,
    workdir: Path,
    progress: Callable[[str], None],
) -> dict[Scenario, list[Run]]:
    bodies = {1: make_bodies(1, 512, seed=1), BATCH: make_bodies(BATCH, 32, seed=2)}
    runs: dict[Scenario, list[Run]] = {sc: [] for sc in scenarios}
    db = await asyncpg.connect(db_url)
    try:
        await _run_all(args, base_url, db, scenarios, targets, workdir, progress, bodies, runs)
    finally:
        await db.close()
    return runs


async def _run_all(
    args: argparse.Namespace,
    base_url: str,
    db: Any,
    scenarios: list[Scenario],
    targets: Targets,
    workdir: Path,
    progress: Callable[[str], None],
    bodies: dict[int, list[bytes]],
    runs: dict[Scenario, list[Run]],
) -> None:
    # Repeats are interleaved (A B C, A B C, ...) so slow drift on a noisy machine spreads evenly.
    for rep in range(args.repeat):
        for sc in scenarios:
            prefix = f"bench-{sc.label}-c{sc.concurrency}-r{rep}-{uuid.uuid4().hex[:6]}"
            paths = await make_sessions(base_url, prefix, 1 if sc.hot else sc.concurrency)
            if args.quiet_below > 0:
                await wait_for_quiet(targets, args.quiet_below, args.quiet_wait, progress)
            window = Window(targets, db)
            if args.client == "wrk":
                run = await drive_wrk(
                    base_url, paths, bodies[sc.batch], sc, args.warmup, args.seconds, window, workdir
                )
            else:
                run = await drive_httpx(
                    base_url, paths, bodies[sc.batch], sc, args.warmup, args.seconds, window
                )
            runs[sc].append(run)
            per = run.as_dict()["per_request"]
            progress(
                f"  run {rep + 1}/{args.repeat} {sc.label:<13} c={sc.concurrency:<3}"
                f"{run.rps:7.0f} req/s{run.mps:8.0f} msg/s  p99 {run.latencies_ms['p99']:6.1f} ms  "
                f"err {run.errors}  cores {run.cpu_cores}  per req: api {per['api_cpu_ms']} ms CPU, "
                f"pg {per['pg_cpu_ms']} ms, {per['commits']} commits, {per['rollbacks']} rollbacks, "
                f"{per['connections_opened']} new conns"
            )
            await asyncio.sleep(args.pause)


def median_run(runs: list[Run]) -> Run:
    ordered = sorted(runs, key=lambda r: r.mps)
    return ordered[(len(ordered) - 1) // 2]


def summarize(scenarios: list[Scenario], runs: dict[Scenario, list[Run]]) -> list[dict[str, Any]]:
    rows = []
    for sc in scenarios:
        med = median_run(runs[sc])
        rows.append(
            {
                "scenario": sc.label,
                "batch": sc.batch,
                "concurrency": sc.concurrency,
                "sessions": 1 if sc.hot else sc.concurrency,
                "median": med.as_dict(),
                "runs_messages_per_s": [round(r.mps, 1) for r in runs[sc]],
                "runs": [r.as_dict() for r in runs[sc]],
            }
        )
    return rows


def format_table(rows: list[dict[str, Any]]) -> str:
    head = (
        f"{'scenario':<14}{'conc':>5}{'req/s':>8}{'msg/s':>8}{'p50 ms':>8}{'p95 ms':>8}{'p99 ms':>8}"
        f"{'errors':>7}  {'msg/s min..max':<15}{'cores api/pg/client/other':>26}{'CPU ms/req api/pg':>19}"
    )
    lines = [head, "-" * len(head)]
    for row in rows:
        m = row["median"]
        lat, cpu, per = m["latencies_ms"], m["cpu_cores"], m["per_request"]
        spread = f"{min(row['runs_messages_per_s']):.0f}..{max(row['runs_messages_per_s']):.0f}"
        cores = f"{cpu['api']:.2f}/{cpu['pg']:.2f}/{cpu['client']:.2f}/{cpu['other']:.2f}"
        ms = f"{per['api_cpu_ms']:.2f}/{per['pg_cpu_ms']:.2f}"
        lines.append(
            f"{row['scenario']:<14}{row['concurrency']:>5}{m['requests_per_s']:>8.0f}{m['messages_per_s']:>8.0f}"
            f"{lat['p50']:>8.1f}{lat['p95']:>8.1f}{lat['p99']:>8.1f}{m['errors']:>7}  {spread:<15}"
            f"{cores:>26}{ms:>19}"
        )
    return "\n".join(lines)


def check_targets(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    checks = []
    batch_rows = [r for r in rows if r["batch"] == BATCH and r["sessions"] > 1]
    if batch_rows:
        best = max(batch_rows, key=lambda r: r["median"]["messages_per_s"])
        mps = best["median"]["messages_per_s"]
        checks.append(
            {
                "target": f">= {TARGET_BATCH_MPS:,.0f} messages/s with batches of {BATCH}",
                "measured": f"{mps:,.0f} messages/s (best median, concurrency {best['concurrency']})",
                "met": mps >= TARGET_BATCH_MPS,
            }
        )
    single16 = [r for r in rows if r["batch"] == 1 and r["concurrency"] == 16 and r["sessions"] > 1]
    if single16:
        m = single16[0]["median"]
        met = m["requests_per_s"] >= TARGET_SINGLE_RPS and m["latencies_ms"]["p99"] < TARGET_SINGLE_P99_MS
        checks.append(
            {
                "target": f"single-message POST >= {TARGET_SINGLE_RPS:,.0f}/s with p99 < "
                f"{TARGET_SINGLE_P99_MS:.0f} ms at concurrency 16",
                "measured": f"{m['requests_per_s']:,.0f}/s, p99 {m['latencies_ms']['p99']:.1f} ms",
                "met": met,
            }
        )
    return checks


def machine_info() -> dict[str, Any]:
    model = platform.processor() or ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
    }


def git_commit() -> str | None:
    """HEAD, with `+dirty` when app/ or migrations/ differ from it (read-only git calls)."""
    with contextlib.suppress(OSError, subprocess.CalledProcessError):

        def git(*cmd: str) -> str:
            return subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True, check=True).stdout

        dirty = git("status", "--porcelain", "--", "app", "migrations").strip()
        return git("rev-parse", "--short", "HEAD").strip() + ("+dirty" if dirty else "")
    return None


def pg_version(url: str) -> str:
    async def ask() -> str:
        conn = await asyncpg.connect(url)
        try:
            return str(await conn.fetchval("SHOW server_version"))
        finally:
            await conn.close()

    return asyncio.run(ask())


def bench_one_config(
    args: argparse.Namespace, workers: int, scenarios: list[Scenario], say: Callable[[str], None]
) -> dict[str, Any]:
    """A fresh PostgreSQL and API for `workers` API processes; the scenarios against them."""
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="engram-bench-")))
        say(f"[api-workers={workers}] starting embedded PostgreSQL in {tmp}")
        pg = start_embedded(tmp)
        stack.callback(pg.stop)
        asyncio.run(upgrade(pg.url, EMBEDDING_DIM))
        port = free_port()
        base_url = f"http://127.0.0.1:{port}"
        log = args.api_log.with_suffix(f".w{workers}.log") if args.api_log else tmp / "api.log"
        api = start_api(args.engram, pg.url, port, workers, args.with_worker, log)
        stack.callback(stop, api)
        wait_ready(base_url, api, timeout=300, output=log_tail(log))
        targets = Targets(api_pid=api.pid, pg_pid=postmaster_pid(pg))
        say(f"[api-workers={workers}] API pid {api.pid} on {base_url}; PostgreSQL pid {targets.pg_pid}")
        if args.pause_for_profiler:
            say(f"[api-workers={workers}] press Enter to start the load")
            input()
        runs = asyncio.run(run_all(args, base_url, pg.url, scenarios, targets, tmp, say))
        rows = summarize(scenarios, runs)
        memory = {
            group: {
                k: max(r.memory[group][k] for rs in runs.values() for r in rs) for k in ("rss_mb", "pss_mb")
            }
            for group in ("api", "postgres")
        }
        return {
            "api_workers": workers,
            "postgres": pg_version(pg.url),
            "scenarios": rows,
            "memory_peak": memory,
            "targets": check_targets(rows),
        }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add = p.add_argument
    add("--seconds", type=float, default=10.0, help="measured time per run (default 10)")
    add("--warmup", type=float, default=3.0, help="warm-up before each run (default 3)")
    add("--repeat", type=int, default=3, help="runs per scenario; the median is shown (default 3)")
    add("--api-workers", type=int, nargs="+", default=[1], help="API processes (one config per value)")
    add(
        "--client",
        choices=["auto", "httpx", "wrk"],
        default="auto",
        help="load generator; auto = wrk when on PATH, else httpx (default auto)",
    )
    add("--concurrency", type=int, nargs="+", default=[1, 16, 64], help="concurrencies (default 1 16 64)")
    add("--only", nargs="+", default=None, help="scenarios: single single-hot batch100 batch100-hot")
    add("--pause", type=float, default=0.5, help="seconds of rest between runs")
    add("--engram", type=Path, default=Path(sys.executable).parent / "engram", help="the engram command")
    add("--out", type=Path, default=None, help="JSON file (default bench/results/append-<time>.json)")
    add("--quiet-below", type=float, default=0.25, help="before a run, wait until other load < this (cores)")
    add("--quiet-wait", type=float, default=30.0, help="longest wait for that, in seconds (default 30)")
    add(
        "--with-worker", action="store_true", help="run the embedding worker inside the API (serve's default)"
    )
    add("--api-log", type=Path, default=None, help="keep the API's output here (default: discarded)")
    add("--pause-for-profiler", action="store_true", help="wait for Enter once the API is up")
    args = p.parse_args(argv)
    have_wrk = shutil.which("wrk") is not None
    if args.client == "auto":
        args.client = "wrk" if have_wrk else "httpx"
    elif args.client == "wrk" and not have_wrk:
        p.error("--client wrk needs `wrk` on PATH (apt-get install wrk)")
    return args


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM and SIGINT (even when started with SIGINT ignored, as `cmd &` does) stop the run."""

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    previous_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, previous_int)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    scenarios = default_scenarios(args.concurrency)
    if args.only:
        scenarios = [sc for sc in scenarios if sc.label in args.only]
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    report: dict[str, Any] = {
        "benchmark": "append",
        "started_at": stamp,
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "client": args.client,
        "seconds": args.seconds,
        "warmup": args.warmup,
        "repeat": args.repeat,
        "with_worker": args.with_worker,
        "machine": machine_info(),
        "commit": git_commit(),
        "configs": [],
    }
    try:
        with sigterm_as_interrupt():
            for workers in args.api_workers:
                report["configs"].append(bench_one_config(args, workers, scenarios, say))
    except KeyboardInterrupt:
        say("interrupted: everything started was stopped")
        return 130

    m = report["machine"]
    print(
        f"\nEngram append benchmark - {m['cores']} cores ({m['cpu']}), {m['memory_gb']} GB, "
        f"Python {m['python']}; client {args.client}; {args.seconds:g}s per run after "
        f"{args.warmup:g}s warm-up; median of {args.repeat} runs; embedding worker "
        f"{'inside the API' if args.with_worker else 'off'}"
    )
    for cfg in report["configs"]:
        mem = cfg["memory_peak"]
        print(f"\nAPI workers: {cfg['api_workers']}  (PostgreSQL {cfg['postgres']})")
        print(format_table(cfg["scenarios"]))
        print(
            f"memory (highest at the end of a run): API RSS {mem['api']['rss_mb']:.0f} MB; PostgreSQL "
            f"PSS {mem['postgres']['pss_mb']:.0f} MB (RSS summed over its processes, shared "
            f"buffers counted in each: {mem['postgres']['rss_mb']:.0f} MB)"
        )
        for t in cfg["targets"]:
            print(f"target {t['target']}: {t['measured']} -> {'met' if t['met'] else 'NOT met'}")
    out = args.out or ROOT / "bench" / "results" / f"append-{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Indexing benchmarks of Engram (issue 3): searchable throughput and write-to-searchable lag.

Everything runs as deployed: a fresh embedded PostgreSQL in a temporary directory, `engram serve`
as its own process for the writes, and `engram worker` as another process for the embeddings
(or the worker embedded in `engram serve`, ENGRAM_RUN_WORKER=true, where a scenario says so).

    .venv/bin/python -m bench.indexing throughput            # backends x batch sizes, 3 runs each
    .venv/bin/python -m bench.indexing lag                   # 100 msg/s for 60 s, 4 worker setups
    .venv/bin/python -m bench.indexing throughput --backends onnx-int8 --batch-sizes 128 --repeat 1
    .venv/bin/python -m bench.indexing lengths               # the raw model by message length

throughput: N chat messages (20-400 chars, ~50 tokens on average) are appended through the API
while no worker runs; then `engram worker` starts and drains the queue. Messages made searchable
per second come from the database: embedded_at is stamped on every row as its vector is stored,
and the rate is (N - first batch) / (last embedded_at - first embedded_at), i.e. from the end of
the first batch to the end of the last (the first batch pays the model's warm-up). The sentences'
vectors come after (app/indexing/sentence_tasks.py): "refined" is the rate until the last of them
is stored too (to within a 0.25 s poll), from the same first embedded_at. The raw model
runs in another fresh process with the same settings, as the worker runs it: LocalEmbedder.encode
on the same texts, in batches of the worker's size, ENGRAM_WORKER_MODEL_CALLS of them at once on
the worker's threads (app/runtime.for_worker), timed the same way (first batch excluded).
Worker and raw runs alternate, so drift on a shared machine touches both.

lag: single-message appends at a fixed rate (open loop: message i is sent at t0 + i/rate
whatever happened before) to 20 sessions; each message's lag is embedded_at (database clock)
minus the moment its 201 arrived (client clock; same machine, same clock). After the window the
script waits for the queue to drain, so late messages are counted, not dropped.

Results go to bench/results/indexing-<time>.json; the tables are printed (Markdown).
Other ENGRAM_* variables in the environment pass through to every process started.
--app-dir DIR runs the started processes (API, worker, raw model) on another copy of the `app`
package (e.g. a snapshot of the code before a change), for A/B runs in one sitting.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from app.db.embedded import start_embedded
from app.db.migrate import upgrade
from bench.append import (
    cpu_seconds,
    git_commit,
    machine_busy_seconds,
    machine_info,
    postmaster_pid,
    sigterm_as_interrupt,
    tree,
)
from bench.chat_text import chat_messages
from tests.support.procs import free_port, log_tail, stop, wait_ready

ROOT = Path(__file__).resolve().parents[1]

EMBEDDING_DIM = 384
ENGRAM = Path(sys.executable).parent / "engram"
MODEL_CACHE = ROOT / ".engram" / "models"  # exported ONNX files, shared by every process started
TARGET_RATIO = 0.90
TARGET_MPS = 400.0
TARGET_LAG_P50_MS = 250.0
TARGET_LAG_P95_MS = 1000.0
REDIS_URL = "redis://127.0.0.1:6379/11"  # a db of its own (pub/sub channels are server-wide, though)

Say = Callable[[str], None]
APP_DIR: Path | None = None  # --app-dir: children import `app` from here instead
_LAUNCH = (
    "import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]; "
    "sys.path[:0] = [{app!r}, {root!r}]; "
)


def engram_cmd(command: str) -> list[str]:
    if APP_DIR is None:
        return [str(ENGRAM), command]
    code = _LAUNCH.format(app=str(APP_DIR), root=str(ROOT))
    return [
        sys.executable,
        "-c",
        code + f"sys.argv = ['engram', {command!r}]; from app.cli import app; app()",
    ]


def raw_cmd(args: list[str]) -> list[str]:
    if APP_DIR is None:
        return [sys.executable, "-m", "bench.indexing", "raw", *args]
    code = _LAUNCH.format(app=str(APP_DIR), root=str(ROOT))
    return [sys.executable, "-c", code + f"from bench.indexing import raw_main; sys.exit(raw_main({args!r}))"]


def say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- processes


def engram_env(url: str, **extra: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ENGRAM_REDIS_URL"}
    env.update(
        ENGRAM_DATABASE_URL=url,
        ENGRAM_HOST="127.0.0.1",
        ENGRAM_AUTH="off",
        ENGRAM_LOG_LEVEL="warning",
        ENGRAM_MIGRATE_ON_START="false",
        ENGRAM_MODEL_CACHE_DIR=str(MODEL_CACHE),
    )
    for key, value in extra.items():
        if value is None:
            env.pop(f"ENGRAM_{key.upper()}", None)
        else:
            env[f"ENGRAM_{key.upper()}"] = value
    return env


def spawn(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            args,
            env=env,
            cwd=ROOT,  # `python -m bench.…` children import `bench` from here
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C reaches this script only; it stops the children itself
        )


@dataclass
class Stack:
    """The embedded PostgreSQL of one benchmark, and the processes started against it."""

    tmp: Path
    url: str
    pg_pid: int
    procs: list[subprocess.Popen[bytes]]

    def api(self, port: int, **env: str | None) -> subprocess.Popen[bytes]:
        proc = spawn(engram_cmd("serve"), engram_env(self.url, port=str(port), **env), self.tmp / "api.log")
        self.procs.append(proc)
        wait_ready(f"http://127.0.0.1:{port}", proc, timeout=300, output=log_tail(self.tmp / "api.log"))
        return proc

    def worker(self, **env: str | None) -> subprocess.Popen[bytes]:
        proc = spawn(engram_cmd("worker"), engram_env(self.url, **env), self.tmp / "worker.log")
        self.procs.append(proc)
        return proc

    def stop(self, proc: subprocess.Popen[bytes]) -> None:
        stop(proc)
        if proc in self.procs:
            self.procs.remove(proc)


@contextlib.contextmanager
def stack() -> Any:
    with tempfile.TemporaryDirectory(prefix="engram-idx-") as d:
        tmp = Path(d)
        say(f"starting embedded PostgreSQL in {tmp}")
        pg = start_embedded(tmp)
        procs: list[subprocess.Popen[bytes]] = []
        try:
            asyncio.run(upgrade(pg.url, EMBEDDING_DIM))
            yield Stack(tmp=tmp, url=pg.url, pg_pid=postmaster_pid(pg), procs=procs)
        finally:
            for proc in procs:
                stop(proc)
            pg.stop()


class Cpu:
    """CPU seconds used by a set of process trees (exited children included) and by the machine."""

    def __init__(self, groups: dict[str, int]) -> None:
        self.groups = groups
        self.t0 = time.perf_counter()
        self.before = {name: self._used(pid) for name, pid in groups.items()}
        self.busy0 = machine_busy_seconds()

    @staticmethod
    def _used(pid: int) -> float:
        return sum(cpu_seconds(tree(pid)).values())

    def cores(self) -> dict[str, float]:
        """Cores used per group (1.0 = one core busy the whole time), `other` for the rest."""
        elapsed = time.perf_counter() - self.t0
        used = {name: self._used(pid) - self.before[name] for name, pid in self.groups.items()}
        busy = machine_busy_seconds() - self.busy0
        used["other"] = max(busy - sum(used.values()), 0.0)  # this script and everyone else
        return {k: round(v / elapsed, 3) for k, v in used.items()}


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def wait_load_below(limit: float, max_wait: float) -> list[float]:
    """Wait (bounded) until the 1-minute load average is under `limit`; returns the load then."""
    deadline = time.monotonic() + max_wait
    shown = False
    while os.getloadavg()[0] >= limit and time.monotonic() < deadline:
        if not shown:
            say(f"  load {loadavg()} >= {limit}: waiting up to {max_wait:.0f}s")
            shown = True
        time.sleep(5)
    return loadavg()


def percentiles(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {}
    s = sorted(values)

    def rank(q: float) -> float:  # nearest rank
        return s[min(len(s) - 1, max(0, int(q * len(s) + 0.5) - 1))]

    return {
        "p50": round(rank(0.50), 1),
        "p95": round(rank(0.95), 1),
        "p99": round(rank(0.99), 1),
        "max": round(s[-1], 1),
        "mean": round(statistics.fmean(s), 1),
    }


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else float("nan")


# --------------------------------------------------------------------------- appends


async def make_sessions(client: httpx.AsyncClient, prefix: str, count: int, users: int) -> list[str]:
    sids = []
    for i in range(count):
        sid = f"{prefix}-s{i}"
        r = await client.post("/v1/sessions", json={"session_id": sid, "user_id": f"{prefix}-u{i % users}"})
        r.raise_for_status()
        sids.append(sid)
    return sids


async def append_all(base_url: str, msgs: list[dict[str, Any]], sessions: int = 50) -> float:
    """Append `msgs` in batches of 100 over `sessions` sessions (4 at a time); returns seconds."""
    prefix = f"tp-{uuid.uuid4().hex[:6]}"
    async with httpx.AsyncClient(base_url=base_url, timeout=60.0) as client:
        sids = await make_sessions(client, prefix, sessions, users=10)
        batches = [msgs[i : i + 100] for i in range(0, len(msgs), 100)]
        queue = list(enumerate(batches))
        t0 = time.perf_counter()

        async def one() -> None:
            while queue:
                i, batch = queue.pop(0)
                r = await client.post(
                    f"/v1/sessions/{sids[i % len(sids)]}/messages", json={"messages": batch}
                )
                r.raise_for_status()

        await asyncio.gather(*(one() for _ in range(4)))
        return time.perf_counter() - t0


# --------------------------------------------------------------------------- throughput


def raw_main(argv: Sequence[str]) -> int:
    """Child process: the raw model on the given texts, in batches; prints one JSON line."""
    p = argparse.ArgumentParser()
    p.add_argument("--texts", type=Path, required=True)
    p.add_argument("--batch", type=int, required=True)
    a = p.parse_args(argv)
    from app.ai.local_embedder import LocalEmbedder
    from app.config import Settings
    from app.runtime import for_worker

    texts: list[str] = json.loads(a.texts.read_text())
    # The model as the worker runs it (app/runtime.for_worker): its threads, and its calls at once.
    settings = for_worker(Settings())
    emb = LocalEmbedder(settings)
    t_load = time.perf_counter()
    emb.load()
    load_s = time.perf_counter() - t_load
    batches = [texts[i : i + a.batch] for i in range(0, len(texts), a.batch)]
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    emb.encode(batches[0])  # warm-up, like the worker's first batch (not counted on either side)
    t1 = time.perf_counter()
    with ThreadPoolExecutor(settings.worker_model_calls) as calls:
        list(calls.map(emb.encode, batches[1:]))
    t2 = time.perf_counter()
    cpu = time.process_time() - cpu0
    n = len(texts) - len(batches[0])
    print(
        json.dumps(
            {
                "messages": n,
                "seconds": t2 - t1,
                "first_batch_s": t1 - t0,
                "load_s": load_s,
                "mps": n / (t2 - t1),
                "cpu_cores": cpu / (t2 - t0),
            }
        )
    )
    return 0


def lengths_main(argv: Sequence[str]) -> int:
    """The raw model by message length: msg/s and tokens/s per bucket (what a target depends on)."""
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--per-bucket", type=int, default=1024)
    p.add_argument("--backends", nargs="+", default=["onnx-int8", "onnx", "torch"])
    a = p.parse_args(argv)
    from app.ai.local_embedder import LocalEmbedder
    from app.config import Settings

    pool = [m["content"] for m in chat_messages(40_000, seed=5)]
    buckets = [(20, 60), (60, 120), (120, 200), (200, 300), (300, 400), (20, 400)]
    rows = []
    for backend in a.backends:
        emb = LocalEmbedder(Settings(local_embedder_backend=backend, model_cache_dir=MODEL_CACHE))
        emb.load()
        tok = emb._tokenizer
        if tok is None:  # torch: count with the same tokenizer file
            from tokenizers import Tokenizer

            from app.ai.local_embedder import packaged_model_dir

            tok = Tokenizer.from_file(str(packaged_model_dir() / "tokenizer.json"))
            tok.no_padding()
        emb.encode(pool[:128])
        for lo, hi in buckets:
            texts = [t for t in pool if lo <= len(t) < hi + (1 if hi == 400 else 0)][: a.per_bucket]
            tokens = sum(len(e.ids) - e.ids.count(0) for e in tok.encode_batch(texts))
            t0 = time.perf_counter()
            for i in range(0, len(texts), a.batch):
                emb.encode(texts[i : i + a.batch])
            dt = time.perf_counter() - t0
            rows.append(
                {
                    "backend": backend,
                    "chars": f"{lo}-{hi}",
                    "messages": len(texts),
                    "tokens_per_msg": round(tokens / len(texts), 1),
                    "mps": round(len(texts) / dt, 1),
                    "tokens_per_s": round(tokens / dt),
                    "load": loadavg(),
                }
            )
            say(json.dumps(rows[-1]))
    print(json.dumps(rows))
    return 0


def run_raw(texts_file: Path, backend: str, batch: int, threads: int | None) -> dict[str, Any]:
    env = engram_env(
        "postgresql://unused",
        local_embedder_backend=backend,
        worker_batch_size=str(batch),
        embedder_threads=None if threads is None else str(threads),
    )
    out = subprocess.run(
        raw_cmd(["--texts", str(texts_file), "--batch", str(batch)]),
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=1800,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


async def drain(
    st: Stack, n: int, backend: str, batch: int, threads: int | None, profile: Path | None
) -> dict[str, Any]:
    """Start `engram worker` on a full queue, wait until it is empty, read the rate from the DB."""
    db = await asyncpg.connect(st.url)
    try:
        t_start = time.perf_counter()
        worker = st.worker(
            local_embedder_backend=backend,
            worker_batch_size=str(batch),
            embedder_threads=None if threads is None else str(threads),
        )
        cpu = Cpu({"worker": worker.pid, "pg": st.pg_pid})
        spy: subprocess.Popen[bytes] | None = None
        if profile is not None:
            spy = subprocess.Popen(  # noqa: ASYNC220 - started once, not awaited
                [
                    str(Path(sys.executable).parent / "py-spy"),
                    "record",
                    "--pid",
                    str(worker.pid),
                    "--rate",
                    "200",
                    "--format",
                    "raw",
                    "--threads",
                    "--idle",
                    "--output",
                    str(profile),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        deadline = time.monotonic() + 1800
        while True:
            pending = await db.fetchval("SELECT count(*) FROM messages WHERE embed_status = 'pending'")
            if pending == 0 or time.monotonic() > deadline or worker.poll() is not None:
                break
            await asyncio.sleep(0.25)
        wall = time.perf_counter() - t_start
        cores = cpu.cores()
        # Searchable now; the sentences' vectors follow (app/indexing/sentence_tasks.py).
        while pending == 0 and time.monotonic() < deadline and worker.poll() is None:
            if not await db.fetchval("SELECT count(*) FROM message_sentences WHERE due_at IS NOT NULL"):
                break
            await asyncio.sleep(0.25)
        refined = float(await db.fetchval("SELECT extract(epoch FROM clock_timestamp())"))
        if spy is not None:
            spy.send_signal(signal.SIGINT)
            spy.wait(timeout=60)
        st.stop(worker)
        if pending:
            raise RuntimeError(f"the worker left {pending} messages pending; see {st.tmp / 'worker.log'}")
        row = await db.fetchrow(
            "SELECT count(*) AS n, extract(epoch FROM min(embedded_at)) AS t0, "
            "extract(epoch FROM max(embedded_at)) AS t1, "
            "count(*) FILTER (WHERE embed_status <> 'done') AS not_done FROM messages"
        )
        assert row["n"] == n and row["not_done"] == 0, dict(row)
        span = float(row["t1"] - row["t0"])
        counted = n - min(batch, n)
        return {
            "messages": counted,
            "seconds": span,
            "mps": counted / span,
            # Searchable and refined (sentences too), to within a poll (0.25 s).
            "refined_mps": counted / (refined - float(row["t0"])),
            "wall_s_incl_start": wall,
            "cpu_cores": cores,
        }
    finally:
        await db.close()


async def reset_messages(url: str) -> None:
    db = await asyncpg.connect(url)
    try:
        await db.execute("TRUNCATE messages, message_sentences")
        await db.execute("VACUUM ANALYZE sessions")
        await db.execute("CHECKPOINT")
    finally:
        await db.close()


def throughput(args: argparse.Namespace) -> dict[str, Any]:
    msgs = chat_messages(args.n, seed=42)
    texts = [m["content"] for m in msgs]
    configs = [(b, bs) for b in args.backends for bs in args.batch_sizes]
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        f"{b}/{bs}": {"worker": [], "raw": []} for b, bs in configs
    }
    with stack() as st:
        texts_file = st.tmp / "texts.json"
        texts_file.write_text(json.dumps(texts))
        port = free_port()
        st.api(port, run_worker="false")
        base = f"http://127.0.0.1:{port}"
        for rep in range(args.repeat):
            for backend, bs in configs:
                key = f"{backend}/{bs}"
                load = wait_load_below(args.load_below, args.load_wait)
                raw = run_raw(texts_file, backend, bs, args.threads)
                raw["load"] = load
                runs[key]["raw"].append(raw)
                asyncio.run(reset_messages(st.url))
                append_s = asyncio.run(append_all(base, msgs))
                load = wait_load_below(args.load_below, args.load_wait)
                profile = None
                if args.profile and rep == 0:
                    profile = ROOT / "bench" / "results" / f"worker-profile-{backend}-{bs}.txt"
                    profile.parent.mkdir(parents=True, exist_ok=True)
                w = asyncio.run(drain(st, len(msgs), backend, bs, args.threads, profile))
                w["load"] = load
                w["append_s"] = append_s
                runs[key]["worker"].append(w)
                say(
                    f"  run {rep + 1}/{args.repeat} {key:<16} worker {w['mps']:6.0f} msg/s "
                    f"(refined {w['refined_mps']:4.0f})  raw "
                    f"{raw['mps']:6.0f} msg/s  ratio {w['mps'] / raw['mps']:5.1%}  cores "
                    f"{w['cpu_cores']}  load {load}"
                )
    rows = []
    for backend, bs in configs:
        r = runs[f"{backend}/{bs}"]
        wm = median([x["mps"] for x in r["worker"]])
        rm = median([x["mps"] for x in r["raw"]])
        ratios = [w["mps"] / raw["mps"] for w, raw in zip(r["worker"], r["raw"], strict=True)]
        rows.append(
            {
                "backend": backend,
                "batch": bs,
                "worker_mps": round(wm, 1),
                "refined_mps": round(median([x["refined_mps"] for x in r["worker"]]), 1),
                "raw_mps": round(rm, 1),
                "ratio": round(wm / rm, 3),
                "ratio_per_run_median": round(median(ratios), 3),
                "worker_runs": [round(x["mps"], 1) for x in r["worker"]],
                "raw_runs": [round(x["mps"], 1) for x in r["raw"]],
                "worker_cores": {
                    k: round(median([x["cpu_cores"][k] for x in r["worker"]]), 2)
                    for k in ("worker", "pg", "other")
                },
                "raw_cores": round(median([x["cpu_cores"] for x in r["raw"]]), 2),
                "loads": [x["load"][0] for x in r["worker"] + r["raw"]],
                "runs": r,
            }
        )
    return {"n": args.n, "threads": args.threads, "rows": rows}


def throughput_table(res: dict[str, Any]) -> str:
    lines = [
        "| backend | batch | worker msg/s | refined msg/s | raw msg/s | worker/raw | worker runs | raw runs "
        "| cores worker/pg/other | load (1-min) |",
        "|---|---:|---:|---:|---:|---:|---|---|---|---|",
    ]
    for r in res["rows"]:
        c = r["worker_cores"]
        lines.append(
            f"| {r['backend']} | {r['batch']} | {r['worker_mps']:.0f} | {r['refined_mps']:.0f} | "
            f"{r['raw_mps']:.0f} | "
            f"{r['ratio']:.0%} | {', '.join(f'{x:.0f}' for x in r['worker_runs'])} | "
            f"{', '.join(f'{x:.0f}' for x in r['raw_runs'])} | "
            f"{c['worker']:.2f}/{c['pg']:.2f}/{c['other']:.2f} | "
            f"{min(r['loads']):.2f}-{max(r['loads']):.2f} |"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------- lag

LAG_MODES = {
    # name: (worker inside `engram serve`, Redis wake-ups)
    "worker": (False, False),
    "worker+redis": (False, True),
    "embedded": (True, False),
    "embedded+redis": (True, True),
}


async def drive_rate(base_url: str, rate: float, seconds: float, sessions: int, seed: int) -> dict[str, Any]:
    """Open loop: message i is POSTed at t0 + i/rate; returns (message_id, ack time) pairs."""
    msgs = chat_messages(int(rate * seconds) + 200, seed=seed)
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    acks: list[tuple[str, float, float]] = []  # message_id, ack epoch, POST latency (s)
    errors: list[str] = []
    late: list[float] = []
    async with httpx.AsyncClient(base_url=base_url, timeout=30.0, limits=limits) as client:
        prefix = f"lag-{uuid.uuid4().hex[:6]}"
        sids = await make_sessions(client, prefix, sessions, users=5)
        # warm-up: a few messages so the first measured one does not pay for cold caches
        for i in range(20):
            await client.post(
                f"/v1/sessions/{sids[i % sessions]}/messages", json={"messages": [msgs[-i - 1]]}
            )
        await asyncio.sleep(2.0)

        async def post(i: int) -> None:
            t0 = time.perf_counter()
            try:
                r = await client.post(
                    f"/v1/sessions/{sids[i % sessions]}/messages", json={"messages": [msgs[i]]}
                )
                ack = time.time()
                if r.status_code != 201:
                    errors.append(f"HTTP {r.status_code}")
                    return
                acks.append((r.json()["messages"][0]["message_id"], ack, time.perf_counter() - t0))
            except httpx.HTTPError as exc:
                errors.append(type(exc).__name__)

        tasks = []
        count = int(rate * seconds)
        start = time.perf_counter() + 0.05
        for i in range(count):
            due = start + i / rate
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            else:
                late.append(-delay)
            tasks.append(asyncio.create_task(post(i)))
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - start
    return {"acks": acks, "errors": errors, "sent": count, "elapsed": elapsed, "late_ms": late}


async def lag_once(st: Stack, mode: str, args: argparse.Namespace, rep: int) -> dict[str, Any]:
    embedded, redis = LAG_MODES[mode]
    redis_url = REDIS_URL if redis else None
    await reset_messages(st.url)
    port = free_port()
    api = st.api(port, run_worker="true" if embedded else "false", redis_url=redis_url)
    worker = None if embedded else st.worker(redis_url=redis_url)
    db = await asyncpg.connect(st.url)
    try:
        # the separate worker loads its model in ~1-2 s; wait until it has embedded something
        await asyncio.sleep(3.0)
        groups = {"api": api.pid, "pg": st.pg_pid}
        if worker is not None:
            groups["worker"] = worker.pid
        cpu = Cpu(groups)
        load = loadavg()
        drove = await drive_rate(f"http://127.0.0.1:{port}", args.rate, args.seconds, 20, seed=100 + rep)
        cores = cpu.cores()
        deadline = time.monotonic() + 60
        while await db.fetchval("SELECT count(*) FROM messages WHERE embed_status = 'pending'"):
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.1)
        ids = [uuid.UUID(a[0]) for a in drove["acks"]]
        rows = await db.fetch(
            "SELECT message_id, extract(epoch FROM embedded_at) AS e FROM messages "
            "WHERE message_id = ANY($1::uuid[])",
            ids,
        )
        embedded_at = {r["message_id"]: float(r["e"]) if r["e"] is not None else None for r in rows}
        batches = await db.fetch(
            "SELECT count(*) AS n FROM messages WHERE message_id = ANY($1::uuid[]) GROUP BY embedded_at",
            ids,
        )
    finally:
        await db.close()
        if worker is not None:
            st.stop(worker)
        st.stop(api)
    lags, missing = [], 0
    for mid, ack, _ in drove["acks"]:
        e = embedded_at.get(uuid.UUID(mid))
        if e is None:
            missing += 1
        else:
            lags.append((e - ack) * 1000)
    sizes = [r["n"] for r in batches]
    return {
        "mode": mode,
        "sent": drove["sent"],
        "acked": len(drove["acks"]),
        "errors": len(drove["errors"]),
        "not_embedded": missing,
        "achieved_rate": round(len(drove["acks"]) / drove["elapsed"], 1),
        "lag_ms": percentiles(lags),
        "negative_lags": sum(1 for x in lags if x < 0),
        "post_ms": percentiles([a[2] * 1000 for a in drove["acks"]]),
        "sender_late_ms": percentiles([x * 1000 for x in drove["late_ms"]]) if drove["late_ms"] else {},
        "rows_per_embedded_at": {"mean": round(statistics.fmean(sizes), 2), "max": max(sizes)}
        if sizes
        else {},
        "cpu_cores": cores,
        "load": load,
    }


def lag(args: argparse.Namespace) -> dict[str, Any]:
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in args.modes}
    with stack() as st:
        for rep in range(args.repeat):
            for mode in args.modes:
                wait_load_below(args.load_below, args.load_wait)
                r = asyncio.run(lag_once(st, mode, args, rep))
                runs[mode].append(r)
                say(
                    f"  run {rep + 1}/{args.repeat} {mode:<15} lag p50 {r['lag_ms'].get('p50')} ms  "
                    f"p95 {r['lag_ms'].get('p95')}  p99 {r['lag_ms'].get('p99')}  rate "
                    f"{r['achieved_rate']}/s  POST p50 {r['post_ms'].get('p50')} ms  errors "
                    f"{r['errors']}  missing {r['not_embedded']}  cores {r['cpu_cores']}  load {r['load']}"
                )
    rows = []
    for mode in args.modes:
        rs = runs[mode]
        rows.append(
            {
                "mode": mode,
                "lag_ms": {
                    q: round(median([r["lag_ms"][q] for r in rs]), 1) for q in ("p50", "p95", "p99", "max")
                },
                "post_ms": {q: round(median([r["post_ms"][q] for r in rs]), 1) for q in ("p50", "p99")},
                "runs_p50_p95": [(r["lag_ms"]["p50"], r["lag_ms"]["p95"]) for r in rs],
                "rate": median([r["achieved_rate"] for r in rs]),
                "errors": sum(r["errors"] + r["not_embedded"] for r in rs),
                "cores": {
                    k: round(median([r["cpu_cores"].get(k, 0.0) for r in rs]), 2)
                    for k in ("api", "worker", "pg", "other")
                },
                "loads": [r["load"][0] for r in rs],
                "runs": rs,
            }
        )
    return {"rate": args.rate, "seconds": args.seconds, "rows": rows}


def lag_table(res: dict[str, Any]) -> str:
    lines = [
        "| setup | lag p50 ms | p95 | p99 | max | runs (p50/p95) | POST p50/p99 ms | msg/s | "
        "cores api/worker/pg/other | load |",
        "|---|---:|---:|---:|---:|---|---|---:|---|---|",
    ]
    for r in res["rows"]:
        lag_, c = r["lag_ms"], r["cores"]
        runs = ", ".join(f"{a:.0f}/{b:.0f}" for a, b in r["runs_p50_p95"])
        lines.append(
            f"| {r['mode']} | {lag_['p50']:.0f} | {lag_['p95']:.0f} | {lag_['p99']:.0f} | "
            f"{lag_['max']:.0f} | "
            f"{runs} | {r['post_ms']['p50']:.1f}/{r['post_ms']['p99']:.1f} | {r['rate']:.0f} | "
            f"{c['api']:.2f}/{c['worker']:.2f}/{c['pg']:.2f}/{c['other']:.2f} | "
            f"{min(r['loads']):.2f}-{max(r['loads']):.2f} |"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------- main


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    for name in ("throughput", "lag", "all"):
        s = sub.add_parser(name)
        s.add_argument("--repeat", type=int, default=3, help="runs per scenario; medians reported")
        s.add_argument("--load-below", type=float, default=1.0, help="wait for a 1-min load under this")
        s.add_argument("--load-wait", type=float, default=120.0, help="longest wait for it (seconds)")
        s.add_argument("--out", type=Path, default=None)
        s.add_argument("--app-dir", type=Path, default=None, help="run children on this copy of `app`")
        if name in ("throughput", "all"):
            s.add_argument("--n", type=int, default=6000, help="messages per run (default 6000)")
            s.add_argument("--backends", nargs="+", default=["onnx-int8", "onnx", "torch"])
            s.add_argument("--batch-sizes", type=int, nargs="+", default=[64, 128, 256])
            s.add_argument(
                "--threads",
                type=int,
                default=None,
                help="ENGRAM_EMBEDDER_THREADS (default: unset, the worker's own choice)",
            )
            s.add_argument("--profile", action="store_true", help="py-spy the worker in the first run")
        if name in ("lag", "all"):
            s.add_argument("--rate", type=float, default=100.0, help="messages per second (default 100)")
            s.add_argument("--seconds", type=float, default=60.0, help="length of a run (default 60)")
            s.add_argument("--modes", nargs="+", default=list(LAG_MODES), choices=list(LAG_MODES))
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "raw":
        return raw_main(argv[1:])
    if argv and argv[0] == "lengths":
        return lengths_main(argv[1:])
    args = parse_args(argv)
    global APP_DIR
    APP_DIR = args.app_dir.resolve().parent if args.app_dir else None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    report: dict[str, Any] = {
        "benchmark": "indexing",
        "started_at": stamp,
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine_info(),
        "commit": git_commit(),
        "load_at_start": loadavg(),
        "env": {k: v for k, v in os.environ.items() if k.startswith("ENGRAM_")},
        "app_dir": str(APP_DIR) if APP_DIR else None,
    }
    try:
        with sigterm_as_interrupt():
            if args.what in ("throughput", "all"):
                report["throughput"] = throughput(args)
            if args.what in ("lag", "all"):
                report["lag"] = lag(args)
    except KeyboardInterrupt:
        say("interrupted: everything started was stopped")
        return 130
    report["load_at_end"] = loadavg()
    m = report["machine"]
    print(f"\nEngram indexing benchmark - {m['cores']} cores ({m['cpu']}), {m['memory_gb']} GB")
    if "throughput" in report:
        t = report["throughput"]
        print(f"\nSearchable throughput: {t['n']} messages per run, median of {args.repeat} runs")
        print(throughput_table(t))
        for r in t["rows"]:
            ok = r["ratio"] >= TARGET_RATIO and r["worker_mps"] >= TARGET_MPS
            print(
                f"target {r['backend']}/{r['batch']}: worker/raw {r['ratio']:.0%} (>= 90%), "
                f"{r['worker_mps']:.0f} msg/s (>= 400) -> {'met' if ok else 'NOT met'}"
            )
    if "lag" in report:
        lg = report["lag"]
        print(f"\nWrite-to-searchable lag at {lg['rate']:g} msg/s for {lg['seconds']:g}s, median of runs")
        print(lag_table(lg))
        for r in lg["rows"]:
            ok = r["lag_ms"]["p50"] < TARGET_LAG_P50_MS and r["lag_ms"]["p95"] < TARGET_LAG_P95_MS
            print(f"target {r['mode']}: p50 < 250 ms, p95 < 1 s -> {'met' if ok else 'NOT met'}")
    out = args.out or ROOT / "bench" / "results" / f"indexing-{args.what}-{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Mixed-load soak of Engram (issue 6): 70 % GET memory, 20 % appends, 10 % searches, for minutes.

What it runs, all fresh and stopped on exit (Ctrl-C included): an embedded PostgreSQL in a
temporary directory (migrated), a redis-server of its own on a free loopback port, `engram serve`
with --api-procs API processes (ENGRAM_WORKERS, no embedded worker) and --workers `engram worker`
processes, each serving its Prometheus metrics. Or, with --base-url, an Engram already running
(auth off, or --api-key): then nothing is started or seeded unless asked, and RSS / worker
backlog are sampled only for the --api-pid / --worker-pid / --worker-metrics given.

Seed: --users users with --sessions sessions of --messages realistic chat messages
(bench/chat_text.py), appended through the API; then the worker drains what that queued
(embeddings, summaries, facts) before the clock starts, so the soak starts from a steady state.

Load: requests of the mix chosen at random per request (--mix, default 70/20/10):
    memory  GET /v1/sessions/{id}/memory?max_tokens=2000 of a random session
    append  POST a user + assistant pair to a random session (new summaries and facts follow)
    search  POST /v1/search, hybrid, limit 10, scoped to a random user, a generated query
either open loop at --rate requests/s (each request is due on schedule, whatever the others do;
at most --concurrency in flight: one due while all are busy goes when one answers, and counts as
late; the run ends on time, and a saturated service shows as fewer requests sent than offered)
or, with --rate 0, closed loop with --concurrency clients each sending its next request when the
last one answered.

Every --sample seconds a row of the series: per operation the requests that ended in the window,
their p50 / p99 latency (client side) and errors (a non-2xx or a transport error); RSS of the API
processes and of the workers (psutil, each process tree with its children); the backlog: the
embeddings pending (GET /v1/indexing) and the worker's gauges per kind (summarize, extract).

Output: a summary table on stdout (error rate, p50 / p99 per operation over the whole run, RSS
start / end / max, backlog max / end), the series as JSON and CSV in bench/results/soak-<time>.*
(with the started processes' logs beside them: soak-<time>-api.log, -worker.log), and a plot to
--plot (default docs/soak.png; needs matplotlib: `pip install -e '.[bench]'`). Backlog readings
that fail are listed apart (they are not requests of the load). Exit status 1 when any request
failed: the error rate must be 0.

    .venv/bin/python -m bench.soak.run                               # 10 minutes, the defaults
    .venv/bin/python -m bench.soak.run --duration 90 --sample 5      # a quick check
    .venv/bin/python -m bench.soak.run --rate 0 --concurrency 32     # closed loop, as fast as it goes
    .venv/bin/python -m bench.soak.run --base-url http://127.0.0.1:8000 --duration 60 --seed-data
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import json
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from bench.append import git_commit, machine_info, sigterm_as_interrupt, tree
from bench.chat_text import chat_messages, query_texts
from bench.indexing import Stack, make_sessions, percentiles, say, stack
from bench.memory import start_redis
from tests.support.procs import free_port

ROOT = Path(__file__).resolve().parents[2]

OPS = ("memory", "append", "search")
BACKLOG_KINDS = ("embed", "summarize", "extract")
APPEND_BATCH = 500


# --------------------------------------------------------------------------- the deployment


@dataclass
class Target:
    """Where the load goes, and what is sampled besides the answers."""

    base_url: str
    api_pid: int | None = None
    worker_pids: list[int] = field(default_factory=list)
    worker_metrics: list[str] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)


@contextlib.contextmanager
def deployment(args: argparse.Namespace) -> Iterator[Target]:
    """A fresh PostgreSQL, Redis, `engram serve` and `engram worker`(s), stopped on exit."""
    with stack() as st:
        rs = start_redis(st.tmp, None)
        try:
            port = free_port()
            env = {"redis_url": rs.url, "run_worker": "false", "workers": str(args.api_procs)}
            api = st.api(port, **env)
            _wait_for_children(api, args.api_procs)
            metrics_ports = [free_port() for _ in range(args.workers)]
            workers = [
                st.worker(redis_url=rs.url, worker_metrics_port=str(p), embedder_threads=str(args.threads))
                for p in metrics_ports
            ]
            say(
                f"engram serve ({args.api_procs} API processes) on :{port}, "
                f"{args.workers} engram worker(s); logs in {st.tmp}"
            )
            yield Target(
                base_url=f"http://127.0.0.1:{port}",
                api_pid=api.pid,
                worker_pids=[w.pid for w in workers],
                worker_metrics=[f"http://127.0.0.1:{p}/metrics" for p in metrics_ports],
            )
        finally:
            _stop_all(st)
            rs.stop()
            for log in st.tmp.glob("*.log"):  # the temporary directory goes; the logs stay
                shutil.copy(log, args.logs.with_name(f"{args.logs.name}-{log.name}"))


def _wait_for_children(api: subprocess.Popen[bytes], procs: int) -> None:
    """/readyz answered from one process; give the others their start-up (model load) too."""
    if procs <= 1:
        return
    deadline = time.monotonic() + 60
    while len(tree(api.pid)) <= procs and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(3.0)


def _stop_all(st: Stack) -> None:
    for proc in list(st.procs):
        st.stop(proc)


def rss_mb(pids: Sequence[int]) -> float:
    """Resident memory of these processes and all their children, summed."""
    total = 0
    for pid in pids:
        for p in tree(pid):
            with contextlib.suppress(Exception):
                total += p.memory_info().rss
    return round(total / 2**20, 1)


# --------------------------------------------------------------------------- seed


async def seed(client: httpx.AsyncClient, args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """Users and sessions with their first messages, through the API; returns (sessions, users)."""
    t0 = time.perf_counter()
    prefix = f"soak-{random.Random(args.seed).randrange(16**6):06x}"
    sids = await make_sessions(client, prefix, args.sessions, users=args.users)
    users = sorted({f"{prefix}-u{i % args.users}" for i in range(args.sessions)})
    queue = list(enumerate(sids))

    async def loader() -> None:
        while queue:
            i, sid = queue.pop()
            msgs = chat_messages(args.messages, seed=args.seed * 100_003 + i)
            for k in range(0, len(msgs), APPEND_BATCH):
                r = await client.post(
                    f"/v1/sessions/{sid}/messages", json={"messages": msgs[k : k + APPEND_BATCH]}
                )
                r.raise_for_status()

    await asyncio.gather(*(loader() for _ in range(4)))
    say(
        f"seeded {len(users)} users, {len(sids)} sessions x {args.messages} messages "
        f"in {time.perf_counter() - t0:.0f}s"
    )
    return sids, users


async def discover(client: httpx.AsyncClient) -> tuple[list[str], list[str]]:
    """The sessions and users an existing deployment already has (first pages are enough)."""
    users: list[str] = []
    sids: list[str] = []
    r = await client.get("/v1/users", params={"limit": 200})
    r.raise_for_status()
    for u in r.json()["items"]:
        users.append(u["user_id"])
        s = await client.get("/v1/sessions", params={"user_id": u["user_id"], "limit": 50})
        s.raise_for_status()
        sids += [x["session_id"] for x in s.json()["items"]]
    if not sids:
        raise SystemExit("the deployment has no sessions: add --seed-data")
    return sids, users


async def backlog(client: httpx.AsyncClient, target: Target, failed: list[str]) -> dict[str, float]:
    """Embeddings pending (the API, exact now) and the worker's gauges per kind (refreshed every
    5 s). A reading that fails is left out of the row and its reason appended to `failed`."""
    out: dict[str, float] = {}
    try:
        r = await client.get("/v1/indexing")
        r.raise_for_status()
        out["embed"] = float(r.json()["pending"])
        out["embed_lag_s"] = float(r.json()["lag_seconds"])
    except (httpx.HTTPError, KeyError, ValueError) as exc:
        failed.append(f"GET /v1/indexing: {type(exc).__name__}: {exc}"[:300])
    for url in target.worker_metrics[:1]:  # every worker reports the same, database-wide, gauges
        try:
            r = await client.get(url)
            r.raise_for_status()
            for family in text_string_to_metric_families(r.text):
                for s in family.samples:
                    if s.name == "engram_worker_backlog" and s.labels.get("kind") in ("summarize", "extract"):
                        out[s.labels["kind"]] = s.value
        except (httpx.HTTPError, ValueError) as exc:
            failed.append(f"worker /metrics: {type(exc).__name__}: {exc}"[:300])
    return out


async def drain(client: httpx.AsyncClient, target: Target, limit: float) -> float:
    """Wait (bounded) until the seed's derived work is done; returns the seconds it took."""
    t0 = time.perf_counter()
    quiet = 0
    while time.perf_counter() - t0 < limit:
        left = await backlog(client, target, [])
        # Gauges lag by up to 5 s: two quiet readings in a row, 3 s apart.
        quiet = quiet + 1 if not any(left.get(k, 0) for k in BACKLOG_KINDS) else 0
        if quiet >= 2:
            break
        await asyncio.sleep(3.0)
    return time.perf_counter() - t0


# --------------------------------------------------------------------------- load


@dataclass
class Done:
    op: str
    at: float  # perf_counter when it ended
    ms: float
    ok: bool
    late_ms: float = 0.0  # open loop: how long after its scheduled start it was sent


class Load:
    def __init__(
        self, client: httpx.AsyncClient, sids: list[str], users: list[str], args: argparse.Namespace
    ):
        self.client = client
        self.sids = sids
        self.users = users
        self.rng = random.Random(args.seed)
        self.mix = args.mix
        self.queries = query_texts(500, seed=args.seed)
        self.turn = 10_000
        self.done: list[Done] = []
        self.errors: dict[str, int] = {}
        self.sample_errors: list[str] = []  # the sampler's own readings that failed
        self.offered = 0  # open loop: requests the rate asked for, and those sent in time
        self.sent = 0

    def pick(self) -> str:
        return self.rng.choices(OPS, weights=self.mix)[0]

    async def one(self, op: str, late_ms: float = 0.0) -> None:
        t0 = time.perf_counter()
        ok = False
        try:
            if op == "memory":
                sid = self.rng.choice(self.sids)
                r = await self.client.get(f"/v1/sessions/{sid}/memory", params={"max_tokens": 2000})
            elif op == "append":
                sid = self.rng.choice(self.sids)
                self.turn += 2
                pair = chat_messages(2, seed=self.turn)
                r = await self.client.post(f"/v1/sessions/{sid}/messages", json={"messages": pair})
            else:
                body = {
                    "query": self.rng.choice(self.queries),
                    "user_id": self.rng.choice(self.users),
                    "limit": 10,
                }
                r = await self.client.post("/v1/search", json=body)
            ok = r.is_success
            if not ok:
                self._error(op, f"{r.status_code} {r.text[:200]}")
        except httpx.HTTPError as exc:
            self._error(op, f"{type(exc).__name__}: {exc}")
        now = time.perf_counter()
        self.done.append(Done(op, now, (now - t0) * 1000, ok, late_ms))

    def _error(self, op: str, what: str) -> None:
        key = f"{op}: {what}"
        if key not in self.errors:
            say(f"  !! {key}")
        self.errors[key] = self.errors.get(key, 0) + 1

    async def open_loop(self, rate: float, limit: int, until: float) -> None:
        """Request i is due at t0 + i / rate. At most `limit` are in flight: one due while all are
        busy is sent when one answers (its `late_ms` says how late). The run ends on time; what a
        saturated service left unsent shows as `sent` < `offered`."""
        slots = asyncio.Semaphore(limit)
        tasks: set[asyncio.Task[None]] = set()
        t0 = time.perf_counter()
        self.offered = int((until - t0) * rate)
        i = 0
        while i < self.offered:
            due = t0 + i / rate
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            try:
                await asyncio.wait_for(slots.acquire(), timeout=max(0.0, until - time.perf_counter()))
            except TimeoutError:
                break
            late = (time.perf_counter() - due) * 1000

            async def run(op: str, late: float) -> None:
                try:
                    await self.one(op, late)
                finally:
                    slots.release()

            task = asyncio.create_task(run(self.pick(), late))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            i += 1
        self.sent = i
        await asyncio.gather(*tasks)

    async def closed_loop(self, clients: int, until: float) -> None:
        async def client() -> None:
            while time.perf_counter() < until:
                await self.one(self.pick())

        await asyncio.gather(*(client() for _ in range(clients)))


# --------------------------------------------------------------------------- sampling


def window_row(done: Sequence[Done], t: float, seconds: float) -> dict[str, Any]:
    row: dict[str, Any] = {"t": round(t, 1)}
    for op in OPS:
        mine = [d for d in done if d.op == op]
        lat = percentiles([d.ms for d in mine if d.ok])
        row[f"{op}_n"] = len(mine)
        row[f"{op}_rps"] = round(len(mine) / seconds, 1)
        row[f"{op}_errors"] = sum(not d.ok for d in mine)
        row[f"{op}_p50_ms"] = lat.get("p50")
        row[f"{op}_p99_ms"] = lat.get("p99")
    row["late_p99_ms"] = percentiles([d.late_ms for d in done]).get("p99", 0.0)
    return row


async def sampler(
    load: Load, target: Target, every: float, t0: float, stop: asyncio.Event
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    seen = 0
    last = t0
    async with httpx.AsyncClient(base_url=target.base_url, headers=target.headers, timeout=10) as c:
        while True:
            stopped = False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=max(0.0, last + every - time.perf_counter()))
                stopped = True
            now = time.perf_counter()
            done = load.done[seen:]
            seen += len(done)
            row = window_row(done, now - t0, max(now - last, 1e-6))
            row["api_rss_mb"] = rss_mb([target.api_pid]) if target.api_pid else None
            row["worker_rss_mb"] = rss_mb(target.worker_pids) if target.worker_pids else None
            failed: list[str] = []
            left = await backlog(c, target, failed)
            for what in failed:
                say(f"  !! sampling: {what}")
            load.sample_errors += failed
            for k in (*BACKLOG_KINDS, "embed_lag_s"):
                row[f"backlog_{k}"] = left.get(k)
            rows.append(row)
            say(progress(row))
            last = now
            if stopped:
                return rows


def progress(row: dict[str, Any]) -> str:
    ops = "  ".join(
        f"{op} {row[f'{op}_rps']:.0f}/s p50 {_f(row[f'{op}_p50_ms'])} p99 {_f(row[f'{op}_p99_ms'])}"
        + (f" ERR {row[f'{op}_errors']}" if row[f"{op}_errors"] else "")
        for op in OPS
    )
    return (
        f"  t={row['t']:>6.0f}s  {ops}  "
        f"rss api {_f(row['api_rss_mb'])} worker {_f(row['worker_rss_mb'])} MB  "
        f"backlog {'/'.join(_f(row[f'backlog_{k}'], 0) for k in BACKLOG_KINDS)}"
    )


def _f(v: float | None, digits: int = 1) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


# --------------------------------------------------------------------------- the run


async def soak(args: argparse.Namespace, target: Target) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=args.concurrency, max_keepalive_connections=args.concurrency)
    async with httpx.AsyncClient(
        base_url=target.base_url, headers=target.headers, timeout=60, limits=limits
    ) as c:
        sids, users = await seed(c, args) if args.seed_data else await discover(c)
        drained = await drain(c, target, args.drain_limit) if args.drain_limit > 0 else 0.0
        say(f"backlog drained in {drained:.0f}s; soak for {args.duration:.0f}s")
        load = Load(c, sids, users, args)
        stop = asyncio.Event()
        t0 = time.perf_counter()
        sampling = asyncio.create_task(sampler(load, target, args.sample, t0, stop))
        until = t0 + args.duration
        if args.rate > 0:
            await load.open_loop(args.rate, args.concurrency, until)
        else:
            await load.closed_loop(args.concurrency, until)
        stop.set()
        rows = await sampling
        elapsed = time.perf_counter() - t0
    return {
        "sessions": len(sids),
        "users": len(users),
        "drain_seconds": round(drained, 1),
        "elapsed_seconds": round(elapsed, 1),
        "series": rows,
        "summary": summarize(load, rows, elapsed),
        "errors": load.errors,
        "sample_errors": load.sample_errors,
    }


def summarize(load: Load, rows: Sequence[dict[str, Any]], elapsed: float) -> dict[str, Any]:
    total = len(load.done)
    failed = sum(not d.ok for d in load.done)
    ops = {}
    for op in OPS:
        mine = [d for d in load.done if d.op == op]
        lat = percentiles([d.ms for d in mine if d.ok])
        ops[op] = {
            "requests": len(mine),
            "share": round(len(mine) / total, 3) if total else 0.0,
            "rps": round(len(mine) / elapsed, 1),
            "errors": sum(not d.ok for d in mine),
            "p50_ms": lat.get("p50"),
            "p99_ms": lat.get("p99"),
        }
        # The p99 of the worst window: a run that degrades over time shows it here first.
        worst = [r[f"{op}_p99_ms"] for r in rows if r[f"{op}_p99_ms"] is not None]
        ops[op]["worst_window_p99_ms"] = max(worst) if worst else None

    def series(key: str) -> dict[str, float | None]:
        vals = [r[key] for r in rows if r.get(key) is not None]
        if not vals:
            return {"start": None, "end": None, "max": None}
        return {"start": vals[0], "end": vals[-1], "max": max(vals)}

    return {
        "requests": total,
        "errors": failed,
        "error_rate": round(failed / total, 6) if total else 0.0,
        "rps": round(total / elapsed, 1),
        "late_p99_ms": percentiles([d.late_ms for d in load.done]).get("p99", 0.0),
        "offered": load.offered or None,
        "sent": load.sent or None,
        "ops": ops,
        "rss_mb": {"api": series("api_rss_mb"), "worker": series("worker_rss_mb")},
        "backlog": {k: series(f"backlog_{k}") for k in (*BACKLOG_KINDS, "embed_lag_s")},
    }


def summary_table(s: dict[str, Any]) -> str:
    lines = [
        f"requests {s['requests']:,} ({s['rps']:.1f}/s), errors {s['errors']} "
        f"(error rate {s['error_rate']:.4%}; must be 0)"
        + (
            f"; open loop: {s['sent']:,} of {s['offered']:,} offered requests sent, "
            f"p99 {s['late_p99_ms']:.0f} ms late"
            if s["offered"]
            else ""
        ),
        "",
        "| operation | requests | share | req/s | errors | p50 ms | p99 ms | worst window p99 ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for op, o in s["ops"].items():
        lines.append(
            f"| {op} | {o['requests']:,} | {o['share']:.0%} | {o['rps']:.1f} | {o['errors']} | "
            f"{_f(o['p50_ms'])} | {_f(o['p99_ms'])} | {_f(o['worst_window_p99_ms'])} |"
        )
    lines += ["", "| series | start | end | max |", "|---|---:|---:|---:|"]
    for name, v in [(f"RSS {k} MB", x) for k, x in s["rss_mb"].items()] + [
        (f"backlog {k}", x) for k, x in s["backlog"].items()
    ]:
        lines.append(f"| {name} | {_f(v['start'])} | {_f(v['end'])} | {_f(v['max'])} |")
    return "\n".join(lines)


def write_csv(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def plot(path: Path, rows: Sequence[dict[str, Any]], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = [r["t"] for r in rows]
    fig, axes = plt.subplots(4, 1, figsize=(10, 11), sharex=True)
    colors = {"memory": "tab:blue", "append": "tab:orange", "search": "tab:green"}
    lat, rate, rss, back = axes
    for op in OPS:
        lat.plot(t, [r[f"{op}_p50_ms"] for r in rows], color=colors[op], ls="--", label=f"{op} p50")
        lat.plot(t, [r[f"{op}_p99_ms"] for r in rows], color=colors[op], label=f"{op} p99")
        rate.plot(t, [r[f"{op}_rps"] for r in rows], color=colors[op], label=op)
    errors = [(x, n) for x, r in zip(t, rows, strict=True) if (n := sum(r[f"{op}_errors"] for op in OPS))]
    total = sum(n for _, n in errors)
    rate.plot([x for x, _ in errors], [n for _, n in errors], "rx", label=f"errors: {total}")
    lat.set_yscale("log")
    lat.set_ylabel("latency ms (log)")
    rate.set_ylabel("requests/s")
    for key, label in (("api_rss_mb", "engram serve (all processes)"), ("worker_rss_mb", "engram worker")):
        rss.plot(t, [r[key] for r in rows], label=label)
    rss.set_ylabel("RSS MB")
    rss.set_ylim(bottom=0)
    for k in BACKLOG_KINDS:
        back.plot(t, [r[f"backlog_{k}"] for r in rows], label=k)
    back.set_ylabel("backlog (items)")
    back.set_ylim(bottom=0)
    back.set_xlabel("seconds into the soak")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", fontsize=8, ncol=3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add = p.add_argument
    add("--duration", type=float, default=600.0, help="seconds of load (default 600)")
    add("--sample", type=float, default=10.0, help="seconds per row of the series (default 10)")
    add("--rate", type=float, default=100.0, help="requests/s, open loop; 0: closed loop (default 100)")
    add("--concurrency", type=int, default=32, help="most requests in flight / clients (default 32)")
    add("--mix", type=float, nargs=3, default=[70, 20, 10], metavar=("MEMORY", "APPEND", "SEARCH"))
    add("--users", type=int, default=200, help="users to seed (default 200)")
    add("--sessions", type=int, default=400, help="sessions to seed, spread over the users (default 400)")
    add("--messages", type=int, default=20, help="messages per seeded session (default 20)")
    add("--api-procs", type=int, default=2, help="API processes of engram serve (default 2)")
    add("--workers", type=int, default=1, help="engram worker processes (default 1)")
    add("--threads", type=int, default=2, help="ENGRAM_EMBEDDER_THREADS of each worker (default 2)")
    add("--drain-limit", type=float, default=300.0, help="longest wait for the seed's backlog (0: none)")
    add("--seed", type=int, default=1, help="seed of the data and of the request mix")
    add("--base-url", default=None, help="load an Engram already running here instead of starting one")
    add("--api-key", default=None, help="with --base-url: Bearer key (auth on)")
    add("--api-pid", type=int, default=None, help="with --base-url: PID of engram serve, for RSS")
    add("--worker-pid", type=int, nargs="*", default=[], help="with --base-url: PIDs of the workers")
    add("--worker-metrics", nargs="*", default=[], help="with --base-url: the workers' /metrics URLs")
    add(
        "--seed-data",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="seed (default: unless --base-url)",
    )
    add("--plot", type=Path, default=ROOT / "docs" / "soak.png", help="PNG (default docs/soak.png)")
    add("--out", type=Path, default=None, help="JSON (default bench/results/soak-<time>.json; CSV beside it)")
    args = p.parse_args(argv)
    if args.seed_data is None:
        args.seed_data = args.base_url is None
    if args.duration <= 0 or args.sample <= 0 or args.concurrency < 1:
        p.error("--duration, --sample and --concurrency must be positive")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out = args.out or ROOT / "bench" / "results" / f"soak-{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    args.logs = out.with_suffix("")  # the started processes' logs: <out>-api.log, ...
    report: dict[str, Any] = {
        "benchmark": "soak",
        "started_at": stamp,
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine_info(),
        "commit": git_commit(),
        "settings": {
            k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items() if k != "api_key"
        },
    }
    try:
        with sigterm_as_interrupt():
            if args.base_url is None:
                with deployment(args) as target:
                    found = asyncio.run(soak(args, target))
            else:
                target = Target(
                    base_url=args.base_url.rstrip("/"),
                    api_pid=args.api_pid,
                    worker_pids=args.worker_pid,
                    worker_metrics=args.worker_metrics,
                    headers={"Authorization": f"Bearer {args.api_key}"} if args.api_key else {},
                )
                found = asyncio.run(soak(args, target))
    except KeyboardInterrupt:
        say("interrupted: everything started was stopped")
        return 130
    report.update(found)
    s = found["summary"]
    m = report["machine"]
    loop = f"open loop {args.rate:g} req/s" if args.rate > 0 else f"closed loop x{args.concurrency}"
    title = (
        f"Engram soak: {args.duration:g}s, {loop}, mix {'/'.join(f'{x:g}' for x in args.mix)} "
        f"memory/append/search, {args.api_procs} API + {args.workers} worker process(es); "
        f"{m['cores']} cores; errors {s['errors']}"
    )
    print(f"\n{title}\n{found['users']} users, {found['sessions']} sessions\n")
    print(summary_table(s))
    if found["errors"]:
        print("\nerrors:\n" + "\n".join(f"  {n} x {k}" for k, n in found["errors"].items()))
    if found["sample_errors"]:
        print(f"\n{len(found['sample_errors'])} backlog readings failed (not requests of the load):")
        print("\n".join(f"  {e}" for e in found["sample_errors"][:10]))
    out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    write_csv(out.with_suffix(".csv"), found["series"])
    print(f"\nwrote {out} and {out.with_suffix('.csv').name}")
    try:
        plot(args.plot, found["series"], title)
        print(f"wrote {args.plot}")
    except ImportError:
        print("no plot: matplotlib is missing (pip install -e '.[bench]')")
    return 1 if s["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())

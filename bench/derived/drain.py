"""Derived-work throughput: how long the worker takes to drain a fixed backlog of fact extraction
and summaries, and how many text-rule calls (the worker's child processes, app/jobs/cpu.py) were
in flight at once. The question behind ENGRAM_WORKER_CPU_PROCESSES (issue 16: each child is
~40 MB PSS).

    .venv/bin/python -m bench.derived.drain --children 1
    .venv/bin/python -m bench.derived.drain --children 2

LoCoMo dev (all five conversations; figures only are printed) is ingested through the API of an
in-process Engram (its worker running, as bench/locomo/ingest.py starts it). Once every message is
searchable, an extraction and a forced summary of every session are asked for at once (no wait);
the clock runs from the first append (which queues derived work too) until every session reports
both done. Printed: those seconds, the text-rule calls, the most in flight at once, and the share
of the time some call was running. Run the two settings interleaved, one after the other.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable
from typing import Any

from app.jobs import cpu
from bench.locomo import data, ingest

POLL_SECONDS = 0.2


def _timed(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """Run in the child: the call's result and the CPU seconds it took there."""
    started = time.process_time()
    result = fn(*args, **kwargs)
    return result, time.process_time() - started


class InFlight:
    """Counts the pool's calls as the worker makes them (CpuPool.__call__ wrapped)."""

    def __init__(self) -> None:
        self.now = self.peak = self.calls = 0
        self.busy = 0.0  # seconds during which at least one call ran
        self.cpu = 0.0  # CPU seconds of the calls, in the children
        self._since = 0.0

    def install(self) -> None:
        original = cpu.CpuPool.__call__
        counter = self

        async def counted(pool: cpu.CpuPool, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
            counter.enter()
            try:
                result, seconds = await original(pool, _timed, fn, *args, **kwargs)
                counter.cpu += seconds
                return result
            finally:
                counter.leave()

        cpu.CpuPool.__call__ = counted  # type: ignore[method-assign]

    def enter(self) -> None:
        if self.now == 0:
            self._since = time.perf_counter()
        self.now += 1
        self.calls += 1
        self.peak = max(self.peak, self.now)

    def leave(self) -> None:
        self.now -= 1
        if self.now == 0:
            self.busy += time.perf_counter() - self._since


async def drained(api: Any, sid: str, up_to: int) -> bool:
    extraction = await ingest.ok(await api.get(f"/v1/sessions/{sid}/extraction"))
    summary = await ingest.ok(await api.get(f"/v1/sessions/{sid}/summary"))
    return bool(
        extraction["extracted_seq"] >= extraction["last_seq"]
        and extraction["job"] is None
        and not extraction["pending_changes"]
        and summary["summarized_seq"] >= up_to
        and summary["job"] is None
    )


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--children", type=int, required=True, help="ENGRAM_WORKER_CPU_PROCESSES")
    ap.add_argument("--data", default=data.DEFAULT_DATA)
    args = ap.parse_args()
    counter = InFlight()
    counter.install()
    convs = data.load(args.data)
    async with ingest.engram(overrides={"worker_cpu_processes": args.children}) as api:
        sessions: list[str] = []
        started = time.perf_counter()  # the appends queue derived work too: timed from the first
        for conv in convs:
            done = await ingest.ingest(api, conv)
            sessions += done.sessions
        await ingest.wait_searchable(api)
        searchable = time.perf_counter() - started
        up_to: dict[str, int] = {}
        for sid in sessions:
            await ingest.ok(await api.post(f"/v1/sessions/{sid}/extract"))
            accepted = await ingest.ok(await api.post(f"/v1/sessions/{sid}/summarize"))
            up_to[sid] = int(accepted["up_to_seq"])
        pending = set(sessions)
        while pending:
            pending = {sid for sid in pending if not await drained(api, sid, up_to[sid])}
            if pending:
                await asyncio.sleep(POLL_SECONDS)
        seconds = time.perf_counter() - started
    print(
        f"children {args.children}: {len(sessions)} sessions searchable after {searchable:.1f} s, "
        f"all derived work done after {seconds:.1f} s; {counter.calls} text-rule calls, at most "
        f"{counter.peak} in flight; some call running {counter.busy:.1f} s "
        f"({counter.busy / seconds:.0%} of the time), {counter.cpu:.1f} s of CPU in the children"
    )


if __name__ == "__main__":
    asyncio.run(main())

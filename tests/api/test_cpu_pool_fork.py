"""The text-rule children are forked from multiprocessing's fork server after it imported the
rules and the token counter's table (app/jobs/cpu.py), so those pages are the children's
in common instead of one copy each (spawned children: ~70 MB PSS apiece)."""

from __future__ import annotations

import os

import psutil

from app.jobs.cpu import CpuPool
from app.worker import CPU_RULES
from tests.support.procs import anonymous_kb


async def test_rule_children_come_from_a_preloaded_fork_server_and_share_its_pages() -> None:
    pool = CpuPool(processes=2, budget_seconds=30.0, preload=CPU_RULES)
    try:
        parents = {await pool(os.getppid) for _ in range(6)}
        children = {await pool(os.getpid) for _ in range(6)}
        assert os.getpid() not in parents  # not spawned by this process: forked by the server
        (server,) = parents
        assert "forkserver" in " ".join(psutil.Process(server).cmdline())
        assert all(psutil.Process(c).ppid() == server for c in children)
        for pid in children:
            anon, pss = anonymous_kb(pid)
            # The rules' modules and the cl100k table (~45 MB) are the server's pages.
            assert pss < 0.6 * anon, (pid, anon, pss)
    finally:
        await pool.aclose()

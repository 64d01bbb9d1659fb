"""Imported by the worker's fork server for the text-rule children (app/jobs/cpu.py, listed in
app/worker.py's CPU_RULES): loads the configured token counter's table there, once. tiktoken keeps
it per process (cl100k: ~25 MB), so every child forked from the server shares those pages instead
of loading a copy of its own on its first summary."""

from __future__ import annotations

import contextlib

from app.ai.tokenizer import Tokenizer
from app.config import Settings

# The worker checked these settings when it started; should they fail here after all, each child
# loads its table on first use, as without this module.
with contextlib.suppress(Exception):
    Tokenizer(Settings().tokenizer).load()

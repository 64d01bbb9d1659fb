"""An API process that runs no worker embeds only queries, one short text at a time: its model gets
one thread (app/runtime.for_queries), unless ENGRAM_EMBEDDER_THREADS says otherwise. The worker's
model, which embeds batches, keeps the setting's default."""

from __future__ import annotations

import pytest

from app.ai.local_embedder import LocalEmbedder
from app.config import Settings
from app.runtime import for_queries


def test_a_query_only_model_runs_on_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ENGRAM_EMBEDDER_THREADS", raising=False)
    settings = Settings(_env_file=None)
    assert settings.embedder_threads == 2
    assert for_queries(settings).embedder_threads == 1
    assert LocalEmbedder(for_queries(settings))._threads == 1
    assert settings.embedder_threads == 2, "the settings given are not changed"


def test_threads_set_explicitly_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_EMBEDDER_THREADS", "3")
    assert for_queries(Settings(_env_file=None)).embedder_threads == 3
    assert for_queries(Settings(embedder_threads=2)).embedder_threads == 2

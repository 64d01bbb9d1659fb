"""How many threads a model gets when ENGRAM_EMBEDDER_THREADS is not set. An API process that runs
no worker embeds only queries, one short text at a time: one thread (app/runtime.for_queries). The
worker runs ENGRAM_WORKER_MODEL_CALLS calls at once: one thread each when that is more than one
(app/runtime.for_worker). A value set explicitly is always kept."""

from __future__ import annotations

import pytest

from app.ai.local_embedder import LocalEmbedder
from app.config import Settings
from app.runtime import for_queries, for_worker


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


def test_the_worker_model_runs_each_of_its_calls_on_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ENGRAM_EMBEDDER_THREADS", raising=False)
    monkeypatch.delenv("ENGRAM_WORKER_MODEL_CALLS", raising=False)
    settings = Settings(_env_file=None)
    assert settings.worker_model_calls == 2
    assert for_worker(settings).embedder_threads == 1
    assert LocalEmbedder(for_worker(settings))._threads == 1
    # One call at a time has the model's threads to itself.
    assert for_worker(Settings(_env_file=None, worker_model_calls=1)).embedder_threads == 2
    monkeypatch.setenv("ENGRAM_EMBEDDER_THREADS", "2")
    assert for_worker(Settings(_env_file=None)).embedder_threads == 2

"""The local model, loaded once per test process (the first run on a machine also exports it),
and lent to the tests' apps (`make_app` in tests.support.app) so that none loads its own."""

from __future__ import annotations

import functools

from app.ai.local_embedder import LocalEmbedder
from app.config import Provider, Settings


@functools.cache
def load_local_model() -> LocalEmbedder:
    """One per process: the session's `embedder` fixture and every app that borrows it."""
    embedder = LocalEmbedder(Settings())
    embedder.load()
    return embedder


def lendable_model(settings: Settings) -> LocalEmbedder | None:
    """The process's model when `settings` would have the app load that same model (local
    provider, default runtime, threads and cache); None otherwise: the app loads its own."""
    default = Settings()
    same = (
        settings.embedder is Provider.local
        and settings.embed_url is None
        and settings.local_embedder_backend == default.local_embedder_backend
        and settings.embedder_threads == default.embedder_threads
        and (settings.model_cache_dir or settings.data_dir / "models")
        == (default.model_cache_dir or default.data_dir / "models")
    )
    return load_local_model() if same else None

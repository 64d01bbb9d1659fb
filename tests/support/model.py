"""The local model, loaded once per test session (the first run on a machine also exports it)."""

from __future__ import annotations

from app.ai.local_embedder import LocalEmbedder
from app.config import Settings


def load_local_model() -> LocalEmbedder:
    embedder = LocalEmbedder(Settings())
    embedder.load()
    return embedder

"""Real processes: `engram serve`/`engram worker` subprocesses, a browser, raw sockets, PostgreSQL
and Redis servers a test may break. Every test here is `slow` (left out of `make test-fast`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.ai.local_embedder import LocalEmbedder


@pytest.fixture(scope="session", autouse=True)
def local_model(embedder: LocalEmbedder) -> None:
    """The model exported (first run) into the shared cache before any process starts, so the
    processes load it instead of each exporting it at once."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.slow)

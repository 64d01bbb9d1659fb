"""What every folder may ask for, each made once per session and only when asked: the embedded
PostgreSQL 18 + pgvector (`pg`), its migrated database (`database_url`) and the local model
(`embedder`). tests/api/conftest.py adds the in-process app; tests/system/conftest.py marks its
tests slow. Helpers live in tests/support/."""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.ai.local_embedder import LocalEmbedder
from app.db.embedded import EmbeddedPostgres, start_embedded
from tests.support import examples as _examples  # noqa: F401  registers the `quick` Hypothesis profile
from tests.support import file_order
from tests.support.db import create_database, without_fsync
from tests.support.model import load_local_model


def pytest_collection_finish(session: pytest.Session) -> None:
    """No two tests may share an id: pytest-xdist's `--dist loadfile` keeps one item per id and
    drops the others silently (the schemathesis cases once ran one operation of 56 that way)."""
    shared = [nodeid for nodeid, n in Counter(item.nodeid for item in session.items).items() if n > 1]
    if shared:
        raise pytest.UsageError(f"tests sharing an id (pytest-xdist would run one of each): {shared[:5]}")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--store-file-durations",
        action="store_true",
        help="write each test file's wall in this run to tests/file-durations.json (the order of the files)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--store-file-durations") and not os.environ.get("PYTEST_XDIST_WORKER"):
        config.pluginmanager.register(file_order.Recorder(), "file-durations")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist, the longest files first (tests/support/file_order.py): every worker
    collects the same order, which is the order `--dist loadfile` hands the files out in."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items[:] = file_order.longest_first(items, file_order.load())


@pytest.fixture(scope="session")
def embedder() -> LocalEmbedder:
    """The local model, exported (first run) and loaded once for the whole run."""
    return load_local_model()


@pytest.fixture(scope="session")
def pg() -> Iterator[EmbeddedPostgres]:
    root = Path(tempfile.mkdtemp(prefix="engram-test-"))
    server = start_embedded(root)
    without_fsync(server)
    yield server
    server.stop()


@pytest.fixture(scope="session")
async def database_url(pg: EmbeddedPostgres) -> str:
    """The shared database: a copy of the migrated template (tests.support.db)."""
    return await create_database(pg)

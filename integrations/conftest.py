"""One live `engram serve` for every adapter's test: auth on, an embedded PostgreSQL of its own in
a temporary directory, its embedded worker, the tests' Redis. Each test takes keys of new tenants.
Every test here is `slow`, as in tests/system (left out of `make test-fast`)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.support.app import ADMIN_TOKEN, REDIS_URL
from tests.support.procs import MODEL_CACHE, Server


@dataclass
class Live:
    url: str

    def new_key(self) -> str:
        """An API key of a brand-new tenant."""
        r = httpx.post(
            f"{self.url}/v1/admin/keys",
            json={"tenant_id": f"t-{uuid.uuid4().hex[:12]}", "name": "integrations"},
            headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        )
        assert r.status_code == 201, r.text
        return str(r.json()["key"])


@pytest.fixture(scope="session")
def engram_live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    home: Path = tmp_path_factory.mktemp("engram-integrations")
    server = Server(
        home,
        ENGRAM_REDIS_URL=REDIS_URL,
        ENGRAM_AUTH="on",
        ENGRAM_ADMIN_TOKEN=ADMIN_TOKEN,
        ENGRAM_MODEL_CACHE_DIR=str(MODEL_CACHE),
    )
    try:
        server.wait_ready(180)
        yield Live(server.url)
    finally:
        assert server.stop() == 0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.slow)

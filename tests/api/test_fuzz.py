"""Schemathesis over every operation of the committed spec, against the app served on loopback.

No input may get a 5xx, and every answer must match the spec: its status code, its media type
(problem+json for errors) and its body schema. Each operation gets a tenant of its own, seeded with
a user, a session with messages and a fact, so generated path and query ids hit existing rows as
well as missing ones, and a DELETE of one operation cannot empty the rows of another. The run is
bounded (MAX_EXAMPLES per operation) and derandomised, so CI sees the same inputs every time.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import hypothesis.strategies as st
import pytest
import schemathesis
from schemathesis.checks import not_a_server_error
from schemathesis.config import HealthCheck
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from app.db.embedded import EmbeddedPostgres
from tests.support.app import ADMIN_TOKEN, STARTUP, make_app, make_settings
from tests.support.db import create_database
from tests.support.examples import examples
from tests.support.openai_stub import serve_app

SPEC = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
# Per operation, on top of schemathesis' boundary cases (~35 each); FUZZ_EXAMPLES=500 digs deeper.
# `make test-fast` (the `quick` Hypothesis profile) draws a fifth of them and runs a fifth of the
# boundary cases (tests/api/conftest.py), `make test` and CI all of both.
MAX_EXAMPLES = examples(int(os.environ.get("FUZZ_EXAMPLES", "50")))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}

schema = schemathesis.openapi.from_path(SPEC)
# Derandomised and without an example database: the same cases on every machine and run.
schema.config.generation.update(
    max_examples=MAX_EXAMPLES, deterministic=True, database="none", with_security_parameters=False
)
# Generation, not the API, is what a loaded 2-core machine slows down.
schema.config.suppress_health_check = [HealthCheck.too_slow]
# An import file (JSON Lines) is text; schemathesis knows no serializer for its media type.
schemathesis.serializer.alias("application/x-ndjson", "text/plain")


@dataclass
class World:
    """One operation's tenant: the headers that authorise it and the ids of the rows seeded for it."""

    headers: dict[str, str]
    ids: dict[str, str] = field(default_factory=dict)


# Filled by the `served` fixture before any case is drawn; the hooks below read it while drawing.
WORLDS: dict[str, World] = {}


def _seed(client: httpx.Client, label: str) -> World:
    tenant = f"fuzz-{uuid.uuid4().hex[:12]}"
    r = client.post("/v1/admin/keys", json={"tenant_id": tenant, "name": label[:100]}, headers=ADMIN)
    assert r.status_code == 201, r.text
    key = r.json()
    auth = {"Authorization": f"Bearer {key['key']}"}
    user, session = "fuzz-user", "fuzz-session"
    assert client.put(f"/v1/users/{user}", json={"metadata": {"plan": "pro"}}, headers=auth).is_success
    r = client.post("/v1/sessions", json={"session_id": session, "user_id": user}, headers=auth)
    assert r.status_code == 201, r.text
    messages = [
        {"role": "user", "content": "I moved to Lisbon last week and I work at Acme.", "name": "Ada"},
        {"role": "assistant", "content": "Congratulations on the move!", "metadata": {"turn": 1}},
    ]
    r = client.post(f"/v1/sessions/{session}/messages", json={"messages": messages}, headers=auth)
    assert r.status_code == 201, r.text
    message_id = r.json()["messages"][0]["message_id"]
    r = client.post(f"/v1/users/{user}/facts", json={"content": "Likes jazz."}, headers=auth)
    assert r.status_code == 201, r.text
    ids = {
        "tenant_id": tenant,
        "user_id": user,
        "session_id": session,
        "message_id": message_id,
        "fact_id": r.json()["fact_id"],
        "key_id": key["key_id"],
    }
    admin = label.split(" ", 1)[1].startswith("/v1/admin")
    return World(headers=ADMIN if admin else auth, ids=ids)


# Cases are drawn before the seed exists (explicit examples at collection time), so a drawn case
# carries this placeholder and the test swaps in the seeded id of its operation's tenant.
SEEDED = "seeded-id-placeholder"  # URL-safe: path values are stored encoded
SEEDABLE = ("tenant_id", "user_id", "session_id", "message_id", "fact_id", "key_id")


def _with_seeded(values: dict[str, Any] | None) -> st.SearchStrategy[Any]:
    """The generated values, or the same with every id the seed has replaced by its placeholder."""
    if not values or not any(name in SEEDABLE for name in values):
        return st.just(values)
    seeded = {name: SEEDED if name in SEEDABLE else value for name, value in values.items()}
    return st.sampled_from([values, seeded])


def _resolve(values: dict[str, Any] | None, ids: dict[str, str]) -> None:
    if not values:
        return
    for name, value in values.items():
        if value == SEEDED:
            values[name] = ids[name]


@schema.hook
def flatmap_path_parameters(ctx: schemathesis.HookContext, path_parameters: dict[str, Any]) -> Any:
    return _with_seeded(path_parameters)


@schema.hook
def flatmap_query(ctx: schemathesis.HookContext, query: dict[str, Any]) -> Any:
    return _with_seeded(query)


def _healthy(client: httpx.Client) -> bool:
    try:
        return client.get("/healthz").status_code == 200
    except httpx.TransportError:  # serve_app stops waiting for the start-up after 10 s
        return False


@pytest.fixture(scope="module")
def served(pg: EmbeddedPostgres) -> Iterator[str]:
    """The app on a loopback port, with its own database (its embedded worker must not claim the
    shared app's jobs) and one seeded tenant per operation; yields the base URL."""
    url = asyncio.run(create_database(pg))
    with serve_app(make_app(make_settings(url))) as v1:
        base = v1.removesuffix("/v1")
        # Seeding waits as long as a start-up: on a loaded machine one request took 24 s (30 timed out).
        with httpx.Client(base_url=base, timeout=STARTUP) as client:
            deadline = time.monotonic() + STARTUP
            while not _healthy(client):
                assert time.monotonic() < deadline, "the app did not start"
                time.sleep(0.1)
            for result in schema.get_all_operations():
                label = result.ok().label
                WORLDS[label] = _seed(client, label)
        yield base
    WORLDS.clear()


@schema.parametrize()
def test_every_operation_conforms_to_the_spec(case: schemathesis.Case, served: str) -> None:
    world = WORLDS[case.operation.label]
    _resolve(case.path_parameters, world.ids)
    _resolve(case.query, world.ids)
    case.call_and_validate(base_url=served, headers=world.headers, checks=CHECKS)

"""`engram keys` and `engram tenants` as an operator runs them: real processes on a database of
their own (ENGRAM_DATABASE_URL), with no server running."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest
from pydantic import SecretStr
from sqlalchemy import text

from app.db.embedded import EmbeddedPostgres
from app.tenants.service import tenant_for_key
from tests.support.db import create_database, engine_for, fetch
from tests.support.procs import ENGRAM, engram_env


@pytest.fixture(scope="module")
async def url(pg: EmbeddedPostgres) -> str:
    return await create_database(pg)


def engram(url: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ENGRAM, *args],
        env=engram_env(ENGRAM_DATABASE_URL=url),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def as_json(done: subprocess.CompletedProcess[str]) -> Any:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


async def test_keys_are_created_listed_and_revoked(url: str) -> None:
    created = as_json(engram(url, "keys", "create", "acme", "--name", "prod agent", "--json"))
    assert created["tenant_id"] == "acme" and created["key"].startswith("egm_")
    engine = engine_for(url)
    try:
        async with engine.connect() as conn:
            owner = await tenant_for_key(conn, key=created["key"])
        assert owner is not None and owner[0] == "acme"

        plain = engram(url, "keys", "create", "acme")
        assert plain.returncode == 0 and "egm_" in plain.stdout and "shown this once" in plain.stderr

        listed = as_json(engram(url, "keys", "list", "--tenant", "acme", "--json"))
        assert listed[0]["key_id"] == created["key_id"] and len(listed) == 2
        assert created["key"] not in json.dumps(listed)
        table = engram(url, "keys", "list")
        assert table.returncode == 0 and table.stdout.splitlines()[0].split() == [
            "key_id",
            "tenant_id",
            "name",
            "prefix",
            "created_at",
            "revoked_at",
        ]

        done = engram(url, "keys", "revoke", created["key_id"])
        assert done.returncode == 0, done.stderr
        async with engine.connect() as conn:
            assert await tenant_for_key(conn, key=created["key"]) is None
        missing = engram(url, "keys", "revoke", "00000000-0000-0000-0000-000000000000")
        assert missing.returncode == 1 and "No API key" in missing.stderr
    finally:
        await engine.dispose()


async def test_tenants_are_listed_and_deleted_with_everything(url: str) -> None:
    for tenant in ("keep", "gone"):
        as_json(engram(url, "keys", "create", tenant, "--json"))
    engine = engine_for(url)
    try:
        async with engine.begin() as conn:
            for tenant in ("keep", "gone"):
                await conn.execute(
                    text("INSERT INTO users (tenant_id, user_id) VALUES (:t, 'u')"), {"t": tenant}
                )
                await conn.execute(
                    text("INSERT INTO sessions (tenant_id, session_id, user_id) VALUES (:t, 's', 'u')"),
                    {"t": tenant},
                )
        listed = {t["tenant_id"]: t for t in as_json(engram(url, "tenants", "list", "--json"))}
        assert listed["gone"]["users"] == 1 and listed["gone"]["keys"] == 1

        # Without --yes it asks; "n" keeps everything.
        kept = engram(url, "tenants", "delete", "gone", stdin="n\n")
        assert kept.returncode == 1 and "Aborted" in kept.stdout + kept.stderr
        assert await fetch(engine, "SELECT 1 FROM tenants WHERE tenant_id = 'gone'")

        done = engram(url, "tenants", "delete", "gone", "--yes")
        assert done.returncode == 0, done.stderr
        assert "deleted tenant gone (1 sessions)" in done.stdout
        for table in ("tenants", "api_keys", "users", "sessions"):
            assert await fetch(engine, f"SELECT 1 FROM {table} WHERE tenant_id = 'gone'") == [], table
        assert await fetch(engine, "SELECT 1 FROM sessions WHERE tenant_id = 'keep'")
        again = engram(url, "tenants", "delete", "gone", "--yes")
        assert again.returncode == 1 and "No tenant gone" in again.stderr
        bad = engram(url, "tenants", "delete", "bad id", "--yes")
        assert bad.returncode == 2 and "tenant" in bad.stderr
    finally:
        await engine.dispose()


async def test_a_database_without_the_schema_says_to_migrate(pg: EmbeddedPostgres) -> None:
    bare = await create_database(pg, migrate=False)
    done = engram(bare, "keys", "list")
    assert done.returncode == 1 and "engram migrate" in done.stderr
    assert "Traceback" not in done.stderr


async def test_encryption_keys_are_made_and_their_use_shown(url: str) -> None:
    made = engram(url, "encryption", "new-key", "k7")
    assert made.returncode == 0 and made.stdout.startswith("k7:") and "secret store" in made.stderr
    key = made.stdout.strip()
    assert engram(url, "encryption", "new-key", "bad id!").returncode == 2
    assert engram(url, "encryption", "status").stdout.startswith("no data has been encrypted")
    engine = engine_for(url)
    try:
        from app.crypto import fields
        from app.crypto.keys import start_encryption
        from app.crypto.rotation import Rotation

        await start_encryption(SecretStr(key), engine)  # as a server start records the key
        await Rotation(engine, batch=50).run()
    finally:
        fields.configure(None)
        await engine.dispose()
    shown = as_json(engram(url, "encryption", "status", "--json"))
    assert [k["key_id"] for k in shown["keys"]] == ["k7"] and shown["keys"][0]["retired_at"] is None
    assert {t["table_name"] for t in shown["rotation"]} >= {"messages", "facts", "summaries"}
    table = engram(url, "encryption", "status")
    assert "key k7" in table.stdout and "in use" in table.stdout
    assert key.split(":", 1)[1] not in table.stdout + json.dumps(shown)

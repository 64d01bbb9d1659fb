"""Putting LoCoMo conversations into Engram through its HTTP API, the way the independent
evaluation does (see the data folder's README), and mapping search hits back to `dia_id`s.

    from bench.locomo import data, ingest

    async with ingest.engram() as api:                 # fresh embedded PostgreSQL + in-process app
        # or ingest.engram(url="http://127.0.0.1:8000", api_key=...) for a running server,
        # ingest.engram(overrides={"search_role_weight": "0"}) to change settings (in-process only),
        # ingest.engram(pg_dir=Path(...)) to keep the database between runs.
        for conv in data.load(path):
            done = await ingest.ingest(api, conv)       # -> Ingested (user_id, dia_ids by message)
            secs, _ = await ingest.wait_searchable(api, done.user_id)   # GET /v1/indexing until 0 pending
        res = await api.post("/v1/search", json={"query": q.question, "user_id": done.user_id})
        ids = done.hit_dia_ids(res.json()["results"][0])  # the dia_ids a hit stands for

Each conversation becomes one user (`user_id` = its `sample_id`, with an optional prefix), each
session one Engram session (`<user_id>-s<N>`, `created_at` of every turn = the session's date),
each turn one message: `speaker_a` as role `user`, `speaker_b` as role `assistant`, `name` = the
speaker, `content` = the turn's text exactly, `metadata` = {"dia_id": ...}. Image captions are
left out unless `captions=True` (the independent evaluation sends the text only).

The in-process app runs its own worker (embeddings, summaries, facts) against a fresh embedded
PostgreSQL in a temporary directory (or `pg_dir`), like bench/recall.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.locomo.data import Conversation

ROOT = Path(__file__).resolve().parents[2]
POLL_SECONDS = 0.05  # how often GET /v1/indexing is read while waiting


async def ok(resp: httpx.Response) -> Any:
    """The JSON body of a 2xx answer; anything else raises with the problem's text."""
    if resp.status_code >= 300:
        raise RuntimeError(f"{resp.request.method} {resp.request.url.path}: {resp.status_code} {resp.text}")
    return resp.json() if resp.content else None


@contextlib.asynccontextmanager
async def engram(
    *,
    url: str | None = None,
    api_key: str | None = None,
    overrides: dict[str, Any] | None = None,
    pg_dir: Path | None = None,
    database: str | None = None,
    backend: str | None = None,
) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client for Engram: a running server at `url`, or else an in-process app (with its
    worker) over a fresh database `database` (default: a new random name) of an embedded PostgreSQL
    in `pg_dir` (default: a temporary directory, removed afterwards), with the server's default
    model runtime unless `backend` names one. `overrides` are Settings fields (in-process only)."""
    if url is not None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=120) as client:
            yield client
        return
    from asgi_lifespan import LifespanManager
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    from app.config import Settings
    from app.db.embedded import start_embedded
    from app.db.engine import async_url
    from app.db.migrate import upgrade
    from app.main import create_app

    keep = pg_dir is not None
    home = pg_dir or Path(tempfile.mkdtemp(prefix="engram-locomo-"))
    server = await asyncio.to_thread(start_embedded, home)
    try:
        name = database or f"locomo_{uuid.uuid4().hex[:8]}"
        admin = create_async_engine(async_url(server.url), isolation_level="AUTOCOMMIT")
        async with admin.connect() as conn:
            found = (
                await conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name})
            ).first()
            if not found:
                await conn.execute(text(f'CREATE DATABASE "{name}"'))
        await admin.dispose()
        db_url = server.url.replace("/postgres?", f"/{name}?")
        values: dict[str, Any] = {
            "database_url": db_url,
            "auth": "off",
            "redis_url": None,
            "run_worker": True,
            "migrate_on_start": False,
            "log_level": "warning",
            "model_cache_dir": ROOT / ".engram" / "models",
        }
        if backend is not None:
            values["local_embedder_backend"] = backend
        values.update(overrides or {})
        settings = Settings(**values)
        if not found:
            await upgrade(db_url, settings.embedding_dim)
        app = create_app(settings)
        async with LifespanManager(app, startup_timeout=300, shutdown_timeout=60) as manager:
            transport = httpx.ASGITransport(app=manager.app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://engram.bench", timeout=120
            ) as c:
                yield c
    finally:
        server.stop()
        if not keep:
            shutil.rmtree(home, ignore_errors=True)


@dataclass
class Ingested:
    """What one conversation became: its user, and which dia_id each (session, seq) holds."""

    user_id: str
    sessions: list[str] = field(default_factory=list)
    by_seq: dict[tuple[str, int], str] = field(default_factory=dict)  # (session_id, seq) -> dia_id
    by_message: dict[str, str] = field(default_factory=dict)  # message_id -> dia_id
    messages: int = 0
    seconds: float = 0.0  # the appends' wall time

    def hit_dia_ids(self, hit: dict[str, Any]) -> list[str]:
        """The dia_ids a search hit stands for: a message's own; a summary's or fact's source
        messages (`source_message_ids`, or its session's `from_seq`..`to_seq`)."""
        if hit.get("kind", "messages") == "messages":
            dia = (hit.get("metadata") or {}).get("dia_id")
            if dia is None:
                dia = self.by_message.get(str(hit.get("id")))
            return [dia] if dia else []
        out = [self.by_message[m] for m in hit.get("source_message_ids") or [] if m in self.by_message]
        if out:
            return out
        lo, hi = hit.get("from_seq"), hit.get("to_seq")
        if lo is None or hi is None:
            meta = hit.get("metadata") or {}
            lo, hi = meta.get("from_seq"), meta.get("to_seq")
        sid = hit.get("session_id")
        if lo is None or hi is None or sid is None:
            return []
        return [d for s in range(int(lo), int(hi) + 1) if (d := self.by_seq.get((sid, s)))]


async def ingest(
    api: httpx.AsyncClient,
    conv: Conversation,
    *,
    user_prefix: str = "",
    captions: bool = False,
) -> Ingested:
    """One conversation as one user, one Engram session per LoCoMo session (see the module doc)."""
    user_id = f"{user_prefix}{conv.sample_id}"
    done = Ingested(user_id=user_id)
    roles = {conv.speaker_a: "user", conv.speaker_b: "assistant"}
    started = time.perf_counter()
    await ok(
        await api.put(
            f"/v1/users/{user_id}",
            json={"metadata": {"speaker_a": conv.speaker_a, "speaker_b": conv.speaker_b}},
        )
    )
    for s in conv.sessions:
        sid = f"{user_id}-s{s.number}"
        await ok(await api.post("/v1/sessions", json={"user_id": user_id, "session_id": sid}))
        msgs = []
        for t in s.turns:
            content = t.text
            if captions and t.blip_caption:
                content = f"{content} [shares a photo: {t.blip_caption}]".strip()
            msgs.append(
                {
                    "role": roles.get(t.speaker, "user"),
                    "name": t.speaker,
                    "content": content,
                    "metadata": {"dia_id": t.dia_id},
                    "created_at": s.date.isoformat(),
                }
            )
        out = await ok(await api.post(f"/v1/sessions/{sid}/messages", json={"messages": msgs}))
        for t, m in zip(s.turns, out["messages"], strict=True):
            done.by_seq[(sid, int(m["seq"]))] = t.dia_id
            done.by_message[str(m["message_id"])] = t.dia_id
        done.sessions.append(sid)
        done.messages += len(msgs)
    done.seconds = time.perf_counter() - started
    return done


async def wait_searchable(
    api: httpx.AsyncClient, user_id: str | None = None, *, give_up_after: float = 3600
) -> tuple[float, float]:
    """Seconds until GET /v1/indexing shows nothing pending for the user (or the tenant), and
    until nothing is refining either (the sentences' vectors, made after the messages': searches
    are measured on the finished index); raises when an embedding failed or time runs out."""
    started = time.perf_counter()
    params = {"user_id": user_id} if user_id else {}
    searchable = None
    while True:
        st = await ok(await api.get("/v1/indexing", params=params))
        if st["failed"]:
            raise RuntimeError(f"{st['failed']} embeddings failed: see GET /v1/indexing/failed")
        if searchable is None and st["pending"] == 0:
            searchable = time.perf_counter() - started
        if searchable is not None and st.get("refining", 0) == 0:
            return searchable, time.perf_counter() - started
        if time.perf_counter() - started > give_up_after:
            raise TimeoutError(f"{st['pending']} messages still pending after {give_up_after} s")
        await asyncio.sleep(POLL_SECONDS)

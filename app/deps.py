"""Annotated dependency aliases: what a route needs, named once.

All are `async def`: FastAPI runs a plain `def` dependency in a thread, a hop that cost 15 % of
an append's CPU.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Annotated

from fastapi import Depends, Path, Request
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.ai.embedder import Embedder
from app.ai.tokenizer import Tokenizer
from app.auth import Caller, KeyResolver, current_caller, current_tenant, require_admin
from app.cache.answers import AnswerCache
from app.cache.window import WindowCache
from app.config import Settings
from app.db.request import AfterCommit, RequestDb, read_connection, reads, transaction, writes
from app.gate import Admission
from app.jobs.wake import Waker
from app.limits import Limits

ChargeMessages = Callable[[int], Awaitable[None]]


async def _limits(request: Request) -> Limits:
    limits: Limits = request.state.limits
    return limits


async def _tokenizer(request: Request) -> Tokenizer:
    tok: Tokenizer = request.state.tokenizer
    return tok


async def _settings(request: Request) -> Settings:
    settings: Settings = request.state.settings
    return settings


async def _embedder(request: Request) -> Embedder:
    embedder: Embedder = request.state.embedder
    return embedder


async def _waker(request: Request) -> Waker:
    waker: Waker = request.state.waker
    return waker


async def _engine(request: Request) -> AsyncEngine:
    engine: AsyncEngine = request.state.engine
    return engine


async def _export_engine(request: Request) -> AsyncEngine:
    engine: AsyncEngine = request.state.export_engine
    return engine


async def _window_cache(request: Request) -> WindowCache:
    cache: WindowCache = request.state.cache
    return cache


async def _key_resolver(request: Request) -> KeyResolver:
    keys: KeyResolver = request.state.keys
    return keys


@dataclass(frozen=True, slots=True)
class Parts:
    """The app's parts (request.state's) in one object, for the hot routes and their lean twins
    (app.lean): one dependency instead of one per part, whose cost FastAPI pays per request (a
    tenth of GET …/memory's CPU, profiled)."""

    settings: Settings
    limits: Limits
    tokenizer: Tokenizer
    cache: WindowCache
    embedder: Embedder
    waker: Waker
    engine: AsyncEngine  # for work after the request's commit
    answers: AnswerCache


def app_parts(request: Request) -> Parts:
    state = request.state
    return Parts(
        state.settings,
        state.limits,
        state.tokenizer,
        state.cache,
        state.embedder,
        state.waker,
        state.engine,
        state.answers,
    )


async def _app_parts(request: Request) -> Parts:
    return app_parts(request)


async def _user_id(
    request: Request,
    user_id: Annotated[str, Path(description="Your id for the user.", examples=["user-42"])],
) -> str:
    request.state.limits.check_id(user_id, ["path", "user_id"])
    return user_id


async def _session_id(
    request: Request,
    session_id: Annotated[str, Path(description="The session's id.", examples=["sess-2026-11-25"])],
) -> str:
    request.state.limits.check_id(session_id, ["path", "session_id"])
    return session_id


async def _message_quota(
    request: Request, caller: Annotated[Caller, Depends(current_caller)]
) -> ChargeMessages:
    admission: Admission = request.state.admission
    return partial(admission.charge_messages, caller)


Conn = Annotated[AsyncConnection, Depends(transaction, scope="function")]


async def _after_commit(request: Request, conn: Conn) -> AfterCommit:
    # Depends on Conn (the same, cached per request), so the list exists: the transaction made it.
    after: AfterCommit = request.state.after_commit
    return after


Commit = Annotated[AfterCommit, Depends(_after_commit)]
ReadConn = Annotated[AsyncConnection, Depends(read_connection, scope="function")]
# The hot routes' (app/db/request.py's RequestDb: the lane, and a connection only on demand).
Reads = Annotated[RequestDb, Depends(reads, scope="function")]
Writes = Annotated[RequestDb, Depends(writes, scope="function")]
Cache = Annotated[WindowCache, Depends(_window_cache)]
Engine = Annotated[AsyncEngine, Depends(_engine)]  # for work after the request's commit
ExportEngine = Annotated[AsyncEngine, Depends(_export_engine)]  # long reads: a pool of their own
TenantId = Annotated[str, Depends(current_tenant)]
CurrentCaller = Annotated[Caller, Depends(current_caller)]
Admin = Depends(require_admin)
CheckedLimits = Annotated[Limits, Depends(_limits)]
Tok = Annotated[Tokenizer, Depends(_tokenizer)]
Keys = Annotated[KeyResolver, Depends(_key_resolver)]
Config = Annotated[Settings, Depends(_settings)]
Embed = Annotated[Embedder, Depends(_embedder)]
AppParts = Annotated[Parts, Depends(_app_parts)]
Wake = Annotated[Waker, Depends(_waker)]
MessageQuota = Annotated[ChargeMessages, Depends(_message_quota)]  # counts appended messages (429)
UserIdPath = Annotated[str, Depends(_user_id)]
SessionIdPath = Annotated[str, Depends(_session_id)]

"""Who is calling: the tenant of a Bearer API key, or the admin. Auth off: the default tenant.

Keys are checked from the headers by the gate (app.gate) before any body is read; the routes
read the caller it found (`current_tenant`).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import uuid
from dataclasses import dataclass
from typing import Annotated

from cachetools import TTLCache
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.errors import Forbidden, Unauthorized
from app.tenants.service import tenant_for_key

_bearer = HTTPBearer(auto_error=False, description="A tenant API key (`egm_...`).")
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


@dataclass(frozen=True)
class Caller:
    tenant_id: str
    key_id: uuid.UUID | None = None  # None: auth is off
    rate_limit_rps: float | None = None  # the tenant's own limits (None: the settings')
    messages_per_day: int | None = None
    audit: bool = False  # the tenant keeps an audit trail (app/audit)


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def _digest(key: str) -> bytes:
    # Caches hold digests: a key may be as long as the headers allow, and none is kept in memory.
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).digest()


class KeyResolver:
    """API key -> caller, with a cache of known keys (ENGRAM_API_KEY_CACHE_SECONDS) and one of
    unknown or revoked keys (ENGRAM_UNKNOWN_KEY_CACHE_SECONDS), so a repeated bad key costs no
    database work. A miss is looked up on `engine`, a small pool of its own outside the request
    pool (a lookup waiting for a request-pool connection could deadlock a saturated pool).

    Keys not vouched for (valid within the hour) are looked up at most `stranger_lane` at a time,
    so a flood of new keys queues among itself and never takes the connections a known key needs
    for its periodic re-check (the bench saw a tenant's reads wait seconds behind such a flood).
    Concurrent lookups of one key share one query."""

    def __init__(self, engine: AsyncEngine, *, ttl: float, unknown_ttl: float, stranger_lane: int) -> None:
        self.engine = engine
        self.known: TTLCache[bytes, Caller] = TTLCache(maxsize=10_000, ttl=max(ttl, 1e-3))
        self.unknown: TTLCache[bytes, bool] = TTLCache(maxsize=100_000, ttl=max(unknown_ttl, 1e-3))
        # Keys that were valid within the hour: their lookups are never held back by the limit on
        # strangers of their address (a flood from the same address must not lock a tenant out),
        # nor by the stranger lane.
        self.vouched: TTLCache[bytes, bool] = TTLCache(maxsize=10_000, ttl=3600)
        self.strangers = asyncio.Semaphore(stranger_lane)
        self._pending: dict[bytes, asyncio.Future[Caller | None]] = {}

    def cached(self, key: str) -> Caller | bool | None:
        """The cached caller, False for a key known to be bad, None when not cached."""
        digest = _digest(key)
        found = self.known.get(digest)
        if found is not None:
            return found
        return False if digest in self.unknown else None

    async def lookup(self, key: str) -> Caller | None:
        digest = _digest(key)
        pending = self._pending.get(digest)
        if pending is None:
            pending = asyncio.ensure_future(self._lookup(key, digest))
            self._pending[digest] = pending
            pending.add_done_callback(lambda done: self._settled(digest, done))
        # Shielded: a caller that goes away does not cancel the others' lookup.
        return await asyncio.shield(pending)

    def _settled(self, digest: bytes, done: asyncio.Future[Caller | None]) -> None:
        self._pending.pop(digest, None)
        if not done.cancelled():
            done.exception()  # retrieved: every waiter may have gone

    async def _lookup(self, key: str, digest: bytes) -> Caller | None:
        if digest in self.vouched:
            return await self._query(key, digest)
        async with self.strangers:
            return await self._query(key, digest)

    async def _query(self, key: str, digest: bytes) -> Caller | None:
        async with self.engine.connect() as conn:
            row = await tenant_for_key(conn, key=key)
        if row is None:
            self.unknown[digest] = True
            return None
        caller = Caller(*row)
        self.known[digest] = caller
        self.vouched[digest] = True
        return caller

    def vouched_for(self, key: str) -> bool:
        return _digest(key) in self.vouched

    def forget(self, key_id: uuid.UUID) -> None:
        """Drop a revoked key from this process's cache at once (others expire it within the TTL)."""
        for digest, caller in list(self.known.items()):
            if caller.key_id == key_id:
                self.known.pop(digest, None)

    def forget_tenant(self, tenant_id: str) -> None:
        """A tenant's limits changed: its keys are looked up again (with the new limits)."""
        for digest, caller in list(self.known.items()):
            if caller.tenant_id == tenant_id:
                self.known.pop(digest, None)


def admitted_caller(request: Request) -> Caller:
    """The caller the gate admitted to this request."""
    caller: Caller | None = request.scope.get("state", {}).get("caller")
    if caller is None:  # a route outside the gate's paths: not one that has a tenant
        raise Unauthorized("Send `Authorization: Bearer <api key>`.")
    return caller


async def current_caller(request: Request, creds: Credentials) -> Caller:
    """`admitted_caller` as a dependency (`creds` only documents the scheme in the OpenAPI spec)."""
    return admitted_caller(request)


async def current_tenant(caller: Annotated[Caller, Depends(current_caller)]) -> str:
    return caller.tenant_id


def check_admin(settings: Settings, token: str | None) -> None:
    if settings.admin_token is None:
        raise Forbidden("Admin endpoints are disabled: set ENGRAM_ADMIN_TOKEN to enable them.")
    if not token:
        raise Unauthorized("Send `Authorization: Bearer <admin token>`.")
    expected = settings.admin_token.get_secret_value().encode()
    if not hmac.compare_digest(token.encode("utf-8", "surrogateescape"), expected):
        raise Forbidden("This credential is not the admin token.")


async def require_admin(request: Request, creds: Credentials) -> None:
    settings: Settings = request.state.settings
    check_admin(settings, creds.credentials if creds is not None else None)


async def authenticate(request: Request) -> str:
    """The caller's tenant for what is not a FastAPI route (the MCP endpoint): the gate's."""
    return (await current_caller(request, None)).tenant_id

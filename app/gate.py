"""The gate: who may enter /v1 and /mcp, decided from the request's headers before any body is read.

- the admin token (for /v1/admin) or a tenant's API key, through `KeyResolver`'s caches: an
  unknown key costs no database work the second time, and callers without a valid key are
  limited per client address (ENGRAM_UNAUTHENTICATED_RPS) before any lookup;
- the tenant's requests per second (ENGRAM_RATE_LIMIT_RPS or its own) and its requests in flight
  in this process (ENGRAM_TENANT_MAX_CONCURRENT, the next ones queued for up to
  ENGRAM_TENANT_QUEUE_SECONDS), so one tenant cannot hold every connection.

A refusal closes the connection: the body the client may still be sending is never read.
Rate limits and caps apply with auth on; with auth off there is only one tenant.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import structlog
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from app.auth import Caller, KeyResolver, bearer_token, check_admin
from app.config import Settings
from app.db.outage import is_outage
from app.errors import AppError, ServiceUnavailable, Unauthorized
from app.mcp.route import IN_PROCESS
from app.mcp.route import PATH as MCP_PATH
from app.middleware import refuse
from app.ratelimit.limiter import Counter, RateLimited, messages_per_day, per_second
from app.ratelimit.slots import SlotsFull, TenantSlots

ADMIN_PREFIX = "/v1/admin"
DATABASE_DOWN = ServiceUnavailable(
    "The database is unavailable or saturated; retry shortly.", headers={"Retry-After": "1"}
)
_log = structlog.get_logger("engram.gate")


class Admission:
    """The gate's state, owned by the app's lifespan."""

    def __init__(self, settings: Settings, keys: KeyResolver, counter: Counter) -> None:
        self.settings = settings
        self.keys = keys
        self.counter = counter
        self.unauthenticated = per_second(settings.unauthenticated_rps)
        # With auth off there is one tenant: nothing to share out.
        cap = settings.tenant_max_concurrent if settings.auth_on else 0
        queue, wait = settings.tenant_queue_size, settings.tenant_queue_seconds
        self.slots = TenantSlots(cap, queue=queue, wait=wait)
        searches = settings.tenant_max_concurrent_searches if settings.auth_on else 0
        self.searches = TenantSlots(searches, queue=queue, wait=wait)

    async def admit(self, scope: Scope) -> Caller | None:
        """The caller of a /v1 request (None: the admin), or a problem to answer with."""
        token = bearer_token(Headers(scope=scope).get("authorization"))
        if scope["path"] == ADMIN_PREFIX or scope["path"].startswith(ADMIN_PREFIX + "/"):
            # No database work, and the token is a long secret: nothing to limit here.
            check_admin(self.settings, token)
            return None
        if not self.settings.auth_on:
            return Caller(self.settings.default_tenant)
        caller: Caller | None = None
        if token is not None:
            cached = self.keys.cached(token)
            if isinstance(cached, Caller):
                caller = cached
            elif cached is None:
                # Not yet proven: a stranger over its budget gets no database lookup.
                limited = not self.keys.vouched_for(token)
                if limited and not await self.counter.test(self.unauthenticated, "addr", _address(scope)):
                    raise self._stranger_limited(None)
                caller = await self.keys.lookup(token)
        if caller is None:
            await self._charge_stranger(scope)
            raise Unauthorized(
                "The API key is unknown or revoked." if token else "Send `Authorization: Bearer <api key>`."
            )
        rps = caller.rate_limit_rps if caller.rate_limit_rps is not None else self.settings.rate_limit_rps
        if rps > 0:
            verdict = await self.counter.hit(per_second(rps), "tenant", caller.tenant_id)
            if not verdict.allowed:
                raise RateLimited(
                    f"Your tenant's limit is {rps:g} requests per second; retry after the window.",
                    headers=verdict.headers(f"{verdict.limit};w=1"),
                )
        return caller

    async def _charge_stranger(self, scope: Scope) -> None:
        verdict = await self.counter.hit(self.unauthenticated, "addr", _address(scope))
        if not verdict.allowed:
            raise self._stranger_limited(verdict.headers(f"{verdict.limit};w=1"))

    def _stranger_limited(self, headers: dict[str, str] | None) -> RateLimited:
        return RateLimited(
            "Too many requests without a valid API key from this address.",
            headers=headers or {"Retry-After": "1"},
        )

    async def enter(self, caller: Caller) -> None:
        try:
            await self.slots.acquire(caller.tenant_id)
        except SlotsFull:
            cap = self.settings.tenant_max_concurrent
            raise RateLimited(
                f"Your tenant has {cap} requests in progress on this server (ENGRAM_TENANT_MAX_CONCURRENT) "
                f"and more waiting; retry when one ends.",
                headers={"Retry-After": "1"},
            ) from None

    @contextlib.asynccontextmanager
    async def searching(self, tenant_id: str) -> AsyncIterator[None]:
        """One of the tenant's running searches (ENGRAM_TENANT_MAX_CONCURRENT_SEARCHES)."""
        try:
            async with self.searches.held(tenant_id):
                yield
        except SlotsFull:
            cap = self.settings.tenant_max_concurrent_searches
            raise RateLimited(
                f"Your tenant has {cap} searches running on this server "
                "(ENGRAM_TENANT_MAX_CONCURRENT_SEARCHES) and more waiting; retry when one ends.",
                headers={"Retry-After": "1"},
            ) from None

    def leave(self, caller: Caller) -> None:
        self.slots.release(caller.tenant_id)

    async def charge_messages(self, caller: Caller, count: int) -> None:
        """Count `count` appended messages against the tenant's daily quota, or refuse them all."""
        if not self.settings.auth_on:
            return
        limit = caller.messages_per_day
        if limit is None:
            limit = self.settings.quota_messages_per_day
        if limit <= 0:
            return
        item = messages_per_day(limit)
        # Tested first: a refused batch must not use up the quota.
        if await self.counter.test(item, "messages", caller.tenant_id, cost=count, sliding=False):
            verdict = await self.counter.hit(item, "messages", caller.tenant_id, cost=count, sliding=False)
            if verdict.allowed:
                return
        verdict = await self.counter.refusal(item, "messages", caller.tenant_id, sliding=False)
        raise RateLimited(
            f"Your tenant's quota is {limit} messages a day; {count} more do not fit.",
            headers=verdict.headers(f"{limit};w=86400"),
        )


def _gated(path: str) -> bool:
    return path.startswith("/v1/") or path == MCP_PATH or path.startswith(MCP_PATH + "/")


def _address(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class GateMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # An MCP tool's REST call in this process: its /mcp request was admitted, as its caller.
        if scope["type"] != "http" or not _gated(scope["path"]) or scope.get(IN_PROCESS):
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        admission: Admission = state["admission"]
        try:
            caller = await admission.admit(scope)
            if caller is not None:
                await admission.enter(caller)
        except AppError as exc:
            await refuse(scope, send, exc)
            return
        except Exception as exc:
            if not is_outage(exc):
                raise
            _log.warning("database unavailable for a key lookup", error=type(exc).__name__)
            await refuse(scope, send, DATABASE_DOWN)
            return
        if caller is None:  # the admin
            await self.app(scope, receive, send)
            return
        state["caller"] = caller
        try:
            await self.app(scope, receive, send)
        finally:
            admission.leave(caller)

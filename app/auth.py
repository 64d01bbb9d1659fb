"""Who is calling: the tenant of a Bearer API key, or the admin. Auth off: the default tenant."""

from __future__ import annotations

import hmac
import uuid
from typing import Annotated

from cachetools import TTLCache
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.errors import Forbidden, Unauthorized
from app.tenants.service import tenant_for_key

KeyCache = TTLCache[str, tuple[str, uuid.UUID]]

_bearer = HTTPBearer(auto_error=False, description="A tenant API key (`egm_...`).")
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


async def current_tenant(request: Request, creds: Credentials) -> str:
    """No database work unless the key is not in this process's cache: then one lookup through
    `key_engine`, a connection of its own outside the request pool (a lookup that waited for a
    pool connection while the request held one could deadlock a saturated pool)."""
    settings: Settings = request.state.settings
    if not settings.auth_on:
        return settings.default_tenant
    if creds is None or creds.scheme.lower() != "bearer" or not creds.credentials:
        raise Unauthorized("Send `Authorization: Bearer <api key>`.")
    key = creds.credentials
    cache: KeyCache = request.state.key_cache
    found = cache.get(key)
    if found is None:
        engine: AsyncEngine = request.state.key_engine
        async with engine.connect() as conn:
            found = await tenant_for_key(conn, key=key)
        if found is None:
            raise Unauthorized("The API key is unknown or revoked.")
        cache[key] = found
    return found[0]


def forget_key(cache: KeyCache, key_id: uuid.UUID) -> None:
    """Drop a revoked key from this process's cache at once (others expire it within the TTL)."""
    for key, (_, kid) in list(cache.items()):
        if kid == key_id:
            cache.pop(key, None)


async def require_admin(request: Request, creds: Credentials) -> None:
    settings: Settings = request.state.settings
    if settings.admin_token is None:
        raise Forbidden("Admin endpoints are disabled: set ENGRAM_ADMIN_TOKEN to enable them.")
    if creds is None or not creds.credentials:
        raise Unauthorized("Send `Authorization: Bearer <admin token>`.")
    expected = settings.admin_token.get_secret_value().encode()
    if not hmac.compare_digest(creds.credentials.encode(), expected):
        raise Forbidden("This credential is not the admin token.")


async def authenticate(request: Request) -> str:
    """The caller's tenant for what is not a FastAPI route (the MCP endpoint): the same check."""
    return await current_tenant(request, await _bearer(request))

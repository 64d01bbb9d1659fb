"""Sets the keyring (app/crypto/fields.py) for each request of an app with encryption on.

Pure ASGI; added only when ENGRAM_ENCRYPTION_KEYS is set, so with encryption off a request does
not even pass through it.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from app.crypto import fields
from app.crypto.envelope import Keyring


class KeyringMiddleware:
    def __init__(self, app: ASGIApp, *, ring: Keyring) -> None:
        self.app = app
        self.ring = ring

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = fields.use(self.ring)
        try:
            await self.app(scope, receive, send)
        finally:
            fields.done(token)

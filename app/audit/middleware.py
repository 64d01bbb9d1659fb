"""Notes every request of an audited tenant: who (key id), what (operation, the ids it named),
when, from where (client address) and how it ended (status). Never a body.

Pure ASGI, inside the gate (which found the caller): a tenant without an audit trail passes
straight through, at the cost of one dictionary lookup.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.audit.writer import AuditWriter, Event
from app.auth import Caller

NOTES = "engram.audit_ids"  # scope key of ids a route adds (app.audit.notes); no client can set one
ADMIN = "/v1/admin"
_SCOPES = ("user_id", "session_id")


class AuditMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = scope.get("state") or {}
        caller: Caller | None = state.get("caller")
        writer: AuditWriter | None = state.get("audit")
        if (
            scope["type"] != "http"
            or caller is None
            or not caller.audit
            or writer is None
            or scope["path"].startswith(ADMIN)  # the operator's requests have no tenant caller
        ):
            await self.app(scope, receive, send)
            return
        at = datetime.now(UTC)
        status = 500

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            writer.record(_event(scope, caller, at, status))


def _event(scope: Scope, caller: Caller, at: datetime, status: int) -> Event:
    ids: dict[str, Any] = {k: str(v) for k, v in (scope.get("path_params") or {}).items()}
    ids.update(scope.get(NOTES, {}))
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    for name in _SCOPES:  # lists say whose with query parameters
        if name not in ids and query.get(name):
            ids[name] = query[name][0]
    client = scope.get("client")
    return Event(
        tenant_id=caller.tenant_id,
        at=at,
        key_id=caller.key_id,
        client=str(client[0]) if client else None,
        request_id=scope.get("state", {}).get("request_id"),
        method=scope["method"],
        operation=_operation(scope),
        status=status,
        user_id=_text(ids.pop("user_id", None)),
        session_id=_text(ids.pop("session_id", None)),
        ids=ids,
    )


def _operation(scope: Scope) -> str:
    """The operation id of the route that answered (the spec's names: `append_messages`, ...)."""
    route = scope.get("route")  # FastAPI's routes and app.middleware.OperationRoute
    if route is not None:
        return str(getattr(route, "name", "unmatched"))
    endpoint = getattr(scope.get("endpoint"), "__name__", None)  # another plain route (/mcp)
    return endpoint or "unmatched"


def _text(value: Any) -> str | None:
    return None if value is None else str(value)

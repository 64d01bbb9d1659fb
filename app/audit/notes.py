"""What a route adds to its audit event beyond its path and query ids (a search's scope is in
its body)."""

from __future__ import annotations

from starlette.requests import Request

from app.audit.middleware import NOTES


def note(request: Request, **ids: str | None) -> None:
    """Name ids in the request's audit event (only if its tenant keeps an audit trail)."""
    state = request.scope.get("state") or {}
    caller = state.get("caller")
    if caller is not None and caller.audit:
        request.scope.setdefault(NOTES, {}).update({k: v for k, v in ids.items() if v is not None})

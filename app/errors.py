"""Errors as RFC 9457 problem details: the `AppError` family a service raises.

Every error type has a stable `type` URI (`urn:engram:problem:<slug>`) that clients may switch on.
Rendering them over HTTP (the handlers, the OpenAPI schema) is app/problems.py's: this module
imports no web framework, so the worker, which raises these too, does not load FastAPI.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

PROBLEM_MEDIA_TYPE = "application/problem+json"


def problem_type(slug: str) -> str:
    return f"urn:engram:problem:{slug}"


class AppError(Exception):
    """An error a client can act on. Subclasses fix the status and the type."""

    status: int = 400
    slug: str = "bad-request"
    title: str = "Bad request"

    def __init__(
        self,
        detail: str,
        *,
        errors: Sequence[dict[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.errors = list(errors) if errors else None
        self.headers = headers
        self.extra = extra


class MalformedJSON(AppError):
    status, slug, title = 400, "malformed-json", "Malformed JSON body"
    NOT_JSON = "The request body is not valid JSON (or not UTF-8)."


class InvalidCursor(AppError):
    status, slug, title = 400, "invalid-cursor", "Invalid pagination cursor"


class Unauthorized(AppError):
    status, slug, title = 401, "unauthorized", "Missing or invalid API key"

    def __init__(self, detail: str) -> None:
        super().__init__(detail, headers={"WWW-Authenticate": 'Bearer realm="engram"'})


class Forbidden(AppError):
    status, slug, title = 403, "forbidden", "Forbidden"


class NotFound(AppError):
    status, slug, title = 404, "not-found", "Not found"


class Conflict(AppError):
    status, slug, title = 409, "conflict", "Conflict"


class SessionEnded(AppError):
    status, slug, title = 409, "session-ended", "Session has ended"


class IdempotencyConflict(AppError):
    status, slug, title = 409, "idempotency-key-reused", "Idempotency-Key reused with another body"


class PayloadTooLarge(AppError):
    status, slug, title = 413, "payload-too-large", "Payload too large"


class RequestTimeout(AppError):
    status, slug, title = 408, "request-timeout", "Request timeout"

    def __init__(self, detail: str) -> None:
        super().__init__(detail, headers={"Connection": "close"})


class UnsupportedMediaType(AppError):
    status, slug, title = 415, "unsupported-media-type", "Unsupported media type"


class ValidationFailed(AppError):
    status, slug, title = 422, "validation-error", "Request validation failed"


class ServiceUnavailable(AppError):
    status, slug, title = 503, "unavailable", "Service unavailable"

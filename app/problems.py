"""Errors over HTTP: `AppError`s and the framework's own errors answered as problem+json, and
the `Problem` schema each route's OpenAPI `responses` name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict
from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from app.crypto.envelope import DecryptError
from app.db.outage import DRIVER_ERRORS, OUTAGE_ERRORS, is_outage
from app.errors import (
    PROBLEM_MEDIA_TYPE,
    AppError,
    MalformedJSON,
    ServiceUnavailable,
    ValidationFailed,
    problem_type,
)
from app.jsonutil import dumps

_log = structlog.get_logger("engram.errors")


def problem_response(
    *,
    status: int,
    slug: str,
    title: str,
    detail: str,
    instance: str | None = None,
    errors: Sequence[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> Response:
    body: dict[str, Any] = {
        "type": problem_type(slug),
        "title": title,
        "status": status,
        "detail": detail,
    }
    if instance:
        body["instance"] = instance
    if errors:
        body["errors"] = list(errors)
    if extra:
        body.update(extra)
    return Response(dumps(body), status_code=status, media_type=PROBLEM_MEDIA_TYPE, headers=headers)


def _clean_validation_errors(raw: Sequence[Any]) -> list[dict[str, Any]]:
    """Keep what a client needs (where, what, which kind); drop echoed input, it may be huge."""
    out = []
    for err in raw:
        loc = [p for p in err.get("loc", ()) if p != "body" or len(err.get("loc", ())) == 1]
        out.append({"loc": list(loc), "msg": str(err.get("msg", "")), "type": err.get("type", "")})
    return out


async def _app_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, AppError)
    return _problem_of(request, exc)


def _problem_of(request: Request, exc: AppError) -> Response:
    return problem_response(
        status=exc.status,
        slug=exc.slug,
        title=exc.title,
        detail=exc.detail,
        instance=request.url.path,
        errors=exc.errors,
        headers=exc.headers,
        extra=exc.extra,
    )


def _malformed_json(request: Request) -> Response:
    """The answer `app.lean` gives by raising MalformedJSON, for FastAPI's own body errors."""
    return _problem_of(request, MalformedJSON(MalformedJSON.NOT_JSON))


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    raw = list(exc.errors())
    if any(e.get("type") == "json_invalid" for e in raw):
        return _malformed_json(request)
    errors = _clean_validation_errors(raw)
    first = errors[0] if errors else {"loc": [], "msg": "invalid"}
    where = ".".join(str(p) for p in first["loc"])
    return problem_response(
        status=422,
        slug=ValidationFailed.slug,
        title=ValidationFailed.title,
        detail=f"{where}: {first['msg']}" if where else str(first["msg"]),
        instance=request.url.path,
        errors=errors,
    )


_STATUS_SLUGS = {
    400: ("bad-request", "Bad request"),
    404: ("not-found", "Not found"),
    405: ("method-not-allowed", "Method not allowed"),
    413: ("payload-too-large", "Payload too large"),
    415: ("unsupported-media-type", "Unsupported media type"),
}


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400 and isinstance(exc.__cause__, UnicodeDecodeError):
        # FastAPI's body parser: bytes that are not UTF-8 are malformed JSON (RFC 8259 §8.1).
        return _malformed_json(request)
    slug, title = _STATUS_SLUGS.get(exc.status_code, ("http-error", "HTTP error"))
    return problem_response(
        status=exc.status_code,
        slug=slug,
        title=title,
        detail=str(exc.detail),
        instance=request.url.path,
        headers=dict(exc.headers) if exc.headers else None,
    )


async def _client_gone(request: Request, exc: Exception) -> Response:
    """The client left while its body was read: nobody to answer, and no server error (499)."""
    return Response(status_code=499)


async def _database_down(request: Request, exc: Exception) -> Response:
    _log.warning("database unavailable", error=type(exc).__name__, path=request.url.path)
    return problem_response(
        status=503,
        slug=ServiceUnavailable.slug,
        title=ServiceUnavailable.title,
        detail="The database is unavailable or saturated; retry shortly.",
        instance=request.url.path,
        headers={"Retry-After": "1"},
    )


async def _database_error(request: Request, exc: Exception) -> Response:
    """Any other database error: an outage the server reports in its own words, else a bug."""
    if is_outage(exc):
        return await _database_down(request, exc)
    return await _unhandled(request, exc)


async def _undecryptable(request: Request, exc: Exception) -> Response:
    """A stored value that does not open (app/crypto): altered, moved, or its key is not listed.
    Never answered as its ciphertext, and never as another row's text."""
    _log.error("stored value cannot be decrypted", error=str(exc), path=request.url.path)
    return problem_response(
        status=500,
        slug="undecryptable",
        title="Stored data cannot be decrypted",
        detail="A stored value failed its integrity check or its key is not configured; it has been "
        "logged with this request's id.",
        instance=request.url.path,
    )


async def _unhandled(request: Request, exc: Exception) -> Response:
    _log.exception("unhandled error", path=request.url.path)
    return problem_response(
        status=500,
        slug="internal",
        title="Internal server error",
        detail="An unexpected error occurred; it has been logged with this request's id.",
        instance=request.url.path,
    )


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(AppError, _app_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(ClientDisconnect, _client_gone)
    # Lost connections, refused connects and an exhausted pool are outages, not bugs: 503.
    for outage in OUTAGE_ERRORS:
        app.add_exception_handler(outage, _database_down)
    app.add_exception_handler(sa_exc.DBAPIError, _database_error)
    for raw in DRIVER_ERRORS:
        app.add_exception_handler(raw, _database_error)
    app.add_exception_handler(DecryptError, _undecryptable)
    app.add_exception_handler(Exception, _unhandled)


class Problem(BaseModel):
    """RFC 9457 problem details, as every error is sent."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "type": "urn:engram:problem:not-found",
                    "title": "Not found",
                    "status": 404,
                    "detail": "No session sess-1.",
                    "instance": "/v1/sessions/sess-1",
                }
            ]
        },
    )
    type: str
    title: str
    status: int
    detail: str
    instance: str | None = None
    errors: list[dict[str, Any]] | None = None


_DESCRIPTIONS = {
    400: "Malformed JSON or an invalid cursor.",
    401: "Missing or unknown API key.",
    403: "Not allowed with this credential.",
    404: "No such resource in your tenant.",
    409: "Conflicts with the current state.",
    413: "Body, content, batch or metadata over its limit.",
    415: "The body is not JSON.",
    429: "Over a rate limit, quota or concurrency cap (see `Retry-After`).",
    422: "The input has the wrong shape or values.",
    503: "A dependency is down.",
}


def problem_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for a route: each listed status as problem+json (plus 401/422)."""
    wanted = sorted({*codes, 401, 422})
    return {
        code: {
            "model": Problem,
            "description": _DESCRIPTIONS.get(code, "Error."),
            "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        for code in wanted
    }

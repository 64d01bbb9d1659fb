"""Pure ASGI middleware (no BaseHTTPMiddleware: it costs latency on every request).

- request context: `X-Request-ID` accepted or generated, echoed, bound to every log line;
  metrics and one access log line per request (499 when the client left before the answer);
- request guard: body size (413), JSON media type (415), UTF-8 without a byte order mark (400)
  and the body's arrival in time (408) checked before any work is done.

A refusal here closes the connection (`Connection: close`): the rest of the body is never read.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import structlog
from starlette.datastructures import Headers, MutableHeaders
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import AppError, MalformedJSON, PayloadTooLarge, RequestTimeout, UnsupportedMediaType
from app.metrics import Metrics
from app.problems import problem_response

CLIENT_CLOSED = 499  # nginx's "client closed request"
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")
_access = structlog.get_logger("engram.access")


class RouteTemplates:
    """Maps a request path to its route template (`/v1/users/{user_id}`), the metrics label.

    Built from the app's own path list on first use; a path no route matches is `unmatched`, so
    label cardinality stays bounded whatever clients send.
    """

    def __init__(self, paths: Callable[[], list[str]]) -> None:
        self._paths = paths
        self._compiled: list[tuple[re.Pattern[str], str]] | None = None

    def label(self, scope: Scope) -> str:
        """The template of the request in `scope`: a lean route (OperationRoute) that answered
        names its operation's own template; any other request is matched by its path."""
        route = scope.get("route")
        if isinstance(route, OperationRoute):
            return route.path
        return self.match(scope["path"])

    def match(self, path: str) -> str:
        if self._compiled is None:
            templates = sorted(self._paths(), key=lambda p: (p.count("{"), -len(p)))
            self._compiled = [
                (re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(t)) + "$"), t)
                for t in templates
            ]
        for pattern, template in self._compiled:
            if pattern.match(path):
                return template
        return "unmatched"


class OperationRoute(Route):
    """A plain Starlette route (no FastAPI layers) answering for an operation of the spec: its
    `name` is the operation id, and like FastAPI's routes it puts itself in the scope, so the
    audit trail reads every route's operation from `scope["route"].name`, one way."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        if match is not Match.NONE:
            child["route"] = self
        return match, child


class RequestContextMiddleware:
    def __init__(self, app: ASGIApp, metrics: Metrics, routes: RouteTemplates) -> None:
        self.app = app
        self.metrics = metrics
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = Headers(scope=scope).get("x-request-id", "")
        request_id = given if _REQUEST_ID.match(given) else uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id
        # Reset, not unbind, at the end: a request served inside another (an MCP tool's REST call)
        # gives the outer request its id back.
        bound = structlog.contextvars.bind_contextvars(request_id=request_id)
        started = time.perf_counter()
        status = 500
        answered = left = False

        async def receive_wrapper() -> Message:
            nonlocal left
            message = await receive()
            left = left or message["type"] == "http.disconnect"
            return message

        async def send_wrapper(message: Message) -> None:
            nonlocal status, answered
            if message["type"] == "http.response.start":
                status = int(message["status"])  # the MCP SDK answers with an HTTPStatus
                answered = True
                MutableHeaders(scope=message)["X-Request-ID"] = request_id
            await send(message)

        try:
            await self.app(scope, receive_wrapper, send_wrapper)
        finally:
            if left and not answered:
                status = CLIENT_CLOSED  # the client gave up: not a server error
            elapsed = time.perf_counter() - started
            self.metrics.observe(scope["method"], self.routes.label(scope), status, elapsed)
            _access.info(
                "request",
                method=scope["method"],
                path=scope["path"],
                status=status,
                ms=round(elapsed * 1000, 2),
            )
            structlog.contextvars.reset_contextvars(**bound)


_BODY_METHODS = {"POST", "PUT", "PATCH"}


@dataclass(frozen=True)
class StreamedBody:
    """A route that reads its own large, non-JSON body as a stream (an import): here only its
    declared size and media type are checked, and the route counts the bytes as they come."""

    path: re.Pattern[str]
    media_type: str
    max_bytes: int
    setting: str  # named in the 413


class RequestGuardMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        max_body_bytes: int,
        streamed: Sequence[StreamedBody] = (),
        body_timeout: float = 30.0,
    ) -> None:
        self.app = app
        self.max = max_body_bytes
        self.streamed = tuple(streamed)
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in _BODY_METHODS:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        route = next((s for s in self.streamed if s.path.match(scope["path"])), None)
        if route is not None:
            await self._guard_stream(route, headers, scope, receive, send)
            return
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > self.max:
            await refuse(scope, send, _too_large(self.max, "ENGRAM_MAX_BODY_BYTES"))
            return
        ctype = headers.get("content-type", "")
        if length not in (None, "0") and not _is_json(ctype):
            exc = UnsupportedMediaType(f"Send JSON with Content-Type: application/json, not {ctype!r}.")
            await refuse(scope, send, exc)
            return

        # The app reads the whole body anyway; reading it here first lets an oversize body be
        # refused with a 413 before any parsing or database work, and a slow one with a 408.
        chunks: list[bytes] = []
        seen = 0
        more = True
        try:
            async with asyncio.timeout(self.body_timeout):
                while more:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return
                    chunk = message.get("body", b"")
                    seen += len(chunk)
                    if seen > self.max:
                        await refuse(scope, send, _too_large(self.max, "ENGRAM_MAX_BODY_BYTES"))
                        return
                    chunks.append(chunk)
                    more = message.get("more_body", False)
        except TimeoutError:
            await refuse(scope, send, _too_slow(self.body_timeout))
            return
        body = b"".join(chunks)
        if body and length is None and not _is_json(ctype):  # a chunked body: its type is checked now
            exc = UnsupportedMediaType(f"Send JSON with Content-Type: application/json, not {ctype!r}.")
            await refuse(scope, send, exc)
            return
        if body and not _is_plain_utf8(body):
            await refuse(scope, send, _NOT_UTF8)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _guard_stream(
        self, route: StreamedBody, headers: Headers, scope: Scope, receive: Receive, send: Send
    ) -> None:
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > route.max_bytes:
            await refuse(scope, send, _too_large(route.max_bytes, route.setting))
            return
        ctype = headers.get("content-type", "")
        media = ctype.split(";", 1)[0].strip().lower()
        # A body with a length, or a chunked one that names a type, must be the route's type.
        if length != "0" and media != route.media_type and (length is not None or ctype):
            exc = UnsupportedMediaType(
                f"Send JSON Lines with Content-Type: {route.media_type}, not {ctype!r}."
            )
            await refuse(scope, send, exc)
            return
        timeout = self.body_timeout

        async def timed_receive() -> Message:
            # The route reads at its own pace; only the client's silence while it waits counts.
            try:
                async with asyncio.timeout(timeout):
                    return await receive()
            except TimeoutError:
                raise _too_slow(timeout) from None

        await self.app(scope, timed_receive, send)


async def refuse(scope: Scope, send: Send, exc: AppError) -> None:
    """Answer `exc` and close the connection: a body not yet read is never read."""
    response = problem_response(
        status=exc.status,
        slug=exc.slug,
        title=exc.title,
        detail=exc.detail,
        instance=scope["path"],
        errors=exc.errors,
        headers={**(exc.headers or {}), "Connection": "close"},
        extra=exc.extra,
    )
    await response(scope, _never_receive, send)


_NOT_UTF8 = MalformedJSON("The request body is not valid JSON in UTF-8 (without a byte order mark).")


def _is_plain_utf8(body: bytes) -> bool:
    """JSON over HTTP is UTF-8 without a BOM (RFC 8259 §8.1). The JSON parser would guess UTF-16 or
    UTF-32 from NUL bytes and skip a BOM; a NUL is never valid in JSON text anyway."""
    if body.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")) or b"\x00" in body:
        return False
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _too_slow(seconds: float) -> RequestTimeout:
    return RequestTimeout(
        f"The request body did not arrive within {seconds:g} s (ENGRAM_BODY_TIMEOUT_SECONDS)."
    )


def _too_large(limit: int, setting: str) -> PayloadTooLarge:
    return PayloadTooLarge(f"The request body exceeds {limit} bytes ({setting}).", limit=limit)


async def _never_receive() -> Message:
    return {"type": "http.disconnect"}


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))

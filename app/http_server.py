"""uvicorn's httptools protocol with the guards uvicorn lacks: a connection cap, a header timeout
and a header size cap (uvicorn's own keep-alive timeout covers idle connections between requests);
and each response's status line and headers sent with its body, in one write (`OneWrite`).

Each guard acts before the ASGI app sees anything, so a client that never finishes its headers
costs a timer and a few kilobytes, never a task. `engram serve` passes this class to uvicorn as
`http=`; the limits come from the ENGRAM_* environment every API process inherits.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import cache
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from app.config import Settings

PROTOCOL = "app.http_server:GuardedHttpToolsProtocol"


@dataclass(frozen=True)
class ConnectionLimits:
    max_connections: int
    header_timeout: float
    max_header_bytes: int

    @classmethod
    def from_settings(cls, settings: Settings) -> ConnectionLimits:
        return cls(settings.max_connections, settings.header_timeout_seconds, settings.max_header_bytes)


@cache
def _limits() -> ConnectionLimits:
    # Read once per process from the environment `engram serve` validated and exported.
    return ConnectionLimits.from_settings(Settings())


def _plain(status: bytes, reason: str) -> bytes:
    body = reason.encode()
    return (
        b"HTTP/1.1 " + status + b"\r\ncontent-type: text/plain; charset=utf-8\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body
    )


_TOO_LARGE = _plain(b"431 Request Header Fields Too Large", "Request header fields too large.")
_TIMEOUT = _plain(b"408 Request Timeout", "The request headers did not arrive in time.")


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
        limits: ConnectionLimits | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.guard = limits or _limits()
        self._header_timer: asyncio.TimerHandle | None = None
        self._header_bytes = 0
        self._in_headers = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.guard.max_connections:
            transport.abort()  # over the cap: no response, no buffers, the slot is freed at once
            return
        # A connection that says nothing is a slow header too.
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        # Still in the headers after parsing this chunk: all of it was header bytes (a chunk that
        # completes the headers and carries body bytes is not counted).
        if self._in_headers or self._header_timer is not None:
            self._header_bytes += len(data)
            if self._header_bytes > self.guard.max_header_bytes:
                self._refuse(_TOO_LARGE)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        # A keep-alive connection's next request starts its own header clock.
        self._in_headers = True
        if self._header_timer is None:
            self._arm_header_timer()

    def on_headers_complete(self) -> None:
        self._in_headers = False
        self._disarm_header_timer()
        before = self.cycle
        super().on_headers_complete()
        if self.cycle is not None and self.cycle is not before:  # a request (not an upgrade)
            self.cycle.transport = OneWrite(self.transport, self.loop)  # type: ignore[assignment]

    def _arm_header_timer(self) -> None:
        self._header_bytes = 0
        self._header_timer = self.loop.call_later(self.guard.header_timeout, self._header_timed_out)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        self._header_bytes = 0

    def _header_timed_out(self) -> None:
        self._header_timer = None
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a request is being served: its headers came in time
        self._refuse(_TIMEOUT if self._in_headers else None)

    def _refuse(self, response: bytes | None) -> None:
        self._disarm_header_timer()
        if self.transport.is_closing():
            return
        if response is not None:
            self.transport.write(response)
        self.transport.close()


class OneWrite:
    """The transport as one request's response cycle sees it: the cycle's first write (the status
    line and headers) is held until its next (the body), and both go out as one.

    uvicorn writes the headers and the body separately: two sends and two segments for every
    response, and two wake-ups of the client. The send saved is ~1.3-2 us of the API's CPU
    (docs/benchmarks.md, "Append CPU, session 13"); the rest of the saving is the kernel's and
    the client's.
    What is held goes out by the end of the event loop's turn whatever comes next, so a streamed
    response whose first chunk is late, or a `100 Continue`, is not delayed; every other call
    sends what is held first, so the bytes keep their order.
    """

    __slots__ = ("_first", "_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None
        self._first = True

    def write(self, data: bytes) -> None:
        if self._held is not None:
            data, self._held = self._held + data, None
        elif self._first:
            self._first = False
            self._held = data
            self._loop.call_soon(self.flush)
            return
        self._transport.write(data)

    def flush(self) -> None:
        held, self._held = self._held, None
        if held is not None and not self._transport.is_closing():
            self._transport.write(held)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:  # is_closing, get_extra_info ...: the transport's own
        return getattr(self._transport, name)

"""A streamed response that gives up on a client that stops reading.

A download holds a database connection and a snapshot (app.transfer.export) while its client
reads; a client that reads nothing for `idle_seconds` is cut off, and the stream closed at once,
which returns the connection and ends the snapshot.
"""

from __future__ import annotations

import asyncio
from typing import Any

import structlog
from starlette.responses import StreamingResponse
from starlette.types import Message, Send

_log = structlog.get_logger("engram.transfer")


class IdleLimitedStream(StreamingResponse):
    def __init__(self, content: Any, *, idle_seconds: float, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self.idle_seconds = idle_seconds

    async def stream_response(self, send: Send) -> None:
        idle = self.idle_seconds

        async def timed_send(message: Message) -> None:
            # `send` waits while the client's receive window is full: that wait is the idleness.
            async with asyncio.timeout(idle):
                await send(message)

        try:
            await super().stream_response(timed_send)
        except TimeoutError:
            # Returning unfinished makes the server close the connection.
            _log.warning("export cut off: the client read nothing", idle_seconds=idle)
        finally:
            close = getattr(self.body_iterator, "aclose", None)
            if close is not None:
                await close()

"""A response's headers and body in one write (app.http_server.OneWrite): the same bytes in the
same order, the headers never later than the end of the event loop's turn, through a live uvicorn
with the project's protocol."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from app.http_server import GuardedHttpToolsProtocol, OneWrite
from tests.support.procs import free_port


class Recording:
    """A transport that records what is done to it."""

    def __init__(self) -> None:
        self.calls: list[Any] = []
        self.closing = False

    def write(self, data: bytes) -> None:
        self.calls.append(data)

    def close(self) -> None:
        self.closing = True
        self.calls.append("close")

    def is_closing(self) -> bool:
        return self.closing

    def get_extra_info(self, name: str) -> str:
        return f"extra {name}"


def one_write() -> tuple[OneWrite, Recording]:
    t = Recording()
    return OneWrite(t, asyncio.get_running_loop()), t  # type: ignore[arg-type]


async def test_headers_and_body_go_out_as_one_write() -> None:
    w, t = one_write()
    w.write(b"HTTP/1.1 200 OK\r\n\r\n")
    assert t.calls == []
    w.write(b"body")
    w.write(b"more")
    assert t.calls == [b"HTTP/1.1 200 OK\r\n\r\nbody", b"more"]
    await asyncio.sleep(0)  # the scheduled flush finds nothing held
    assert t.calls == [b"HTTP/1.1 200 OK\r\n\r\nbody", b"more"]


async def test_what_is_held_goes_out_by_the_end_of_the_turn() -> None:
    w, t = one_write()
    w.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    await asyncio.sleep(0)
    assert t.calls == [b"HTTP/1.1 100 Continue\r\n\r\n"]
    w.write(b"HTTP/1.1 200 OK\r\n\r\n")  # not the first write: straight through
    assert t.calls[-1] == b"HTTP/1.1 200 OK\r\n\r\n"


async def test_close_sends_what_is_held_first_and_a_closed_transport_gets_nothing() -> None:
    w, t = one_write()
    w.write(b"head")
    w.close()
    assert t.calls == [b"head", "close"]
    w2, t2 = one_write()
    w2.write(b"head")
    t2.closing = True  # the client went away
    await asyncio.sleep(0)
    assert t2.calls == []
    assert w2.get_extra_info("peername") == "extra peername"  # the rest is the transport's


async def _slow_stream(request: Request) -> Response:
    async def chunks() -> AsyncIterator[bytes]:
        await asyncio.sleep(1.0)
        yield b"late"

    return StreamingResponse(chunks(), media_type="text/plain")


async def _plain(request: Request) -> Response:
    return PlainTextResponse("hello " + request.path_params["n"])


@pytest.fixture
async def live() -> AsyncIterator[int]:
    app = Starlette(routes=[Route("/plain/{n}", _plain), Route("/slow", _slow_stream)])
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, http=GuardedHttpToolsProtocol, lifespan="off", log_level="warning"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()  # why it could not listen
        await asyncio.sleep(0.01)
    yield port
    server.should_exit = True
    await task


async def _read_until(reader: asyncio.StreamReader, marker: bytes, within: float) -> bytes:
    return await asyncio.wait_for(reader.readuntil(marker), within)


async def test_keep_alive_responses_arrive_whole_and_in_order(live: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", live)
    for n in range(3):
        writer.write(f"GET /plain/{n} HTTP/1.1\r\nhost: x\r\n\r\n".encode())
    head = b""
    for n in range(3):
        head = await _read_until(reader, b"\r\n\r\n", 5)
        assert head.startswith(b"HTTP/1.1 200 OK\r\n")
        assert b"content-length: 7\r\n" in head
        assert await asyncio.wait_for(reader.readexactly(7), 5) == f"hello {n}".encode()
    writer.close()


async def test_a_late_first_chunk_does_not_hold_back_the_headers(live: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", live)
    writer.write(b"GET /slow HTTP/1.1\r\nhost: x\r\n\r\n")
    head = await _read_until(reader, b"\r\n\r\n", 0.5)  # long before the chunk (1 s)
    assert head.startswith(b"HTTP/1.1 200 OK\r\n") and b"transfer-encoding: chunked" in head
    assert await _read_until(reader, b"0\r\n\r\n", 5) == b"4\r\nlate\r\n0\r\n\r\n"
    writer.close()


async def test_the_live_protocol_sends_a_plain_response_in_one_write(
    live: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[bytes] = []
    init = OneWrite.__init__

    def recording_init(self: OneWrite, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        real_write = transport.write

        class Spy:
            def write(self, data: bytes) -> None:
                sent.append(bytes(data))
                real_write(data)

            def __getattr__(self, name: str) -> Any:
                return getattr(transport, name)

        init(self, Spy(), loop)  # type: ignore[arg-type]

    monkeypatch.setattr(OneWrite, "__init__", recording_init)
    reader, writer = await asyncio.open_connection("127.0.0.1", live)
    writer.write(b"GET /plain/9 HTTP/1.1\r\nhost: x\r\n\r\n")
    await _read_until(reader, b"hello 9", 5)
    writer.close()
    assert len(sent) == 1 and sent[0].startswith(b"HTTP/1.1 200 OK\r\n") and sent[0].endswith(b"hello 9")

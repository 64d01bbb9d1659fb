"""A real HTTP receiver for webhook tests: uvicorn on a free loopback port, in the test's event
loop, recording every request; it can answer slowly, answer 500, or be down (stopped), and come
back on the same port."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
import uvicorn

from tests.support.procs import free_port

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class _Server(uvicorn.Server):
    """uvicorn without its signal handlers: the test runner keeps its own."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float  # time.monotonic() when the body was in
    status: int  # what the receiver answered

    @property
    def json(self) -> Any:
        return orjson.loads(self.body)

    @property
    def event_id(self) -> str:
        return self.headers["webhook-id"]


@dataclass
class Receiver:
    port: int = field(default_factory=free_port)
    status: int = 200  # the answer to every request...
    delay: float = 0.0  # ...after this long
    # A per-request decision (status) that overrides `status` when set.
    decide: Callable[[Received], int] | None = None
    received: list[Received] = field(default_factory=list)
    _server: _Server | None = None
    _task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                # The sender went away mid-request (a worker killed while sending): a receiver
                # never got this request whole, so it neither processed nor acknowledged it.
                return
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        got = Received(headers=headers, body=body, at=time.monotonic(), status=self.status)
        if self.decide is not None:
            got.status = self.decide(got)
        self.received.append(got)
        if self.delay:
            await asyncio.sleep(self.delay)
        await send(
            {"type": "http.response.start", "status": got.status, "headers": [(b"content-length", b"2")]}
        )
        await send({"type": "http.response.body", "body": b"ok"})

    async def start(self) -> None:
        config = uvicorn.Config(
            self, host="127.0.0.1", port=self.port, log_level="warning", lifespan="off", access_log=False
        )
        self._server = _Server(config)
        self._task = asyncio.create_task(self._server.serve())
        while not self._server.started:
            if self._task.done():
                self._task.result()
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        """Down: the port refuses connections until `start` again."""
        if self._server is not None and self._task is not None:
            self._server.should_exit = True
            self._server.force_exit = True
            await self._task
        self._server = self._task = None

    def ids(self) -> list[str]:
        return [r.event_id for r in self.received]

    def events(self) -> list[Received]:
        """Each event once, at its first receipt, as an idempotent receiver keeps them: delivery is
        at least once, and a try whose answer came after the sender's timeout (a stalled loop on a
        loaded machine) is sent again under the same `webhook-id`."""
        seen: set[str] = set()
        firsts = []
        for r in self.received:
            if r.event_id not in seen:
                seen.add(r.event_id)
                firsts.append(r)
        return firsts

    def of_type(self, type_: str) -> list[Received]:
        return [r for r in self.events() if r.json["type"] == type_]

    async def wait_for(self, predicate: Callable[[list[Received]], bool], within: float = 30) -> None:
        deadline = time.monotonic() + within
        while not predicate(self.received):
            assert time.monotonic() < deadline, (
                f"timed out; received {[r.json['type'] for r in self.received]}"
            )
            await asyncio.sleep(0.02)

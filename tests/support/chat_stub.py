"""A small local server speaking the OpenAI wire format for `/v1/chat/completions`.

Each test scripts the answers in order: a reply's content, an HTTP error status, a stall past the
client's timeout, or a raw (broken) body; once the script runs out, `default` answers (a fixed
reply, or one computed from the request, for tests that need the prompt). Every request is recorded.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from tests.support.openai_stub import serve_app


@dataclass(frozen=True)
class Reply:
    content: str | None = None  # the assistant message's content
    status: int = 200  # anything else: an OpenAI-style error body with this status
    body: str | None = None  # sent as is instead of a chat completion (a broken wire format)
    stall_seconds: float = 0.0  # wait this long before answering


def json_reply(payload: object, **extra: Any) -> Reply:
    return Reply(content=json.dumps(payload), **extra)


@dataclass
class ChatScript:
    replies: list[Reply] = field(default_factory=list)  # answered in order...
    default: Reply | Callable[[dict[str, Any]], Reply] = Reply(content="{}")  # ...then this
    requests: list[dict[str, Any]] = field(default_factory=list)

    def prompts(self) -> list[str]:
        """The last message's content of every request, in order."""
        return [str(r["body"]["messages"][-1]["content"]) for r in self.requests]


def _completion(body: dict[str, Any], content: str | None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "stub"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _app(script: ChatScript) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Response:
        body = await request.json()
        script.requests.append({"body": body, "auth": request.headers.get("authorization")})
        if script.replies:
            reply = script.replies.pop(0)
        else:
            reply = script.default(body) if callable(script.default) else script.default
        if reply.stall_seconds:
            await asyncio.sleep(reply.stall_seconds)
        if reply.status != 200:
            error = {"error": {"message": f"stub error {reply.status}", "type": "stub", "code": None}}
            return JSONResponse(error, reply.status)
        if reply.body is not None:
            return Response(reply.body, media_type="application/json")
        return JSONResponse(_completion(body, reply.content))

    return app


@contextmanager
def serve(script: ChatScript) -> Iterator[str]:
    """Run the stub on a free loopback port; yields its base URL (…/v1)."""
    with serve_app(_app(script), abandon_requests=True) as url:
        yield url

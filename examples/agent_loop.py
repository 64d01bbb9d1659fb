"""A small chat agent whose memory is Engram.

Each line on standard input is a user turn. For every turn the agent
1. appends it to the session,
2. asks Engram for the session's memory within a token budget (summary, facts about the user,
   newest messages) as one `context` string,
3. sends that context and the turn to any OpenAI-compatible chat model,
4. appends the model's reply, so the next turn (and any later session) remembers it.

Settings come from the environment: ENGRAM_URL (default http://127.0.0.1:8000), ENGRAM_API_KEY
(a tenant key; leave it out when the server runs with auth off), OPENAI_BASE_URL, OPENAI_API_KEY and
OPENAI_MODEL (default gpt-4o-mini). See examples/README.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TypeVar

from engram_client import AuthenticatedClient
from engram_client.api.memory import get_memory
from engram_client.api.messages import append_messages
from engram_client.api.sessions import create_session, get_session
from engram_client.models import AppendRequest, MessageIn, Problem, SessionCreate
from openai import OpenAI

T = TypeVar("T")

INSTRUCTIONS = (
    "You are a helpful assistant with a long-term memory. What you remember about this user and "
    "this conversation is below; use it when it helps, and never invent memories.\n\n"
)


def ok(answer: T | Problem | None) -> T:
    """The answer, or exit with the server's problem (RFC 9457) when the call failed."""
    if isinstance(answer, Problem):
        sys.exit(f"engram: {answer.status} {answer.title}: {answer.detail}")
    if answer is None:
        sys.exit("engram: unexpected answer")
    return answer


def open_session(engram: AuthenticatedClient, user_id: str, session_id: str | None) -> str:
    """Continue `session_id` when it exists; otherwise start a session (the user is created if new)."""
    if session_id is not None and not isinstance(get_session.sync(session_id, client=engram), Problem):
        return session_id
    created = create_session.sync(client=engram, body=SessionCreate(user_id=user_id, session_id=session_id))
    return ok(created).session_id


def append(engram: AuthenticatedClient, session_id: str, message: MessageIn) -> None:
    ok(append_messages.sync(session_id, client=engram, body=AppendRequest(messages=[message])))


def answer(
    engram: AuthenticatedClient, chat: OpenAI, model: str, session_id: str, turn: str, max_tokens: int
) -> str:
    append(engram, session_id, MessageIn(role="user", content=turn))
    # The context ends with the newest messages, this turn among them; `query` picks the facts
    # (and may be at most ENGRAM_MAX_QUERY_CHARS long, 4000 by default).
    memory = ok(get_memory.sync(session_id, client=engram, max_tokens=max_tokens, query=turn[:4000]))
    completion = chat.chat.completions.create(
        model=model,
        messages=[
            {"role": "system", "content": INSTRUCTIONS + memory.context},
            {"role": "user", "content": turn},
        ],
    )
    reply = completion.choices[0].message.content or ""
    append(engram, session_id, MessageIn(role="assistant", content=reply))
    return reply


def main() -> None:
    parser = argparse.ArgumentParser(description="Chat with a model that remembers, through Engram.")
    parser.add_argument("--user", default="demo-user", help="Engram user id (default: demo-user)")
    parser.add_argument("--session", help="continue this session (default: a new one)")
    parser.add_argument("--max-tokens", type=int, default=2000, help="memory budget per turn")
    args = parser.parse_args()

    # With auth off the server ignores the header, so any token will do there.
    engram = AuthenticatedClient(
        base_url=os.environ.get("ENGRAM_URL", "http://127.0.0.1:8000"),
        token=os.environ.get("ENGRAM_API_KEY", "auth-off"),
        raise_on_unexpected_status=True,
    )
    chat = OpenAI()  # OPENAI_BASE_URL and OPENAI_API_KEY from the environment
    model = os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
    session_id = open_session(engram, args.user, args.session)
    print(f"session {session_id}", file=sys.stderr)
    interactive = sys.stdin.isatty()
    while True:
        if interactive:
            print("you> ", end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            break
        if turn := line.strip():
            print(f"assistant> {answer(engram, chat, model, session_id, turn, args.max_tokens)}", flush=True)


if __name__ == "__main__":
    main()

"""The MCP tools: a small curated set over the REST operations, not one tool per route.

Each tool's arguments and answer are pydantic models, most of them the API's own (`SearchRequest`
is the search tool's input, `SearchResponse` its output), so the schemas follow the API instead
of copying it. A tool validates its arguments here (a clear error before any call), then makes
REST calls through `EngramCalls`; the API validates again and owns every rule.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.ai.fact_extractor import FactKind
from app.facts.schemas import FactEventOut, FactIn, FactOut
from app.jsonutil import dumps
from app.mcp.calls import EngramCalls, Json, ToolProblem
from app.memory.schemas import MemoryOut
from app.messages.schemas import AppendResponse, MessageIn
from app.pagination import Page
from app.search.schemas import SearchRequest, SearchResponse

_SESSION = "The session's id (your id for one conversation)."
_USER = "Your id for the user the memory is about."
_CURSOR = "`next_cursor` of the previous page, to continue."


class GetContextArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    session_id: str = Field(min_length=1, description=_SESSION)
    query: str | None = Field(
        None, min_length=1, description="What the next turn is about; ranks the user's facts by relevance."
    )
    max_tokens: int = Field(2000, ge=0, description="Token budget of `context`.")


class RememberArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    session_id: str = Field(min_length=1, description=_SESSION)
    messages: list[MessageIn] = Field(min_length=1, description="The new turns, oldest first.")
    user_id: str | None = Field(
        None,
        min_length=1,
        description="The user the session belongs to. Given, a session that does not exist yet is "
        "created for this user; without it, an unknown session is an error.",
    )
    turn_id: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="Your id for this turn (e.g. the host's message id). Retries of one call must "
        "send the same value; a different value stores the same messages again.",
    )


class ListFactsArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    user_id: str = Field(min_length=1, description=_USER)
    as_of: datetime | None = Field(
        None, description="The facts that held at this time (ISO 8601; no zone means UTC). Default: now."
    )
    include_invalid: bool = Field(False, description="Every fact, also superseded or ended ones, with dates.")
    kinds: list[FactKind] | None = Field(None, min_length=1, description="Only facts of these kinds.")
    limit: int = Field(50, ge=1, le=1000, description="Page size.")
    cursor: str | None = Field(None, max_length=2048, description=_CURSOR)


class AddFactArgs(FactIn):
    model_config = ConfigDict(extra="forbid", json_schema_extra=None)
    user_id: str = Field(min_length=1, description=_USER)


class ForgetFactArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    fact_id: uuid.UUID = Field(description="The fact's id (from list_facts, search or add_fact).")
    redact: bool = Field(
        False, description="Also erase its text from every event of its history (kept otherwise)."
    )


class FactHistoryArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    fact_id: uuid.UUID = Field(description="The fact's id.")
    limit: int = Field(100, ge=1, le=1000, description="Page size.")
    cursor: str | None = Field(None, max_length=2048, description=_CURSOR)


class RememberOut(AppendResponse):
    replayed: bool = Field(description="True: an earlier call with this key stored them; nothing new.")
    session_created: bool = Field(description="True: the session did not exist and was created.")


class AddFactOut(FactOut):
    created: bool = Field(description="False: the same statement was already a valid fact (returned).")


class ForgetOut(BaseModel):
    fact_id: uuid.UUID
    deleted: bool = True
    redacted: bool


def idempotency_key(args: RememberArgs) -> str:
    """Derived from what is stored (and `turn_id`), so a client's retry of the same call reuses it:
    the API then answers the first call's messages and stores nothing twice."""
    canonical = {
        "session_id": args.session_id,
        "messages": [m.model_dump(mode="json", exclude_unset=True) for m in args.messages],
        "turn_id": args.turn_id,
    }
    return "mcp-" + hashlib.sha256(dumps(canonical)).hexdigest()[:48]


async def get_context(calls: EngramCalls, args: GetContextArgs, raw: Json) -> Json:
    return await calls.memory(session_id=args.session_id, max_tokens=args.max_tokens, query=args.query)


async def remember(calls: EngramCalls, args: RememberArgs, raw: Json) -> Json:
    key = idempotency_key(args)
    created = False
    try:
        stored, replayed = await calls.append(
            session_id=args.session_id, messages=raw["messages"], idempotency_key=key
        )
    except ToolProblem as exc:
        if args.user_id is None or not exc.type.endswith(":not-found"):
            raise
        try:
            await calls.create_session(session_id=args.session_id, user_id=args.user_id)
            created = True
        except ToolProblem as race:  # created meanwhile by another call: append to it
            if not race.type.endswith(":conflict"):
                raise
        stored, replayed = await calls.append(
            session_id=args.session_id, messages=raw["messages"], idempotency_key=key
        )
    return {**stored, "replayed": replayed, "session_created": created}


async def search(calls: EngramCalls, args: SearchRequest, raw: Json) -> Json:
    return await calls.search(body=raw)


async def list_facts(calls: EngramCalls, args: ListFactsArgs, raw: Json) -> Json:
    return await calls.list_facts(
        user_id=args.user_id,
        as_of=args.as_of,
        include_invalid=args.include_invalid,
        kinds=[k.value for k in args.kinds] if args.kinds else None,
        limit=args.limit,
        cursor=args.cursor,
    )


async def add_fact(calls: EngramCalls, args: AddFactArgs, raw: Json) -> Json:
    body = {k: v for k, v in raw.items() if k != "user_id"}
    fact, created = await calls.add_fact(user_id=args.user_id, body=body)
    return {**fact, "created": created}


async def forget_fact(calls: EngramCalls, args: ForgetFactArgs, raw: Json) -> Json:
    await calls.delete_fact(fact_id=args.fact_id, redact=args.redact)
    return {"fact_id": str(args.fact_id), "deleted": True, "redacted": args.redact}


async def fact_history(calls: EngramCalls, args: FactHistoryArgs, raw: Json) -> Json:
    return await calls.fact_history(fact_id=args.fact_id, limit=args.limit, cursor=args.cursor)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    args: type[BaseModel]
    output: type[BaseModel]
    run: Callable[[EngramCalls, Any, Json], Awaitable[Json]]
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False

    def input_schema(self) -> dict[str, Any]:
        return self.args.model_json_schema()

    def output_schema(self) -> dict[str, Any]:
        return self.output.model_json_schema(mode="serialization")


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "get_context",
        "Get a session's memory",
        "What to put in the prompt for the next turn of a session, within `max_tokens`: the latest "
        "summary of older turns, the user's facts relevant to `query`, and the newest messages that "
        "fit, rendered as one `context` string (its exact token count is `token_count`), plus the same "
        "parts as JSON. Every message already remembered is included when it fits.",
        GetContextArgs,
        MemoryOut,
        get_context,
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        "remember",
        "Remember turns of a conversation",
        "Appends messages (role user/assistant/system/tool, content, optional name, metadata, "
        "created_at) to a session, in order, durably; summaries, embeddings and facts about the user "
        "are derived from them in the background. Safe to retry: the idempotency key is derived from "
        "the session, the messages and `turn_id`, so a retried call stores nothing twice and answers "
        "`replayed: true`. The same messages sent again to the same session within "
        "ENGRAM_IDEMPOTENCY_TTL_HOURS count as a retry unless `turn_id` differs.",
        RememberArgs,
        RememberOut,
        remember,
        idempotent=True,
    ),
    ToolSpec(
        "search",
        "Search memory",
        "Finds messages, session summaries and/or facts about users (`kinds`) by meaning and words "
        "(`mode`: hybrid, semantic or keyword), in one user's or one session's data or all of it, with "
        "filters on roles, metadata, time and sessions. Results are ranked together, each with its "
        "score parts.",
        SearchRequest,
        SearchResponse,
        search,
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        "list_facts",
        "List facts about a user",
        "The facts known about a user that are valid now, newest first; `as_of` gives those that held "
        "at a past time, `include_invalid` every fact with its validity dates (superseded, negated, "
        "expired or ended ones too). A page at a time: pass `next_cursor` as `cursor`.",
        ListFactsArgs,
        Page[FactOut],
        list_facts,
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        "add_fact",
        "Add a fact about a user",
        "Stores a statement about a user (e.g. `Lives in Porto.`), creating the user if new. The same "
        "statement already valid is returned as it is (`created: false`). An `exclusive` fact with a "
        "`subject` ends the user's current fact with that subject (its history records why).",
        AddFactArgs,
        AddFactOut,
        add_fact,
        idempotent=True,
    ),
    ToolSpec(
        "forget_fact",
        "Forget a fact",
        "Deletes a fact; its history keeps a DELETE event. With `redact: true` its text is also "
        "erased from every event of its history (for what must not be kept).",
        ForgetFactArgs,
        ForgetOut,
        forget_fact,
        destructive=True,
        idempotent=False,
    ),
    ToolSpec(
        "fact_history",
        "A fact's history",
        "Every change of a fact, oldest first: ADD, UPDATE, INVALIDATE and DELETE events with the old "
        "and new text, who made the change (`system` or `api`), why, and the source messages. Kept "
        "after the fact is deleted.",
        FactHistoryArgs,
        Page[FactEventOut],
        fact_history,
        read_only=True,
        idempotent=True,
    ),
)

BY_NAME = {t.name: t for t in TOOLS}

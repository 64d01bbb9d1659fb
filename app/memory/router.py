"""Memory: HTTP in, a service call, HTTP out."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, BackgroundTasks, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app import lean
from app.db.request import RequestDb, reading
from app.deps import AppParts, Parts, Reads, SessionIdPath, TenantId, app_parts
from app.errors import ValidationFailed
from app.facts.relevant import mark_used
from app.memory import service
from app.memory.schemas import MemoryOut
from app.messages.schemas import Role
from app.middleware import OperationRoute
from app.problems import problem_responses

router = APIRouter(prefix="/sessions/{session_id}", tags=["memory"])


class MemoryParams(BaseModel):
    """The query string of GET …/memory: the FastAPI route declares it for the spec (a query
    parameter model) and the lean endpoint validates it, so both accept and refuse alike."""

    model_config = ConfigDict(extra="ignore")

    max_tokens: int = Field(2000, ge=0, description="Token budget of `context`.")
    query: str | None = Field(None, min_length=1, description="What the next turn is about (ranks facts).")
    last_n: int | None = Field(None, ge=1, le=10_000, description="At most this many messages.")
    role: list[Role] | None = Field(None, description="Only messages of these roles (repeatable).")
    summary_share: float = Field(
        0.5, ge=0, le=1, description="Most of `max_tokens` the summary may take (it is whole or left out)."
    )
    facts_share: float = Field(0.25, ge=0, le=1, description="Most of `max_tokens` the facts may take.")


@router.get(
    "/memory",
    summary="Get a session's memory",
    description="What to put in a prompt for this session, within `max_tokens`: the latest "
    "summary, the user's facts relevant to `query`, and the newest messages that fit (whole, in "
    "order), as JSON and as one `context` string whose exact token count is `token_count`. "
    "The budget goes first to the newest message (always included: a `max_tokens` too small for "
    "it alone is a 422 giving `minimum_max_tokens`), then to the summary (whole, within "
    "`summary_share` of `max_tokens`), then to the facts in the order of their `score` (within "
    "`facts_share`), then to older messages (all that is left). Always includes every "
    "acknowledged message that fits. `X-Engram-Cache` says whether the Redis window answered "
    "(`hit`) or PostgreSQL did (`miss`).",
    response_model=MemoryOut,
    responses=problem_responses(404, 422),
)
async def get_memory(
    session_id: SessionIdPath,
    db: Reads,
    tenant: TenantId,
    parts: AppParts,
    tasks: BackgroundTasks,
    params: Annotated[MemoryParams, Query()],
) -> Response:
    # The spec's description of the route (and its FastAPI form); requests are served by
    # `memory_endpoint` below, which reads the same MemoryParams without FastAPI.
    return await _answer(db, parts, tasks, tenant=tenant, session_id=session_id, params=params)


async def _answer(
    db: RequestDb,
    parts: Parts,
    tasks: BackgroundTasks,
    *,
    tenant: str,
    session_id: str,
    params: MemoryParams,
) -> Response:
    settings = parts.settings
    max_tokens, query = params.max_tokens, params.query
    if max_tokens > settings.memory_max_tokens:
        raise ValidationFailed(
            f"max_tokens: is {max_tokens}; the limit is {settings.memory_max_tokens}",
            errors=[{"loc": ["query", "max_tokens"], "msg": "too large", "type": "too_large"}],
        )
    if query is not None:
        if len(query) > settings.max_query_chars:
            raise ValidationFailed(
                f"query: is {len(query)} characters; the limit is {settings.max_query_chars}",
                errors=[{"loc": ["query", "query"], "msg": "too long", "type": "too_long"}],
            )
        parts.limits.check_text(query, ["query", "query"])
    memory = await service.get_memory(
        db,
        cache=parts.cache,
        tokenizer=parts.tokenizer,
        embedder=parts.embedder,
        facts_policy=service.FactsPolicy(
            limit=settings.memory_max_facts,
            min_score=settings.memory_fact_min_score,
            half_life_days=settings.fact_half_life_days,
        ),
        tenant_id=tenant,
        session_id=session_id,
        max_tokens=max_tokens,
        query=query,
        last_n=params.last_n,
        roles={r.value for r in params.role} if params.role else None,
        summary_share=params.summary_share,
        facts_share=params.facts_share,
        answers=parts.answers,
    )
    # Serialised by the service, not through the response model: the documents are already in
    # the API's shape, and skipping a pydantic round trip per message matters on this hot path.
    if memory.fact_ids:
        tasks.add_task(mark_used, parts.engine, tenant_id=tenant, fact_ids=memory.fact_ids)
    headers = {"X-Engram-Cache": "hit" if memory.source == "cache" else "miss"}
    if memory.query_unranked:  # docs/operations: the shared embedding endpoint did not answer
        headers["X-Engram-Degraded"] = "query-not-embedded"
    return Response(memory.json, media_type="application/json", headers=headers, background=tasks)


async def memory_endpoint(request: Request) -> Response:
    """GET …/memory as a plain Starlette endpoint: the hottest read skips FastAPI's routing and
    dependency solving (a quarter of its API CPU, profiled) and does the same checks itself. The
    middleware around it (request id, metrics, gate, guard) and the error handlers are the app's."""
    caller = lean.caller(request)
    session_id = lean.path_id(request, "session_id")
    given: dict[str, Any] = dict(request.query_params)
    if "role" in given:
        given["role"] = request.query_params.getlist("role")
    try:
        params = MemoryParams.model_validate(given)
    except ValidationError as exc:
        raise RequestValidationError(lean.located(exc, "query")) from None
    async with reading(request) as db:
        return await _answer(
            db,
            app_parts(request),
            BackgroundTasks(),
            tenant=caller.tenant_id,
            session_id=session_id,
            params=params,
        )


# Matched before every FastAPI route (app.main), so the route table is not walked for it.
lean_routes = [
    OperationRoute(
        "/v1" + router.prefix + "/memory", memory_endpoint, methods=["GET"], name=get_memory.__name__
    )
]

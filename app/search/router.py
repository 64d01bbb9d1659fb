"""Search: HTTP in, a service call, HTTP out."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app import lean
from app.audit.notes import note
from app.deps import CheckedLimits, Config, Embed, Engine, TenantId
from app.middleware import OperationRoute
from app.problems import problem_responses
from app.search import service
from app.search.schemas import SearchRequest, SearchResponse

router = APIRouter(prefix="/search", tags=["search"])


@router.post(
    "",
    summary="Search memory",
    description="Finds messages, session summaries and/or user facts (`kinds`) by meaning "
    "(`semantic`: pgvector cosine), by words (`keyword`: PostgreSQL full text) or both fused "
    "(`hybrid`, the default), within "
    "your tenant and optionally one user or session, with filters on roles, metadata, time and "
    "sessions pushed into SQL. All kinds are scored on one scale and ranked together. `mmr` removes "
    "near-duplicates, `recency` favours newer hits, `wait_for_indexing_ms` waits (bounded) until the "
    "messages you just wrote are searchable by meaning. Each hit carries its score parts.",
    responses=problem_responses(413),
)
async def search(
    body: SearchRequest,
    engine: Engine,
    tenant: TenantId,
    limits: CheckedLimits,
    settings: Config,
    embedder: Embed,
    request: Request,
) -> SearchResponse:
    # The spec's description of the route (and its FastAPI form); requests are served by
    # `search_endpoint` below, which does the same.
    body.check_limits(limits, settings.max_query_chars)
    note(request, user_id=body.user_id, session_id=body.session_id)  # the audit trail's scope
    return await service.search_when_indexed(
        engine,
        tenant_id=tenant,
        req=body,
        embedder=embedder,
        settings=settings,
        running=request.state.admission.searching(tenant),
    )


async def search_endpoint(request: Request) -> Response:
    """POST /search as a plain Starlette endpoint: the caller, the body (the same 400 and 422), the
    same limits, audit note and service call; no dependency solving, no re-validation of the
    answer."""
    who = lean.caller(request)
    body = await lean.json_body(request, SearchRequest)
    state = request.state
    settings = state.settings
    body.check_limits(state.limits, settings.max_query_chars)
    note(request, user_id=body.user_id, session_id=body.session_id)
    answer = await service.search_when_indexed(
        state.engine,
        tenant_id=who.tenant_id,
        req=body,
        embedder=state.embedder,
        settings=settings,
        running=state.admission.searching(who.tenant_id),
    )
    return Response(lean.json_bytes(answer), media_type="application/json")


# Matched before every FastAPI route (app.main).
lean_routes = [OperationRoute("/v1" + router.prefix, search_endpoint, methods=["POST"], name=search.__name__)]

"""Search: HTTP in, a service call, HTTP out."""

from __future__ import annotations

from fastapi import APIRouter, Request

from app.audit.notes import note
from app.deps import CheckedLimits, Config, Embed, Engine, TenantId
from app.errors import problem_responses
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
    body.check_limits(limits, settings.max_query_chars)
    note(request, user_id=body.user_id, session_id=body.session_id)  # the audit trail's scope
    return await service.search_when_indexed(
        engine, tenant_id=tenant, req=body, embedder=embedder, settings=settings
    )

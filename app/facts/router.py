"""Facts: HTTP in, a service call, HTTP out. A user's facts, one fact, and a session's extraction."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Path, Query, Response
from pydantic import AfterValidator

from app.ai.fact_extractor import FactKind
from app.deps import CheckedLimits, Config, Conn, Engine, SessionIdPath, TenantId, UserIdPath, Wake
from app.facts import extraction, service
from app.facts.schemas import ExtractAccepted, ExtractionState, FactEventOut, FactIn, FactOut, FactPatch
from app.page_params import PageParams
from app.pagination import Page
from app.problems import problem_responses
from app.timestamps import as_utc

user_facts = APIRouter(prefix="/users/{user_id}/facts", tags=["facts"])
facts = APIRouter(prefix="/facts", tags=["facts"])
session_facts = APIRouter(prefix="/sessions/{session_id}", tags=["facts"])

FactIdPath = Annotated[uuid.UUID, Path(description="The fact's id.")]


@user_facts.get(
    "",
    summary="List a user's facts",
    description="The facts valid now, newest first. `as_of` shows those that held at a past time; "
    "`include_invalid=true` lists every fact with its validity dates (what was superseded, negated, "
    "expired or ended).",
    responses=problem_responses(400, 404),
)
async def list_facts(
    user_id: UserIdPath,
    conn: Conn,
    tenant: TenantId,
    settings: Config,
    page: PageParams,
    # A validator, not a call in the body: out of range is then a 422, not an uncaught ValueError.
    as_of: Annotated[
        datetime | None, AfterValidator(as_utc), Query(description="Facts valid at this time (no zone: UTC).")
    ] = None,
    include_invalid: Annotated[bool, Query(description="Every fact, valid or not.")] = False,
    kind: Annotated[list[FactKind] | None, Query(description="Only these kinds (repeatable).")] = None,
    speaker: Annotated[
        str | None,
        Query(
            max_length=200,
            description="Only the facts about this speaker (a name; empty: the user's own). All by default.",
        ),
    ] = None,
) -> Page[FactOut]:
    return await service.list_facts(
        conn,
        tenant_id=tenant,
        user_id=user_id,
        as_of=as_of,
        include_invalid=include_invalid,
        kinds=[k.value for k in kind] if kind else None,
        page=page,
        half_life_days=settings.fact_half_life_days,
        speaker=speaker,
    )


@user_facts.post(
    "",
    status_code=201,
    summary="Add a fact by hand",
    description="Stores a fact about the user (created if new). The same statement already valid "
    "is returned as it is (200). An `exclusive` fact with a `subject` ends the user's current fact "
    "with that subject. The worker embeds it shortly after, for search and memory.",
    responses={200: {"model": FactOut, "description": "Already known."}, **problem_responses(413)},
)
async def add_fact(
    user_id: UserIdPath,
    body: FactIn,
    conn: Conn,
    tenant: TenantId,
    limits: CheckedLimits,
    settings: Config,
    wake: Wake,
    tasks: BackgroundTasks,
    response: Response,
) -> FactOut:
    body.check_limits(limits)
    fact, created = await service.add_fact(
        conn, tenant_id=tenant, user_id=user_id, body=body, half_life_days=settings.fact_half_life_days
    )
    response.status_code = 201 if created else 200
    if created:
        tasks.add_task(wake.poke)  # after the commit: the worker embeds it
    return fact


@facts.get(
    "/{fact_id}",
    summary="Get a fact",
    description="One fact, valid or not, with its validity dates, sources and faded importance.",
    responses=problem_responses(404),
)
async def get_fact(fact_id: FactIdPath, conn: Conn, tenant: TenantId, settings: Config) -> FactOut:
    return await service.get_fact(
        conn, tenant_id=tenant, fact_id=fact_id, half_life_days=settings.fact_half_life_days
    )


@facts.patch(
    "/{fact_id}",
    summary="Edit a fact",
    description="Changes the fields given (metadata as a JSON merge patch); `invalid_at` ends the "
    "fact. Every change is in its history.",
    responses=problem_responses(404, 413),
)
async def patch_fact(
    fact_id: FactIdPath,
    body: FactPatch,
    conn: Conn,
    tenant: TenantId,
    limits: CheckedLimits,
    settings: Config,
    wake: Wake,
    tasks: BackgroundTasks,
) -> FactOut:
    body.check_limits(limits)
    fact = await service.patch_fact(
        conn, tenant_id=tenant, fact_id=fact_id, body=body, half_life_days=settings.fact_half_life_days
    )
    if body.content is not None:
        tasks.add_task(wake.poke)  # after the commit: a new text is embedded again
    return fact


@facts.delete(
    "/{fact_id}",
    status_code=204,
    summary="Delete a fact",
    description="Removes the fact; its history keeps a DELETE event. `redact=true` also removes "
    "its text from every event of its history.",
    responses=problem_responses(404),
)
async def delete_fact(
    fact_id: FactIdPath,
    conn: Conn,
    tenant: TenantId,
    redact: Annotated[bool, Query(description="Also blank the text in the fact's history.")] = False,
) -> Response:
    await service.delete_fact(conn, tenant_id=tenant, fact_id=fact_id, redact=redact)
    return Response(status_code=204)


@facts.get(
    "/{fact_id}/history",
    summary="A fact's history",
    description="Every change, oldest first: ADD, UPDATE, INVALIDATE, DELETE with the old and new "
    "text, who made it (`system` or `api`), why, and the source messages. Kept after a delete.",
    responses=problem_responses(400, 404),
)
async def fact_history(
    fact_id: FactIdPath,
    conn: Conn,
    tenant: TenantId,
    page: PageParams,
) -> Page[FactEventOut]:
    return await service.history(conn, tenant_id=tenant, fact_id=fact_id, page=page)


@session_facts.get(
    "/extraction",
    summary="Fact extraction progress",
    description="How far fact extraction has read the session (`extracted_seq` of `last_seq`) and "
    "the extraction work queued or failed for it.",
    responses=problem_responses(404),
)
async def get_extraction(session_id: SessionIdPath, conn: Conn, tenant: TenantId) -> ExtractionState:
    return await extraction.extraction_state(conn, tenant_id=tenant, session_id=session_id)


@session_facts.post(
    "/extract",
    status_code=202,
    summary="Extract facts now",
    description="Queues fact extraction up to the newest message (and retries a failed one). The "
    "worker does it; with `wait_seconds` the answer waits, bounded, until it is `done`.",
    responses=problem_responses(404),
)
async def extract(
    session_id: SessionIdPath,
    engine: Engine,
    tenant: TenantId,
    wake: Wake,
    wait_seconds: Annotated[float, Query(ge=0, le=60, description="Wait up to this long.")] = 0.0,
) -> ExtractAccepted:
    accepted = await extraction.force_extraction(engine, tenant_id=tenant, session_id=session_id)
    await wake.poke()
    if accepted.done or wait_seconds <= 0:
        return accepted
    return await extraction.wait_for_extraction(
        engine, tenant_id=tenant, session_id=session_id, accepted=accepted, seconds=wait_seconds
    )

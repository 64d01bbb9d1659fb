"""Export and import of a user's memory: HTTP in, a service call, HTTP out."""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, AsyncIterator

from fastapi import APIRouter, BackgroundTasks, Request
from fastapi.responses import StreamingResponse

from app.config import Settings
from app.deps import CheckedLimits, Config, Engine, ExportEngine, TenantId, Tok, UserIdPath, Wake
from app.jobs.due import SummaryPolicy
from app.middleware import StreamedBody
from app.problems import problem_responses
from app.transfer import export, importer, upload
from app.transfer.format import NDJSON
from app.transfer.schemas import ImportResult
from app.transfer.stream import IdleLimitedStream

router = APIRouter(prefix="/users/{user_id}", tags=["export and import"])

EXAMPLE = (
    '{"type":"engram.export","version":1,"exported_at":"2026-11-27T10:00:00Z","user_id":"user-42"}\n'
    '{"type":"user","user_id":"user-42","metadata":{"plan":"pro"},"created_at":"2026-11-25T10:00:00Z",'
    '"updated_at":"2026-11-25T10:00:00Z"}\n'
    '{"type":"session","session_id":"sess-1","metadata":{},"last_seq":1,"extracted_seq":1,'
    '"created_at":"2026-11-25T10:00:00Z","updated_at":"2026-11-25T10:00:00Z","ended_at":null}\n'
    '{"type":"message","message_id":"0b7f5c1e-8d7e-4c55-9a55-1f2b3c4d5e6f","session_id":"sess-1","seq":1,'
    '"role":"user","name":"Ada","content":"I moved to Lisbon last week.","metadata":{},"token_count":7,'
    '"created_at":"2026-11-25T10:00:00Z","updated_at":"2026-11-25T10:00:00Z"}\n'
    '{"type":"end","records":3}\n'
)
_FILE = {NDJSON: {"schema": {"type": "string"}, "example": EXAMPLE}}


def import_body(settings: Settings) -> StreamedBody:
    """What the request guard lets through to the import route (see app.main)."""
    return StreamedBody(
        path=re.compile(r"^/v1/users/[^/]+/import$"),
        media_type=NDJSON,
        max_bytes=settings.max_import_bytes,
        setting="ENGRAM_MAX_IMPORT_BYTES",
    )


@router.get(
    "/export",
    summary="Export a user's memory",
    description="Streams the user's sessions, messages, summaries, facts and fact history as JSON "
    "Lines (`application/x-ndjson`; the format is in docs/api.md), read from one consistent "
    "snapshot. Embeddings are not included. The file imports with `POST .../import`.",
    response_class=StreamingResponse,
    responses={200: {"description": "The export file.", "content": _FILE}, **problem_responses(404)},
)
async def export_user(
    user_id: UserIdPath, engine: ExportEngine, tenant: TenantId, settings: Config
) -> StreamingResponse:
    stream = export.export_user(engine, tenant_id=tenant, user_id=user_id)
    first = await anext(stream)  # a missing user raises here, before any byte is sent
    return IdleLimitedStream(
        _prepend(first, stream),
        idle_seconds=settings.export_idle_seconds,
        media_type=NDJSON,
        headers={"Content-Disposition": f'attachment; filename="{user_id}.engram.jsonl"'},
    )


async def _prepend(first: bytes, rest: AsyncGenerator[bytes, None]) -> AsyncIterator[bytes]:
    try:
        yield first
        async for chunk in rest:
            yield chunk
    finally:
        await rest.aclose()  # ends the snapshot and returns its connection now, not at GC


@router.post(
    "/import",
    summary="Import a user's memory",
    description="Takes an export file (`Content-Type: application/x-ndjson`, at most "
    "ENGRAM_MAX_IMPORT_BYTES) and writes it into this user of your tenant (created if new), all or "
    "nothing: seqs and timestamps are kept; message, summary and fact ids only where they are "
    "already this user's, any other id (free or not) is replaced by one derived from it, the same "
    "on every import; what the user already has is left as it is, so importing a file twice "
    "changes nothing. A bad line is refused with its line number; embeddings follow in the background.",
    openapi_extra={"requestBody": {"required": True, "content": _FILE}},
    responses=problem_responses(409, 413, 415),
)
async def import_user(
    user_id: UserIdPath,
    request: Request,
    engine: Engine,
    tenant: TenantId,
    limits: CheckedLimits,
    tokenizer: Tok,
    settings: Config,
    wake: Wake,
    tasks: BackgroundTasks,
) -> ImportResult:
    received = await upload.receive(
        request.stream(),
        max_bytes=settings.max_import_bytes,
        max_line_bytes=settings.max_body_bytes,
        limits=limits,
    )
    try:
        result = await importer.import_user(
            engine,
            tenant_id=tenant,
            user_id=user_id,
            upload=received,
            tokenizer=tokenizer,
            policy=SummaryPolicy.from_settings(settings),
            extract_facts=settings.facts_enabled,
        )
    finally:
        received.close()
    tasks.add_task(wake.poke)  # committed: the worker embeds what came in
    return result

"""Liveness, readiness and Prometheus metrics (outside /v1, no auth)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app.health.service import readiness

router = APIRouter(tags=["ops"])


@router.get(
    "/healthz",
    summary="Liveness",
    description="200 while the process serves requests; checks nothing else.",
    responses={200: {"content": {"application/json": {"example": {"status": "ok"}}}}},
)
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get(
    "/readyz",
    summary="Readiness",
    description="200 when the database answers and the embedding model is loaded (Redis down is "
    "`degraded`, still 200); 503 otherwise, with the reason in `checks` (a first run exports the "
    "model: `model` is `preparing (...)` for ~30 s).",
    responses={
        200: {
            "content": {
                "application/json": {
                    "example": {
                        "status": "ready",
                        "checks": {"database": "ok", "redis": "disabled", "model": "ok"},
                    }
                }
            }
        },
        503: {"description": "The database does not answer, or the model is not loaded yet."},
    },
)
async def readyz(request: Request) -> Any:
    state = request.state
    ready, body = await readiness(state.engine, state.redis, await state.embedder.readiness())
    return JSONResponse(body, status_code=200 if ready else 503)


@router.get(
    "/metrics",
    summary="Prometheus metrics",
    description="Requests and latency by route and status, database pool use.",
    response_class=Response,
    responses={200: {"content": {"text/plain": {"example": "engram_http_requests_total{...} 1.0"}}}},
)
async def metrics(request: Request) -> Response:
    return Response(generate_latest(request.state.metrics.registry), media_type=CONTENT_TYPE_LATEST)

"""The routes: the ops routes at the root, every domain's under /v1."""

from __future__ import annotations

from fastapi import APIRouter

from app.audit.router import router as audit_router
from app.facts.router import facts as facts_router
from app.facts.router import session_facts as session_facts_router
from app.facts.router import user_facts as user_facts_router
from app.health.router import router as health_router
from app.indexing.router import router as indexing_router
from app.memory.router import router as memory_router
from app.messages.router import router as messages_router
from app.search.router import router as search_router
from app.sessions.router import router as sessions_router
from app.summaries.router import router as summaries_router
from app.tenants.router import router as admin_router
from app.transfer.router import router as transfer_router
from app.users.router import router as users_router
from app.webhooks.router import router as webhooks_router

# Each domain's router hangs straight off `root` under /v1, not off a /v1 router of its own:
# every level of included routers is walked on every request (a tenth of a memory read's CPU).
V1 = (
    users_router,
    sessions_router,
    messages_router,
    memory_router,
    summaries_router,
    user_facts_router,
    facts_router,
    session_facts_router,
    search_router,
    indexing_router,
    transfer_router,
    admin_router,
    audit_router,
    webhooks_router,
)

root = APIRouter()
root.include_router(health_router)
for _router in V1:
    root.include_router(_router, prefix="/v1")

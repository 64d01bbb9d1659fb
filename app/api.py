"""The one /v1 router, plus the ops routes at the root."""

from __future__ import annotations

from fastapi import APIRouter

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

v1 = APIRouter(prefix="/v1")
v1.include_router(users_router)
v1.include_router(sessions_router)
v1.include_router(messages_router)
v1.include_router(memory_router)
v1.include_router(summaries_router)
v1.include_router(user_facts_router)
v1.include_router(facts_router)
v1.include_router(session_facts_router)
v1.include_router(search_router)
v1.include_router(indexing_router)
v1.include_router(transfer_router)
v1.include_router(admin_router)

root = APIRouter()
root.include_router(health_router)
root.include_router(v1)

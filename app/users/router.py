"""Users: HTTP in, a service call, HTTP out."""

from __future__ import annotations

from fastapi import APIRouter, BackgroundTasks, Response

from app.cache import evictions
from app.deps import Cache, CheckedLimits, Conn, Engine, TenantId, UserIdPath, Wake
from app.page_params import PageParams
from app.pagination import Page
from app.problems import problem_responses
from app.users import service
from app.users.schemas import UserOut, UserUpsert

router = APIRouter(prefix="/users", tags=["users"])


@router.put(
    "/{user_id}",
    summary="Create or update a user",
    description="Creates the user, or replaces its metadata. Answers 201 when created, 200 when updated.",
    responses={201: {"model": UserOut, "description": "Created."}, **problem_responses(413)},
)
async def upsert_user(
    user_id: UserIdPath,
    body: UserUpsert,
    conn: Conn,
    tenant: TenantId,
    limits: CheckedLimits,
    response: Response,
) -> UserOut:
    body.check_limits(limits)
    user, created = await service.upsert_user(conn, tenant_id=tenant, user_id=user_id, metadata=body.metadata)
    response.status_code = 201 if created else 200
    return user


@router.get(
    "/{user_id}",
    summary="Get a user",
    description="The user's metadata and timestamps.",
    responses=problem_responses(404),
)
async def get_user(user_id: UserIdPath, conn: Conn, tenant: TenantId) -> UserOut:
    return await service.get_user(conn, tenant_id=tenant, user_id=user_id)


@router.get(
    "",
    summary="List users",
    description="Users of your tenant ordered by id, a page at a time (`cursor`).",
    responses=problem_responses(400),
)
async def list_users(
    conn: Conn,
    tenant: TenantId,
    page: PageParams,
) -> Page[UserOut]:
    return await service.list_users(conn, tenant_id=tenant, page=page)


@router.delete(
    "/{user_id}",
    status_code=204,
    summary="Delete a user and everything about them",
    description="Purges the user, their sessions, messages and every row derived from them. Irreversible.",
    responses=problem_responses(404),
)
async def delete_user(
    user_id: UserIdPath,
    conn: Conn,
    tenant: TenantId,
    cache: Cache,
    engine: Engine,
    tasks: BackgroundTasks,
    wake: Wake,
) -> Response:
    evict = await service.purge_user(conn, tenant_id=tenant, user_id=user_id)
    # After the commit; the worker retries what Redis missed.
    tasks.add_task(evictions.evict_now, engine, cache, evict)
    tasks.add_task(wake.poke)  # the `user.purged` webhook event
    return Response(status_code=204, background=tasks)

"""`engram keys` and `engram tenants`: the admin API's key and tenant operations from the shell.

They work on the database directly, through the same service functions as the admin endpoints
(like `engram migrate`: ENGRAM_DATABASE_URL, or the embedded PostgreSQL in ENGRAM_DATA_DIR, joined
if `engram serve` runs on it), so the first key of a deployment needs neither a running server
nor the admin token. Running API processes learn of a revoked key or a deleted tenant within
ENGRAM_API_KEY_CACHE_SECONDS.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from app.cli_common import settings_with, start_embedded_if_needed
from app.config import Settings

if TYPE_CHECKING:  # imported where used: `engram serve`'s supervisor imports this module too
    from pydantic import BaseModel
    from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

    from app.pagination import Page, PageRequest

T = TypeVar("T")
keys = typer.Typer(help="Create, list and revoke tenants' API keys (in the database).", no_args_is_help=True)
tenants = typer.Typer(help="List tenants, or delete one with everything it owns.", no_args_is_help=True)

DataDir = Annotated[Path | None, typer.Option(help="Embedded PostgreSQL home (ENGRAM_DATA_DIR).")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
PAGE = 1000


def _run(
    data_dir: Path | None,
    work: Callable[[Settings, AsyncConnection], Awaitable[T]],
    after: Callable[[Settings, AsyncEngine, T], Awaitable[None]] | None = None,
) -> tuple[Settings, T]:
    """`work` in one transaction on Engram's database, then `after` the commit; problems become
    one line and exit 1."""
    from sqlalchemy.exc import DBAPIError, ProgrammingError

    from app.db.engine import make_engine
    from app.errors import AppError

    settings = settings_with(data_dir=data_dir)
    embedded = start_embedded_if_needed(settings)
    url = embedded.url if embedded else settings.database_url
    assert url is not None

    async def go() -> T:
        engine = make_engine(settings, url, pool_size=1, max_overflow=0, application_name="engram-cli")
        try:
            async with engine.begin() as conn:
                result = await work(settings, conn)
            if after is not None:
                await after(settings, engine, result)
            return result
        finally:
            await engine.dispose()

    try:
        return settings, asyncio.run(go())
    except AppError as exc:
        typer.echo(f"engram: {exc.detail}", err=True)
        raise typer.Exit(1) from None
    except ProgrammingError as exc:
        if "does not exist" in str(exc.orig):
            typer.echo("engram: this database has no Engram schema yet: run `engram migrate` first", err=True)
            raise typer.Exit(1) from None
        raise
    except (DBAPIError, OSError) as exc:
        typer.echo(f"engram: cannot reach the database: {type(exc).__name__}", err=True)
        raise typer.Exit(1) from None
    finally:
        if embedded is not None:
            embedded.stop()


def _check_id(settings: Settings, value: str, what: str) -> None:
    from app.errors import AppError
    from app.limits import Limits

    try:
        Limits(settings).check_id(value, [what])
    except AppError as exc:
        typer.echo(f"engram: {what}: {exc.detail}", err=True)
        raise typer.Exit(2) from None


def _print(items: Sequence[BaseModel], columns: Sequence[str], as_json: bool) -> None:
    rows = [item.model_dump(mode="json") for item in items]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    cells = [[_cell(r[c]) for c in columns] for r in rows]
    widths = [max([len(c), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]
    for line in [list(columns), *cells]:
        typer.echo("  ".join(v.ljust(w) for v, w in zip(line, widths, strict=True)).rstrip())


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)


async def _all_pages(fetch: Callable[[PageRequest], Awaitable[Page[Any]]]) -> list[Any]:
    from app.pagination import PageRequest

    items: list[Any] = []
    cursor: str | None = None
    while True:
        page = await fetch(PageRequest(PAGE, cursor))
        items += page.items
        cursor = page.next_cursor
        if cursor is None:
            return items


@keys.command("create")
def create_key(
    tenant: Annotated[str, typer.Argument(help="The tenant (created with its first key).")],
    name: Annotated[str, typer.Option(help="A label for operators.")] = "",
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """Create an API key; it is printed once (Engram stores only its hash)."""
    from app.tenants import service

    async def work(settings: Settings, conn: AsyncConnection) -> Any:
        _check_id(settings, tenant, "tenant")
        return await service.create_key(conn, tenant_id=tenant, name=name)

    _, created = _run(data_dir, work)
    if as_json:
        typer.echo(created.model_dump_json(indent=2))
        return
    typer.echo(f"key_id  {created.key_id}\ntenant  {created.tenant_id}\nkey     {created.key}")
    typer.echo("The key is shown this once: keep it in your secret store.", err=True)


@keys.command("list")
def list_keys(
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's keys.")] = None,
    data_dir: DataDir = None,
    as_json: AsJson = False,
) -> None:
    """List API keys (never their secret), oldest first."""
    from app.tenants import service

    async def work(settings: Settings, conn: AsyncConnection) -> list[Any]:
        if tenant is not None:
            _check_id(settings, tenant, "tenant")
        return await _all_pages(lambda page: service.list_keys(conn, tenant_id=tenant, page=page))

    _, items = _run(data_dir, work)
    _print(items, ["key_id", "tenant_id", "name", "prefix", "created_at", "revoked_at"], as_json)


@keys.command("revoke")
def revoke_key(
    key_id: Annotated[uuid.UUID, typer.Argument(help="The key's key_id.")], data_dir: DataDir = None
) -> None:
    """Revoke an API key (running servers refuse it within ENGRAM_API_KEY_CACHE_SECONDS)."""
    from app.tenants import service

    async def work(settings: Settings, conn: AsyncConnection) -> None:
        await service.revoke_key(conn, key_id=key_id)

    settings, _ = _run(data_dir, work)
    typer.echo(f"revoked {key_id} (running servers refuse it within {settings.api_key_cache_seconds:g} s)")


@tenants.command("list")
def list_tenants(data_dir: DataDir = None, as_json: AsJson = False) -> None:
    """List tenants with their live keys, users, webhook endpoints and limits."""
    from app.tenants import service

    async def work(settings: Settings, conn: AsyncConnection) -> list[Any]:
        return await _all_pages(lambda page: service.list_tenants(conn, page=page))

    _, items = _run(data_dir, work)
    columns = ["tenant_id", "created_at", "keys", "users", "webhooks", "rate_limit_rps", "messages_per_day"]
    _print(items, columns, as_json)


@tenants.command("delete")
def delete_tenant(
    tenant: Annotated[str, typer.Argument(help="The tenant to delete.")],
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
    data_dir: DataDir = None,
) -> None:
    """Delete a tenant and everything it owns: keys, users, sessions, messages, summaries, facts
    and their history, webhooks, and its Redis entries. Irreversible."""
    from app.tenants import purge

    if not yes:
        typer.confirm(f"Delete tenant {tenant} and everything it owns? This cannot be undone", abort=True)

    async def work(settings: Settings, conn: AsyncConnection) -> list[tuple[str, str]]:
        _check_id(settings, tenant, "tenant")
        return await purge.delete_tenant(conn, tenant_id=tenant)

    _, evict = _run(data_dir, work, _evict)
    typer.echo(f"deleted tenant {tenant} ({len(evict)} sessions)")


async def _evict(settings: Settings, engine: AsyncEngine, evict: list[tuple[str, str]]) -> None:
    """Evict the deleted sessions' Redis windows now, as the API does after a purge (what Redis
    misses stays recorded for the worker's sweep)."""
    from app.cache import evictions
    from app.cache.window import WindowCache
    from app.metrics import Metrics
    from app.redis_client import make_redis

    redis = make_redis(settings.redis_url, timeout=settings.redis_timeout_seconds)
    cache = WindowCache(
        redis, window=settings.cache_window_messages, ttl=settings.cache_ttl_seconds, metrics=Metrics()
    )
    try:
        await evictions.evict_now(engine, cache, evict)
    finally:
        if redis is not None:
            await redis.aclose()

"""Migrations build the schema from nothing, and the models agree with them."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from pgvector.sqlalchemy import Vector
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from app.db.embedded import EmbeddedPostgres
from app.db.engine import async_url
from app.db.migrate import alembic_config, upgrade
from app.db.models import metadata
from tests.support.db import create_database


def _ignore_vector_dim(ctx: object, i: object, m: object, it: object, mt: object) -> bool | None:
    return False if isinstance(mt, Vector) else None


async def test_upgrade_head_on_empty_database_matches_models(pg: EmbeddedPostgres) -> None:
    url = await create_database(pg, migrate=False)
    await upgrade(url, 384)
    await _assert_matches_models(url)


async def test_the_tests_databases_are_copies_at_head_and_apart(pg: EmbeddedPostgres) -> None:
    """tests.support.db copies a migrated template instead of migrating each database: a copy is
    at the head revision with the whole schema, and a row written in one is not in another."""
    first, second = await create_database(pg), await create_database(pg)
    await _assert_matches_models(first)
    heads = set()
    for url in (first, second):
        engine = create_async_engine(async_url(url))
        async with engine.begin() as conn:
            heads.add((await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar())
            if url == first:
                await conn.execute(text("INSERT INTO tenants (tenant_id) VALUES ('only-in-first')"))
            found = await conn.scalar(text("SELECT count(*) FROM tenants WHERE tenant_id = 'only-in-first'"))
        await engine.dispose()
        assert found == (1 if url == first else 0)
    script = ScriptDirectory.from_config(alembic_config(first, 384))
    assert heads == {script.get_current_head()}


async def _assert_matches_models(url: str) -> None:
    engine = create_async_engine(async_url(url))

    def diff(conn: Connection) -> list[object]:
        ctx = MigrationContext.configure(conn, opts={"compare_type": _ignore_vector_dim})
        return list(compare_metadata(ctx, metadata))

    async with engine.connect() as conn:
        drift = await conn.run_sync(diff)
        dim = (
            await conn.execute(
                text(
                    "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                    "WHERE attrelid = 'messages'::regclass AND attname = 'embedding'"
                )
            )
        ).scalar()
        ext = (
            await conn.execute(text("SELECT extversion FROM pg_extension WHERE extname='vector'"))
        ).scalar()
    await engine.dispose()
    assert drift == [], f"models and migrations disagree: {drift}"
    assert dim == "vector(384)"
    assert ext is not None


async def test_upgrade_is_idempotent_and_dimension_is_a_setting(pg: EmbeddedPostgres) -> None:
    url = await create_database(pg, migrate=False)
    await upgrade(url, 768)
    await upgrade(url, 768)  # already at head: nothing to do, no error
    engine = create_async_engine(async_url(url))
    async with engine.connect() as conn:
        dim = (
            await conn.execute(
                text(
                    "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                    "WHERE attrelid = 'messages'::regclass AND attname = 'embedding'"
                )
            )
        ).scalar()
    await engine.dispose()
    assert dim == "vector(768)"

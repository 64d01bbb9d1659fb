"""Migrations build the schema from nothing, and the models agree with them."""

from __future__ import annotations

import uuid

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from pgvector.sqlalchemy import Vector
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from app.db.embedded import EmbeddedPostgres
from app.db.engine import async_url
from app.db.migrate import upgrade
from app.db.models import metadata


async def _fresh_database(pg: EmbeddedPostgres) -> str:
    name = f"mig_{uuid.uuid4().hex[:10]}"
    engine = create_async_engine(async_url(pg.url), isolation_level="AUTOCOMMIT")
    async with engine.connect() as conn:
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
    await engine.dispose()
    return pg.url.replace("/postgres?", f"/{name}?")


def _ignore_vector_dim(ctx: object, i: object, m: object, it: object, mt: object) -> bool | None:
    return False if isinstance(mt, Vector) else None


async def test_upgrade_head_on_empty_database_matches_models(pg: EmbeddedPostgres) -> None:
    url = await _fresh_database(pg)
    await upgrade(url, 384)
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
    url = await _fresh_database(pg)
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

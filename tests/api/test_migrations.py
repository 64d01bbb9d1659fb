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


async def test_the_sentence_table_migration_moves_vectors_and_gives_queued_work_back(
    pg: EmbeddedPostgres,
) -> None:
    """0018 moves the sentence vectors into message_sentences; its downgrade moves them back and
    marks pending the messages whose sentences were still queued (the older worker makes them
    only with the message's own vector), so none is left neither made nor queued."""
    from alembic import command

    url = await create_database(pg, migrate=False)
    await upgrade(url, 384, revision="0017_user_terms")
    engine = create_async_engine(async_url(url))
    try:
        async with engine.begin() as conn:
            await conn.execute(text("INSERT INTO tenants (tenant_id) VALUES ('t')"))
            await conn.execute(text("INSERT INTO users (tenant_id, user_id) VALUES ('t', 'u')"))
            await conn.execute(
                text("INSERT INTO sessions (tenant_id, session_id, user_id) VALUES ('t', 's', 'u')")
            )
            await conn.execute(
                text(
                    "INSERT INTO messages (message_id, tenant_id, session_id, user_id, seq, role, content, "
                    "token_count, embed_status, sentence_vecs) SELECT gen_random_uuid(), 't', 's', 'u', g, "
                    "'user', 'turn ' || g, 2, 'done', CASE WHEN g < 3 THEN '\\x0102'::bytea END "
                    "FROM generate_series(1, 3) g"
                )
            )
        await upgrade(url, 384)
        async with engine.begin() as conn:
            moved = (
                await conn.execute(text("SELECT count(*) FROM message_sentences WHERE vecs IS NOT NULL"))
            ).scalar()
            assert moved == 2
            # A third message's sentences queued when the downgrade comes.
            await conn.execute(
                text(
                    "INSERT INTO message_sentences (message_id, tenant_id, user_id, session_id, due_at) "
                    "SELECT message_id, tenant_id, user_id, session_id, now() FROM messages WHERE seq = 3"
                )
            )

        def down(conn: Connection) -> None:
            cfg = alembic_config(url, 384)
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "0017_user_terms")

        async with engine.begin() as conn:
            await conn.run_sync(down)
        async with engine.connect() as conn:
            rows = (
                await conn.execute(
                    text("SELECT seq, sentence_vecs IS NOT NULL, embed_status FROM messages ORDER BY seq")
                )
            ).all()
        assert [tuple(r) for r in rows] == [(1, True, "done"), (2, True, "done"), (3, False, "pending")]
    finally:
        await engine.dispose()

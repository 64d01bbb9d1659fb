"""Alembic environment: async engine, or the connection handed over by app.db.migrate."""

from __future__ import annotations

import asyncio
from typing import Any

from alembic import context
from pgvector.sqlalchemy import Vector
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from app.db.engine import async_url
from app.db.models import metadata

config = context.config


def _compare_type(
    ctx: Any, inspected: Any, metadata_col: Any, inspected_type: Any, metadata_type: Any
) -> bool | None:
    # The embedding dimension is chosen at install time (ENGRAM_EMBEDDING_DIM), not in the model.
    if isinstance(metadata_type, Vector):
        return False
    return None


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        compare_type=_compare_type,
        include_schemas=False,
    )
    with context.begin_transaction():
        context.run_migrations()


def _url() -> str:
    # `alembic -x url=postgresql://... revision --autogenerate -m slug` for new revisions.
    given = context.get_x_argument(as_dictionary=True).get("url")
    return async_url(given) if given else (config.get_main_option("sqlalchemy.url") or "")


async def _run_async() -> None:
    engine = create_async_engine(_url())
    async with engine.begin() as conn:
        await conn.run_sync(_run)
    await engine.dispose()


if context.is_offline_mode():
    context.configure(url=_url(), target_metadata=metadata)
    with context.begin_transaction():
        context.run_migrations()
elif (conn := config.attributes.get("connection")) is not None:
    _run(conn)
else:
    asyncio.run(_run_async())

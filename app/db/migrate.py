"""Apply Alembic migrations from code (`engram migrate`, `engram serve`, tests)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from app.db.engine import async_url

MIGRATION_LOCK = 0x656E6772616D  # "engram"


class PgvectorMissing(RuntimeError):
    """The PostgreSQL server cannot `CREATE EXTENSION vector`."""


def migrations_dir() -> Path:
    """The source checkout's `migrations/` (editable install), else the working directory's."""
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file() and (root / "migrations" / "env.py").is_file():
        return root / "migrations"
    cwd = Path.cwd() / "migrations"
    if (cwd / "env.py").is_file():
        return cwd
    raise FileNotFoundError("cannot find the migrations/ folder (run from the project root)")


def alembic_config(url: str, embedding_dim: int) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    cfg.set_main_option("sqlalchemy.url", async_url(url).replace("%", "%%"))
    cfg.attributes["embedding_dim"] = embedding_dim
    return cfg


def _check_pgvector(conn: Connection) -> None:
    found = conn.execute(text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")).scalar()
    if not found:
        raise PgvectorMissing(
            "this PostgreSQL server has no pgvector extension ('vector'): install pgvector "
            "(e.g. use the pgvector/pgvector image) or unset ENGRAM_DATABASE_URL to run the "
            "embedded PostgreSQL that ships with it"
        )


async def upgrade(url: str, embedding_dim: int, revision: str = "head") -> None:
    cfg = alembic_config(url, embedding_dim)
    engine = create_async_engine(async_url(url))

    def run(conn: Connection) -> None:
        # Several processes may start at once; one migrates, the others wait and find it done.
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
        _check_pgvector(conn)
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)

    try:
        async with engine.begin() as conn:
            await conn.run_sync(run)
    finally:
        await engine.dispose()

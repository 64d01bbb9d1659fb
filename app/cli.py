"""`engram` command line: serve, worker, migrate, openapi, mcp, keys, tenants, encryption."""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import resource
import signal
import socket
import sys
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any

import typer

from app.cli_admin import keys, tenants
from app.cli_common import settings_with as _settings_with
from app.cli_common import start_embedded_if_needed as _start_embedded_if_needed
from app.cli_encryption import encryption

if TYPE_CHECKING:
    from app.config import Settings

app = typer.Typer(help="Engram: a memory service for AI agents.", no_args_is_help=True)
app.add_typer(keys, name="keys")
app.add_typer(tenants, name="tenants")
app.add_typer(encryption, name="encryption")


def _check_port_free(host: str, port: int) -> None:
    """Fail with one clear line before starting anything if the address cannot be listened on.

    uvicorn would say so too, but only after the database and the model were started, and inside
    a log line.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                why = f"port {port} on {host} is already in use; set ENGRAM_PORT or --port"
            elif exc.errno == errno.EACCES:
                why = f"not allowed to listen on port {port} on {host}; set ENGRAM_PORT or --port"
            else:
                why = f"cannot listen on {host}:{port} ({exc.strerror}); set ENGRAM_HOST or --host"
            typer.echo(f"engram: {why}", err=True)
            raise typer.Exit(1) from None


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (ENGRAM_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (ENGRAM_PORT).")] = None,
    workers: Annotated[int | None, typer.Option(help="API processes (ENGRAM_WORKERS).")] = None,
    data_dir: Annotated[Path | None, typer.Option(help="Embedded PostgreSQL home (ENGRAM_DATA_DIR).")] = None,
    migrate: Annotated[bool, typer.Option(help="Apply migrations before serving.")] = True,
) -> None:
    """Serve the API. Without ENGRAM_DATABASE_URL, starts the embedded PostgreSQL first."""
    import uvicorn

    from app.http_server import PROTOCOL
    from app.logging import configure_logging
    from app.prefork import APP, preload, serve_forked

    settings = _settings_with(host=host, port=port, workers=workers, data_dir=data_dir)
    configure_logging(settings.log_level, settings.log_json)
    _check_port_free(settings.host, settings.port)
    embedded = _start_embedded_if_needed(settings)
    failed = 0
    try:
        url = embedded.url if embedded else settings.database_url
        assert url is not None
        if migrate and settings.migrate_on_start:
            typer.echo("engram: applying database migrations", err=True)
        _prepare_database(settings, url, migrate=migrate and settings.migrate_on_start)
        typer.echo(
            f"engram: starting the API on http://{settings.host}:{settings.port} "
            "(/healthz answers first; /readyz once the model is loaded)",
            err=True,
        )
        # The API processes join the running server and find the schema current.
        os.environ["ENGRAM_DATABASE_URL"] = url
        os.environ["ENGRAM_MIGRATE_ON_START"] = "false"
        # uvicorn drains in-flight requests on SIGINT/SIGTERM, then re-raises the signal to the
        # handler it found. A recording handler keeps that re-raise from killing this process
        # before the embedded PostgreSQL is stopped below.
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, _record_signal)
        _raise_open_files(settings.max_connections + settings.db_pool_size + settings.db_max_overflow + 256)
        options: dict[str, Any] = {
            "factory": True,
            "host": settings.host,
            "port": settings.port,
            "log_config": None,
            "access_log": False,
            "timeout_graceful_shutdown": 30,
            # Connection cap, header timeout and header size cap (uvicorn has none of them).
            "http": PROTOCOL,
            "timeout_keep_alive": settings.keep_alive_seconds,
        }
        if settings.workers == 1:
            uvicorn.run(APP, **options)
        else:
            # Imported once here and forked, so the API processes share those pages (app/prefork.py).
            app = preload(settings)
            if app is not None:
                options["factory"] = False
            failed = serve_forked(uvicorn.Config(app or APP, **options), settings.workers)
    finally:
        if embedded is not None:
            embedded.stop()
    _exit_now(1 if failed else 0)


def _prepare_database(settings: Settings, url: str, *, migrate: bool) -> None:
    """Apply the migrations and check the encryption keys, in a child process; stop with one line
    if either cannot be done. This process supervises the API processes for as long as they run,
    and what migrating builds (Alembic's environment, the engine, the pool) would stay in its memory
    for nothing. Forked, not spawned: a spawned child would leave multiprocessing's resource
    tracker running beside the supervisor (~7 MB PSS), and this process has no thread yet."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("fork")) as child:
        refused = child.submit(_prepare_in_child, settings, url, migrate).result()  # others raise
    if refused is not None:
        typer.echo(f"engram: {refused}", err=True)
        raise typer.Exit(1)


def _prepare_in_child(settings: Settings, url: str, migrate: bool) -> str | None:
    """None when the database is ready, else why not (pgvector missing, keys that do not fit)."""
    from app.crypto.keys import EncryptionKeyError
    from app.db.migrate import PgvectorMissing, upgrade

    async def prepare() -> None:
        if migrate:
            await upgrade(url, settings.embedding_dim)
        await _encryption_fits(settings, url)

    try:
        asyncio.run(prepare())
    except (PgvectorMissing, EncryptionKeyError) as exc:
        return str(exc)
    return None


async def _encryption_fits(settings: Settings, url: str) -> None:
    """Raise EncryptionKeyError when ENGRAM_ENCRYPTION_KEYS does not fit the database
    (app/crypto/keys.py)."""
    from app.crypto.keys import start_encryption
    from app.db.engine import make_engine

    engine = make_engine(settings, url, pool_size=1, max_overflow=0, application_name="engram-cli")
    try:
        await start_encryption(settings.encryption_keys, engine, keep_keywords=settings.keeps_keywords)
    finally:
        await engine.dispose()


def _check_encryption(settings: Settings, url: str) -> None:
    """Stop with one line when ENGRAM_ENCRYPTION_KEYS does not fit the database."""
    from app.crypto.keys import EncryptionKeyError

    try:
        asyncio.run(_encryption_fits(settings, url))
    except EncryptionKeyError as exc:
        typer.echo(f"engram: {exc}", err=True)
        raise typer.Exit(1) from None


@app.command()
def worker(
    data_dir: Annotated[Path | None, typer.Option(help="Embedded PostgreSQL home.")] = None,
) -> None:
    """Run the worker alone (embeddings and other derived work) until SIGINT/SIGTERM.

    Start as many as the machine has cores for; they share the queue without overlap.
    """
    from app.logging import configure_logging
    from app.worker_main import run_worker

    settings = _settings_with(data_dir=data_dir)
    configure_logging(settings.log_level, settings.log_json)
    embedded = _start_embedded_if_needed(settings)
    try:
        url = embedded.url if embedded else settings.database_url
        assert url is not None
        _check_encryption(settings, url)
        asyncio.run(run_worker(settings, url))
    finally:
        if embedded is not None:
            embedded.stop()
    _exit_now()


@app.command()
def migrate(
    data_dir: Annotated[Path | None, typer.Option(help="Embedded PostgreSQL home.")] = None,
) -> None:
    """Apply the database migrations (embedded server, or ENGRAM_DATABASE_URL)."""
    from app.db.migrate import PgvectorMissing, upgrade

    settings = _settings_with(data_dir=data_dir)
    embedded = _start_embedded_if_needed(settings)
    try:
        url = embedded.url if embedded else settings.database_url
        assert url is not None
        asyncio.run(upgrade(url, settings.embedding_dim))
    except PgvectorMissing as exc:
        typer.echo(f"engram: {exc}", err=True)
        raise typer.Exit(1) from None
    finally:
        if embedded is not None:
            embedded.stop()
    typer.echo("migrations applied")


@app.command()
def openapi(
    output: Annotated[Path | None, typer.Option(help="Write here instead of stdout.")] = None,
    check: Annotated[bool, typer.Option(help="Exit 1 if OUTPUT differs from the app's spec.")] = False,
) -> None:
    """Print (or write, or check) the OpenAPI spec generated from the app."""
    from app.openapi import render_spec

    spec = render_spec()
    if output is None:
        sys.stdout.write(spec)
        return
    if check:
        current = output.read_text() if output.exists() else ""
        if current != spec:
            typer.echo(f"{output} is stale: run `engram openapi --output {output}`", err=True)
            raise typer.Exit(1)
        typer.echo(f"{output} is current")
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(spec)
    typer.echo(f"wrote {output} ({len(json.loads(spec)['paths'])} paths)")


@app.command()
def mcp(
    url: Annotated[
        str, typer.Option(envvar="ENGRAM_URL", help="The Engram server to speak to.")
    ] = "http://127.0.0.1:8000",
    key: Annotated[
        str | None,
        typer.Option(envvar="ENGRAM_API_KEY", help="Its API key (none when its auth is off)."),
    ] = None,
) -> None:
    """Serve Engram's MCP tools over stdio (for desktop MCP clients), calling a remote Engram.

    The same tools as its Streamable HTTP endpoint at /mcp; every call is a REST call to URL with KEY.
    """
    from app.mcp.stdio import serve_stdio

    asyncio.run(serve_stdio(url, key))


def _raise_open_files(wanted: int) -> None:
    """Each connection is a file descriptor: let the soft limit reach what MAX_CONNECTIONS needs."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def _exit_now(code: int = 0) -> None:
    """Exit now that everything is stopped and flushed, skipping the interpreter's teardown.

    Its final garbage collection of every module loaded took 5 of the 5.8 s between SIGTERM and
    exit on a loaded 2-core machine (the server itself had stopped 0.6 s after the signal).
    """
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _record_signal(signum: int, frame: FrameType | None) -> None:
    """Shutdown was asked for; uvicorn has already drained, so there is nothing more to do."""


def main() -> None:
    app()


if __name__ == "__main__":  # `python -m app.cli`
    main()
